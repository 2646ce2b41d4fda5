"""A player's record across the games of this judge: for each phase they owed orders in,
whether the orders came on time, in the grace, late or never, or whether they were
excused; and the powers they took over.

Each processed phase writes one entry (``RecordEntry``) per seat that had to order, from
the orders on file as the phase is processed (``note_phase``, called by processing.process
inside its locked compare-and-set, so a phase is noted once even under two workers):

- owed: the seat's player held a power with orders due (a movement with units, a retreat
  with dislodged units, an adjustment with builds or removals due); dummies, vacant powers
  and powers out of the game owe nothing. Where two players share a power (Double) each
  owes its orders and each is judged by their own (before they are synchronised);
- on time: the power's orders were complete, and the last of them came by the deadline
  (or the phase had no deadline);
- in grace (``grace``): complete, the last after the deadline but within its grace;
- late: complete only after the grace, while the game waited for them;
- civil disorder (``disorder``): still incomplete when the phase was processed (the master's
  PROCESS! or the end of the grace under CIVIL_DISORDER): the judge's defaults played them;
- excused: would have been in grace, late or in civil disorder, but an absence of theirs
  (SET ABSENCE) covered the deadline or the moment of processing, or the judge's mail to
  them this phase did not arrive (game/delivery.py), or the phase was processed (the
  master's PROCESS!) before its deadline. An excused phase counts neither way.

"Missed" is late and civil disorder together. A TAKEOVER writes a ``takeover`` entry,
which counts as one more phase on time: taking over an abandoned power is a service (the
master's UNDO TAKEOVER deletes it). In Double each of a power's two players owes its
orders; they share the power's outcome.

Whether a seat really missed a deadline, so that its power may open for a stranger
(service/openings.py), is ``missed_deadline``'s answer alone: civil disorder, after the
grace, not excused.

The share on time is (on time + half of in grace + takeovers) / (owed - excused +
takeovers). A player with fewer counted phases (owed - excused) than a game's MIN_RECORD
asks for reads as new, and may join.

A ROLLBACK takes the phases rolled back out of every record: an entry counts while its
phase stands, i.e. while its sequence is below the game's. Processing the phase again
writes its entries anew; ROLLFORWARD, which replays the stored orders as sent, brings the
old ones back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from peewee import fn

from mailjudge.game import delivery
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.options import option_text, record_option
from mailjudge.game.schedule import absences, timing_of
from mailjudge.game.state import current_position, orders_on_file, players
from mailjudge.service import outages
from mailjudge.service.orders import powers_to_order
from mailjudge.store.models import Game, OrderLine, Person, RecordEntry, Seat, utcnow
from mailjudge.variants import variant_of

ON_TIME, GRACE, LATE, DISORDER, EXCUSED, TAKEOVER = (
    "on time", "grace", "late", "disorder", "excused", "takeover",
)  # fmt: skip
# Below this many counted phases a record reads "new" on the web and in RECORD.
NEW_BELOW = 10
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{1,31}")


@dataclass(frozen=True)
class Record:
    """A person's record: how many entries of each outcome, in how many games."""

    on_time: int = 0
    grace: int = 0
    late: int = 0
    disorder: int = 0
    excused: int = 0
    took_over: int = 0
    games: int = 0

    @property
    def owed(self) -> int:
        return self.on_time + self.grace + self.late + self.disorder + self.excused

    @property
    def missed(self) -> int:
        return self.late + self.disorder

    @property
    def counted(self) -> int:
        """The phases that count: owed, less the excused."""
        return self.owed - self.excused

    @property
    def share(self) -> Fraction | None:
        """The share on time (see the module's docstring); None with nothing counted."""
        whole = self.counted + self.took_over
        if whole == 0:
            return None
        return (Fraction(self.on_time) + Fraction(self.grace, 2) + self.took_over) / whole

    def is_new(self, phases: int = NEW_BELOW) -> bool:
        return self.counted < phases


@dataclass(frozen=True)
class Noted:
    """One seat's entry of the phase being processed, as note_phase wrote it."""

    seat: Seat
    powers: list[str]  # the seat's powers that owed orders
    outcome: str


def _late_for(seat: Seat, owed: list[str], late: set[str]) -> bool:
    """Whether the seat's orders were incomplete: a power of its in ``late`` as a power
    ("ITALY"), or as this seat's share of one ("ROME (persia-rome)": Double, where each
    of a power's two players owes its orders)."""
    return any(p in late or f"{p} ({seat.name})" in late for p in owed)


def _outcome(game: Game, incomplete: bool, lines: list[OrderLine], now: datetime) -> str:
    """What became of a seat's orders, before any excuse."""
    if incomplete:
        if game.deadline is not None and now < game.deadline:
            return EXCUSED  # processed before its deadline (the master's PROCESS!): not theirs
        return DISORDER
    last = max((line.submitted_at for line in lines), default=None)
    deadline = game.deadline
    if last is None or deadline is None or last <= deadline:
        return ON_TIME
    return GRACE if last <= deadline + timing_of(game).grace else LATE


