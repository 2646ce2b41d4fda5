"""Nothing a person writes is misread (issue 31, points 2, 3 and 7), each played by mail
through the judge's SMTP listener."""

from __future__ import annotations

from email.message import EmailMessage

from helpers.e2e import Harness, player, seated, set_up_game, text_of, wire
from helpers.replyforms import reply_mail

from mailjudge.game.state import get_game, orders_on_file
from mailjudge.inbound.spool import counts
from mailjudge.store.models import Game, Seat

BASE = ["A MAR H", "A PAR - BUR", "F BRE - MAO"]


def france(game: str) -> list[str]:
    return sorted(line.text for line in orders_on_file(get_game(game)).get("FRANCE", []))


def flat(text: str) -> str:
    return " ".join(text.split())


def test_a_refused_order_keeps_the_order_on_file(harness: Harness) -> None:
    h = harness
    set_up_game(h, "keep")
    table = seated(h, "keep")
    table.send_orders("FRANCE", ["ORDERS", *BASE, "END"])
    answer = h.command(player("FRANCE"), f"{table.signon('FRANCE')}\nA Par-Mun\n")
    assert "not accepted: A Par-Mun" in answer
    assert "A PAR - BUR kept: the order on file stands" in answer
    assert france("keep") == sorted(BASE)
    # In an ORDERS block too: the refused line's unit keeps its order, the named one
    # changes, and the unit the block does not name keeps its order (issue 53 point 2).
    answer = h.command(player("FRANCE"),
                       f"{table.signon('FRANCE')}\nORDERS\nA PAR - MUN\nA MAR - SPA\nEND\n")  # fmt: skip
    assert "A PAR - BUR kept" in answer
    assert "kept on file, as the block does not name their units: F BRE - MAO" in flat(answer)
    assert france("keep") == ["A MAR - SPA", "A PAR - BUR", "F BRE - MAO"]


def test_a_stray_line_after_join_is_answered_and_the_player_joined(harness: Harness) -> None:
    h = harness
    h.command("master@example.test", "CREATE forming masterpw")
    answer = h.command(player("FRANCE"), "JOIN forming pw-france-7\nThanks!\n")
    assert "you joined forming" in answer
    assert "Thanks! ok: not orders or commands, so left alone" in flat(answer)
    assert Seat.select().where(Seat.game == get_game("forming")).count() == 2
    assert counts()["shunted"] == 0


def test_dpjudges_create_block_is_read_where_the_judge_has_the_feature(harness: Harness) -> None:
    h = harness
    answer = h.command(
        "master@example.test",
        "CREATE dp masterpw\nprivate\nmap standard\ntiming move 2d\nrule no_press\n"
        "map atlantis\ndeadline tomorrow\n",
    )
    game = get_game("dp")
    assert game.private and "NO_PRESS" in game.rules and "MOVE 2D" in game.timing
    assert "the game is private" in answer and "the map is standard" in answer
    assert "timing: MOVE 2D" in answer and "rules now: NO_PRESS" in answer
    assert "there is no map 'atlantis'" in flat(answer) and "HELP MAPS" in flat(answer)
    assert "SET DEADLINE" in answer
    assert answer.count("ERROR") == 2
    assert counts()["shunted"] == 0


def test_forwarded_orders_are_said_to_be_unread(harness: Harness) -> None:
    h = harness
    set_up_game(h, "fwd")
    table = seated(h, "fwd")
    table.send_orders("FRANCE", ["ORDERS", *BASE, "END"])
    own = f"{table.signon('FRANCE')}\nORDERS\nA MAR - SPA\nA PAR H\nF BRE H\nEND"
    forward = reply_mail("gmail-forward", "FYI, as sent last night.", own, "orders",
                         player("FRANCE"), "<fwd-1@players.test>", None)  # fmt: skip
    h.deliver(player("FRANCE"), wire(forward))
    answer = flat(text_of(h.reply("<fwd-1@players.test>")))
    assert "never a forwarded mail" in answer
    assert "orders on file are unchanged" not in answer
    assert france("fwd") == sorted(BASE)


