"""Issue 59, point 6: the seed rows no test held yet, each played by mail through the SMTP
listener and written from the seed's own words. Seed 003's standard rules (12, 13, 17 to
23: adjudication the DATC cases hold, here played in a Diplonomic game), seed 000's tie
rule, seed 001's HOLD_WIN and SHARED_VICTORY, and seed 002's victor vote (rule 5b).

The games are set up through the service in the judge's own database (the joins and the
boards, as other tests put a board in place); everything played is mailed."""

from __future__ import annotations

import random
from typing import Any

from helpers.boards import position
from helpers.e2e import MASTER, POWERS, Harness, player, secret, text_of

from mailjudge.game.state import get_game
from mailjudge.service.games import create_game, start_game
from mailjudge.service.seats import join
from mailjudge.store.models import Game, Seat
from mailjudge.variants.democratic import join_citizen
from mailjudge.variants.survive.tables import Outcast


def flat(text: str) -> str:
    """A reply's words on one line: the judge wraps its lines at 78 columns."""
    return " ".join(text.split())


def say(h: Harness, game: str, power: str, text: str) -> str:
    return flat(h.command(player(power), f"SIGNON {power.lower()}@{game} {secret(power)}\n{text}"))


def master(h: Harness, game: str, text: str) -> str:
    return flat(h.command(MASTER, f"SIGNON M{game} masterpw\n{text}"))


def board(
    name: str, variant: str, phase: str, units: list[str], owners: dict[str, str],
    rules: str = "", **extra: Any,
) -> None:  # fmt: skip
    """A game of ``variant`` with the seven players seated and this board in place."""
    create_game(name, MASTER, "masterpw", variant=variant, rules=f"POWER_CHOICE {rules}".strip())
    for power in POWERS:
        join(get_game(name), player(power), secret(power), power=power)
    game = get_game(name)
    assert game.state == "active"
    game.phase = phase
    game.position = {**position(phase, units, owners), **extra}
    game.save()


def play(h: Harness, name: str, orders: dict[str, str]) -> str:
    """Each power's orders by mail, the master's PROCESS; the master's copy of the results."""
    phase = str(get_game(name).phase)
    for power, lines in orders.items():
        assert "ERROR" not in say(h, name, power, lines), (power, lines)
    assert "processed" in master(h, name, "PROCESS!")
    h.wait_until(lambda: any(m.rcpt_tos == [MASTER] for m in h.results_for(name, phase)))
    mine = [m for m in h.results_for(name, phase) if m.rcpt_tos == [MASTER]]
    return flat(text_of(mine[-1].message))


def units_at(name: str) -> dict[str, str]:
    return {u["loc"]: f"{u['power']} {u['type']}" for u in get_game(name).position["units"]}


# --- seed 003, Diplonomic's standard rules -------------------------------------------------


def test_rule_12_all_units_have_the_same_strength(harness: Harness) -> None:
    """Seed 003, rule 12: "All units have the same strength." An army and a fleet ordered
    into Belgium unsupported are equal: both stay where they began (rule 19)."""
    h = harness
    board("r12", "diplonomic", "S1901M", ["FRANCE A bur", "ENGLAND F nth"], {})
    results = play(h, "r12", {"FRANCE": "A BUR - BEL", "ENGLAND": "F NTH - BEL"})
    assert "A BUR - BEL (*bounce*)" in results and "F NTH - BEL (*bounce*)" in results
    assert units_at("r12") == {"bur": "FRANCE A", "nth": "ENGLAND F"}


def test_rule_13_one_unit_in_a_province_at_a_time(harness: Harness) -> None:
    """Seed 003, rule 13: "There can only be one unit in a province at a time." A unit
    moving, unsupported, into a province where another stays, foreign or its own, stays
    where it began."""
    h = harness
    board("r13", "diplonomic", "S1901M",
          ["FRANCE A par", "FRANCE A mar", "FRANCE A gas", "GERMANY A bur"], {})  # fmt: skip
    results = play(h, "r13", {"FRANCE": "A PAR - BUR\nA MAR - GAS\nA GAS H", "GERMANY": "A BUR H"})
    assert "A PAR - BUR (*bounce*)" in results and "A MAR - GAS (*bounce*)" in results
    assert units_at("r13") == {
        "par": "FRANCE A", "mar": "FRANCE A", "gas": "FRANCE A", "bur": "GERMANY A"
    }  # fmt: skip


