"""Issue 39, round three of the seeds by mail: a late Democratic JOIN mails only the one who
joined and its country's list (seed 000), NO_OBSERVATIONS and SOLITAIRE closed to watchers
(seed 001), SOLITAIRE only at creation (seed 001), and the choices the seeds leave open."""

from __future__ import annotations

import re

from helpers.e2e import MASTER, POWERS, Harness, join_by_mail, player, seated, secret, text_of

from mailjudge.demo.sink import Received
from mailjudge.game.state import current_position, get_game
from mailjudge.store.models import Outbox

DEM = "late3"
CITIZENS = [f"c{i:02d}" for i in range(22)]  # one to each home centre


def flat(text: str) -> str:
    """A reply's words on one line: the judge wraps its lines at 78 columns."""
    return " ".join(text.split())


def address(name: str) -> str:
    return f"{name}@citizens.test"


def subjects(h: Harness, part: str) -> list[Received]:
    return [m for m in h.sink.mails if part in m.message["Subject"]]


def test_late_democratic_join_mails_the_joiner_and_its_list_once(harness: Harness) -> None:
    """Seed 000: "This variant allows an unlimited number of players to play", and Setup
    Rule 2: "Add each citizen to their country's mailing list or chat room." A citizen who
    joins a running game is told its country once the address is confirmed, and its
    country's list hears of it once; the other citizens get no new "has started" mail."""
    h = harness
    assert "created" in h.command(MASTER, f"CREATE {DEM} masterpw VARIANT democratic")
    for name in CITIZENS:
        assert "you joined" in join_by_mail(h, address(name), f"JOIN {DEM} pw-{name} AS {name}")
    assert "has started" in h.command(MASTER, f"SIGNON M{DEM} masterpw\nSTART")
    h.wait_until(lambda: len(subjects(h, "has started")) >= len(CITIZENS))
    # Every start mail (the master's too) in the sink before counting them.
    h.wait_until(lambda: Outbox.select().where(Outbox.state != "sent").count() == 0)
    started_before = len(subjects(h, "has started"))

    newcomer = address("late")
    # Sent and read by hand: the harness's command() would answer the token itself.
    reply = flat(text_of(h.reply(h.send(newcomer, f"JOIN {DEM} pw-late AS late"))))
    token = re.search(r"CONFIRM (\w+)", reply)
    assert token is not None, reply
    assert len(subjects(h, "has started")) == started_before  # nothing until it confirms
    assert "you are a citizen" in h.command(newcomer, f"CONFIRM {token.group(1)}")
    h.wait_until(lambda: subjects(h, "new citizen: late"), what="the list's one notice")
    started = subjects(h, "has started")[started_before:]
    assert [m.rcpt_tos for m in started] == [[newcomer]]
    assert "You are a citizen of" in flat(text_of(started[0].message))
    notices = subjects(h, "new citizen: late")
    assert len(notices) == 1
    assert newcomer in notices[0].rcpt_tos and len(notices[0].rcpt_tos) >= 2

    # An address proven already (it answered a token) becomes a citizen at once: the same
    # two mails, and none to the citizens already there.
    assert "created" in h.command(MASTER, "CREATE late4 masterpw VARIANT democratic")
    assert "you joined" in h.command(address("c00"), "JOIN late4 pw-c00 AS c00")
    assert "has started" in h.command(MASTER, "SIGNON Mlate4 masterpw\nSTART")

    def late4_started() -> list[list[str]]:
        return [m.rcpt_tos for m in subjects(h, "has started") if "late4" in m.message["Subject"]]

    h.wait_until(late4_started)
    reply = flat(h.command(newcomer, "JOIN late4 pw-late AS late"))
    assert "you joined late4 as late" in reply and "the game is under way" in reply, reply
    assert "CONFIRM" not in reply
    h.wait_until(lambda: len(subjects(h, "new citizen: late")) == 2, what="late4's notice")
    h.wait_until(lambda: [newcomer] in late4_started(), what="the newcomer's start mail")
    # Each address has late4's start mail once: the newcomer's own, and c00's from START
    # (which may reach the sink after the join, so it is counted, not timed).
    started = late4_started()
    assert started.count([newcomer]) == 1 and started.count([address("c00")]) == 1, started


