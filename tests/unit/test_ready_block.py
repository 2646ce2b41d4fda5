"""The ready-to-send block's words (render/ready_block.py) and its data in each kind of phase
(service/ready_block.py): orders on file, the defaults, retreats, builds and removals."""

from __future__ import annotations

import random

import pytest
from helpers.boards import position

from mailjudge.game.state import get_game
from mailjudge.inbound.own_words import read_reply
from mailjudge.inbound.parse import command_lines, parse_mail
from mailjudge.inbound.quoted_block import (
    MASKED,
    PLACEHOLDER_LEFT,
    TOKEN,
    TYPED,
    copied_blocks,
    edited_quoted_block,
)
from mailjudge.render.ready_block import PASSWORD_PLACEHOLDER, comment, ready_block
from mailjudge.service.games import create_game, start_game
from mailjudge.service.orders import submit_orders
from mailjudge.service.ready_block import ready_lines
from mailjudge.service.seats import join, seat_for_power
from mailjudge.store.models import Game, Outbox, Seat

DEFAULT = "// (no order on file: the judge's default)"


def test_a_comment_is_wrapped_after_commas_within_78_columns() -> None:
    choices = ", ".join(f"S A PAR - {p}" for p in ("BUR", "GAS", "PIC", "BRE", "MAR", "PIE"))
    lines = comment(f"A MAR: H, - BUR, {choices}, {choices}")
    assert len(lines) > 1 and all(len(line) <= 78 for line in lines)
    assert all(line.rstrip().endswith(",") for line in lines[:-1])  # never inside an order
    assert all(line.startswith("//     ") for line in lines[1:])
    assert command_lines("\n".join(lines)) == []  # the reader skips every one of them


def test_no_power_to_order_gives_no_block() -> None:
    assert ready_block("france@g", "Spring 1901 movement", []) == []


def _game(phase: str, units: list[str], owners: dict[str, str], **extra: object) -> Game:
    game = create_game("rb", "gm@example.org", "pw", rules="START_MASTER")
    for i in range(7):
        join(game, f"p{i}@example.org", f"pw{i}", rng=random.Random(i))
    start_game(get_game("rb"), random.Random(1))
    game = get_game("rb")
    game.phase, game.position = phase, {**position(phase, units, owners), **extra}
    game.save()
    return get_game("rb")


def _seat(game: Game, power: str) -> Seat:
    return seat_for_power(game, power)


@pytest.mark.usefixtures("sqlite_db")
def test_movement_orders_on_file_and_defaults() -> None:
    game = _game("S1901M", ["FRANCE A par", "FRANCE F bre"], {"par": "FRANCE", "bre": "FRANCE"})
    seat = _seat(game, "FRANCE")
    submit_orders(game, seat, "FRANCE", ["A PAR - BUR"])
    lines = ready_lines(get_game("rb"), seat)
    assert lines[lines.index(f"SIGNON {seat.name.lower()}@rb {PASSWORD_PLACEHOLDER}") + 1] == (
        "ORDERS FRANCE S1901M"
    )
    assert lines[lines.index("F BRE H") + 1] == DEFAULT
    assert lines[lines.index("A PAR - BUR") + 1].startswith("// A PAR: H, - BRE, - BUR,")
    assert lines[-1] == "END" and all(len(line) <= 78 for line in lines)
    assert ready_lines(game, _seat(game, "ENGLAND")) == []  # England has no unit here
    master = Seat.get((Seat.game == game) & (Seat.role == "master"))
    assert ready_lines(game, master) == []


@pytest.mark.usefixtures("sqlite_db")
def test_a_retreat_phase_offers_the_retreats_and_disbands_by_default() -> None:
    dislodged = [{"power": "FRANCE", "type": "A", "loc": "bur", "attacker_from": "mun"}]
    game = _game("S1901R", ["GERMANY A bur", "FRANCE A par"], {}, dislodged=dislodged)
    lines = ready_lines(game, _seat(game, "FRANCE"))
    at = lines.index("A BUR D")
    assert lines[at + 1] == DEFAULT
    assert lines[at + 2].startswith("// A BUR: R BEL, R GAS, R MAR, R PIC, R RUH, D")
    assert "A PAR H" not in lines  # only the dislodged unit is ordered


@pytest.mark.usefixtures("sqlite_db")
def test_builds_and_removals_due() -> None:
    owners = {"par": "FRANCE", "mar": "FRANCE", "bre": "FRANCE", "spa": "FRANCE", "ber": "GERMANY"}
    units = ["FRANCE A bur", "GERMANY A ber", "GERMANY A mun", "GERMANY F kie"]
    game = _game("W1901A", units, owners)
    france = ready_lines(game, _seat(game, "FRANCE"))
    at = france.index("// FRANCE may build 3 units:")
    assert france[at + 1] == "// builds not ordered are waived."
    assert france.count("WAIVE") == 3 and DEFAULT in france
    assert any(line.startswith("// PAR: A PAR B, WAIVE") for line in france)
    germany = ready_lines(game, _seat(game, "GERMANY"))
    at = germany.index("// GERMANY must remove 2 units:")
    assert germany[at + 1] == "// removals not ordered are chosen by the game's rule."
    assert "// A MUN: D" in germany and "// F KIE: D" in germany