def test_rule_17_holds_supports_and_convoys(harness: Harness) -> None:
    """Seed 003, rule 17: "Not giving a unit an order is interpreted as ordering it to
    hold." "A unit cannot support an order to or on a province which the supporting unit
    could not move to itself." "When a convoy is successful, that army's move order, and
    any support orders for that move, are interpreted as if the source and destination
    provinces were adjacent: for example, if the destination province holds one
    unsupported unit with a Hold order, and another army is supporting the move into the
    destination, then the move succeeds and dislodges that unsupported unit." Germany's
    army in Belgium, given no order, holds and is dislodged by England's convoyed army;
    France's fleet in Brest cannot support a move into Burgundy, which it could not make."""
    h = harness
    board("r17", "diplonomic", "S1901M",
          ["ENGLAND A lon", "ENGLAND F eng", "ENGLAND A pic", "GERMANY A bel",
           "FRANCE F bre", "FRANCE A par", "GERMANY A bur"], {})  # fmt: skip
    refused = say(h, "r17", "FRANCE", "F BRE S A PAR - BUR\nA PAR - BUR")
    assert "not accepted: F BRE S A PAR - BUR" in refused, refused
    results = play(h, "r17", {
        "ENGLAND": "A LON - ENG - BEL\nF ENG C A LON - BEL\nA PIC S A LON - BEL",
        "GERMANY": "A BUR H",
    })  # fmt: skip
    assert "A LON - BEL" in results and "A LON - BEL (*bounce*)" not in results, results
    assert "A BEL H (*dislodged*)" in results, results
    assert "A PAR - BUR (*bounce*)" in results  # alone against a unit that stays
    assert units_at("r17")["bel"] == "ENGLAND A"


def test_rule_18_split_coasts_and_a_chain_of_fleets(harness: Harness) -> None:
    """Seed 003, rule 18: "Bulgaria, Spain, and St. Petersburg have separately identified
    coasts, between which fleets cannot move. If Fleets occupy adjacent water provinces,
    an Army can be convoyed through all these water provinces on one turn, landing in a
    coastal province adjacent to the final Fleet in the chain." A fleet on Spain's north
    coast cannot go to the Western Mediterranean (the south coast's sea): refused; an
    army goes from London to Portugal through two fleets in one turn."""
    h = harness
    board("r18", "diplonomic", "S1901M",
          ["FRANCE F spa/nc", "ENGLAND A lon", "ENGLAND F eng", "ENGLAND F mao"], {})  # fmt: skip
    refused = say(h, "r18", "FRANCE", "F SPA/NC - WES")
    assert "not accepted: F SPA/NC - WES" in refused, refused
    results = play(h, "r18", {
        "FRANCE": "F SPA/NC H",
        "ENGLAND": "A LON - ENG - MAO - POR\nF ENG C A LON - POR\nF MAO C A LON - POR",
    })  # fmt: skip
    assert "A LON - ENG - MAO - POR" in results and "(*no convoy*)" not in results, results
    assert units_at("r18")["por"] == "ENGLAND A"


def test_rule_19_standoffs_swaps_and_dislodgement(harness: Harness) -> None:
    """Seed 003, rule 19: "If two units are each ordered to the province that the other
    occupies, neither can move. If a move is successful, the attacking unit moves into
    the province to which it was ordered. If the unit that was attacked had no orders of
    its own to move elsewhere, it's defeated and dislodged from the province. The
    dislodged unit must retreat or be disbanded." France and Germany swap Paris and
    Burgundy: neither moves. Italy's supported attack dislodges Austria's Trieste, which
    then must retreat."""
    h = harness
    board("r19", "diplonomic", "S1901M",
          ["FRANCE A par", "GERMANY A bur", "ITALY A ven", "ITALY A tyr", "AUSTRIA A tri"],
          {})  # fmt: skip
    results = play(h, "r19", {
        "FRANCE": "A PAR - BUR", "GERMANY": "A BUR - PAR",
        "ITALY": "A VEN - TRI\nA TYR S A VEN - TRI", "AUSTRIA": "A TRI H",
    })  # fmt: skip
    assert "A PAR - BUR (*bounce*)" in results and "A BUR - PAR (*bounce*)" in results
    assert "A TRI H (*dislodged*)" in results
    units = units_at("r19")
    assert units["par"] == "FRANCE A" and units["bur"] == "GERMANY A"
    assert units["tri"] == "ITALY A"
    assert get_game("r19").phase == "S1901R"  # Austria's army must retreat or disband