def test_citizens_write_abroad_until_they_have_a_diplomat_and_vote_no_draws(
    harness: Harness,
) -> None:
    """Seed 000, Diplomatic Phase Rule 1: "A diplomat that represents their country should
    be selected to communicate with other countries", and Rule 2: "The selected diplomat of
    each country communicates with other selected diplomats." No diplomat exists before the
    first count, at the end of S1901M: until its country has one, a citizen writes abroad
    itself, and press to a country without a diplomat goes to its list."""
    h = harness
    assert "created" in h.command(MASTER, f"CREATE {DEM} masterpw VARIANT democratic")
    for name in CITIZENS:
        assert "you joined" in join_by_mail(h, address(name), f"JOIN {DEM} pw-{name} AS {name}")
    assert "has started" in h.command(MASTER, f"SIGNON M{DEM} masterpw\nSTART")
    h.wait_until(lambda: len(subjects(h, "you are a citizen of")) == len(CITIZENS))
    country = {}
    for mail in subjects(h, "you are a citizen of"):
        told = re.search(r"citizen of (\w+) ", mail.message["Subject"])
        assert told is not None
        country[mail.rcpt_tos[0]] = told.group(1)
    writer = address("c00")
    other = next(p for p in sorted(set(country.values())) if p != country[writer])
    reply = flat(
        h.command(
            writer, f"SIGNON c00@{DEM} pw-c00\nPRESS TO {other}\nHello before the count\nENDPRESS"
        )
    )
    assert f"press sent to {other}" in reply, reply
    h.wait_until(lambda: subjects(h, f"press from {country[writer]}"), what="the press")
    (press,) = subjects(h, f"press from {country[writer]}")
    assert sorted(press.rcpt_tos) == sorted(a for a, p in country.items() if p == other)

    # Seed 000: "This variant allows an unlimited number of players to play, until the end.
    # Everyone wins." Citizens vote for diplomats and orders, not for draws.
    reply = flat(h.command(writer, f"SIGNON c00@{DEM} pw-c00\nVOTE DRAW"))
    assert "a Democratic game is played to the end" in reply, reply
    assert "the master may DECLARE DRAW" in reply


STRANGER = "stranger@elsewhere.test"


def mails_to(h: Harness, address: str) -> int:
    return sum(1 for m in h.sink.mails if address in m.rcpt_tos)


def test_no_observations_game_is_read_only_by_its_own_seats(harness: Harness) -> None:
    """Seed 001, NO_OBSERVATIONS: "If this rule is used, no observers are allowed for the
    game. Note that game masters can still observe the game as omniscient observers even if
    this rule is present." A stranger reads neither SUMMARY, HISTORY nor MAP (no board is
    mailed); the game's players and master do."""
    h = harness
    table = seated(h, "closed")
    table.sign_on("POWER_CHOICE NO_OBSERVATIONS")
    before = mails_to(h, STRANGER)
    for command in ("SUMMARY closed", "HISTORY closed", "MAP closed"):
        reply = flat(h.command(STRANGER, command))
        assert "closed is closed to watchers (NO_OBSERVATIONS)" in reply, reply
        assert "only its own seats read" in reply
    assert mails_to(h, STRANGER) == before + 3  # the three replies, and no board
    assert "no observers" in flat(h.command(STRANGER, "OBSERVE peek@closed pw-peek"))
    # A seat of another game is a stranger here too.
    other = seated(h, "open")
    other.sign_on("POWER_CHOICE")
    reply = flat(h.command(player("FRANCE"), f"{other.signon('FRANCE')}\nSUMMARY closed"))
    assert "closed to watchers" in reply
    # The game's own seats read it.
    reply = flat(table.say(table.players["FRANCE"], f"{table.signon('FRANCE')}\nSUMMARY closed"))
    assert "FRANCE 3 centres" in reply, reply
    before = mails_to(h, player("FRANCE"))
    reply = table.say(table.players["FRANCE"], f"{table.signon('FRANCE')}\nMAP closed")
    assert "follows in its own mail" in reply
    h.wait_until(lambda: mails_to(h, player("FRANCE")) == before + 2, what="the board mail")
    reply = flat(h.command(MASTER, "SIGNON Mclosed masterpw\nHISTORY closed"))
    assert "closed: no phases played yet" in reply, reply


def test_solitaire_is_a_rule_of_game_creation(harness: Harness) -> None:
    """Seed 001, SOLITAIRE: "After allowing the game to form, all powers will become
    dummies and the game starts immediately. The FORMING phase simply gets skipped. Make
    sure to have all relevant rules in place during preparation or when creating the
    game." Set mid-game it would leave players ordering and no dummies: the master's SET
    RULE and a Diplonomic proposal are refused with the reason; nor may it be lifted."""
    h = harness
    table = seated(h, "run")
    table.sign_on("POWER_CHOICE")
    reply = flat(h.command(MASTER, "SIGNON Mrun masterpw\nSET RULE +SOLITAIRE"))
    assert "SOLITAIRE cannot be set once the game exists: it is a rule of game creation" in reply
    assert "CREATE game password RULES SOLITAIRE" in reply
    assert "SOLITAIRE" not in str(get_game("run").rules)
    assert "NO_PRESS" in flat(h.command(MASTER, "SIGNON Mrun masterpw\nSET RULE +NO_PRESS"))

    assert "created" in h.command(MASTER, "CREATE puzzle masterpw RULES SOLITAIRE")
    reply = flat(h.command(MASTER, "SIGNON Mpuzzle masterpw\nSET RULE -SOLITAIRE"))
    assert "SOLITAIRE cannot be lifted once the game exists" in reply
    assert "SOLITAIRE" in str(get_game("puzzle").rules)

    assert "created" in h.command(
        MASTER, "CREATE dip masterpw VARIANT diplonomic RULES POWER_CHOICE"
    )
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN dip {secret(power)} {power}")
    h.wait_until(lambda: get_game("dip").state == "active")
    reply = flat(h.command(
        player("ITALY"), f"SIGNON italy@dip {secret('ITALY')}\nPROPOSAL RULES\nSET RULE +SOLITAIRE\nEND"
    ))  # fmt: skip
    assert "SOLITAIRE cannot be set once the game exists" in reply, reply
    assert "proposal 1 received" not in reply

    # HELP RULES says the judge's choices where the seeds leave a question open.
    help_rules = flat(h.command(STRANGER, "HELP RULES"))
    assert "SOLITAIRE: every power is a dummy" in help_rules
    assert "SOLITAIRE is a rule of game creation" in help_rules
    assert "a second OVERRIDE in the same phase replaces the first" in help_rules
    assert "citizens do not vote for draws" in help_rules


