"""Issue 39, round three of the seeds, by mail: Diplonomic (seed 003) and the removal
notes (seeds 001, 002, 003), Lytton's outcome lines (seed 004)."""

from __future__ import annotations

from helpers.boards import position
from helpers.e2e import MASTER, POWERS, Harness, player, secret, takeover_by_mail, text_of

from mailjudge.demo.sink import Received
from mailjudge.game.state import get_game

GAME = "nomic3"


def flat(text: str) -> str:
    return " ".join(text.split())


def say(h: Harness, game: str, power: str, text: str) -> str:
    signon = f"SIGNON {power.lower()}@{game} {secret(power)}\n"
    return flat(h.command(player(power), signon + text))


def master(h: Harness, game: str, text: str) -> str:
    return flat(h.command(MASTER, f"SIGNON M{game} masterpw\n{text}"))


def mails(h: Harness, subject: str) -> list[Received]:
    return [m for m in h.sink.mails if subject in str(m.message["Subject"])]


def start_diplonomic(h: Harness, game: str) -> None:
    assert "created" in h.command(
        MASTER, f"CREATE {game} masterpw VARIANT diplonomic RULES POWER_CHOICE"
    )
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN {game} {secret(power)} {power}")
    h.wait_until(lambda: get_game(game).state == "active")


def test_a_silent_country_loses_its_farthest_unit(harness: Harness) -> None:
    """Seed 003, rule 24: "If a Contestant leaves the game or eir country otherwise fails
    to submit orders ... If a country in civil disorder has to remove units, the units
    farthest from the country are removed first." CIVIL_DISORDER (on by default) would
    draw "at random ... with preference given to retaining units that are situated on
    supply centers" (seed 001) and keep A BEL; rule 24 removes it, and the results name
    rule 24, not the random draw."""
    h = harness
    start_diplonomic(h, GAME)
    game = get_game(GAME)
    game.phase = "F1901M"
    game.position = position(
        "F1901M",
        ["FRANCE A gas", "FRANCE A bel", "FRANCE A par", "ENGLAND F lon"],
        {"par": "FRANCE", "bel": "FRANCE", "lon": "ENGLAND"},
    )
    game.save()
    assert "ERROR" not in say(h, GAME, "FRANCE", "A GAS H\nA BEL H\nA PAR H")
    assert "F1901M processed" in master(h, GAME, "PROCESS")
    h.wait_until(lambda: get_game(GAME).phase == "W1901A", what="the adjustments")
    # France, two centres and three units, sends no removal: the master processes.
    assert "W1901A processed" in master(h, GAME, "PROCESS")
    h.wait_until(lambda: len(mails(h, "results W1901A")) == 8)
    results = flat(text_of(mails(h, "results W1901A")[0].message))
    assert "A BEL D (*civil disorder*)" in results, results
    assert "A GAS D" not in results
    assert (
        "Removed by the civil-disorder rule (Diplonomic rule 24 and DATC 6.J: the units"
        " farthest from home first" in results
    )
    assert "FRANCE A BEL" in results and "drawn at random" not in results
    units = {u["loc"] for u in get_game(GAME).position["units"]}
    assert {"gas", "par"} <= units and "bel" not in units


RING_PLAYERS = ["ann", "ben", "cat", "dan", "eve", "fay", "gus"]


def start_lytton(h: Harness, game: str, owners: dict[str, int]) -> None:
    """A Double game under DOUBLE_LYTTON, put in F1901M with these centre counts."""
    assert "created" in h.command(
        MASTER, f"CREATE {game} masterpw VARIANT double RULES DOUBLE_LYTTON"
    )
    for name in RING_PLAYERS:
        joined = h.command(f"{name}@players.test", f"JOIN {game} pw-{name} AS {name}")
        assert "you joined" in joined
    h.wait_until(lambda: get_game(game).state == "active")
    centres = sorted(get_game(game).position["sc_owners"]) + sorted(
        c
        for c in (
            "bel",
            "bul",
            "den",
            "gre",
            "hol",
            "nwy",
            "por",
            "rum",
            "ser",
            "spa",
            "swe",
            "tun",
        )
    )
    taken: dict[str, str] = {}
    for power, count in owners.items():
        for _ in range(count):
            taken[centres.pop(0)] = power
    state = get_game(game)
    state.phase = "F1901M"
    state.position = position("F1901M", ["RUSSIA A ukr"], taken)
    state.save()