def test_prose_that_opens_with_a_province_is_left_alone(harness: Harness) -> None:
    h = harness
    set_up_game(h, "prose")
    table = seated(h, "prose")
    table.send_orders("FRANCE", ["ORDERS", *BASE, "END"])
    for prose in ("Paris is lovely in spring.", "Moscow sends its regards",
                  "Kiel, Berlin and Munich are all yours if you want them!"):  # fmt: skip
        answer = h.command(player("FRANCE"), f"{table.signon('FRANCE')}\n{prose}\n")
        assert "ERROR" not in answer and "Urk" not in answer, answer
        assert (
            f"{prose} ok: not orders or commands, so left alone; the orders on file are "
            "unchanged" in flat(answer)
        )
    # A line meant as an order is still refused with the reason (with a comma, "Par to
    # Bur, please." is the order and a word of small talk, as njudge cuts at commas).
    answer = h.command(player("FRANCE"), f"{table.signon('FRANCE')}\nPar to Bur please.\n")
    assert "ERROR" in answer
    assert france("prose") == sorted(BASE)


def test_a_signature_under_orders_does_not_say_they_are_unchanged(harness: Harness) -> None:
    h = harness
    set_up_game(h, "sig")
    table = seated(h, "sig")
    answer = h.command(player("FRANCE"),
                       f"{table.signon('FRANCE')}\nORDERS\n" + "\n".join(BASE)
                       + "\nEND\n\nCheers,\nFrancois\n")  # fmt: skip
    assert "Cheers, ... (2 lines)" in answer and "left alone" in answer
    assert "unchanged" not in answer
    assert france("sig") == sorted(BASE)


def test_a_reply_to_grey_press_is_said_to_reach_nobody(harness: Harness) -> None:
    h = harness
    set_up_game(h, "grey")
    table = seated(h, "grey")
    table.say(table.players["ENGLAND"],
              f"{table.signon('ENGLAND')}\nPRESS TO FRANCE GREY\nShall we?\nENDPRESS")  # fmt: skip

    def grey_copies() -> list[EmailMessage]:
        return [m.message for m in h.sink.mails
                if m.rcpt_tos == [player("FRANCE")] and "press from" in str(m.message["Subject"])]  # fmt: skip

    h.wait_until(grey_copies, what="the press copy to France")
    copy = grey_copies()[0]
    assert copy["Reply-To"] is None
    reply = reply_mail("gmail", "Yes, let's.", text_of(copy), str(copy["Subject"]),
                       player("FRANCE"), "<grey-1@players.test>", str(copy["Message-ID"]))  # fmt: skip
    h.deliver(player("FRANCE"), wire(reply))
    answer = flat(text_of(h.reply("<grey-1@players.test>")))
    assert "Reply to grey press reaches nobody" in answer


def test_no_check_a_unit_given_two_orders_in_one_block_holds(harness: Harness) -> None:
    h = harness
    table = seated(h, "nocheck")
    table.sign_on(rules="POWER_CHOICE +NO_CHECK")
    answer = h.command(player("FRANCE"), f"{table.signon('FRANCE')}\nORDERS\nA PAR - BUR\n"
                       "A PAR - PIC\nA MAR H\nF BRE H\nEND\n")  # fmt: skip
    assert "PAR has several orders: under NO_CHECK such a unit holds" in flat(answer)
    table.play_phase({})
    units = {loc for loc, unit in table.position().units.items() if unit.power == "FRANCE"}
    assert units == {"par", "mar", "bre"}
    # Bare lines, and a second mail adding an order for the same unit: it holds too.
    table.play_phase({"FRANCE": ["A PAR - BUR", "A PAR - PIC", "A MAR H", "F BRE H"]})
    units = {loc for loc, unit in table.position().units.items() if unit.power == "FRANCE"}
    assert units == {"par", "mar", "bre"}