def test_a_second_override_in_a_phase_says_it_replaced_the_first(harness: Harness) -> None:
    """Seed 004 (Lytton rules), 4: "Once every 2 years, every player may OVERRIDE one order
    by their joint leader and have their own order followed." One order: a second OVERRIDE
    in the same phase takes the place of the first, and the reply says so."""
    h = harness
    names = ["ann", "ben", "cat", "dan", "eva", "fay", "gus"]
    assert "created" in h.command(MASTER, "CREATE ov masterpw VARIANT double RULES DOUBLE_LYTTON")
    for name in names:
        assert "you joined ov" in h.command(f"{name}@players.test", f"JOIN ov pw-{name} AS {name}")
    h.wait_until(lambda: get_game("ov").state == "active")
    h.wait_until(lambda: len(subjects(h, "has started")) >= 8)
    for mail in subjects(h, "has started"):
        told = re.search(
            r"You play ([A-Z ]+)\. Sign on with: SIGNON ([\w-]+)@ov", text_of(mail.message)
        )
        if told and "ENGLAND" in told.group(1).split():
            who, seat = mail.rcpt_tos[0].split("@")[0], told.group(2)
            break
    else:
        raise AssertionError("nobody was told they play ENGLAND")
    signon = f"SIGNON {seat}@ov pw-{who}\n"
    first = flat(h.command(f"{who}@players.test", signon + "OVERRIDE ENGLAND F LON - NTH"))
    assert "OVERRIDE for ENGLAND in S1901M: F LON - NTH" in first, first
    assert "replaces" not in first
    second = flat(h.command(f"{who}@players.test", signon + "OVERRIDE ENGLAND F LON - ENG"))
    assert (
        "OVERRIDE for ENGLAND in S1901M: F LON - ENG; it replaces your earlier OVERRIDE F LON - NTH"
        in second
    ), second


SURVIVE_BALLOTS = {
    "AUSTRIA": "VOTE OUT TURKEY 3",
    "ENGLAND": "VOTE OUT TURKEY 3",
    "FRANCE": "VOTE OUT TURKEY 3",
    "GERMANY": "VOTE OUT TURKEY 3",
    "ITALY": "VOTE OUT TURKEY 3",
    "RUSSIA": "VOTE OUT TURKEY 4",
    "TURKEY": "VOTE OUT RUSSIA 3",
}


def test_a_survive_outcast_with_units_may_not_resign(harness: Harness) -> None:
    """Seed 002 (Survive), rule 8: "If you are voted out, you must remain in the game as
    least until the judge recognizes you have no units left! Do not resign, even if your
    units are immobile." The judge follows it: an outcast's RESIGN is refused, with the
    rule, while its power has units; a power still in play may resign as ever."""
    h = harness
    assert "created" in h.command(MASTER, "CREATE sv masterpw VARIANT survive RULES POWER_CHOICE")
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN sv {secret(power)} {power}")
    h.wait_until(lambda: get_game("sv").state == "active")

    def say(power: str, text: str) -> str:
        return flat(h.command(player(power), f"SIGNON {power.lower()}@sv {secret(power)}\n{text}"))

    for phase in ("S1901M", "F1901M", "S1902M", "F1902M"):  # everyone holds
        pos = current_position(get_game("sv"))
        for power in POWERS:
            assert "ERROR" not in say(power, "\n".join(f"{u} H" for u in pos.units_of(power)))
        h.wait_until(lambda done=phase: len(h.results_for("sv", done)) == 8)
    for power, ballot in SURVIVE_BALLOTS.items():
        assert "vote-out ballot recorded" in say(power, ballot)
    h.wait_until(lambda: get_game("sv").phase == "S1903M")
    refused = say("TURKEY", "RESIGN")
    assert "TURKEY is voted out but still has 3 unit(s): Survive rule 8" in refused, refused
    assert "RESIGN once they are gone" in refused
    assert "you left sv" in say("AUSTRIA", "RESIGN")