def test_lytton_results_say_nobody_has_won_while_the_joint_win_is_voted(
    harness: Harness,
) -> None:
    """Seed 004, Lytton's rule 7: "If 2 or more players draw on their SC count of 21 or
    over then an immediate JOINT WIN (not a JOINT SOLO) will be offered to those players.
    They can vote YES to accept the joint win or NO to force the game into a TIEBREAK".
    England at 14 would be a joint win alone, but england-turkey and austria-england are
    at 21 each: the results must not say "The game is won by ENGLAND"."""
    h = harness
    start_lytton(h, "lyt", {"ENGLAND": 14, "TURKEY": 7, "AUSTRIA": 7})
    assert "processed" in h.command(MASTER, "SIGNON Mlyt masterpw\nPROCESS!")
    h.wait_until(lambda: len(h.results_for("lyt", "F1901M")) == 8)
    results = flat(text_of(h.results_for("lyt", "F1901M")[0].message))
    assert "The game is won by" not in results, results
    assert (
        "Nobody has won yet: austria-england and england-turkey reached 21 centres each and"
        " are offered a joint win; they vote YES or NO" in results
    )
    assert get_game("lyt").state == "active"
    # Nobody votes: silence is NO, and the winter's results tell of the tie-break.
    assert "processed" in h.command(MASTER, "SIGNON Mlyt masterpw\nPROCESS!")
    h.wait_until(lambda: len(h.results_for("lyt", "W1901A")) == 8)
    winter = flat(text_of(h.results_for("lyt", "W1901A")[0].message))
    assert "The game is won by" not in winter
    assert "the tie-break between austria-england and england-turkey goes on" in winter


def test_lytton_results_name_the_two_power_solo(harness: Harness) -> None:
    """Seed 004, Lytton's rules 2 and 7: "SOLO win - bring your two countries to a
    combined SC count of 21" and "A Solo win outranks a joint win". Italy at 14 with
    Germany at 8 is germany-italy's solo, and the results say so, not "won by ITALY"."""
    h = harness
    start_lytton(h, "lys", {"ITALY": 14, "GERMANY": 8})
    assert "processed" in h.command(MASTER, "SIGNON Mlys masterpw\nPROCESS!")
    h.wait_until(lambda: len(h.results_for("lys", "F1901M")) == 8)
    results = flat(text_of(h.results_for("lys", "F1901M")[0].message))
    assert "The game is won by ITALY" not in results, results
    assert "The game is over: SOLO germany-italy with 22 centres." in results
    assert get_game("lys").outcome == "SOLO germany-italy with 22 centres"


CONTESTANTS = ["alice", "bruno", "chloe", "dmitri", "elif", "farid"]  # and one with no AS


