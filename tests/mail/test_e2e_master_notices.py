"""What the game's master does by mail reaches the players: ROLLFORWARD sends the results
again, and SET DEADLINE is announced in each player's zone."""

from __future__ import annotations

from datetime import timedelta

from helpers.e2e import MASTER, POWERS, Harness, player, seated, text_of

from mailjudge.game.state import get_game
from mailjudge.store.models import utcnow


def flat(text: str) -> str:
    return " ".join(text.split())


def test_rollforward_sends_each_phase_results_again(harness: Harness) -> None:
    """ROLLBACK tells the players; ROLLFORWARD re-adjudicates the phases after it, and each
    one's results go to every player again, as PROCESS sent them, marked re-processed."""
    table = seated(harness, "redo")
    table.sign_on()
    table.play_phase({"FRANCE": ["A PAR - BUR", "A MAR H", "F BRE - MAO"]})
    table.play_phase({"FRANCE": ["A BUR - BEL", "A MAR - SPA", "F MAO - POR"]})
    master = "SIGNON Mredo masterpw\n"
    table.say(table.master, master + "ROLLBACK S1901M", "rolled back to S1901M")
    rolled = "[redo] rolled back to S1901M"
    harness.wait_until(
        lambda: len([m for m in harness.sink.mails if m.message["Subject"] == rolled]) == 7
    )
    done = flat(table.say(table.master, master + "ROLLFORWARD", "rolled forward 2 phase(s)"))
    assert "results sent again" in done
    for phase in ("S1901M", "F1901M"):
        subject = f"[redo] results {phase} (re-processed)"
        harness.wait_until(
            lambda s=subject: (
                len([m for m in harness.sink.mails if m.message["Subject"] == s]) == 8
            ),
            what=f"the re-processed results of {phase}",
        )
    again = [m for m in harness.sink.mails
             if m.message["Subject"] == "[redo] results F1901M (re-processed)"]  # fmt: skip
    assert sorted(r for m in again for r in m.rcpt_tos) == sorted(
        [MASTER] + [player(p) for p in POWERS]
    )
    body = flat(text_of(again[0].message))
    assert "adjudicated again" in body and "A BUR - BEL" in body


def test_set_deadline_is_announced_in_each_players_zone(harness: Harness) -> None:
    """SET DEADLINE tells every player the new deadline, in the game's zone and in the zone
    each one set with SET ZONE."""
    table = seated(harness, "clock")
    table.sign_on()
    table.say(table.players["ITALY"], f"{table.signon('ITALY')}\nSET ZONE Asia/Tokyo", "Tokyo")
    when = (utcnow() + timedelta(days=4)).replace(hour=12, minute=0, second=0, microsecond=0)
    stamp = f"{when:%Y-%m-%d} 12:00"
    answer = flat(table.say(table.master, f"SIGNON Mclock masterpw\nSET DEADLINE {stamp} UTC"))
    assert "7 player(s) told" in answer
    subject = "[clock] new deadline for S1901M"
    harness.wait_until(
        lambda: len([m for m in harness.sink.mails if m.message["Subject"] == subject]) == 7
    )
    told = {m.rcpt_tos[0]: flat(text_of(m.message)) for m in harness.sink.mails
            if m.message["Subject"] == subject}  # fmt: skip
    assert sorted(told) == sorted(player(p) for p in POWERS)
    assert "12:00" in told[player("FRANCE")] and "In your zone" not in told[player("FRANCE")]
    assert "In your zone" in told[player("ITALY")] and "21:00" in told[player("ITALY")]
    assert get_game("clock").deadline == when

    past = f"{utcnow() - timedelta(days=1):%Y-%m-%d %H:%M}"
    refused = flat(harness.command(MASTER, f"SIGNON Mclock masterpw\nSET DEADLINE {past} UTC"))
    assert "ERROR" in refused and "already past" in refused, refused
    assert get_game("clock").deadline == when
