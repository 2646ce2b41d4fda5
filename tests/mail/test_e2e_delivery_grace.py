"""Issue 34, point 5, played by mail through the SMTP listener: the mail that opened
France's phase bounces (a delivery report mailed back to the judge's VERP address), the
deadline passes, and France is not counted late: it gets the grace instead of civil
disorder, the master's notice says why, and France's STATUS shows the bounce in the far
server's words."""

from __future__ import annotations

import re
from datetime import timedelta

from helpers.e2e import MASTER, Harness, player, seated, text_of

from mail.test_bounces import bounce_back, to
from mailjudge.game.state import get_game
from mailjudge.store.models import Game, Outbox, utcnow


def flat(text: str) -> str:
    return " ".join(text.split())


def test_a_bounced_phase_mail_gives_grace_and_status_shows_the_bounce(harness: Harness) -> None:
    h = harness
    table = seated(h, "lostmail")
    table.sign_on("POWER_CHOICE CIVIL_DISORDER")  # no GRACE: civil disorder at the deadline
    france = player("FRANCE")

    def opening() -> list[object]:  # the judge's own mail to France, not an answer
        return [m for m in to(h, france) if m.message["In-Reply-To"] is None]  # type: ignore[attr-defined]

    h.wait_until(opening, what="the mail that opened the game for France")
    start = opening()[-1]
    bounce_back(h, start.mail_from, france)  # type: ignore[attr-defined]
    h.wait_until(
        lambda: any(r.last_error.startswith("bounced at ") for r in Outbox.select()),
        what="the bounce recorded on the outbox row",
    )
    # The clock moves past the deadline (a master cannot set one in the past by mail).
    past = utcnow() - timedelta(minutes=5)
    Game.update(deadline=past, next_reminder_at=past).where(Game.name == "lostmail").execute()
    h.judge.clock_tick()

    def notice() -> list[object]:
        return [m for m in h.sink.mails if "grace for FRANCE" in str(m.message["Subject"])]

    h.wait_until(notice, what="the master's notice")
    [told] = notice()
    assert told.rcpt_tos == [MASTER]  # type: ignore[attr-defined]
    body = flat(text_of(told.message))  # type: ignore[attr-defined]
    assert "not counted late" in body and "FRANCE:" in body
    assert "5.1.1" in body and "User unknown" in body, body
    h.judge.clock_tick()  # the clock again: still nothing processed, France has its grace
    assert get_game("lostmail").phase == "S1901M"
    status = flat(table.say(table.players["FRANCE"], f"{table.signon('FRANCE')}\nSTATUS"))
    assert "Mail the judge sent you:" in status, status
    assert "bounced at" in status and "550 5.1.1" in status and "User unknown" in status
    assert "accepted by 127.0.0.1 at" in status
    # The relay's own words, as the sink (worded like Postfix) said them.
    assert re.search(r"accepted by 127\.0\.0\.1 at [^()]* UTC \(250 2\.0\.0 Ok: queued as sink-\d+\)",
                     status), status  # fmt: skip
    assert "england@players.test" not in status  # only France's own mail
