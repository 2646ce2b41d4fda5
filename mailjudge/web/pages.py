"""What the public web pages show of a game, and nothing more.

This module is the web's privacy boundary: every page is built from what it returns, and
it reads only what the mails already make public to any observer. Never here: private
press, ballots and who cast them, an author the rules hide, passwords, addresses, the
orders of a phase not yet processed, and any game that is private (SOLITAIRE) or closed
to observers (NO_OBSERVATIONS).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from peewee import fn

from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.rules import RuleSet, catalogue
from mailjudge.engine.state import Phase
from mailjudge.game.state import (
    HIDDEN_FROM_PUBLIC,
    game_map,
    is_public,
    phase_label,
    power_title,
)
from mailjudge.render.results import record_facts, report_lines
from mailjudge.render.undrawn import picture_of
from mailjudge.store.models import Game, GameState, Person, PhaseRecord, Press, Seat
from mailjudge.variants import variant_of
from mailjudge.variants.web import PublicSection

# The seats with no part in the phases; every other seat plays (a player, or a variant's
# seat: Diplonomic's teammate, Democratic's citizen).
NOT_PLAYING = ("master", "observer")


def public_game(name: str) -> Game | None:
    """The game of that name if the public may see it; None (a 404) otherwise."""
    game = Game.get_or_none(Game.name == name.lower())
    return game if game is not None and is_public(game) else None


phase_name = phase_label


@dataclass
class GameLine:
    """One row of the list of games."""

    name: str
    variant: str
    phase: str
    state: str
    players: int
    deadline: datetime | None
    outcome: str


def game_lines(state: str | None = None) -> list[GameLine]:
    query = Game.select().order_by(Game.name)
    if state:
        query = query.where(Game.state == state)
    counts = _player_counts()
    return [_line(game, counts.get(game.id, 0)) for game in query if is_public(game)]


def _line(game: Game, players: int) -> GameLine:
    deadline = game.deadline if game.state == GameState.ACTIVE else None
    on_map = "" if game.map_name == "standard" else f" on {game.map_name}"
    return GameLine(
        name=game.name, variant=game.variant + on_map, phase=phase_name(game.phase),
        state=game.state, players=players, deadline=deadline, outcome=game.outcome,
    )  # fmt: skip


def _player_counts() -> dict[int, int]:
    rows = (
        Seat.select(Seat.game, fn.COUNT(Seat.id))
        .where(
            Seat.role.not_in(NOT_PLAYING)
            & (Seat.status == "active")
            & Seat.person.is_null(False)  # a vacant or dummy power is nobody
        )
        .group_by(Seat.game)
        .tuples()
    )
    return {int(game_id): int(n) for game_id, n in cast(Iterable[tuple[int, int]], rows)}


@dataclass
class PlayedPhase:
    code: str
    name: str
    processed_at: datetime


def played_phases(game: Game) -> list[PhaseRecord]:
    """The phases processed so far, in order (a phase rolled back is not among them)."""
    return list(
        PhaseRecord.select()
        .where((PhaseRecord.game == game) & (PhaseRecord.sequence < game.sequence))
        .order_by(PhaseRecord.sequence)
    )


@dataclass
class SeatLine:
    power: str
    who: str  # a public name or a description: never an address, nor a name made from one


def _shown(seat: Seat) -> str:
    """The public name the player chose (JOIN ... AS name), else nothing."""
    return str(seat.public_name or "")


def seat_lines(game: Game) -> list[SeatLine]:
    """Who plays what: each power and, where the player chose one, the public name. A game
    whose powers nobody holds alone (Democratic) shows its people per power instead."""
    if not variant_of(game).people.has_players:
        return people_lines(game)
    lines = []
    neutral = game_map(game).dummies  # the map's own dummies: nobody ever plays them
    for seat in Seat.select().where(
        (Seat.game == game) & Seat.role.not_in(NOT_PLAYING)
    ).order_by(Seat.id):  # fmt: skip
        powers = " and ".join(power_title(game, p) for p in seat.powers) or "(dealt at the start)"
        name = _shown(seat)
        if seat.role != "player":  # a variant's seat beside the player (a teammate)
            who = f"{seat.role} {name}" if name else f"a {seat.role}"
            who += "" if seat.status == "active" else f" ({seat.status})"
        elif seat.powers and set(seat.powers) <= neutral:
            who = "nobody: a dummy of the map, its units hold"
        elif seat.dummy:
            who = "a dummy (civil disorder)"
        elif seat.person_id is None or seat.status != "active":
            who = f"vacant ({seat.status})" if seat.status != "active" else "vacant"
        elif game.state == GameState.FORMING:
            who = f"joined: {name}" if name else "joined (no public name chosen)"
        else:
            who = f"played by {name}" if name else "played (no public name chosen)"
            if seat.eliminated:
                who += ", eliminated"
        lines.append(SeatLine(powers, who))
    return lines


def people_lines(game: Game) -> list[SeatLine]:
    """A game whose powers nobody holds alone (Democratic): how many of its people each
    power has (its variant's first role names them: citizens), counted by the power each
    speaks for, and the public name of any of them in another of its roles (the country's
    diplomat)."""
    variant = variant_of(game)
    people, *other_roles = variant.roles or ("player",)  # a variant without players has some
    counts: dict[str, int] = {}
    named: dict[str, list[str]] = {}
    unplaced = 0
    for seat in Seat.select().where(
        (Seat.game == game) & Seat.role.in_(variant.roles) & (Seat.status == "active")
    ):  # fmt: skip
        seat.game = game  # its country is read from the game's board, once
        power = next(iter(variant.people.speaks_for(seat)), None)
        if power is None:
            unplaced += 1
            continue
        counts[power] = counts.get(power, 0) + 1
        if seat.role in other_roles:
            shown = _shown(seat) or "elected, no public name"
            named.setdefault(power, []).append(f"{seat.role}: {shown}")
    lines = []
    for power in game_map(game).power_names:
        n = counts.get(power, 0)
        who = "; ".join([f"{n} {people}{'' if n == 1 else 's'}", *named.get(power, [])])
        lines.append(SeatLine(power_title(game, power), who))
    if unplaced:
        many = "" if unplaced == 1 else "s"
        lines.append(SeatLine("Not yet placed", f"{unplaced} {people}{many}"))
    return lines


def names_from_addresses(game: Game) -> dict[str, str]:
    """Seat names the judge made from an address (a JOIN without AS: ``hushed3`` from
    hushed3@...), each with what the web shows instead ("citizen 2"). The variants' own
    public texts (Democratic counts) name seats; these names must not reach a page."""
    made: dict[str, str] = {}
    rows = (
        Seat.select(Seat.name, Seat.role, Seat.public_name, Person.email)
        .join(Person)
        .where((Seat.game == game) & (Seat.public_name == ""))
        .order_by(Seat.id)
    )
    for n, seat in enumerate(rows, start=1):
        email = seat.person.email if seat.person is not None else ""
        local = re.sub(r"[^a-z0-9_.-]", "", email.split("@")[0].lower())[:28]
        if local and seat.name.startswith(local):
            made[seat.name] = f"{seat.role} {n}"
    return made


def without_address_names(text: str, made: dict[str, str]) -> str:
    """``text`` with each name made from an address replaced, as a whole word."""
    if not made:
        return text
    # A word of its own; or after a written-out newline ("\\n"), as a count's tie-break
    # seed quotes its candidates.
    pattern = (
        r"(?:(?<=\\n)|(?<![\w.@-]))("
        + "|".join(re.escape(n) for n in sorted(made, key=len, reverse=True))
        + r")(?![\w-])"
    )
    return re.sub(pattern, lambda m: made[m.group(1).lower()], text, flags=re.IGNORECASE)


def rule_lines(game: Game) -> list[tuple[str, str]]:
    known = catalogue()
    return [(name, known.get(name).summary) for name in sorted(game.rules)]


def centre_counts(position: dict[str, Any] | None) -> dict[str, int]:
    counts: dict[str, int] = {}
    for owner in ((position or {}).get("sc_owners") or {}).values():
        counts[owner] = counts.get(owner, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def centre_history(game: Game, records: list[PhaseRecord]) -> list[tuple[int, dict[str, int]]]:
    """(year, centres per power) at the start of each year played, and now."""
    years: dict[int, dict[str, int]] = {}
    for record in records:
        phase = Phase.parse(record.phase)
        years.setdefault(phase.year, centre_counts(record.position))
    if game.position:
        now = Phase.parse(game.position["phase"])
        after_fall = now.year + (1 if game.state == GameState.FINISHED else 0)
        years[after_fall if now.season == "W" else now.year] = centre_counts(game.position)
    return sorted(years.items())


@dataclass
class PhasePage:
    code: str
    name: str
    svg: str
    results: list[str]
    previous: str | None
    following: str | None
    processed_at: datetime
    units: list[UnitLine]


def phase_results(game: Game, records: list[PhaseRecord], i: int) -> list[str]:
    """The results of the i-th processed phase as the results mail gives them (no board:
    the feed needs only this, and drawing 100 boards per feed request is what made it slow)."""
    following = records[i + 1].position if i + 1 < len(records) else game.position
    return report_lines(record_facts(records[i], following, game_map(game)))


def phase_page(game: Game, code: str, palette: str = "standard") -> PhasePage | None:
    """A processed phase: its board with the orders drawn, and the results as mailed."""
    records = played_phases(game)
    codes = [r.phase for r in records]
    if code.upper() not in codes:
        return None
    i = codes.index(code.upper())
    record = records[i]
    title = f"{game.name}: {phase_name(record.phase)}"
    return PhasePage(
        code=record.phase, name=phase_name(record.phase),
        svg=board_svg(game, record.position, record.results.get("results", []), title, palette),
        results=phase_results(game, records, i), previous=codes[i - 1] if i else None,
        following=codes[i + 1] if i + 1 < len(codes) else None,
        processed_at=record.processed_at, units=unit_lines(game, record.position),
    )  # fmt: skip


@dataclass
class UnitLine:
    """One power's units as text, for who cannot read the picture (a phone, a screen reader)."""

    power: str
    units: list[str]  # "A Paris (PAR)", "F Spain, south coast (SPA/SC)"
    dislodged: list[str]


def _unit_text(gmap: Any, unit_type: str, loc: str) -> str:
    code, _, coast = loc.partition("/")
    prov = gmap.provinces.get(code)
    name = prov.name if prov is not None else code.upper()
    where = f"{name}, {coast.lower()}" if coast else name
    kind = "Army" if unit_type == "A" else "Fleet"
    return f"{kind} {where} ({loc.upper()})"


def unit_lines(game: Game, position: dict[str, Any] | None) -> list[UnitLine]:
    if not position:
        return []
    gmap = game_map(game)
    board = position_from_dict(position, gmap)
    lines = []
    for power in gmap.power_names:
        units = sorted(_unit_text(gmap, u.type, u.loc) for u in board.units.values()
                       if u.power == power)  # fmt: skip
        gone = sorted(_unit_text(gmap, d.unit.type, d.unit.loc) for d in board.dislodged.values()
                      if d.unit.power == power)  # fmt: skip
        if units or gone:
            lines.append(UnitLine(gmap.power_title(power), units, gone))
    return lines


def owing_orders(game: Game) -> list[str]:
    """The powers that still owe orders for the phase now played: names only, never what
    anyone has ordered (the orders stay secret until the phase is processed)."""
    if game.state != GameState.ACTIVE or not game.position:
        return []
    from mailjudge.service.processing import late_powers

    return [power_title(game, power) for power in late_powers(game)]


def public_sections(game: Game) -> list[PublicSection]:
    """What the game's variant makes public, with no name made from an address."""
    sections = variant_of(game).web.public_sections(game)
    made = names_from_addresses(game)
    if made:
        for section in sections:
            for table in section.tables:
                table.rows = [[without_address_names(c, made) for c in row] for row in table.rows]
            for text in section.texts:
                text.caption = without_address_names(text.caption, made)
                text.body = without_address_names(text.body, made)
    return sections


# Drawing a board takes tens of milliseconds; a page read a hundred times draws it once.
_BOARDS: OrderedDict[str, str] = OrderedDict()
_BOARDS_KEPT = 256


def board_svg(
    game: Game, position: dict[str, Any], results: list[Any], title: str, palette: str = "standard"
) -> str:
    key = hashlib.sha256(
        json.dumps([game.map_name, position, results, title, palette], sort_keys=True).encode()
    ).hexdigest()
    svg = _BOARDS.get(key)
    if svg is None:
        gmap = game_map(game)
        board = position_from_dict(position, gmap)
        svg = picture_of(gmap, board, results, title, png=False, palette=palette).svg
        _BOARDS[key] = svg
        while len(_BOARDS) > _BOARDS_KEPT:
            _BOARDS.popitem(last=False)
    else:
        _BOARDS.move_to_end(key)
    return svg


@dataclass
class PressItem:
    phase: str
    sender: str
    sent_at: datetime
    body: str
    id: int = 0


def public_press(game: Game) -> list[PressItem]:
    """Broadcasts only: press to some powers stays with them. A grey sender stays hidden,
    and the master's broadcasts say so."""
    rows = Press.select().where((Press.game == game) & Press.broadcast).order_by(Press.sent_at)
    items = []
    for press in rows:
        if press.grey:
            sender = "someone (grey press)"
        elif press.sender is None:
            sender = "the judge"
        elif press.sender.role == "master":
            sender = "the master"
        else:
            # A power; else the public name chosen, never a seat name made from an address.
            powers = " and ".join(power_title(game, p) for p in press.sender.powers)
            sender = powers or press.sender.public_name or f"a {press.sender.role}"
        items.append(PressItem(press.phase or "", sender, press.sent_at, press.body, press.id))
    return items


def last_changed(game: Game) -> datetime:
    times = [game.created_at, game.started_at, game.finished_at]
    latest_record = (
        PhaseRecord.select(PhaseRecord.processed_at)
        .where(PhaseRecord.game == game)
        .order_by(PhaseRecord.processed_at.desc())
        .first()
    )
    latest_press = (
        Press.select(Press.sent_at)
        .where((Press.game == game) & Press.broadcast)
        .order_by(Press.sent_at.desc())
        .first()
    )
    times += [
        latest_record.processed_at if latest_record else None,
        latest_press.sent_at if latest_press else None,
    ]
    latest: datetime = max(t for t in times if t is not None)
    return latest


def game_stamp(name: str) -> tuple[Any, ...] | None:
    """What says a game's pages may have changed, in one small query: its row's state, the
    latest processed phase and the latest broadcast. None: no public game of that name.
    (Seats and a variant's tables change between these; the page cache's short lifetime
    covers them.)"""
    name = name.lower()
    latest_record = (
        PhaseRecord.select(fn.MAX(PhaseRecord.processed_at))
        .where(PhaseRecord.game == Game.id)
    )  # fmt: skip
    latest_press = Press.select(fn.MAX(Press.id)).where((Press.game == Game.id) & Press.broadcast)
    columns = (Game.id, Game.private, Game.rules, Game.sequence, Game.state, Game.phase,
               Game.deadline, Game.outcome, Game.timing, Game.timezone)  # fmt: skip
    row = (
        Game.select(*columns, latest_record, latest_press).where(Game.name == name).tuples().first()
    )
    if row is None:
        return None
    private, rules = bool(row[1]), RuleSet.parse(row[2] or "")
    if private or any(rules.has(rule) for rule in HIDDEN_FROM_PUBLIC):
        return None
    if rules.has("FOG") and row[4] != GameState.FINISHED:
        return None  # fog of war: no public page while the game runs
    return tuple(row)
