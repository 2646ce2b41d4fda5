"""Signals that two seats of one game may be one person, for the game's master only: the
judge never acts on them (a family, a club or an office may share much honestly).

Each mail that signs on to a player's seat leaves what its headers show
(inbound/signals.py: the DKIM signing domain and the Message-ID host where they are not a
large provider's, the mail client and its version, the network of the first server that
names the sending machine, unless the sender's domain is a large provider's), and a JOIN
is checked against the game's other seats' password hashes (one password for two seats).
Two seats are listed when they share a password, or at least two kinds of signal: one
client version alone, or one small provider's domain alone, is too common to say
anything. STATUS shows the master the pairs with their evidence, and the master is mailed
the first time a pair appears.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from peewee import Tuple

from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.secrecy.passwords import verify_password
from mailjudge.store.models import Game, Seat, utcnow
from mailjudge.store.signal_models import SeatPairNotice, SeatSignal

PASSWORD = "password"
WORDS = {
    "dkim": "the same DKIM signing domain", "msgid": "the same Message-ID host",
    "client": "the same mail client and version", "network": "mail sent from one network",
    PASSWORD: "one password for both seats",
}  # fmt: skip


@dataclass(frozen=True)
class Pair:
    first: Seat
    second: Seat
    evidence: tuple[tuple[str, str], ...]  # (kind, value); value "" for a password

    @property
    def key(self) -> str:
        return f"{self.first.id}-{self.second.id}"

    def lines(self) -> list[str]:
        head = f"{self.first.name} and {self.second.name} may be one person:"
        return [head, *(f"    {WORDS[k]}{f': {v}' if v else ''}" for k, v in self.evidence)]


def _note(game: Game, seat: Seat, found: Sequence[tuple[str, str]], now: datetime) -> bool:
    """Keeps what is new of ``found`` for ``seat``; whether anything was, or the seat
    shares a password (its JOIN found it; the pair is told with the seat's next mail). A
    seat's mail shows the same signals mail after mail: one read, nothing written, then."""
    known = {(str(r.kind), str(r.value)) for r in SeatSignal.select(
        SeatSignal.kind, SeatSignal.value).where(SeatSignal.seat == seat)}  # fmt: skip
    fresh = [(kind, value) for kind, value in dict.fromkeys(found) if (kind, value) not in known]
    for kind, value in fresh:
        SeatSignal.insert(
            game=game, seat=seat, kind=kind, value=value, at=now
        ).on_conflict_ignore().execute()
    return bool(fresh) or any(kind == PASSWORD for kind, _ in known)


def _opened_by(game: Game, password: str, person: int | None) -> list[Seat]:
    """The players' seats of the game (not ``person``'s) that ``password`` opens."""
    others = Seat.select().where(
        (Seat.game == game) & Seat.password_hash.is_null(False) & (Seat.role != "master")
        & ((Seat.person != person) | Seat.person.is_null())
    )  # fmt: skip
    found = []
    for other in others:
        try:
            if verify_password(password, str(other.password_hash)):
                found.append(other)
        except ValueError:
            continue
    return found


def note_password(seat: Seat, password: str, now: datetime | None = None) -> None:
    """At JOIN: whether the joiner's password opens another player's seat of the game.
    A JOIN that waited for its CONFIRM was checked when it came (note_waiting_join)."""
    now = now or utcnow()
    for other in _opened_by(seat.game, password, seat.person_id) if password else []:
        _note(seat.game, seat, [(PASSWORD, str(other.id))], now)
    waiting = SeatSignal.select().where(
        (SeatSignal.game == seat.game_id) & (SeatSignal.kind == PASSWORD)
        & (SeatSignal.value == _WAITING + _email(seat))
    )  # fmt: skip
    for row in waiting:
        _note(seat.game, seat, [(PASSWORD, str(row.seat_id))], now)
        row.delete_instance()


def _email(seat: Seat) -> str:
    person = seat.person
    return "" if person is None else str(person.email)


_WAITING = "join:"  # a password match of a JOIN still waiting for its CONFIRM, by address


def note_waiting_join(game: Game, email: str, password: str) -> None:
    """A JOIN from an unproven address keeps only the password's hash until its CONFIRM:
    the match is looked for now, and kept on the other seat until the joiner's seat is
    made (note_password)."""
    for other in _opened_by(game, password, None):
        if _email(other) == email.lower():
            continue
        _note(game, other, [(PASSWORD, _WAITING + email.lower())], utcnow())


def pairs(game: Game, around: Seat | None = None) -> list[Pair]:
    """The pairs of seats of the game whose signals say they may be one person (those of
    ``around`` only, when given: read from the signals it shares)."""
    rows = list(SeatSignal.select().where(SeatSignal.game == game)) if around is None else (
        _shared_with(game, around))  # fmt: skip
    if around is not None and all(r.seat_id == around.id and r.kind != PASSWORD for r in rows):
        return []  # it shares nothing with another seat (the usual case)
    seats = {s.id: s for s in Seat.select().where(Seat.game == game)}
    holders: dict[tuple[str, str], set[int]] = {}
    shared: dict[tuple[int, int], list[tuple[str, str]]] = {}
    for row in rows:
        if row.kind == PASSWORD and str(row.value).startswith(_WAITING):
            continue
        if row.kind == PASSWORD:
            pair = tuple(sorted((int(row.seat_id), int(row.value))))
            shared.setdefault((pair[0], pair[1]), []).append((PASSWORD, ""))
        else:
            holders.setdefault((row.kind, row.value), set()).add(int(row.seat_id))
    for (kind, value), ids in holders.items():
        ordered = sorted(ids)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                shared.setdefault((a, b), []).append((kind, value))
    found = []
    for (a, b), evidence in sorted(shared.items()):
        kinds = {k for k, _ in evidence}
        mine = around is None or around.id in (a, b)
        if mine and a in seats and b in seats and (PASSWORD in kinds or len(kinds) >= 2):
            found.append(Pair(seats[a], seats[b], tuple(sorted(set(evidence)))))
    return found


def note_mail(seat: Seat, found: Sequence[tuple[str, str]], now: datetime) -> list[Outgoing]:
    """A mail signed on to ``seat`` showed ``found``; the mail to the master about any
    pair that appears for the first time. Only a new signal can make a new pair, and only
    with the seats that share it (a game of many citizens with one mail client)."""
    if seat.role == "master" or not _note(seat.game, seat, found, now):
        return []
    return tell_new_pairs(seat.game, now, around=seat)


def tell_new_pairs(game: Game, now: datetime, around: Seat | None = None) -> list[Outgoing]:
    new = [p for p in pairs(game, around) if not SeatPairNotice.select().where(
        (SeatPairNotice.game == game) & (SeatPairNotice.pair == p.key)).exists()]  # fmt: skip
    master = Seat.get_or_none((Seat.game == game) & (Seat.role == "master"))
    if not new or master is None or master.person is None:
        return []
    for pair in new:
        SeatPairNotice.create(game=game, pair=pair.key, at=now)
    body = render("multiseat.txt.j2", game=game, pairs=[p.lines() for p in new])
    return [mail_to_seat(master, f"two seats may be one person ({game.name})", body, "notice")]


def _shared_with(game: Game, seat: Seat) -> list[SeatSignal]:
    """In one read: the signals of ``seat``, every row of the game holding one of its
    values, and the password matches naming it."""
    own = [(str(r.kind), str(r.value)) for r in SeatSignal.select(
        SeatSignal.kind, SeatSignal.value).where(SeatSignal.seat == seat)]  # fmt: skip
    values = [pair for pair in own if pair[0] != PASSWORD]
    shares = Tuple(SeatSignal.kind, SeatSignal.value).in_(values) if values else False
    named = (SeatSignal.kind == PASSWORD) & (SeatSignal.value == str(seat.id))
    return list(SeatSignal.select().where(
        (SeatSignal.game == game) & ((SeatSignal.seat == seat) | shares | named)
    ))  # fmt: skip


def status_lines(game: Game) -> list[str]:
    """For the master's STATUS: the pairs and their evidence."""
    found = pairs(game)
    if not found:
        return []
    return ["signals that two seats may be one person (for you only, never acted on):",
            *(f"  {line}" for p in found for line in p.lines())]  # fmt: skip
