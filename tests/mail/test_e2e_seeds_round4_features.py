"""Issue 59, point 4, by mail through the SMTP listener: the new features ask the variant
who may take part and what a silent power does. A Survive outcast decides no VOTE EXTEND
(seed 002, rule 4a), and Diplonomic's silent country holds by rule 24 under STANDIN
(seed 003)."""

from __future__ import annotations

from datetime import timedelta

from helpers.e2e import MASTER, POWERS, Harness, player, secret, text_of

from mailjudge.game.state import get_game


def flat(text: str) -> str:
    """A reply's words on one line: the judge wraps its lines at 78 columns."""
    return " ".join(text.split())


def say(h: Harness, game: str, power: str, text: str) -> str:
    return flat(h.command(player(power), f"SIGNON {power.lower()}@{game} {secret(power)}\n{text}"))


def _start(h: Harness, game: str, variant: str, rules: str = "") -> None:
    line = f"CREATE {game} masterpw VARIANT {variant} RULES POWER_CHOICE {rules}".strip()
    assert "created" in h.command(MASTER, line)
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN {game} {secret(power)} {power}")
    h.wait_until(lambda: get_game(game).state == "active")


def _turkey_voted_out(h: Harness, game: str) -> None:
    """A Survive game put at F1902M and played to S1903M by mail, Turkey voted out."""
    state = get_game(game)
    state.phase = "F1902M"
    state.position = {**state.position, "phase": "F1902M"}
    state.save()
    for power in POWERS:
        units = [u for u in state.position["units"] if u["power"] == power]
        holds = "\n".join(f"{u['type']} {u['loc'].upper()} H" for u in units)
        assert "ERROR" not in say(h, game, power, holds)
    h.wait_until(lambda: get_game(game).phase == "W1902A")
    for power in POWERS:
        target, votes = ("RUSSIA", 3) if power == "TURKEY" else ("TURKEY", 3)
        votes = 4 if power == "RUSSIA" else votes
        assert "vote-out ballot recorded" in say(h, game, power, f"VOTE OUT {target} {votes}")
    h.wait_until(lambda: get_game(game).phase == "S1903M", what="the vote-out")


def test_a_survive_outcast_decides_no_vote_extend(harness: Harness) -> None:
    """Seed 002, rule 4a: "Whoever has the most votes against is out of the game. All of
    their units HOLD (may be supported by foreign units) and disband if dislodged." Out of
    the game, Turkey's player keeps the seat and its units stay on the board, but it has
    no say in the game's decisions: its VOTE EXTEND is refused, saying why, and the quorum
    (two thirds) is of the six powers still in play, so four votes move the deadline."""
    h = harness
    _start(h, "outx", "survive")
    _turkey_voted_out(h, "outx")
    before = get_game("outx").deadline
    refused = say(h, "outx", "TURKEY", "VOTE EXTEND 24H")
    assert "ERROR" in refused and "TURKEY is out of the game" in refused, refused
    assert "only the players of powers still in play vote" in refused
    for power in ("AUSTRIA", "ENGLAND", "FRANCE"):
        assert "is recorded" in say(h, "outx", power, "VOTE EXTEND 24H")
    assert get_game("outx").deadline == before
    assert "the deadline moved by 1D" in say(h, "outx", "GERMANY", "VOTE EXTEND 24H")
    assert get_game("outx").deadline == before + timedelta(days=1)


def test_a_silent_diplonomic_country_holds_by_rule_24_under_standin(harness: Harness) -> None:
    """Seed 003, rule 24: "If a Contestant leaves the game or eir country otherwise fails
    to submit orders on a given Spring or Fall turn, ... Eir units all hold in position,
    but don't support each other." Under STANDIN the stand-in would play a silent country
    actively (supporting its holds); in Diplonomic the rules text decides: France, silent,
    holds with every unit and nothing marked (stand-in), and SET STANDIN is refused with
    the rule's reason."""
    h = harness
    _start(h, "nomsi", "diplonomic", "STANDIN")
    refused = say(h, "nomsi", "FRANCE", "SET STANDIN ON")
    assert "ERROR" in refused and "played by rule 24" in refused, refused
    for power in POWERS:
        if power == "FRANCE":
            continue
        units = [u for u in get_game("nomsi").position["units"] if u["power"] == power]
        holds = "\n".join(f"{u['type']} {u['loc'].upper()} H" for u in units)
        assert "ERROR" not in say(h, "nomsi", power, holds)
    assert "processed" in flat(h.command(MASTER, "SIGNON Mnomsi masterpw\nPROCESS"))
    h.wait_until(lambda: len(h.results_for("nomsi", "S1901M")) == 8)
    results = flat(text_of(h.results_for("nomsi", "S1901M")[0].message))
    assert "(stand-in)" not in results, results
    for unit in ("A PAR H", "A MAR H", "F BRE H"):
        assert unit in results, results
    assert " S " not in results.split("FRANCE", 1)[1].split("GERMANY", 1)[0]
