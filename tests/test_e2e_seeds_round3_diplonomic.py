"""Issue 39, round three of the seeds, by mail: Diplonomic (seed 003) and the removal
notes (seeds 001, 002, 003), Lytton's outcome lines (seed 004)."""

from __future__ import annotations

from boards import position
from e2e import MASTER, POWERS, Harness, player, secret, text_of

from mailjudge.demo.sink import Received
from mailjudge.service.state import get_game

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