def test_the_assignments_of_great_powers_are_published(harness: Harness) -> None:
    """Seed 003, rule 25: "The Gamemaster SHALL, no later than July 10, publish the
    assignments of Great Powers and announce the day on which the game will begin." and
    rule 6: "The Gamemaster SHALL assign Great Powers to Contestants according to an
    equitable and random method." Each contestant is published by the name given with
    JOIN ... AS name; LIST says who plays each country, not just "played"."""
    h = harness
    assert "created" in h.command(MASTER, "CREATE nomic25 masterpw VARIANT diplonomic")
    for name in CONTESTANTS:
        joined = h.command(f"{name}@people.test", f"JOIN nomic25 pw-{name} AS {name}")
        assert "you joined" in joined, joined
    assert "you joined" in h.command("quiet@people.test", "JOIN nomic25 pw-quiet")
    h.wait_until(lambda: get_game("nomic25").state == "active")
    h.wait_until(lambda: len(mails(h, "the assignments of the Great Powers")) == 8)
    announced = mails(h, "the assignments of the Great Powers")
    told = sorted(r for m in announced for r in m.rcpt_tos)
    expected = [MASTER, "quiet@people.test", *(f"{n}@people.test" for n in CONTESTANTS)]
    assert told == sorted(expected)
    text = text_of(announced[0].message)
    assert "people.test" not in text  # names, never addresses
    assert "The game began" in text and "with S1901M" in text
    listed = h.command("anyone@example.test", "LIST nomic25")
    powers = set()
    for name in CONTESTANTS:
        line = next(x for x in text.splitlines() if x.strip().endswith(f" {name}"))
        power = line.split()[0]
        powers.add(power)
        assert f"{power:<10} played by {name}" in listed, listed
    assert len(powers) == 6 and "a contestant who chose no public name" in text
    assert listed.count("played by") == 6 and "people.test" not in listed
    # alice leaves; whoever takes her country over is not published under her name.
    alices = next(p for p in powers if f"{p:<10} played by alice" in listed)
    signon = "SIGNON alice@nomic25 pw-alice\nRESIGN"
    assert f"{alices} is vacant" in h.command("alice@people.test", signon)
    taken = takeover_by_mail(
        h, "newbie@people.test", f"TAKEOVER {alices.lower()}@nomic25 pw-newbie"
    )
    assert "you now play" in taken, taken
    new = f"{alices} has a new contestant"
    h.wait_until(lambda: len(mails(h, new)) == 8)  # the master, the six and the newcomer
    assert "newbie@people.test" in {r for m in mails(h, new) for r in m.rcpt_tos}
    relisted = h.command("anyone@example.test", "LIST nomic25")
    assert "alice" not in relisted and f"{alices:<10} played\n" in relisted, relisted


def test_a_contestant_who_resigns_is_announced_to_the_master_and_everyone(
    harness: Harness,
) -> None:
    """Seed 003, rule 24: "If a Contestant leaves the game ... the Gamemaster SHALL attempt
    to replace em with a new Contestant, but if this fails, it's assumed that eir
    government has collapsed." The master cannot seek a replacement unless told: RESIGN
    is announced to the master and every other contestant."""
    h = harness
    start_diplonomic(h, "nomic24")
    left = say(h, "nomic24", "FRANCE", "RESIGN")
    assert "you left nomic24; FRANCE is vacant" in left
    h.wait_until(lambda: len(mails(h, "FRANCE has no contestant (rule 24)")) == 7)
    told = sorted(r for m in mails(h, "FRANCE has no contestant") for r in m.rcpt_tos)
    assert told == sorted([MASTER, *(player(p) for p in POWERS if p != "FRANCE")])
    text = flat(text_of(mails(h, "FRANCE has no contestant")[0].message))
    assert "the contestant of FRANCE has left the game (RESIGN)" in text
    assert "TAKEOVER france@nomic24 password" in text and "civil disorder" in text


def test_different_adjudication_is_accepted_and_explained(harness: Harness) -> None:
    """Seed 001 lists "<!-- RULE DIFFERENT_ADJUDICATION -->" under "Movement Order" and
    says nothing else of it. The judge accepts it and HELP RULES says what it does here:
    nothing, since there is one adjudicator."""
    h = harness
    created = h.command(MASTER, "CREATE diffadj masterpw RULES DIFFERENT_ADJUDICATION")
    assert "created" in created and "ERROR" not in created, created
    listed = flat(h.command("anyone@example.test", "LIST diffadj"))
    assert "DIFFERENT_ADJUDICATION" in listed
    rules = flat(h.command("anyone@example.test", "HELP RULES"))
    assert "DIFFERENT_ADJUDICATION" in rules
    assert "accepted and changes nothing: seed 001 names it without saying what it does" in rules