def test_only_a_block_signed_inside_a_single_quote_is_taken_out_of_it() -> None:
    block = ["SIGNON france@g {pw}", "ORDERS FRANCE", "A PAR - BUR", "// A PAR: H", "END"]

    def quoted(password: str, mark: str = "> ") -> str:
        return "\n".join(mark + line.format(pw=password) for line in block) + "\n> -- \n"

    assert edited_quoted_block("Hi\n" + quoted("s3cret")) == [
        line.format(pw="s3cret") for line in block
    ]
    assert edited_quoted_block(quoted(PASSWORD_PLACEHOLDER)) == []  # not filled in
    assert edited_quoted_block(quoted("****")) == []  # an answer's masked echo
    assert edited_quoted_block(quoted("s3cret", "> > ")) == []  # a mail quoted in a mail
    assert edited_quoted_block(quoted("s3cret").replace("> END", "> (end)")) == []


def test_a_block_in_an_unquoted_copy_is_found_only_in_the_copy() -> None:
    """Outlook, Samsung and Yahoo copy the mail unquoted (issue 53 point 1): from where
    the copy begins, a block is found as it stands, and what its SIGNON line holds says
    whose hand it shows; the writer's own lines above the copy are not the copy's."""
    mine = "SIGNON france@g mine\nORDERS FRANCE\nA PAR H\nEND\n"
    copy = ("From: mailjudge <judge@example.test>\nSent: Monday\n\nResults.\n\n"
            "// Ready to send\n  SIGNON france@g {pw} \nORDERS FRANCE S1901M\nA PAR - BUR\n"
            "// A PAR: H, - BUR\n\nEND\nORDERS ITALY S1901M\nA VEN H\nEND\n\nYou are FRANCE.\n")  # fmt: skip
    body = mine + "\n" + copy.format(pw="s3cret")
    found = copied_blocks(body, len(mine) + 1)
    assert len(found) == 1 and found[0].signed == TYPED and found[0].name == "france@g"
    assert found[0].lines[0] == "SIGNON france@g s3cret" and found[0].lines[-1] == "END"
    assert "ORDERS ITALY S1901M" in found[0].lines  # a second power's block goes with it
    assert copied_blocks(body, None) == []  # no copy: nothing unquoted is the copy's
    kinds = {pw: copied_blocks(mine + copy.format(pw=pw), len(mine))[0].signed
             for pw in (PASSWORD_PLACEHOLDER, "****", "TOKEN:ABCDEFGHIJKLMNOP", "s3cret")}  # fmt: skip
    assert kinds == {PASSWORD_PLACEHOLDER: PLACEHOLDER_LEFT, "****": MASKED,
                     "TOKEN:ABCDEFGHIJKLMNOP": TOKEN, "s3cret": TYPED}  # fmt: skip
    # What the player edits is the order lines, whatever the spacing and case.
    edited = copied_blocks(mine + copy.format(pw="x").replace("A PAR - BUR", "a par -  pic"), 0)
    unedited = copied_blocks(mine + copy.format(pw="x").replace("A PAR - BUR", "a par -  bur"), 0)
    assert edited[1].orders != unedited[1].orders == found[0].orders


OLD_STYLE = """Results of rb, S1901M:

// Ready to send for Fall 1901 movement: write your password in the SIGNON
//     line, change the orders you want to change and send these lines.
SIGNON france@rb YOUR-PASSWORD
ORDERS FRANCE
A PAR H
// (no order on file: the judge's default)
END
"""


@pytest.mark.usefixtures("sqlite_db")
def test_a_block_of_a_mail_sent_before_blocks_named_their_phase_gets_it() -> None:
    """A mail the judge sent before its ORDERS lines named their phase: the block read
    from the copy of it names the phase the block's first line gave (so, sent back in a
    later phase, it is refused), as a block of today's mails does (issue 53 point 2)."""
    Outbox.create(to_addrs="france@players.test", subject="[rb] results S1901M",
                  raw=f"Message-ID: <old@judge.test>\n\n{OLD_STYLE}".encode(),
                  message_id="<old@judge.test>", state="sent")  # fmt: skip
    edited = OLD_STYLE.replace("YOUR-PASSWORD", "s3cret").replace("A PAR H", "A PAR - BUR")
    quoted = "\n".join(f"> {line}" for line in edited.splitlines())
    raw = ("From: france@players.test\nTo: judge@example.test\nSubject: Re: results\n"
           "Message-ID: <r@players.test>\nIn-Reply-To: <old@judge.test>\n\nHere.\n\n"
           f"On Mon, Nov 23, 2026 at 11:43:24PM +0000, judge@example.test wrote:\n{quoted}\n")  # fmt: skip
    text = read_reply(parse_mail(raw.encode()), "judge@example.test").text
    assert text.splitlines() == ["Here.", "SIGNON france@rb s3cret", "ORDERS FRANCE F1901M",
                                 "A PAR - BUR", "END"]  # fmt: skip
