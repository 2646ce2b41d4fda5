"""STALEMATE_DRAW played by mail through the SMTP listener: the master sets it with SET
OPTION, a year passes with every unit holding (no supply centre changes owner), and the
players are asked to draw. Silence is consent: at the deadline the clock ends the game in
a draw of all surviving powers, with the game-over mail every ending has. One refusal
(VOTE NOSTALEMATE) and the game goes on."""

from __future__ import annotations

from datetime import timedelta

from helpers.e2e import MASTER, POWERS, Harness, player, seated, text_of

from mailjudge.demo.table import Table
from mailjudge.game.state import get_game
from mailjudge.store.models import Game, GameState, utcnow

ASKED = "a draw unless someone refuses"


def a_static_year(h: Harness, game: str) -> Table:
    """The game started, STALEMATE_DRAW 1 set by the master, and 1901 played with every
    unit holding (the master processes each phase; nobody orders, so all hold)."""
    table = seated(h, game)
    table.sign_on()
    master = f"SIGNON M{game} masterpw"
    assert "STALEMATE_DRAW is now 1" in h.command(MASTER, f"{master}\nSET OPTION STALEMATE_DRAW 1")
    for phase in ("S1901M", "F1901M"):
        assert "processed" in h.command(MASTER, f"{master}\nPROCESS!")
        h.wait_until(lambda p=phase: len(h.results_for(game, p)) == 8, what=f"results {phase}")
    assert get_game(game).phase == "S1902M"
    return table


def asked(h: Harness, game: str) -> list[object]:
    return [m for m in h.sink.mails if ASKED in str(m.message["Subject"])
            and str(m.message["Subject"]).startswith(f"[{game}]")]  # fmt: skip


def deadline_passes(h: Harness, game: str) -> None:
    past = utcnow() - timedelta(minutes=1)
    Game.update(deadline=past, next_reminder_at=past).where(Game.name == game).execute()
    h.judge.clock_tick()


def test_silence_is_consent_and_the_game_ends_in_a_draw(harness: Harness) -> None:
    h = harness
    table = a_static_year(h, "stale")
    h.wait_until(lambda: len(asked(h, "stale")) == 8, what="everyone asked to draw")
    france = next(m for m in asked(h, "stale") if m.rcpt_tos == [player("FRANCE")])  # type: ignore[attr-defined]
    body = " ".join(text_of(france.message).split())  # type: ignore[attr-defined]
    assert "no supply centre has changed owner in 1901" in body
    assert "VOTE NOSTALEMATE" in body and "by the deadline of S1902M" in body
    assert "AUSTRIA, ENGLAND, FRANCE, GERMANY, ITALY, RUSSIA, TURKEY" in body

    # Orders sent early do not cut the time to refuse: the phase waits for its deadline.
    table.send_orders("FRANCE", ["A PAR H", "A MAR H", "F BRE H"])
    assert get_game("stale").phase == "S1902M"

    deadline_passes(h, "stale")
    game = get_game("stale")
    assert game.state == GameState.FINISHED
    assert game.outcome == "DRAW " + " ".join(POWERS)
    subject = "[stale] the game is over: " + game.outcome.lower()
    h.wait_until(
        lambda: len([m for m in h.sink.mails if m.message["Subject"] == subject]) == 8,
        what="the game-over mail to everyone",
    )


def test_one_refusal_and_the_game_goes_on(harness: Harness) -> None:
    h = harness
    table = a_static_year(h, "goon")
    h.wait_until(lambda: len(asked(h, "goon")) == 8, what="everyone asked to draw")
    reply = h.command(player("TURKEY"), f"{table.signon('TURKEY')}\nVOTE NOSTALEMATE")
    assert "you refused the stalemate draw" in reply, reply
    told = "[goon] a player refused the stalemate draw: the game goes on"
    h.wait_until(
        lambda: len([m for m in h.sink.mails if m.message["Subject"] == told]) == 8,
        what="everyone told the game goes on",
    )
    for mail in (m for m in h.sink.mails if m.message["Subject"] == told):
        assert "TURKEY" not in text_of(mail.message)  # who refused is not told
    again = h.command(player("FRANCE"), f"{table.signon('FRANCE')}\nVOTE NOSTALEMATE")
    assert "refused this stalemate draw already" in again, again

    deadline_passes(h, "goon")
    game = get_game("goon")
    assert game.state == GameState.ACTIVE and game.outcome == ""
    assert "processed" in h.command(MASTER, "SIGNON Mgoon masterpw\nPROCESS!")
    assert get_game("goon").phase == "F1902M"
