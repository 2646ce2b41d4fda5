"""Orders: lenient reading, canonical writing, and the three kinds of error.

Reading happens in two steps. :func:`read_order` turns text into a :class:`Syntax` using only
the map (names, aliases, order words): it raises :class:`UnreadableOrder` for text that is not
an order (the "Urk check") and :class:`AmbiguousOrder` for a name that could mean two places.
:func:`check_order` then holds the syntax against a position and a power and returns an
:class:`Order`, or raises :class:`IllegalOrder` (no such unit, not adjacent, ...) or
:class:`AmbiguousOrder` (a coast that could be either). :func:`parse_order` does both.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from functools import cache, lru_cache
from typing import NamedTuple, TypeAlias

from mailjudge.engine.maps import ARMY, FLEET, LAND, WATER, GameMap, load_map, province_of
from mailjudge.engine.state import ADJUSTMENT, MOVEMENT, RETREAT, Position, Unit


class OrderError(ValueError):
    """Base of the three order errors; ``str(err)`` is the message for the player."""

    kind = "error"


class UnreadableOrder(OrderError):
    kind = "unreadable"


class AmbiguousOrder(OrderError):
    kind = "ambiguous"


class IllegalOrder(OrderError):
    kind = "illegal"


# --- orders ---------------------------------------------------------------------------------


class Hold(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} H"


class Move(NamedTuple):
    unit: Unit
    dest: str  # location, with a coast for fleets on split coasts
    via: bool = False  # explicitly by convoy ("VIA" or a route)
    route: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.route:
            return (
                f"{self.unit} - {' - '.join(r.upper() for r in self.route)} - {self.dest.upper()}"
            )
        return f"{self.unit} - {self.dest.upper()}{' VIA' if self.via else ''}"


class SupportHold(NamedTuple):
    unit: Unit
    target: Unit

    def __str__(self) -> str:
        return f"{self.unit} S {self.target}"


class SupportMove(NamedTuple):
    unit: Unit
    target: Unit
    dest: str  # province, or the exact coast when the order named one (it must then match)

    def __str__(self) -> str:
        return f"{self.unit} S {self.target} - {self.dest.upper()}"


class Convoy(NamedTuple):
    unit: Unit
    target: Unit
    dest: str  # province

    def __str__(self) -> str:
        return f"{self.unit} C {self.target} - {self.dest.upper()}"


class Retreat(NamedTuple):
    unit: Unit
    dest: str

    def __str__(self) -> str:
        return f"{self.unit} R {self.dest.upper()}"


class Disband(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} D"


class Build(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} B"


class Remove(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} D"


class Waive(NamedTuple):
    power: str

    def __str__(self) -> str:
        return "WAIVE"


Order: TypeAlias = (
    Hold | Move | SupportHold | SupportMove | Convoy | Retreat | Disband | Build | Remove | Waive
)
Place: TypeAlias = tuple[str, str | None]  # (province, coast or None)


class Syntax(NamedTuple):
    """What the text says, before any position is consulted."""

    kind: str  # hold move support convoy retreat disband build remove waive
    utype: str | None = None
    loc: Place | None = None
    ttype: str | None = None  # supported or convoyed unit
    tloc: Place | None = None
    dest: Place | None = None
    via: bool = False
    route: tuple[str, ...] = ()

    def __str__(self) -> str:
        """Canonical text as far as the words alone allow (used under NO_CHECK)."""

        def unit(t: str | None, p: Place | None) -> str:
            return f"{t + ' ' if t else ''}{_place(p)}"

        head = unit(self.utype, self.loc)
        if self.kind == "waive":
            return "WAIVE"
        if self.kind == "hold":
            return f"{head} H"
        if self.kind == "move":
            if self.route:
                return f"{head} - {' - '.join(r.upper() for r in self.route)} - {_place(self.dest)}"
            return f"{head} - {_place(self.dest)}{' VIA' if self.via else ''}"
        if self.kind == "retreat":
            return f"{head} R {_place(self.dest)}"
        if self.kind in ("disband", "remove"):
            return f"{head} D"
        if self.kind == "build":
            return f"{head} B"
        target = unit(self.ttype, self.tloc)
        if self.kind == "convoy":
            return f"{head} C {target} - {_place(self.dest)}"
        if self.dest is None:
            return f"{head} S {target}"
        return f"{head} S {target} - {_place(self.dest)}"


def _place(p: Place | None) -> str:
    if p is None:
        return "?"
    return (f"{p[0]}/{p[1]}" if p[1] else p[0]).upper()


# --- the lexicon ----------------------------------------------------------------------------

UNIT_W, LOC_W, MOVE_W, HOLD_W, SUPPORT_W, CONVOY_W, VIA_W, BY_W = range(8)
BUILD_W, REMOVE_W, RETREAT_W, WAIVE_W = range(8, 12)

_WORDS: dict[str, tuple[int, str | None]] = {}
for _w, _v in {
    (UNIT_W, ARMY): "a army",
    (UNIT_W, FLEET): "f fleet",
    (MOVE_W, None): "- -> => > to m move moves mv attack attacks",
    (HOLD_W, None): "h hold holds stand stands",
    (SUPPORT_W, None): "s support supports sup supp",
    (CONVOY_W, None): "c convoy convoys cvy",
    (VIA_W, None): "via",
    (BY_W, None): "by",
    (BUILD_W, None): "b build builds",
    (REMOVE_W, None): "d disband disbands remove removes destroy",
    (RETREAT_W, None): "r retreat retreats",
    (WAIVE_W, None): "waive waives waived",
}.items():
    for _word in _v.split():
        _WORDS[_word] = _w
_WORD_NAMES = {
    MOVE_W: "-",
    HOLD_W: "H",
    SUPPORT_W: "S",
    CONVOY_W: "C",
    VIA_W: "VIA",
    BY_W: "BY",
    BUILD_W: "B",
    REMOVE_W: "D",
    RETREAT_W: "R",
    WAIVE_W: "WAIVE",
}
_COAST_WORDS = {
    "nc": "nc", "sc": "sc", "ec": "ec", "wc": "wc",
    "n": "nc", "s": "sc", "e": "ec", "w": "wc",
    "north": "nc", "south": "sc", "east": "ec", "west": "wc",
    "ncs": "nc", "scs": "sc", "ecs": "ec", "wcs": "wc",
}  # fmt: skip
_TOKEN = re.compile(r"->|=>|>|[a-z0-9]+|[-/]")

Token: TypeAlias = tuple[int, object]


class _Lexicon(NamedTuple):
    names: dict[str, str]
    multi: dict[
        str, list[tuple[tuple[str, ...], str]]
    ]  # first word -> (words, code), longest first


@cache
def _lexicon(gmap: GameMap) -> _Lexicon:
    multi: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for key, code in gmap.names.items():
        words = tuple(key.split())
        if len(words) > 1:
            multi.setdefault(words[0], []).append((words, code))
    for entries in multi.values():
        entries.sort(key=lambda e: -len(e[0]))
    return _Lexicon(dict(gmap.names), multi)


def _fold(text: str) -> str:
    text = text.lower()
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text


def _lex(text: str, gmap: GameMap) -> list[Token]:
    lex = _lexicon(gmap)
    raw = _TOKEN.findall(_fold(text).replace(".", ""))
    out: list[Token] = []
    i, n = 0, len(raw)
    while i < n:
        word = raw[i]
        code = None
        if word in lex.multi:
            for words, cand in lex.multi[word]:
                j = _match_words(raw, i, words)
                if j:
                    code, i = cand, j
                    break
        if code is None:
            hit = _WORDS.get(word)
            if hit is not None:
                if hit[0] == VIA_W or hit[0] == BY_W:
                    # "via convoy", "by convoy", "via" alone: all mean the same
                    if i + 1 < n and _WORDS.get(raw[i + 1], (None,))[0] == CONVOY_W:
                        i += 1
                    out.append((VIA_W, None))
                else:
                    out.append(hit)
                i += 1
                continue
            code = lex.names.get(word)
            if code is None:
                raise UnreadableOrder(_urk(word, text, gmap))
            i += 1
        coast, i = _read_coast(raw, i, code, gmap)
        out.append((LOC_W, (code, coast)))
    return out


def _match_words(raw: list[str], i: int, words: tuple[str, ...]) -> int:
    """Index after ``words`` starting at ``raw[i]`` (a '-' may join two words), else 0."""
    j = i
    for k, w in enumerate(words):
        if k and j + 1 < len(raw) and raw[j] == "-" and raw[j + 1] == w:
            j += 1
        if j < len(raw) and raw[j] == w:
            j += 1
        else:
            return 0
    return j


def _read_coast(raw: list[str], i: int, code: str, gmap: GameMap) -> tuple[str | None, int]:
    n = len(raw)
    coasts = gmap.provinces[code].coasts
    if i < n and raw[i] == "/":
        word = raw[i + 1] if i + 1 < n else ""
        coast = _COAST_WORDS.get(word)
        if coast is None:
            raise UnreadableOrder(
                f"after '{code.upper()}/' write a coast: nc, sc or ec (for example SPA/NC)"
            )
        i += 2
        if i < n and raw[i] in ("coast", "cst"):
            i += 1
        return _known_coast(code, coast, coasts), i
    if i < n and raw[i] in ("nc", "sc", "ec", "wc", "ncs", "scs", "ecs"):
        return _known_coast(code, _COAST_WORDS[raw[i]], coasts), i + 1
    if (
        i + 1 < n
        and raw[i] in ("north", "south", "east", "west")
        and raw[i + 1] in ("coast", "cst")
    ):
        return _known_coast(code, _COAST_WORDS[raw[i]], coasts), i + 2
    return None, i


def _known_coast(code: str, coast: str, coasts: tuple[str, ...]) -> str | None:
    if coast in coasts:
        return coast
    if not coasts:
        # A coast on a province that has only one is harmless: "LON/NC" is London.
        return None
    raise IllegalOrder(
        f"{code.upper()} has no {coast} coast; its coasts are "
        + " and ".join(f"{code.upper()}/{c.upper()}" for c in coasts)
    )


def _urk(word: str, text: str, gmap: GameMap) -> str:
    close = difflib.get_close_matches(word, list(gmap.names) + list(_WORDS), n=3, cutoff=0.75)
    hint = ""
    if close:
        hint = " Did you mean " + " or ".join(repr(c) for c in close) + "?"
    return (
        f"'{word.upper()}' in '{text.strip()}' is not a province or an order word "
        f"(the Urk check).{hint} Provinces may be written as three-letter codes (PAR) or full "
        "names (Paris)."
    )


# --- grammar --------------------------------------------------------------------------------

_USAGE = {
    MOVEMENT: "A PAR H, A PAR - BUR, A MAR S A PAR - BUR, F ENG C A LON - BRE",
    RETREAT: "A PAR R BUR or A PAR D",
    ADJUSTMENT: "A PAR B, F STP/NC B, A PAR D or WAIVE",
}


class _Reader:
    """A cursor over tokens with the few steps the grammar needs."""

    __slots__ = ("i", "phase_type", "text", "toks")

    def __init__(self, toks: list[Token], text: str, phase_type: str) -> None:
        self.toks = toks
        self.i = 0
        self.text = text.strip()
        self.phase_type = phase_type

    def peek(self) -> int | None:
        return self.toks[self.i][0] if self.i < len(self.toks) else None

    def take(self, kind: int) -> bool:
        if self.peek() == kind:
            self.i += 1
            return True
        return False

    def unit(self) -> tuple[str | None, Place]:
        utype = None
        if self.peek() == UNIT_W:
            utype = str(self.toks[self.i][1])
            self.i += 1
        if self.peek() != LOC_W:
            raise self.error("a province is missing")
        place = self.toks[self.i][1]
        self.i += 1
        return utype, place  # type: ignore[return-value]

    def place(self) -> Place:
        if self.peek() != LOC_W:
            raise self.error("a province is missing")
        place = self.toks[self.i][1]
        self.i += 1
        return place  # type: ignore[return-value]

    def end(self) -> None:
        if self.i < len(self.toks):
            kind, val = self.toks[self.i]
            word = _place(val) if kind == LOC_W else _WORD_NAMES.get(kind, str(val))  # type: ignore[arg-type]
            raise self.error(f"'{word}' is not expected there")

    def error(self, what: str) -> UnreadableOrder:
        return UnreadableOrder(
            f"cannot read '{self.text}': {what}. Orders in this phase look like "
            f"{_USAGE[self.phase_type]}."
        )


def _grammar(toks: list[Token], text: str, phase_type: str) -> Syntax:
    r = _Reader(toks, text, phase_type)
    if not toks:
        raise r.error("it is empty")
    if r.take(WAIVE_W):
        r.end()
        return Syntax("waive")
    if r.take(BUILD_W):
        utype, loc = r.unit()
        r.end()
        return Syntax("build", utype, loc)
    if r.take(REMOVE_W):
        utype, loc = r.unit()
        r.end()
        return Syntax("disband" if phase_type == RETREAT else "remove", utype, loc)
    utype, loc = r.unit()
    nxt = r.peek()
    if nxt is None or r.take(HOLD_W):
        r.end()
        if phase_type != MOVEMENT:
            raise r.error("a unit alone is not an order here")
        return Syntax("hold", utype, loc)
    if r.take(MOVE_W) or r.take(RETREAT_W):
        retreat = nxt == RETREAT_W or phase_type == RETREAT
        places = [r.place()]
        while r.take(MOVE_W):
            places.append(r.place())
        via = r.take(VIA_W)
        r.end()
        if retreat:
            if len(places) > 1 or via:
                raise r.error("a retreat goes to one adjacent province")
            return Syntax("retreat", utype, loc, dest=places[0])
        route = tuple(p[0] for p in places[:-1])
        return Syntax("move", utype, loc, dest=places[-1], via=via or bool(route), route=route)
    if r.take(SUPPORT_W) or r.take(CONVOY_W):
        ttype, tloc = r.unit()
        dest = None
        if r.take(MOVE_W):
            dest = r.place()
        elif nxt == SUPPORT_W:
            r.take(HOLD_W)
        if nxt == CONVOY_W and dest is None:
            raise r.error("a convoy names the army's move, like F ENG C A LON - BRE")
        r.end()
        return Syntax("support" if nxt == SUPPORT_W else "convoy", utype, loc, ttype, tloc, dest)
    if r.take(BUILD_W):
        r.end()
        return Syntax("build", utype, loc)
    if r.take(REMOVE_W):
        r.end()
        return Syntax("disband" if phase_type == RETREAT else "remove", utype, loc)
    raise r.error("after the unit write H, -, S or C (or R, D, B)")


@lru_cache(maxsize=16384)
def _read_cached(text: str, map_name: str, phase_type: str) -> Syntax:
    return _grammar(_lex(text, load_map(map_name)), text, phase_type)


def read_order(text: str, gmap: GameMap, phase_type: str = MOVEMENT) -> Syntax:
    """Read the words of one order (Urk and name checks only). Pure, so it is memoised."""
    if gmap is load_map(gmap.name):
        return _read_cached(text, gmap.name, phase_type)
    return _grammar(_lex(text, gmap), text, phase_type)


# --- checking against a position ------------------------------------------------------------

_TYPE_WORD = {ARMY: "an army", FLEET: "a fleet"}


def _name(gmap: GameMap, prov: str) -> str:
    return f"{gmap.provinces[prov].name} ({prov.upper()})"


def _own_unit(s: Syntax, pos: Position, power: str | None, gmap: GameMap) -> Unit:
    assert s.loc is not None
    prov = s.loc[0]
    if pos.phase.type == RETREAT:
        d = pos.dislodged.get(prov)
        if d is None:
            raise IllegalOrder(
                f"no unit was dislodged from {_name(gmap, prov)}; only dislodged units retreat"
            )
        unit = d.unit
    else:
        found = pos.units.get(prov)
        if found is None:
            raise IllegalOrder(f"there is no unit in {_name(gmap, prov)}")
        unit = found
    if power is not None and unit.power != power:
        raise IllegalOrder(f"the unit in {_name(gmap, prov)} belongs to {unit.power}, not {power}")
    if s.utype is not None and s.utype != unit.type:
        raise IllegalOrder(f"the unit in {_name(gmap, prov)} is {_TYPE_WORD[unit.type]}")
    return unit


def _target_unit(s: Syntax, pos: Position, gmap: GameMap, verb: str) -> Unit:
    assert s.tloc is not None
    prov = s.tloc[0]
    unit = pos.units.get(prov)
    if unit is None:
        raise IllegalOrder(f"there is no unit in {_name(gmap, prov)} to {verb}")
    if s.ttype is not None and s.ttype != unit.type:
        raise IllegalOrder(f"the unit in {_name(gmap, prov)} is {_TYPE_WORD[unit.type]}")
    return unit


def _fleet_dest(gmap: GameMap, unit: Unit, dest: Place) -> str:
    """The location a fleet moves to, filling in the coast when only one is reachable."""
    prov, coast = dest
    coasts = gmap.provinces[prov].coasts
    if not coasts:
        return prov
    if coast:
        return f"{prov}/{coast}"
    reachable = [
        loc for loc in gmap.fleet_locations(prov) if loc in gmap.fleet_moves.get(unit.loc, ())
    ]
    if len(reachable) > 1:
        options = " or ".join(r.upper() for r in reachable)
        raise AmbiguousOrder(
            f"{unit} can reach both coasts of {_name(gmap, prov)}: write {options}"
        )
    if reachable:
        return reachable[0]
    return f"{prov}/{coasts[0]}"  # unreachable either way; the adjacency check says so


def check_order(
    s: Syntax, pos: Position, power: str | None, gmap: GameMap, *, build_any: bool = False
) -> Order:
    """Hold the words against the position: the unit, adjacency, reach and coasts."""
    ptype = pos.phase.type
    kind = s.kind
    if kind == "waive":
        if ptype != ADJUSTMENT:
            raise IllegalOrder("WAIVE is an adjustment-phase order (it gives up one build)")
        return Waive(power or "")
    if kind == "build":
        return _check_build(s, pos, power, gmap, build_any)
    if kind in ("hold", "move", "support", "convoy") and ptype != MOVEMENT:
        raise IllegalOrder(f"this is a {ptype} phase; orders look like {_USAGE[ptype]}")
    if kind == "retreat" and ptype != RETREAT:
        raise IllegalOrder("R (retreat) is only for dislodged units in a retreat phase")
    unit = _own_unit(s, pos, power, gmap)
    if kind == "hold":
        return Hold(unit)
    if kind == "move":
        return _check_move(s, unit, gmap)
    if kind == "support":
        return _check_support(s, unit, pos, gmap)
    if kind == "convoy":
        return _check_convoy(s, unit, pos, gmap)
    if kind == "retreat":
        assert s.dest is not None
        dest = s.dest[0] if unit.type == ARMY else _fleet_dest(gmap, unit, s.dest)
        options = pos.dislodged[unit.province].options
        if dest not in options:
            where = ", ".join(o.upper() for o in options) or "nowhere: it can only disband"
            raise IllegalOrder(
                f"{unit} cannot retreat to {dest.upper()}; it may retreat to {where}"
            )
        return Retreat(unit, dest)
    if kind == "disband":
        if ptype != RETREAT:
            raise IllegalOrder("D (disband) is for retreat and adjustment phases")
        return Disband(unit)
    if ptype != ADJUSTMENT:
        raise IllegalOrder("D (remove) is for adjustment phases")
    return Remove(unit)


def _check_move(s: Syntax, unit: Unit, gmap: GameMap) -> Move:
    assert s.dest is not None
    src = unit.province
    dprov = s.dest[0]
    if dprov == src:
        raise IllegalOrder(f"{unit} cannot move to the province it is in")
    if unit.type == FLEET:
        if s.via:
            raise IllegalOrder("only armies can be convoyed; a fleet moves by itself")
        dest = _fleet_dest(gmap, unit, s.dest)
        if dest not in gmap.fleet_moves.get(unit.loc, ()):
            raise IllegalOrder(
                f"{unit} cannot move to {dest.upper()}: not adjacent by sea or coast"
            )
        return Move(unit, dest)
    if gmap.provinces[dprov].kind == WATER:
        raise IllegalOrder(f"an army cannot move into {_name(gmap, dprov)}, which is water")
    if s.route:
        if not gmap.route_is_valid(src, s.route, dprov):
            raise IllegalOrder(
                f"{' - '.join(s.route).upper()} is not a chain of seas "
                f"from {src.upper()} to {dprov.upper()}"
            )
        return Move(unit, dprov, True, s.route)
    if dprov in gmap.army_moves.get(src, ()):
        return Move(unit, dprov, s.via)
    if gmap.convoy_possible(src, dprov):
        return Move(unit, dprov, s.via)
    raise IllegalOrder(f"{unit} cannot reach {_name(gmap, dprov)}: not adjacent and no sea route")


def _check_support(
    s: Syntax, unit: Unit, pos: Position, gmap: GameMap
) -> SupportHold | SupportMove:
    target = _target_unit(s, pos, gmap, "support")
    tprov = target.province
    if tprov == unit.province:
        raise IllegalOrder(f"{unit} cannot support itself")
    if s.dest is None:
        if not gmap.can_reach_province(unit.type, unit.loc, tprov):
            raise IllegalOrder(
                f"{unit} cannot support {target}: it could not move to {tprov.upper()}"
            )
        return SupportHold(unit, target)
    dprov = s.dest[0]
    if dprov == unit.province:
        raise IllegalOrder(f"{unit} cannot support a move into its own province")
    if not gmap.can_reach_province(unit.type, unit.loc, dprov):
        raise IllegalOrder(
            f"{unit} cannot support a move to {dprov.upper()}: it could not move there itself"
        )
    if dprov == tprov or not _could_move(gmap, target, dprov):
        raise IllegalOrder(
            f"{target} cannot move to {dprov.upper()}, so there is no move to support"
        )
    coast = s.dest[1]
    return SupportMove(
        unit, target, f"{dprov}/{coast}" if coast and target.type == FLEET else dprov
    )


def _could_move(gmap: GameMap, unit: Unit, dprov: str) -> bool:
    if unit.type == FLEET:
        return gmap.can_reach_province(FLEET, unit.loc, dprov)
    if gmap.provinces[dprov].kind == WATER:
        return False
    return dprov in gmap.army_moves.get(unit.province, ()) or gmap.convoy_possible(
        unit.province, dprov
    )


def _check_convoy(s: Syntax, unit: Unit, pos: Position, gmap: GameMap) -> Convoy:
    assert s.dest is not None
    if unit.type != FLEET or gmap.provinces[unit.province].kind != WATER:
        raise IllegalOrder(f"{unit} cannot convoy: only fleets at sea convoy")
    target = _target_unit(s, pos, gmap, "convoy")
    if target.type != ARMY:
        raise IllegalOrder("only armies can be convoyed")
    dprov = s.dest[0]
    if not gmap.convoy_possible(target.province, dprov, through=unit.province):
        raise IllegalOrder(
            f"{unit} cannot convoy {target} to {dprov.upper()}: "
            "it is not on a sea route between them"
        )
    return Convoy(unit, target, dprov)


def _check_build(
    s: Syntax, pos: Position, power: str | None, gmap: GameMap, build_any: bool
) -> Build:
    assert s.loc is not None
    if pos.phase.type != ADJUSTMENT:
        raise IllegalOrder("builds are only made in the winter adjustment phase")
    prov, coast = s.loc
    p = gmap.provinces[prov]
    owner = pos.sc_owners.get(prov)
    builder = power or owner
    if not p.centre:
        raise IllegalOrder(f"{_name(gmap, prov)} is not a supply centre")
    if builder is None or owner != builder:
        raise IllegalOrder(f"{_name(gmap, prov)} is not owned by {builder or 'the builder'}")
    if not build_any and prov not in gmap.home_centres.get(builder, ()):
        raise IllegalOrder(f"{_name(gmap, prov)} is not a home centre of {builder}")
    if prov in pos.units:
        raise IllegalOrder(f"{_name(gmap, prov)} is occupied; builds need an empty centre")
    utype = s.utype
    if utype is None:
        if p.kind == LAND:
            utype = ARMY
        else:
            raise AmbiguousOrder(
                f"say which unit to build: A {prov.upper()} B or F {prov.upper()} B"
            )
    if utype == ARMY:
        return Build(Unit(builder, ARMY, prov))
    if p.kind == LAND:
        raise IllegalOrder(f"a fleet cannot be built in {_name(gmap, prov)}, which has no coast")
    if p.coasts and not coast:
        options = " or ".join(f"F {prov.upper()}/{c.upper()} B" for c in p.coasts)
        raise AmbiguousOrder(f"say which coast the fleet is built on: {options}")
    return Build(Unit(builder, FLEET, f"{prov}/{coast}" if coast else prov))


def parse_order(
    text: str, pos: Position, power: str | None, gmap: GameMap, *, build_any: bool = False
) -> Order:
    """Read and check one order for ``power`` (None: any power, as the master may)."""
    syntax = read_order(text, gmap, pos.phase.type)
    return check_order(syntax, pos, power, gmap, build_any=build_any)


def province_key(order: Order) -> str:
    """The province an order is about (for replacing an earlier order for the same unit)."""
    if isinstance(order, Waive):
        return ""
    return province_of(order.unit.loc)