STRAY = ["Thanks!", "A PAR - BUR", "Paris is lovely in spring.", "F BRE-MAO", "BUILD A PAR", "--x"]


def test_no_stray_line_crashes_a_mail_to_a_game_in_any_state(harness: Harness) -> None:
    """After JOIN in a forming game, SIGNON in an active, a paused and a finished one, and
    as the master of each: every stray line is answered, none shunts the mail."""
    h = harness
    h.command("master@example.test", "CREATE early masterpw")
    h.command(player("FRANCE"), "JOIN early pw-france-7")
    stray = "\n".join(STRAY) + "\n"
    mails = [
        (player("FRANCE"), "JOIN early pw-france-7\n" + stray),
        ("master@example.test", "SIGNON Mearly masterpw\n" + stray),
    ]
    for name, setting in (("running", ""), ("paused", "PAUSE"), ("ended", "DECLARE DRAW")):
        set_up_game(h, name)
        table = seated(h, name)
        if setting:
            table.say(table.master, f"SIGNON M{name} masterpw\n{setting}")
        mails += [
            (player("FRANCE"), f"{table.signon('FRANCE')}\n{stray}"),
            ("master@example.test", f"SIGNON M{name} masterpw\n{stray}"),
        ]
    for sender, text in mails:
        answer = h.command(sender, text)
        assert "Thanks!" in answer, (text, answer)
    assert counts()["shunted"] == 0


def test_lines_the_judge_cannot_place_are_answered_not_shunted(harness: Harness) -> None:
    """Whatever goes wrong while reading bare lines (here a board the judge's own store
    holds in a shape it cannot read), the mail is answered, the lines undone, the rest
    of the mail done: no traceback leaves it unanswered."""
    h = harness
    set_up_game(h, "broken")
    table = seated(h, "broken")
    Game.update(position={"not": "a board"}).where(Game.name == "broken").execute()
    answer = h.command(player("FRANCE"), f"{table.signon('FRANCE')}\nA PAR - BUR\nHELP\n")
    assert "the judge could not read these lines" in flat(answer), answer
    assert "HELP" in answer
    assert counts()["shunted"] == 0


def test_a_reply_to_press_passes_on_only_what_its_writer_wrote(harness: Harness) -> None:
    """Outlook's Reply to a press copy goes to the press's Reply-To, with the copy below a
    header block: the press that reaches the first writer holds the reply alone."""
    h = harness
    set_up_game(h, "talk")
    table = seated(h, "talk")
    table.say(table.players["ENGLAND"],
              f"{table.signon('ENGLAND')}\nPRESS TO FRANCE\nAn offer: A PAR - PIC\nENDPRESS")  # fmt: skip

    def to(power: str) -> list[EmailMessage]:
        return [m.message for m in h.sink.mails
                if m.rcpt_tos == [player(power)] and "press from" in str(m.message["Subject"])]  # fmt: skip

    h.wait_until(lambda: to("FRANCE"), what="the press copy to France")
    copy = to("FRANCE")[0]
    back = str(copy["Reply-To"])
    for form in ("outlook-desktop", "unknown-unquoted"):
        reply = reply_mail(form, f"{table.signon('FRANCE')}\nNo thanks, Paris stays.",
                           text_of(copy), str(copy["Subject"]), player("FRANCE"),
                           f"<press-{form}@players.test>", str(copy["Message-ID"]))  # fmt: skip
        reply.replace_header("To", back)
        h.deliver(player("FRANCE"), wire(reply))
        h.reply(f"<press-{form}@players.test>")
    h.wait_until(lambda: len(to("ENGLAND")) == 2, what="both replies as press to England")
    answers = [text_of(m) for m in to("ENGLAND")]
    assert len(answers) == 2 and all("No thanks, Paris stays." in a for a in answers), answers
    assert not any("An offer" in a or "A PAR - PIC" in a for a in answers), answers
