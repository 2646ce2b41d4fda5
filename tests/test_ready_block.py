"""The ready-to-send block's words (render/ready_block.py) and its data in each kind of phase
(service/ready_block.py): orders on file, the defaults, retreats, builds and removals."""

from __future__ import annotations

import random

import pytest
from boards import position

from mailjudge.game.state import get_game
from mailjudge.inbound.parse import command_lines
from mailjudge.inbound.quoted_block import edited_quoted_block
from mailjudge.models import Game, Seat
from mailjudge.render.ready_block import PASSWORD_PLACEHOLDER, comment, ready_block
from mailjudge.service.games import create_game, start_game
from mailjudge.service.orders import submit_orders
from mailjudge.service.ready_block import ready_lines
from mailjudge.service.seats import join, seat_for_power

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
        "ORDERS FRANCE"
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