def test_rule_20_supports_cut_except_from_where_they_help(harness: Harness) -> None:
    """Seed 003, rule 20: "A unit moves with its own strength combined with all of its
    valid supports. Support is cut if the unit giving support is attacked from any
    province except the one where support is being given or if the unit giving support
    is dislodged." Italy's support from Tyrolia is cut by Austria's attack from Vienna:
    Venice bounces off Trieste. Germany's support from Munich, attacked only from
    Burgundy (where it supports the move into), stands: Burgundy's army is dislodged."""
    h = harness
    board("r20", "diplonomic", "S1901M",
          ["ITALY A ven", "ITALY A tyr", "AUSTRIA A tri", "AUSTRIA A vie",
           "GERMANY A ruh", "GERMANY A mun", "FRANCE A bur"], {})  # fmt: skip
    results = play(h, "r20", {
        "ITALY": "A VEN - TRI\nA TYR S A VEN - TRI", "AUSTRIA": "A TRI H\nA VIE - TYR",
        "GERMANY": "A RUH - BUR\nA MUN S A RUH - BUR", "FRANCE": "A BUR - MUN",
    })  # fmt: skip
    assert "A TYR S A VEN - TRI (*cut*)" in results and "A VEN - TRI (*bounce*)" in results
    assert "A MUN S A RUH - BUR (*cut*)" not in results, results
    units = units_at("r20")
    assert units["bur"] == "GERMANY A" and units["tri"] == "AUSTRIA A"


def test_rule_21_no_country_dislodges_its_own(harness: Harness) -> None:
    """Seed 003, rule 21: "A country can't dislodge or support the dislodgment of one of
    its own units, even if that dislodgment is unexpected. An attack by a country on one
    of its own units doesn't cut support." France's supported attack on its own army in
    Marseilles does not dislodge it; Germany's attack from Kiel on its own supporting army
    in Munich does not cut that support, so Burgundy falls."""
    h = harness
    board("r21", "diplonomic", "S1901M",
          ["FRANCE A gas", "FRANCE A spa", "FRANCE A mar", "GERMANY A ruh", "GERMANY A mun",
           "GERMANY A kie", "FRANCE A bur"], {})  # fmt: skip
    results = play(h, "r21", {
        "FRANCE": "A GAS - MAR\nA SPA S A GAS - MAR\nA MAR H\nA BUR H",
        "GERMANY": "A RUH - BUR\nA MUN S A RUH - BUR\nA KIE - MUN",
    })  # fmt: skip
    assert "A MAR H (*dislodged*)" not in results and "A GAS - MAR (*bounce*)" in results
    assert "A BUR H (*dislodged*)" in results, results
    units = units_at("r21")
    assert units["mar"] == "FRANCE A" and units["gas"] == "FRANCE A"
    assert units["bur"] == "GERMANY A"


def test_rule_22_retreats(harness: Harness) -> None:
    """Seed 003, rule 22: "A dislodged unit must retreat to an adjacent province.
    Retreats can't be convoyed or supported. If two or more units are ordered to retreat
    to the same province, they all must be disbanded. If a country fails to order a
    retreat when necessary, the unit is disbanded." France and Germany both retreat into
    Picardy: both are disbanded; Italy's army given no retreat is disbanded; a retreat to
    a province not adjacent is refused."""
    h = harness
    dislodged = [
        {"power": "FRANCE", "type": "A", "loc": "bel", "attacker_from": "hol"},
        {"power": "GERMANY", "type": "A", "loc": "par", "attacker_from": "gas"},
        {"power": "ITALY", "type": "A", "loc": "pie", "attacker_from": "mar"},
    ]
    board("r22", "diplonomic", "S1901R",
          ["ENGLAND A hol", "ENGLAND A bel", "FRANCE A par", "FRANCE A pie"], {},
          dislodged=dislodged)  # fmt: skip
    refused = say(h, "r22", "ITALY", "A PIE R NAP")
    assert "not accepted: A PIE R NAP" in refused, refused
    results = play(h, "r22", {"FRANCE": "A BEL R PIC", "GERMANY": "A PAR R PIC"})
    assert "A BEL R PIC (*bounce*)" in results and "A PAR R PIC (*bounce*)" in results
    assert "A PIE D (*disbanded*) [default]" in results, results
    units = units_at("r22")
    assert "pic" not in units and "nap" not in units, units
    assert sorted(units) == ["bel", "hol", "par", "pie"]  # the three dislodged are gone


