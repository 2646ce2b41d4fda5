"""RECORD and SET RECORD: a player's record across the games of this judge
(service/records.py keeps it), mailed to their own address only, and on the web only
under a name they chose."""

from __future__ import annotations

from mailjudge.commands.base import Block, Command, CommandError, Context
from mailjudge.commands.registry import register
from mailjudge.config.settings import current_settings
from mailjudge.game.options import record_option
from mailjudge.permissions.vocabulary import Action
from mailjudge.service import records
from mailjudge.service.records import NEW_BELOW, Record
from mailjudge.store.models import Game

# HELP RECORD: what each figure means (the README's "A fair record" says the same).
DEFINITIONS = (
    "RECORD mails you your record across the games of this judge, to the address you",
    "write from (never to a Reply-To, never to anyone else). It counts, for every phase",
    "processed in which a power of yours had orders due (a movement with units, a retreat",
    "with dislodged units, an adjustment with builds or removals due):",
    "  owed: each such phase;",
    "  on time: your orders were complete, the last of them sent by the deadline;",
    "  in grace: complete, the last sent after the deadline but within its grace;",
    "  missed: late (complete only after the grace, the game waiting for you) or in civil",
    "      disorder (still incomplete when the phase was processed: the judge's defaults);",
    "  excused: not on time, but an absence of yours (SET ABSENCE) covered the deadline or",
    "      the processing, or the judge's mail to you that phase did not arrive, or the",
    "      master processed the phase before its deadline; counts neither way;",
    "  taken over: each power you took over (TAKEOVER), counted as a phase on time.",
    "Share on time = (on time + half of in grace + taken over) / (owed - excused + taken",
    "over). A game's MIN_RECORD (e.g. 0.9 OVER 20) refuses JOIN and TAKEOVER to a record",
    "under that share over at least that many counted phases; with fewer you are new, and",
    "welcome. A ROLLBACK takes the phases rolled back out of the record.",
    "SET RECORD PUBLIC AS name shows it at /players on the web under that name (never your",
    "address); SET RECORD PRIVATE hides it again.",
)


def judged_by_record(ctx: Context, game: Game) -> None:
    """A JOIN or TAKEOVER of a game with a MIN_RECORD is answered at the From only: its
    refusal says something of the From's record, which no Reply-To may read."""
    if record_option(game, "MIN_RECORD") is not None:
        ctx.token_for_sender = True


def record_help() -> list[str]:
    return [RecordCommand.usage, SetRecord.usage, "", *DEFINITIONS]


def _figures(record: Record) -> str:
    return (
        f"owed {record.owed}, on time {record.on_time}, grace {record.grace}, "
        f"missed {record.missed}, excused {record.excused}, took over {record.took_over}"
    )


def share_text(record: Record) -> str:
    share = record.share
    if share is None:
        return "new (nothing counted yet)"
    text = f"{float(share):.0%} of {record.counted} phases"
    if record.took_over:
        text += f" and {record.took_over} takeover(s)"
    if record.is_new():
        text += f" (new: under {NEW_BELOW})"
    return text


def record_lines(record: Record, games: list[tuple[str, Record]], public: str | None) -> list[str]:
    lines = [
        f"your record on this judge, in {record.games} game(s):",
        f"  phases owed: {record.owed}",
        f"  on time: {record.on_time}",
        f"  in grace: {record.grace}",
        f"  missed: {record.missed} (late {record.late}, civil disorder {record.disorder})",
        f"  civil disorders: {record.disorder}",
        f"  excused: {record.excused}",
        f"  powers taken over: {record.took_over}",
        f"  share on time: {share_text(record)}",
    ]
    if games:
        lines.append("by game:")
        lines += [f"  {name}: {_figures(part)}" for name, part in games]
    if public:
        lines.append(f"public on the web as {public} (SET RECORD PRIVATE hides it)")
    else:
        lines.append("private (SET RECORD PUBLIC AS name shows it on the web)")
    lines.append("HELP RECORD says what each figure means")
    return lines


@register
class RecordCommand(Command):
    action = Action.RECORD
    name = "RECORD"
    arguments = ""
    hint = (
        "write RECORD alone: it mails you your own record; the records players made public "
        "are on the web at /players"
    )
    summary = (
        "your record across this judge's games (on time, in grace, missed, excused, taken "
        "over), mailed to the address you write from only; HELP RECORD explains it"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        ctx.require(Action.RECORD)
        own = ctx.seat.person if ctx.seat is not None else None
        if ctx.to_seat_only and own is not None and own.email != ctx.sender.lower():
            raise CommandError(
                "this answer goes to the seat's own address, not yours: ask for RECORD in a "
                "mail of its own"
            )
        # The record is about the From address, and its answer goes there only, never to
        # a Reply-To: a forged From gets the forger nothing.
        ctx.token_for_sender = True
        person = records.person_at(ctx.sender)
        if person is None:
            return ["you have no record here yet: you read as new, and may join any game"]
        public = str(person.record_name) if person.record_public else None
        return record_lines(records.record_of(person), records.games_of(person), public)


@register
class SetRecord(Command):
    action = Action.RECORD_SET
    name = "SET RECORD"
    usage = "SET RECORD PUBLIC [AS name] | SET RECORD PRIVATE"
    summary = (
        "show your record on the web (/players) under a name you choose, never your "
        "address; PRIVATE hides it again"
    )

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        ctx.require(Action.RECORD_SET)
        words = [w.upper() for w in args]
        if words == ["PRIVATE"]:
            was = records.set_private(ctx.sender)
            return ["your record is private" + ("" if was else " (it was not public)")]
        if words[:1] == ["PUBLIC"] and (len(words) == 1 or (len(words) == 3 and words[1] == "AS")):
            name = records.set_public(ctx.sender, args[2] if len(args) == 3 else None)
            base = current_settings().web.base_url
            return [f"your record is public as {name}: {base or ''}/players/{name}"]
        raise CommandError("write SET RECORD PUBLIC AS name, or SET RECORD PRIVATE")
