"""Deadlines across the judge's outages: nobody is late for time the judge could not
take their orders.

While the judge's database is away (a restart, a failover, a full disk), or the judge
itself is stopped, mail to it is refused with a 4xx and the senders' servers send it again
minutes later. A deadline that fell in such a time, or within ``judge.outage_grace_minutes``
after it, is moved to after the outage: by the time lost before it, at least by the grace
(so that the mail refused meanwhile comes in first), and never earlier than it was. The
phase is then processed once, at the new deadline, and the players are told, as for any
moved deadline.

The outages are noted by the processes that saw them (mailjudge.store.outages, through the
runner), and by the clock's beat: a judge that starts after a long silence notes the
silence as an outage too.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from mailjudge.config.settings import current_settings
from mailjudge.game import schedule
from mailjudge.game.calendar import Change, invitation_ics
from mailjudge.render import render
from mailjudge.render.deadline import deadline_lines, deadline_text
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.store.models import Game, GameState, JudgeBeat, JudgeOutage, Seat

log = logging.getLogger(__name__)

# The clock ticks every 10 s: a beat older than this means no judge's clock ran.
SILENCE = timedelta(seconds=60)
# Outages older than this are forgotten (a phase lasts days; the rows stay small).
KEEP = timedelta(days=30)
# At least this long between the judge's return and a moved deadline (or the grace, if it
# is shorter): the players hear of the move before it passes.
SHORTEST_MOVE = timedelta(minutes=1)


def record(started_at: datetime, ended_at: datetime, cause: str) -> JudgeOutage:
    """Note an outage seen by one of the judge's processes."""
    return JudgeOutage.create(started_at=started_at, ended_at=ended_at, cause=cause[:500])


def beat(now: datetime) -> JudgeOutage | None:
    """The clock's beat: note that a judge's clock runs now. When the last beat is older
    than SILENCE (every judge was stopped, or its machine dead), that silence is noted as
    an outage; the beat moves by compare-and-set, so one judge notes it."""
    last = JudgeBeat.get_or_none(JudgeBeat.name == "clock")
    if last is None:
        JudgeBeat.insert(name="clock", at=now).on_conflict_ignore().execute()
        return None
    moved = (
        JudgeBeat.update(at=now)
        .where((JudgeBeat.name == "clock") & (JudgeBeat.at == last.at))
        .execute()
    )
    if moved != 1 or now - last.at <= SILENCE:
        return None
    log.warning("no judge's clock ran from %s to %s: deadlines in that time move", last.at, now)
    return record(last.at, now, "the judge was not running")


def grace() -> timedelta:
    return timedelta(minutes=current_settings().judge.outage_grace_minutes)


def moved_deadline(when: datetime, outage: JudgeOutage, now: datetime) -> datetime | None:
    """Where a phase processed at ``when`` (its deadline plus grace) goes because of
    ``outage``; None when the outage does not touch it."""
    started: datetime = outage.started_at
    ended: datetime = outage.ended_at
    least = grace()
    if not started <= when < ended + least:
        return None
    lost = min(when, ended) - started
    return max(ended + max(least, lost), now + min(SHORTEST_MOVE, least), when)


def move_past_outages(now: datetime) -> list[Outgoing]:
    """Move every deadline that an outage touched (see the module's docstring); the
    notices to the players of the games moved."""
    recent = list(JudgeOutage.select().where(JudgeOutage.ended_at > now - KEEP - grace()))
    if not recent:
        return []
    mails: list[Outgoing] = []
    for game in Game.select().where(
        (Game.state == GameState.ACTIVE) & Game.deadline.is_null(False)
    ):  # fmt: skip
        mails += _move(game, recent, now)
    return mails


def _move(game: Game, outages: list[JudgeOutage], now: datetime) -> list[Outgoing]:
    assert game.deadline is not None
    length = schedule.timing_of(game).grace
    processed_at = game.deadline + length
    began = schedule.phase_began(game)
    moved = [
        m for o in outages
        # A phase that began after the outage lost nothing to it.
        if (began is None or began < o.ended_at)
        and (m := moved_deadline(processed_at, o, now)) is not None
    ]  # fmt: skip
    if not moved:
        return []
    old, new = game.deadline, max(moved) - length
    # Compare-and-set: when two judges' clocks find the same outage, one moves the
    # deadline and tells the players.
    same = (Game.id == game.id) & (Game.deadline == old)
    if Game.update(deadline=new).where(same).execute() != 1:
        return []
    game = Game.get_by_id(game.id)
    schedule.set_deadline(game, new, now)
    span = max(outages, key=lambda o: o.ended_at)
    log.info("game %s: deadline of %s moved from %s to %s past an outage", game.name,
             game.phase, old, new)  # fmt: skip
    return _tell(game, span, now)


def _tell(game: Game, outage: JudgeOutage, now: datetime) -> list[Outgoing]:
    mails = []
    for seat in Seat.select().where(
        (Seat.game == game) & (Seat.status == "active") & Seat.person.is_null(False)
    ):  # fmt: skip
        body = render(
            "deadline_outage.txt.j2", game=game,
            began=deadline_text(game, seat.person, outage.started_at),
            ended=deadline_text(game, seat.person, outage.ended_at),
            deadline=deadline_lines(game, seat.person),
        )  # fmt: skip
        mail = mail_to_seat(seat, f"deadline moved: the judge was away ({game.phase})", body,
                            "notice")  # fmt: skip
        mail.calendar = invitation_ics(game, seat, Change.MOVED, now=now)
        mails.append(mail)
    return mails


def judge_away_between(start: datetime, end: datetime) -> bool:
    """Whether the judge could not take mail at some time from ``start`` to ``end`` (a
    phase's deadline and its processing): nobody is to blame for missing it then. A
    deadline that fell in an outage is moved past it by the clock; this holds where a
    phase was processed before that could happen."""
    return bool(
        JudgeOutage.select()
        .where((JudgeOutage.started_at <= end) & (JudgeOutage.ended_at >= start))
        .exists()
    )


def forget_old(now: datetime) -> int:
    """Outages past KEEP are forgotten (once a day)."""
    return int(JudgeOutage.delete().where(JudgeOutage.ended_at < now - KEEP).execute())