def test_rule_23_control_and_builds(harness: Harness) -> None:
    """Seed 003, rule 23: "A country controls a supply center when one of its units
    occupies that supply-center province after a Fall turn has been played and completed.
    Once a country gains control of a supply center, it can leave the center vacant and
    still keep control of it ... If a country has more supply centers than units, it can
    place new units in each unoccupied supply center of its home country that it still
    controls. All provinces can build armies, but only coastal provinces can build
    fleets." France takes Belgium in the Fall and keeps Marseilles empty; in the winter a
    fleet in Paris and an army in Belgium (not home) are refused, an army in Paris built."""
    h = harness
    owners = {"par": "FRANCE", "mar": "FRANCE", "bre": "FRANCE"}
    board("r23", "diplonomic", "F1901M", ["FRANCE A bur", "FRANCE F bre"], owners)
    play(h, "r23", {"FRANCE": "A BUR - BEL\nF BRE H"})
    h.wait_until(lambda: get_game("r23").phase == "W1901A")
    owned = get_game("r23").position["sc_owners"]
    assert owned["bel"] == "FRANCE" and owned["mar"] == "FRANCE", owned
    assert "not accepted: F PAR B" in say(h, "r23", "FRANCE", "F PAR B")
    assert "not accepted: A BEL B" in say(h, "r23", "FRANCE", "A BEL B")
    results = play(h, "r23", {"FRANCE": "A PAR B\nA MAR B"})
    assert "A PAR B" in results and "A MAR B" in results
    units = units_at("r23")
    assert units["par"] == "FRANCE A" and units["mar"] == "FRANCE A"


# --- seed 000: the tie rule -----------------------------------------------------------------

HOMES = ["par", "mar", "bre"]
SETS = ["A PAR H\nA MAR H\nF BRE H", "A PAR - BUR\nA MAR H\nF BRE H",
        "A PAR - PIC\nA MAR H\nF BRE H", "A PAR - GAS\nA MAR H\nF BRE H"]  # fmt: skip
# Stage 1: set 1 three, set 2 two, set 3 one, set 4 two of eight; set 3 goes (to set 2),
# then set 4 (one to each): sets 1 and 2 both reach 4 of 8, 50%, at stage 3.
BALLOTS = ["1", "1", "1", "2", "2", "3 2", "4 1", "4 2"]


def test_seed_000_a_tie_at_the_quota_goes_to_the_earlier_stages(harness: Harness) -> None:
    """Seed 000, Tie Breakers: "In the event that two or more options equally reach the
    50% quota at a particular stage of transferring votes, trace backwards in the stages.
    The option that had the more votes than the others is chosen." France's sets 1 and 2
    both hold 4 of the 8 ballots at stage 3; they were level at stage 2 too, and at stage
    1 set 1 had 3 to set 2's 2: set 1 is chosen, and the count published to France's
    citizens says how the tie was settled."""
    h = harness
    create_game("tie0", MASTER, "masterpw", variant="democratic")
    french = [f"cit{n}" for n in range(8)]
    for name in french:
        join_citizen(get_game("tie0"), f"{name}@citizens.test", f"pw-{name}", name)
    start_game(get_game("tie0"), random.Random(4))
    game = get_game("tie0")
    for n, name in enumerate(french):  # the eight live in France's three home centres
        Seat.update(centre=HOMES[n % 3]).where((Seat.game == game) & (Seat.name == name)).execute()

    def citizen(name: str, text: str) -> str:
        return flat(h.command(f"{name}@citizens.test", f"SIGNON {name}@tie0 pw-{name}\n{text}"))

    for n, orders in enumerate(SETS, start=1):
        made = citizen(french[n - 1], f"PROPOSAL ORDERS\n{orders}\nEND")
        assert f"order set {n} for FRANCE in S1901M" in made, made
    for name, ballot in zip(french, BALLOTS, strict=True):
        assert "ballot recorded" in citizen(name, f"VOTE ORDERS {ballot}")
    assert "processed" in master(h, "tie0", "PROCESS!")
    subject = "FRANCE's orders for S1901M"
    h.wait_until(lambda: any(subject in m.subject for m in h.sink.mails), what="the count")
    count = flat(text_of(next(m for m in h.sink.mails if subject in m.subject).message))
    assert "stage 1: set 1: 3, set 2: 2, set 3: 1, set 4: 2" in count, count
    assert "stage 3: set 1: 4, set 2: 4" in count, count
    assert "tie for win between set 1 and set 2: settled by stage 1" in count, count
    assert "Order set 1 was chosen" in count
    assert units_at("tie0")["par"] == "FRANCE A"  # set 1: everyone held


# --- seed 001: HOLD_WIN and SHARED_VICTORY -------------------------------------------------