def _away(game: Game, seat: Seat, now: datetime) -> bool:
    """An absence of the seat's covers the deadline or the moment of processing."""
    moments = [now] + ([game.deadline] if game.deadline is not None else [])
    return any(start <= t < end for start, end in absences(seat) for t in moments)


def _excused(game: Game, seat: Seat, owed: list[str], undelivered: set[str], now: datetime) -> bool:
    """A seat whose orders were late or missing is not to blame: an absence of theirs
    covered the deadline or the processing, or the judge's mail to them this phase did not
    arrive (``undelivered``: delivery.excused), or the judge itself could not take mail
    between the deadline and the processing (service/outages.py). Read with the phase
    still the game's current one (its deadline, its mail)."""
    if _away(game, seat, now) or any(p in undelivered for p in owed):
        return True
    return game.deadline is not None and outages.judge_away_between(game.deadline, now)


def missed_deadline(game: Game, noted: Noted, now: datetime) -> bool:
    """Did this seat really miss this phase's deadline, so that its power may go to
    someone else (an opening, service/openings.py)? Its orders were still incomplete
    when the phase was processed (civil disorder), after the deadline's grace, and
    nothing excused it (an absence, the judge's mail not arriving: ``_excused``, which
    note_phase applied). An early PROCESS!, or one within the grace, takes nobody's
    power. Called inside processing, while the phase processed is the game's current one
    (its deadline). The one place that decides it: a new excuse (the judge's own outage)
    belongs here, or in ``_excused`` to count for the record too."""
    if noted.outcome != DISORDER or game.deadline is None:
        return False
    return bool(now >= game.deadline + timing_of(game).grace)


def note_phase(game: Game, late: list[str], now: datetime | None = None) -> list[Noted]:
    """Write the record entries of the game's current phase, about to be processed, for
    every seat that owed orders in it; ``late`` are the powers whose orders are not complete
    (processing.late_powers). Entries of this phase or later ones left from before a
    ROLLBACK are replaced. The entries written."""
    now = now or utcnow()
    RecordEntry.delete().where(
        (RecordEntry.game == game) & (RecordEntry.sequence >= game.sequence)
        & (RecordEntry.outcome != TAKEOVER)
    ).execute()  # fmt: skip
    due = set(powers_to_order(game, current_position(game)))
    if not due:
        return []
    on_file = orders_on_file(game)
    late_set = set(late)
    own = variant_of(game).people.orders_per_player
    found: list[Noted] = []
    for seat in players(game):
        owed = [p for p in seat.powers if p in due]
        if seat.person_id is None or seat.dummy or seat.status != "active" or not owed:
            continue
        lines = [line for p in owed for line in on_file.get(p, [])]
        if own:  # partners' orders are kept apart (Double): the seat's own count for it
            lines = [x for x in lines if x.submitted_by_id in (seat.id, None)]
        found.append(Noted(seat, owed, _outcome(game, _late_for(seat, owed, late_set), lines, now)))
    faulted = [p for n in found if n.outcome in (GRACE, LATE, DISORDER) for p in n.powers]
    undelivered = set(delivery.excused(game, faulted, now))  # one look at the outbox for all
    noted: list[Noted] = []
    for entry in found:
        outcome = entry.outcome
        if outcome in (GRACE, LATE, DISORDER) and _excused(
            game, entry.seat, entry.powers, undelivered, now
        ):
            outcome = EXCUSED
        RecordEntry.create(
            person=entry.seat.person_id, game=game, phase=game.phase, sequence=game.sequence,
            powers=entry.powers, outcome=outcome, at=now,
        )  # fmt: skip
        noted.append(Noted(entry.seat, entry.powers, outcome))
    return noted


def note_takeover(seat: Seat, now: datetime | None = None) -> None:
    """A TAKEOVER: a point in the taker's favour."""
    game = seat.game
    RecordEntry.create(
        person=seat.person_id, game=game, phase=game.phase or "", sequence=game.sequence,
        powers=seat.powers, outcome=TAKEOVER, at=now or utcnow(),
    )  # fmt: skip


def takeover_this_phase(seat: Seat) -> RecordEntry | None:
    """The entry of the TAKEOVER that gave ``seat`` its player in the game's current phase
    (UNDO TAKEOVER undoes only those); None: its player came otherwise, or earlier."""
    game = seat.game
    entries = RecordEntry.select().where(
        (RecordEntry.game == game) & (RecordEntry.person == seat.person_id)
        & (RecordEntry.outcome == TAKEOVER) & (RecordEntry.sequence == game.sequence)
    )  # fmt: skip
    found: RecordEntry | None = next(
        (e for e in entries if list(e.powers) == list(seat.powers)), None
    )
    return found


