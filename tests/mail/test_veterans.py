"""Players and masters coming from njudge and DPjudge: every line of tests/data/veterans.txt
(their commands, from their documentation) is mailed through the SMTP listener after a
SIGNON in a running game. None is read as an order, none changes the orders on file, and
each is done (its effect checked) or answered with our nearest command."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.e2e import MASTER, POWERS, Harness, player, seated, secret, text_of

from mailjudge.engine.checker import parse_order
from mailjudge.engine.maps import load_map
from mailjudge.engine.orders import OrderError
from mailjudge.engine.state import Phase, Position, Unit, build_units
from mailjudge.game.state import get_game, orders_on_file
from mailjudge.store.models import Ballot, DiaryEntry, GameState, OrderLine, Outbox, Seat

CORPUS = Path(__file__).parents[1] / "data" / "veterans.txt"
GAME = "vets"


@dataclass
class Line:
    source: str
    who: str
    mail: str
    reply: str
    effect: str


def corpus() -> list[Line]:
    lines = []
    for raw in CORPUS.read_text(encoding="utf-8").splitlines():
        if raw.startswith("#") or not raw.strip():
            continue
        source, who, mail, reply, effect = (part.strip() for part in raw.split(" | "))
        lines.append(Line(source, who, mail.replace("\\n", "\n"), reply, effect))
    return lines


def test_the_corpus_has_two_hundred_lines_from_both_judges() -> None:
    lines = corpus()
    assert len(lines) >= 200
    assert any(line.source.startswith("njudge") for line in lines)
    assert any(line.source.startswith("DPjudge") for line in lines)
    assert all(line.who in (*POWERS, "MASTER") for line in lines)


def current_orders() -> dict[str, list[str]]:
    game = get_game(GAME)
    return {p: [line.text for line in lines] for p, lines in orders_on_file(game).items()}


def outbox_empty() -> bool:
    return Outbox.select().where(Outbox.state.in_(("queued", "sending"))).count() == 0


def press_reached(h: Harness, start: int, body: str) -> set[str]:
    """Who received press holding `body` among the mails since `start`."""
    reached = set()
    for mail in h.sink.mails[start:]:
        if "press from" in str(mail.message["Subject"]) and body in text_of(mail.message):
            reached.update(mail.rcpt_tos)
    return reached


def check_effect(h: Harness, line: Line, start: int, who: str) -> None:
    game = get_game(GAME)
    effect = line.effect
    seat = Seat.get((Seat.game == game) & (Seat.name == who.lower())) if who != "MASTER" else None
    if effect == "-":
        return
    if effect.startswith("press:"):
        body = line.mail.split("\n")[-2]  # the last line before ENDPRESS
        wanted = effect.split(":", 1)[1].split()
        if wanted[0].startswith("ALL"):  # ALL, or ALL-FM: everyone but France and the master
            sender = player(who) if who != "MASTER" else MASTER
            seated_now = Seat.select().where(
                (Seat.game == game) & (Seat.role == "player") & Seat.person.is_null(False)
            )
            left_out = {p for p in POWERS if p[0] in wanted[0][4:]}
            everyone = {s.person.email for s in seated_now} - {sender}
            everyone -= {player(p) for p in left_out}
            h.wait_until(lambda: press_reached(h, start, body) >= everyone, what=line.mail)
            h.wait_until(outbox_empty, what="the judge to send everything")
            reached = press_reached(h, start, body)
            assert not reached & {player(p) for p in left_out}, line.mail
            if "M" in wanted[0][4:]:
                assert MASTER not in reached, line.mail
        else:
            addresses = {MASTER if p == "MASTER" else player(p) for p in wanted}
            h.wait_until(lambda: press_reached(h, start, body) >= addresses, what=line.mail)
            h.wait_until(outbox_empty, what="the judge to send everything")
            assert press_reached(h, start, body) == addresses, line.mail
        return
    if effect.startswith("future:"):
        phase = effect.split(":", 1)[1]
        assert (
            OrderLine.select()
            .where((OrderLine.game == game) & (OrderLine.phase == phase) & (OrderLine.power == who))
            .count()
            >= 1
        ), f"{line.mail!r}: nothing sent ahead for {phase}"
        return
    if effect.startswith("reset:"):
        _, power, _ = effect.split(":")
        subject = f"a new password for {power.lower()}"
        h.wait_until(lambda: any(subject in str(m.message["Subject"]) and m.rcpt_tos == [player(power)]
                                 for m in h.sink.mails[start:]), what="the reset notice")  # fmt: skip
        return
    checks = {
        "future": lambda: OrderLine.select().where(
            (OrderLine.game == game) & (OrderLine.phase == "F1901M") & (OrderLine.power == who)
        ).count() >= 1,
        "diary": lambda: DiaryEntry.select().where(DiaryEntry.game == game).count() == 1,
        "wait": lambda: seat is not None and Seat.get_by_id(seat.id).wait,
        "nowait": lambda: seat is not None and not Seat.get_by_id(seat.id).wait,
        "absence": lambda: seat is not None and Seat.get_by_id(seat.id).absence != "",
        "noabsence": lambda: seat is not None and Seat.get_by_id(seat.id).absence == "",
        "draw": lambda: [b.content for b in Ballot.select().where(Ballot.voter == seat)] == ["DRAW"],
        "nodraw": lambda: Ballot.select().where(Ballot.voter == seat).count() == 0,
        "concede": lambda: [b.content for b in Ballot.select().where(Ballot.voter == seat)] == ["CONCEDE FRANCE"],
        "paused": lambda: game.state == GameState.PAUSED,
        "resumed": lambda: game.state == GameState.ACTIVE,
        "ejected": lambda: Seat.get((Seat.game == game) & (Seat.name == "turkey")).person is None,
        "resigned": lambda: seat is not None and Seat.get_by_id(seat.id).person is None,
        "password": lambda: True,  # the next mails sign on with the new one
        "deadline": lambda: game.deadline is not None,
        "private": lambda: game.private,
        "public": lambda: not game.private,
    }  # fmt: skip
    assert checks[effect](), f"{line.mail!r}: {effect} not done"


def orders_effect(line: Line, before: dict[str, list[str]]) -> str | None:
    """What is wrong with the orders on file after ``line`` (None: nothing): only the power
    its effect names may change, and it must then hold the orders named."""
    now = current_orders()
    if line.effect == "rejected":
        added = {p: set(v) - set(before.get(p, [])) for p, v in now.items()}
        return f"an order was filed: {added}" if any(added.values()) else None
    if not line.effect.startswith("order:"):
        return None if now == before else f"the orders on file changed: {now} (were {before})"
    wanted = line.effect.split(":", 1)[1]
    power, _, texts = wanted.rpartition("=")
    power = power or line.who
    others = {p: v for p, v in now.items() if p != power}
    if others != {p: v for p, v in before.items() if p != power and v}:
        return f"another power's orders changed: {now} (were {before})"
    missing = [t for t in texts.split(";") if t not in now.get(power, [])]
    return f"{power} lacks {missing} (has {now.get(power)})" if missing else None


def test_every_veteran_line_by_mail(harness: Harness) -> None:
    h = harness
    table = seated(h, GAME)
    table.sign_on()
    passwords = {p: secret(p) for p in POWERS}
    # Orders on file for four powers (the others owe theirs, so the phase waits).
    for power, lines in {"FRANCE": ["A PAR H", "A MAR H", "F BRE H"],
                         "ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"],
                         "GERMANY": ["A BER H", "A MUN H", "F KIE H"],
                         "ITALY": ["A VEN H", "A ROM H", "F NAP H"]}.items():  # fmt: skip
        table.send_orders(power, lines)
    on_file = current_orders()
    every_secret = set(passwords.values()) | {"masterpw", "newsecret", "newfrance", "lostpw"}
    counts = {"same meaning": 0, "refused with our form": 0}
    wrong: list[str] = []
    for line in corpus():
        if line.who == "MASTER":
            sender, signon = MASTER, f"SIGNON M{GAME} masterpw"
        else:
            sender = player(line.who)
            signon = f"SIGNON {line.who.lower()}@{GAME} {passwords[line.who]}"
        start = len(h.sink.mails)
        reply = h.command(sender, f"{signon}\n{line.mail}")
        flat = " ".join(reply.split())
        problems = []
        if line.reply not in flat:
            problems.append(f"the answer lacks {line.reply!r}")
        if "not orders or commands" in reply:
            problems.append("answered 'left alone'")
        if any(word in reply for word in every_secret):
            problems.append("the reply shows a password")
        if line.effect == "cleared":
            if current_orders().get(line.who):
                problems.append("the orders were not withdrawn")
        elif (changed := orders_effect(line, on_file)) is not None:
            problems.append(changed)
        # A new password counts only once the judge said it was set (the rest of the lines
        # are still read if it was not).
        if line.effect == "password" and not problems:
            passwords[line.who] = line.mail.split()[-1]
        if line.effect.startswith("reset:") and not problems:
            _, power, new = line.effect.split(":")
            passwords[power] = new
        try:
            if line.effect.split(":")[0] not in ("order", "cleared", "rejected"):
                check_effect(h, line, start, line.who)
        except (AssertionError, TimeoutError) as err:
            problems.append(str(err))
        on_file = current_orders()
        if problems:
            wrong.append(f"{line.source}: {line.mail!r}: {'; '.join(problems)}\n{reply}")
        else:
            counts["refused with our form" if "ERROR" in reply else "same meaning"] += 1
    print(f"\nveterans corpus: {len(corpus())} lines: " + ", ".join(
        f"{n} {what}" for what, n in counts.items()) + f", {len(wrong)} wrong")  # fmt: skip
    assert not wrong, "\n\n".join(wrong)

    # The orders sent ahead under PHASE are on file when Fall 1901 begins, not before.
    assert "processed" in h.command(MASTER, f"SIGNON M{GAME} masterpw\nPROCESS!")
    assert get_game(GAME).phase == "F1901M"
    france = current_orders()["FRANCE"]
    # A PAR's conditional order was sent after its plain one (A PAR - PIC), so it stands:
    # IF A PAR AND NOT F BRE, A PAR - BUR, else A PAR - PIC.
    fleet_left_brest = "bre" not in table.position().units
    assert ("A PAR - BUR" if fleet_left_brest else "A PAR - PIC") in france
    assert "A MAR - PIE" in france and not any(o.startswith("IF ") for o in france)

    # njudge's header opens the results mail, for the tools that read njudge results.
    h.wait_until(lambda: bool(h.results_for(GAME, "S1901M")), what="the results")
    first = text_of(h.results_for(GAME, "S1901M")[0].message).splitlines()
    assert first[0].startswith(":: Judge: ") and f"Game: {GAME}  Variant: Standard" in first[0]
    assert first[1].startswith(":: Deadline: F1901M ")


def test_help_shows_their_forms_beside_ours(harness: Harness) -> None:
    listing = " ".join(harness.command("newcomer@example.test", "HELP").split())
    assert "njudge/DPjudge: SET DRAW, SET NODRAW, SET CONCEDE power, SET NOCONCEDE" in listing
    assert "njudge/DPjudge: PRESS GREY TO EF" in listing
    assert "PHASE Fall 1901 Movement" in listing and "DIARY ... ENDDIARY" in listing
    one = " ".join(harness.command("newcomer@example.test", "HELP BECOME").split())
    assert "ORDERS" in one or "master" in one


def test_set_draw_from_every_player_ends_the_game_in_a_draw(harness: Harness) -> None:
    table = seated(harness, "drawn")
    table.sign_on()
    for power in POWERS:
        table.say(table.players[power], f"{table.signon(power)}\nSET DRAW", "vote recorded")
    game = get_game("drawn")
    assert game.state == GameState.FINISHED and "DRAW" in game.outcome.upper()


def test_a_random_deal_honours_set_preference(harness: Harness) -> None:
    h = harness
    assert "created" in h.command(MASTER, "CREATE prefs masterpw")
    wants = {"AUSTRIA": "T,R", "ENGLAND": "E", "FRANCE": "T,F"}  # two ask for Turkey first
    for power in POWERS:
        assert "joined" in h.command(player(power), f"JOIN prefs {secret(power)}")
        if power in wants:
            answer = h.command(player(power), f"SIGNON {player(power).split('@')[0]}@prefs "
                               f"{secret(power)}\nSET PREFERENCE {wants[power]}")  # fmt: skip
            assert "your preference" in answer or "dealt already" in answer, answer
    h.wait_until(lambda: get_game("prefs").state == GameState.ACTIVE)
    game = get_game("prefs")
    dealt = {s.person.email: s.powers[0] for s in Seat.select().where(
        (Seat.game == game) & (Seat.role == "player") & Seat.person.is_null(False))}  # fmt: skip
    assert dealt[player("ENGLAND")] == "ENGLAND"
    turkey_wanted = {dealt[player("AUSTRIA")], dealt[player("FRANCE")]}
    assert "TURKEY" in turkey_wanted  # one of the two got it, the other their second choice
    assert turkey_wanted in ({"TURKEY", "RUSSIA"}, {"TURKEY", "FRANCE"})


def test_history_before_any_phase_and_a_diary_shown_to_its_writer_only(harness: Harness) -> None:
    table = seated(harness, "quiet")
    table.sign_on()
    assert "no phases played yet" in harness.command("someone@else.test", "HISTORY quiet")
    france = table.signon("FRANCE")
    table.say(
        table.players["FRANCE"], f"{france}\nDIARY\nMy secret plan.\nENDDIARY", "diary entry 1"
    )
    mine = table.say(table.players["FRANCE"], f"{france}\nHISTORY quiet")
    assert "My secret plan." in mine
    theirs = table.say(table.players["ENGLAND"], f"{table.signon('ENGLAND')}\nHISTORY quiet")
    assert "My secret plan." not in theirs
    assert "My secret plan." not in harness.command("someone@else.test", "HISTORY quiet")


def test_a_power_owed_builds_cannot_remove_and_one_owing_removals_cannot_build() -> None:
    gmap = load_map()
    owners = {"par": "FRANCE", "mar": "FRANCE", "bre": "FRANCE", "spa": "FRANCE",
              "ber": "GERMANY", "mun": "GERMANY", "kie": "GERMANY"}  # fmt: skip
    units = {"spa": ("FRANCE", "A"), "bre": ("FRANCE", "F"),
             "mun": ("GERMANY", "A"), "kie": ("GERMANY", "F"), "hol": ("GERMANY", "A"),
             "den": ("GERMANY", "F")}  # fmt: skip
    pos = Position(
        phase=Phase.parse("W1901A"),
        units=build_units(Unit(p, t, loc) for loc, (p, t) in units.items()),
        sc_owners=owners,
    )
    with pytest.raises(OrderError, match="owed 2 build"):
        parse_order("REMOVE A SPA", pos, "FRANCE", gmap)
    assert str(parse_order("BUILD A PAR", pos, "FRANCE", gmap)) == "A PAR B"
    with pytest.raises(OrderError, match="must remove 1"):
        parse_order("BUILD A BER", pos, "GERMANY", gmap)
    assert "HOL" in str(parse_order("REMOVE A HOL", pos, "GERMANY", gmap)).upper()