def test_a_convoyed_move_must_give_its_path(harness: Harness) -> None:
    """Seed 003, rule 17: "A Move order making use of a Convoy must specify what Convoy
    paths it will use or conditionals to determine such." A LON - BEL (or ... VIA) is
    refused, and the orders on file stand; A LON - NTH - BEL is taken and played."""
    h = harness
    start_diplonomic(h, "nomic17")
    game = get_game("nomic17")
    game.position = position(
        "S1901M",
        ["ENGLAND A lon", "ENGLAND F nth", "FRANCE A par"],
        {"lon": "ENGLAND", "edi": "ENGLAND", "par": "FRANCE"},
    )
    game.save()
    assert "ERROR" not in say(h, "nomic17", "ENGLAND", "A LON H\nF NTH H")
    for move in ("A LON - BEL", "A LON - BEL VIA"):
        refused = say(h, "nomic17", "ENGLAND", f"{move}\nF NTH C A LON - BEL")
        assert "rule 17: a move by convoy must specify the convoy path it will use" in refused
        assert "A LON - NTH - BEL" in refused and "the orders on file stand" in refused
    status = say(h, "nomic17", "ENGLAND", "STATUS")
    assert "A LON H" in status and "F NTH H" in status
    taken = say(h, "nomic17", "ENGLAND", "A LON - NTH - BEL\nF NTH C A LON - BEL")
    assert "ERROR" not in taken and "A LON - NTH - BEL" in taken, taken
    assert "A PAR - BUR" in say(h, "nomic17", "FRANCE", "A PAR - BUR")  # a walk needs no path
    assert "S1901M processed" in master(h, "nomic17", "PROCESS")
    h.wait_until(lambda: get_game("nomic17").phase != "S1901M")
    units = {u["loc"] for u in get_game("nomic17").position["units"]}
    assert "bel" in units and "lon" not in units


def test_a_resigned_contestant_loses_units_by_rule_24_and_the_note_says_so(
    harness: Harness,
) -> None:
    """Seed 003, rule 24: "If a Contestant leaves the game ... If a country in civil
    disorder has to remove units, the units farthest from the country are removed
    first." France's contestant resigns; the winter removes A BEL (two provinces from
    Paris), not A GAS, and the results name rule 24."""
    h = harness
    start_diplonomic(h, "nomic24r")
    game = get_game("nomic24r")
    game.phase = "F1901M"
    game.position = position(
        "F1901M",
        ["FRANCE A gas", "FRANCE A bel", "FRANCE A par", "ENGLAND F lon"],
        {"par": "FRANCE", "bel": "FRANCE", "lon": "ENGLAND"},
    )
    game.save()
    assert "FRANCE is vacant" in say(h, "nomic24r", "FRANCE", "RESIGN")
    assert "F1901M processed" in master(h, "nomic24r", "PROCESS")
    # Nobody else adjusts and France takes no orders: the winter is played at once.
    h.wait_until(lambda: len(mails(h, "[nomic24r] results W1901A")) == 7)
    results = flat(text_of(mails(h, "[nomic24r] results W1901A")[0].message))
    assert "A BEL D (*civil disorder*)" in results and "A GAS D" not in results
    assert "(Diplonomic rule 24 and DATC 6.J: the units farthest from home first" in results


def test_a_survive_outcast_removal_names_rule_4b(harness: Harness) -> None:
    """Seed 002, rule 4b: "If a voted out player must remove a unit in the adjustment
    phase, they must remove the first unit of theirs listed (in the game listing) that is
    not sitting on an SC." The results name rule 4b, not a random draw."""
    from mailjudge.variants.survive import outcasts

    h = harness
    assert "created" in h.command(
        MASTER, "CREATE surv4b masterpw VARIANT survive RULES POWER_CHOICE CIVIL_DISORDER"
    )
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN surv4b {secret(power)} {power}")
    h.wait_until(lambda: get_game("surv4b").state == "active")
    game = get_game("surv4b")
    game.phase = "F1901M"
    game.position = position(
        "F1901M",
        ["TURKEY A arm", "TURKEY A con", "TURKEY F ank", "RUSSIA A mos"],
        {"con": "TURKEY", "ank": "TURKEY", "mos": "RUSSIA"},
    )
    game.save()
    outcasts.record(game, ["TURKEY"], "voted")  # as if voted out in W1900A
    assert "F1901M processed" in master(h, "surv4b", "PROCESS")
    # Only the outcast adjusts, and takes no orders: the winter is played at once.
    h.wait_until(lambda: len(mails(h, "[surv4b] results W1901A")) == 8)
    results = flat(text_of(mails(h, "[surv4b] results W1901A")[0].message))
    assert "A ARM D (*civil disorder*)" in results, results
    assert "(Survive rule 4b: the first unit listed that is not on a supply centre" in results
    assert "drawn at random" not in results