EIGHTEEN = ["par", "mar", "bre", "bel", "hol", "spa", "por", "mun", "ber", "kie", "den",
            "lon", "lvp", "edi", "nwy", "swe", "tun", "naples"]  # fmt: skip


def _owners(power: str, centres: list[str]) -> dict[str, str]:
    return {("nap" if c == "naples" else c): power for c in centres}


def test_seed_001_hold_win_needs_two_years_in_a_row(harness: Harness) -> None:
    """Seed 001, HOLD_WIN: "To win a game using this rule, a player must achieve the
    winning condition two game-years in a row." France holds 18 centres after the Fall of
    1901: the game goes on; still 18 after the Fall of 1902: France wins."""
    h = harness
    board("hold", "standard", "F1901M", ["FRANCE A par"], _owners("FRANCE", EIGHTEEN),
          rules="HOLD_WIN")  # fmt: skip
    play(h, "hold", {"FRANCE": "A PAR H"})
    game = get_game("hold")
    assert game.state == "active", game.outcome
    game.phase = "F1902M"
    game.position = {**game.position, "phase": "F1902M"}
    game.save()
    play(h, "hold", {"FRANCE": "A PAR H"})
    assert get_game("hold").outcome == "WIN FRANCE"


def test_seed_001_shared_victory_names_every_power_at_the_count(harness: Harness) -> None:
    """Seed 001, SHARED_VICTORY: "When this rule is in effect, the game ends immediately
    after the first player reaches the victory condition. If any other player fulfills
    this condition at the same time (in games where this number is lower than the default
    of half of the number of SCs plus one), they are jointly declared winners ...,
    irrespective of the fact that one may have a higher total than the other." With the
    count at 10, France at 11 and Germany at 10 after the same Fall share the win."""
    h = harness
    owners = {**_owners("FRANCE", EIGHTEEN[:11]), **_owners("GERMANY", EIGHTEEN[11:])}
    owners.update({"war": "GERMANY", "mos": "GERMANY", "stp": "GERMANY"})
    board("shared", "standard", "F1901M", ["FRANCE A par", "GERMANY A mun"], owners,
          rules="SHARED_VICTORY")  # fmt: skip
    Game.update(victory_count=10).where(Game.name == "shared").execute()
    results = play(h, "shared", {"FRANCE": "A PAR H", "GERMANY": "A MUN H"})
    assert get_game("shared").outcome == "WIN FRANCE GERMANY", results


# --- seed 002: the outcasts choose the victor (rule 5b) ------------------------------------


def test_seed_002_the_outcasts_choose_the_victor(harness: Harness) -> None:
    """Seed 002, rule 5b: "If rule 5a ends the game with no winners, then instead of the
    playing powers voting, the outcast powers remaining cast one vote on who should be the
    victor. If the number of remaining outcast powers is even, the master also votes.
    These votes then determine who wins the game." and rule 6: "The winner is the last
    player left." France and Turkey, the last two in play, vote each other out: a tie that
    would leave nobody. The three outcasts still on the board vote (the master may not:
    they are odd), and their choice wins."""
    h = harness
    units = ["FRANCE A par", "FRANCE A mar", "TURKEY A con", "TURKEY F ank",
             "ENGLAND F nth", "GERMANY A kie", "ITALY A tyr"]  # fmt: skip
    owners = {"par": "FRANCE", "mar": "FRANCE", "con": "TURKEY", "ank": "TURKEY"}
    board("victor", "survive", "W1902A", units, owners)
    game = get_game("victor")
    for power in ("ENGLAND", "GERMANY", "ITALY"):
        Outcast.create(game=game, power=power, phase="W1900A", sequence=-1, reason="voted")
    assert "vote-out ballot recorded" in say(h, "victor", "FRANCE", "VOTE OUT TURKEY 2")
    assert "vote-out ballot recorded" in say(h, "victor", "TURKEY", "VOTE OUT FRANCE 2")
    h.wait_until(lambda: any("victor vote W1902A" in m.subject for m in h.sink.mails))
    assert get_game("victor").state == "active" and get_game("victor").phase == "W1902A"
    refused = master(h, "victor", "VOTE VICTOR FRANCE")
    assert "only when the outcasts are an even number" in refused, refused
    for power, choice in (("ENGLAND", "TURKEY"), ("GERMANY", "FRANCE"), ("ITALY", "TURKEY")):
        assert "ERROR" not in say(h, "victor", power, f"VOTE VICTOR {choice}")
    h.wait_until(lambda: get_game("victor").state == "finished", what="the victor vote")
    assert get_game("victor").outcome == "WIN TURKEY"