def _counts(person: Person) -> dict[int, dict[str, int]]:
    """The person's entries whose phase stands (not rolled back), counted by game id and
    outcome."""
    standing = (RecordEntry.sequence < Game.sequence) | (RecordEntry.outcome == TAKEOVER)
    rows: Any = (
        RecordEntry.select(RecordEntry.game, RecordEntry.outcome, fn.COUNT(RecordEntry.id))
        .join(Game, on=(RecordEntry.game == Game.id))
        .where((RecordEntry.person == person) & standing)
        .group_by(RecordEntry.game, RecordEntry.outcome)
        .tuples()
    )
    by_game: dict[int, dict[str, int]] = {}
    for game_id, outcome, n in rows:
        by_game.setdefault(int(game_id), {})[str(outcome)] = int(n)
    return by_game


def _record(counts: dict[str, int], games: int) -> Record:
    return Record(
        on_time=counts.get(ON_TIME, 0), grace=counts.get(GRACE, 0), late=counts.get(LATE, 0),
        disorder=counts.get(DISORDER, 0), excused=counts.get(EXCUSED, 0),
        took_over=counts.get(TAKEOVER, 0), games=games,
    )  # fmt: skip


def record_of(person: Person | None) -> Record:
    """The person's record over every game."""
    if person is None:
        return Record()
    by_game = _counts(person)
    total: dict[str, int] = {}
    for counts in by_game.values():
        for outcome, n in counts.items():
            total[outcome] = total.get(outcome, 0) + n
    return _record(total, len(by_game))


def person_at(address: str) -> Person | None:
    """The person on file for an address; None for one the judge has never seen."""
    return Person.get_or_none(Person.email == address.strip().lower())


def record_for(address: str) -> Record:
    return record_of(person_at(address))


def games_of(person: Person) -> list[tuple[str, Record]]:
    """The person's record game by game (for their own RECORD only)."""
    by_game = _counts(person)
    names = {
        g.id: g.name for g in Game.select(Game.id, Game.name).where(Game.id.in_(list(by_game)))
    }
    found = [(str(names[i]), _record(counts, 1)) for i, counts in by_game.items()]
    return sorted(found, key=lambda item: item[0])


def meets(record: Record, wanted: tuple[float, int]) -> bool:
    """Whether the record meets a MIN_RECORD of (share, phases): a newcomer (fewer counted
    phases than ``phases``) always does."""
    share, phases = wanted
    if record.is_new(phases):
        return True
    got = record.share
    return got is not None and got >= Fraction(str(share))


def require_min_record(game: Game, address: str) -> None:
    """JOIN and TAKEOVER: refused when the game has a MIN_RECORD the joiner's record does
    not meet. The refusal gives no figures: RECORD mails them to the address itself."""
    wanted = record_option(game, "MIN_RECORD")
    if wanted is None or meets(record_for(address), wanted):
        return
    share, phases = wanted
    raise NotAllowed(
        f"{game.name} asks its players for a record of {option_text(game, 'MIN_RECORD')} "
        f"(MIN_RECORD: on time in {share:.0%} of their phases, over at least {phases}), and "
        "the record of your address falls short; RECORD mails you yours"
    )


def set_public(address: str, name: str | None) -> str:
    """SET RECORD PUBLIC [AS name]: the record on the web under ``name`` (or the name
    chosen before); returns the name."""
    person = person_at(address)
    if person is None:
        raise ServiceError("the judge has no record of this address yet: it has played nothing")
    chosen = name if name is not None else str(person.record_name)
    if not chosen:
        raise ServiceError(
            "write SET RECORD PUBLIC AS name: your record is shown by a name you choose, "
            "never by your address"
        )
    if not _NAME.fullmatch(chosen) or "@" in chosen:
        raise ServiceError(
            f"{chosen!r} cannot be a record's name: 2 to 32 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit (SET RECORD PUBLIC AS Marianne_B)"
        )
    taken = Person.get_or_none(
        (fn.LOWER(Person.record_name) == chosen.lower()) & (Person.id != person.id)
    )
    if taken is not None:
        raise NotAllowed(f"another player's record is shown as {chosen}; choose another name")
    person.record_name, person.record_public = chosen, True
    person.save()
    return chosen


def set_private(address: str) -> bool:
    """SET RECORD PRIVATE: the record leaves the web. Whether it was public."""
    person = person_at(address)
    if person is None or not person.record_public:
        return False
    person.record_public = False
    person.save()
    return True


def public_records() -> list[tuple[str, Record]]:
    """Every record its player made public, by its name (never an address)."""
    people = Person.select().where(Person.record_public).order_by(fn.LOWER(Person.record_name))
    return [(str(p.record_name), record_of(p)) for p in people]


def public_record(name: str) -> tuple[str, Record] | None:
    """A public record by its name (any case): the name as chosen, and the record."""
    person = Person.get_or_none(
        Person.record_public & (fn.LOWER(Person.record_name) == name.lower())
    )
    return None if person is None else (str(person.record_name), record_of(person))
