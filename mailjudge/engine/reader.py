"""Reading order text: names, aliases and order words in, a :class:`Syntax` out.

Only the map is consulted (never a position), so a reading is pure and memoised. Text is
cut into words; each word is classed (unit, place, order word) and the classes form a
shape such as ``UL-L`` (``A PAR - BUR``). Known shapes are built in one step; anything else
goes through a small grammar that also writes the error messages.
"""

from __future__ import annotations

import difflib
import itertools
import re
import unicodedata
from functools import cache
from typing import NamedTuple

from mailjudge.engine.maps import ARMY, FLEET, GameMap
from mailjudge.engine.orders import IllegalOrder, OrderError, Place, Syntax, UnreadableOrder
from mailjudge.engine.state import ADJUSTMENT, MOVEMENT, RETREAT
from mailjudge.remembered import forget, remembered

# Word classes, one character each so that a whole order's classes form a string.
UNIT_W, LOC_W, MOVE_W, HOLD_W, SUPPORT_W, CONVOY_W = "U", "L", "-", "H", "S", "C"
VIA_W, BUILD_W, REMOVE_W, RETREAT_W, WAIVE_W = "V", "B", "D", "R", "W"

_WORDS: dict[str, tuple[str, str | None]] = {}
for (_cls, _val), _spellings in {
    (UNIT_W, ARMY): "a army",
    (UNIT_W, FLEET): "f fleet",
    (MOVE_W, None): "- -> => > to m move moves mv attack attacks",
    (HOLD_W, None): "h hold holds stand stands",
    (SUPPORT_W, None): "s support supports sup supp",
    # njudge's t, transport and ferry (and "fast ferry", read as ferry) are convoys.
    (CONVOY_W, None): "c convoy convoys cvy t transport transports ferry ferries",
    (VIA_W, None): "via by",
    (BUILD_W, None): "b build builds",
    (REMOVE_W, None): "d disband disbands remove removes destroy",
    (RETREAT_W, None): "r retreat retreats",
    (WAIVE_W, None): "w waive waives waived",
}.items():
    for _word in _spellings.split():
        _WORDS[_word] = (_cls, _val)
_COAST_WORDS = {
    "nc": "nc", "sc": "sc", "ec": "ec", "wc": "wc",
    "n": "nc", "s": "sc", "e": "ec", "w": "wc",
    "north": "nc", "south": "sc", "east": "ec", "west": "wc",
    "ncs": "nc", "scs": "sc", "ecs": "ec", "wcs": "wc",
}  # fmt: skip
# Words that may start a coast after a place: checked before any slower work.
_COAST_START = frozenset(
    ["/", "nc", "sc", "ec", "wc", "ncs", "scs", "ecs", "north", "south", "east", "west"]
)
_TOKEN = re.compile(r"->|=>|>|[a-z0-9]+|[-/]")

USAGE = {
    MOVEMENT: "A PAR H, A PAR - BUR, A MAR S A PAR - BUR, F ENG C A LON - BRE",
    RETREAT: "A PAR R BUR or A PAR D",
    ADJUSTMENT: "A PAR B, F STP/NC B, A PAR D or WAIVE",
}
# njudge's two-word convoy, and DPjudge's power written before an order: [ENGLAND] F LON - NTH.
_FAST_FERRY = re.compile(r"\bfast\s+ferry\b", re.IGNORECASE)
# A power's name may have its spaces: "[British Columbia]" is BRITISHCOLUMBIA.
_POWER_PREFIX = re.compile(r"^\s*\[\s*([A-Za-z]+(?: [A-Za-z]+)*)\s*\]\s*")
# DPjudge's other ways to name the power in front of an order: ``(ENGLAND) F LON - NTH``,
# ``ENGLAND: F LON - NTH``, ``E) F LON - NTH``, and a power's full name before a unit,
# ``ENGLAND A LVP - YOR``; and a power named on a line of its own, for the lines after it.
_POWER_ROUND = re.compile(r"^\s*\(\s*([A-Za-z]+(?: [A-Za-z]+)*)\s*\)\s*:?\s*")
_POWER_MARK = re.compile(r"^\s*([A-Za-z]+)\s*[:)]\s*")
_POWER_WORD = re.compile(r"^\s*([A-Za-z]+)\s+(?=(?:A|F|ARMY|FLEET)\b)", re.IGNORECASE)
_POWER_ALONE = re.compile(r"^\s*[\[(]?\s*([A-Za-z]+(?: [A-Za-z]+)*)\s*[\])]?\s*:?\s*$")


class _Lexicon(NamedTuple):
    words: dict[str, tuple[str, object]]  # order words, and one-word places as (LOC_W, Place)
    multi: dict[
        str, list[tuple[tuple[str, ...], str]]
    ]  # first word -> [(words, code)], longest first
    special: frozenset[str]  # words that need the slow path: multi-word starts, coasts, VIA


@cache
def _lexicon(gmap: GameMap) -> _Lexicon:
    words: dict[str, tuple[str, object]] = {}
    multi: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for key, code in gmap.names.items():
        parts = tuple(key.split())
        if len(parts) > 1:
            multi.setdefault(parts[0], []).append((parts, code))
        else:
            words[key] = (LOC_W, (code, None))
    words.update(_WORDS)  # order words win: no map may name a place "s" or "to"
    for entries in multi.values():
        entries.sort(key=lambda e: -len(e[0]))
    special = frozenset(multi) | _COAST_START | {"via", "by"}
    return _Lexicon(words, multi, special)


def _fold(text: str) -> str:
    text = text.lower()
    if "'" in text or "’" in text:  # Chang'an is changan, as maps.normalize_name has it
        text = text.replace("'", "").replace("’", "")
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text


def _lex(text: str, gmap: GameMap) -> tuple[str, list[object]]:
    """The word classes as one string, and each word's value (a Place for places)."""
    lex = _lexicon(gmap)
    words = lex.words
    raw = _TOKEN.findall(_fold(text))
    if lex.special.isdisjoint(raw):
        # The common case: every word is an order word or a one-word place.
        hits = list(map(words.get, raw))
        if None not in hits:
            shape_text = "".join([h[0] for h in hits])  # type: ignore[index]
            if "--" not in shape_text:  # "moves to" takes the loop below
                return shape_text, [h[1] for h in hits]  # type: ignore[index]
    multi = lex.multi
    shape: list[str] = []
    values: list[object] = []
    i, n = 0, len(raw)
    while i < n:
        word = raw[i]
        i += 1
        code = None
        if word in multi:
            for parts, cand in multi[word]:
                j = _match_words(raw, i - 1, parts)
                if j:
                    code, i = cand, j
                    break
        if code is None:
            hit = words.get(word)
            if hit is None:
                raise UnreadableOrder(_urk(word, text, gmap))
            cls, value = hit
            if cls != LOC_W:
                if cls == VIA_W and i < n and raw[i] in ("c", "convoy", "convoys"):
                    i += 1  # "via convoy", "by convoy"
                if cls == MOVE_W and shape and shape[-1] == MOVE_W:
                    continue  # "moves to"
                shape.append(cls)
                values.append(value)
                continue
            code = value[0]  # type: ignore[index]
        coast = None
        if i < n and raw[i] in _COAST_START:
            coast, i = _read_coast(raw, i, code, gmap)
        shape.append(LOC_W)
        values.append((code, coast))
    return "".join(shape), values


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


# --- shapes and grammar ---------------------------------------------------------------------

_TEMPLATES = [
    ("waive", "W"),
    ("build", "B u1 L1"),
    ("build", "u1 L1 B"),
    ("remove", "D u1 L1"),
    ("remove", "u1 L1 D"),
    ("hold", "u1 L1"),
    ("hold", "u1 L1 H"),
    ("move", "u1 L1 - L3"),
    ("move", "u1 L1 - L3 V"),
    ("retreat", "u1 L1 R L3"),
    ("support", "u1 L1 S u2 L2"),
    ("support", "u1 L1 S u2 L2 H"),
    ("support", "u1 L1 S u2 L2 - L3"),
    ("convoy", "u1 L1 C u2 L2 - L3"),
]
_ROLES = {"u1": 1, "L1": 2, "u2": 3, "L2": 4, "L3": 5}  # Syntax field positions


class _Spec(NamedTuple):
    kind: str
    slots: tuple[tuple[int, int], ...]  # (Syntax field, index into the values)
    via: bool


def _expand() -> dict[str, _Spec]:
    """Every shape the templates allow, with and without the optional unit letters."""
    shapes: dict[str, _Spec] = {}
    for kind, template in _TEMPLATES:
        parts = template.split()
        optional = [k for k, p in enumerate(parts) if p.startswith("u")]
        for keep in itertools.product((True, False), repeat=len(optional)):
            kept = [p for k, p in enumerate(parts) if k not in optional or keep[optional.index(k)]]
            shape = "".join(UNIT_W if p.startswith("u") else p[0] for p in kept)
            slots = tuple((_ROLES[p], k) for k, p in enumerate(kept) if p in _ROLES)
            shapes[shape] = _Spec(kind, slots, "V" in kept)
    return shapes


_SHAPES = _expand()


def _build(spec: _Spec, values: list[object], phase_type: str) -> Syntax | None:
    kind = spec.kind
    if kind == "hold" and phase_type != MOVEMENT:
        return None  # the grammar says why
    if kind == "move" and phase_type == RETREAT:
        if spec.via:
            return None
        kind = "retreat"
    elif kind == "remove" and phase_type == RETREAT:
        kind = "disband"
    fields: list[object] = [kind, None, None, None, None, None, spec.via, ()]
    for field, index in spec.slots:
        fields[field] = values[index]
    return Syntax(*fields)  # type: ignore[arg-type]


class _Reader:
    """The slow path: routes, and a clear message for whatever is not an order."""

    __slots__ = ("i", "phase_type", "shape", "text", "values")

    def __init__(self, shape: str, values: list[object], text: str, phase_type: str) -> None:
        self.shape = shape
        self.values = values
        self.i = 0
        self.text = text.strip()
        self.phase_type = phase_type

    def peek(self) -> str | None:
        return self.shape[self.i] if self.i < len(self.shape) else None

    def take(self, cls: str) -> bool:
        if self.peek() == cls:
            self.i += 1
            return True
        return False

    def unit(self) -> tuple[str | None, Place]:
        utype = None
        if self.peek() == UNIT_W:
            utype = str(self.values[self.i])
            self.i += 1
        return utype, self.place()

    def place(self) -> Place:
        if self.peek() != LOC_W:
            raise self.error("a province is missing")
        self.i += 1
        return self.values[self.i - 1]  # type: ignore[return-value]

    def end(self) -> None:
        if self.i < len(self.shape):
            cls, val = self.shape[self.i], self.values[self.i]
            word = _place(val) if cls == LOC_W else (val or cls)  # type: ignore[arg-type]
            raise self.error(f"'{word}' is not expected there")

    def error(self, what: str) -> UnreadableOrder:
        return UnreadableOrder(
            f"cannot read '{self.text}': {what}. Orders in this phase look like "
            f"{USAGE[self.phase_type]}."
        )


def _place(p: Place) -> str:
    return (f"{p[0]}/{p[1]}" if p[1] else p[0]).upper()


def _grammar(shape: str, values: list[object], text: str, phase_type: str) -> Syntax:
    r = _Reader(shape, values, text, phase_type)
    if not shape:
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


# The form most mail uses (one-word names or codes, no coasts) in one regular expression; anything
# it does not match, or whose codes are not places, goes the general way. A test holds the
# two ways equal.
_LOC = r"([a-z]+)\b"
_UNIT = r"(?:(a|f)\s+)?"
_ARROW = r"(?:-|->|to\b)"
_FAST = re.compile(
    rf"\s*{_UNIT}{_LOC}\s*(?:"
    rf"{_ARROW}\s*{_LOC}(\s+via(?:\s+convoy)?)?"
    r"|(h|hold|holds)"
    rf"|(s|support|supports)\s+{_UNIT}{_LOC}(?:\s*{_ARROW}\s*{_LOC}|\s+(?:h|hold))?"
    rf"|(c|convoy|convoys)\s+{_UNIT}{_LOC}\s*{_ARROW}\s*{_LOC}"
    r")?\s*"
)
_UNIT_LETTER = {"a": ARMY, "f": FLEET, None: None}


def _read_fast(text: str, gmap: GameMap) -> Syntax | None:
    """A movement-phase order in the commonest form, or None to take the general way."""
    m = _FAST.fullmatch(text.lower())
    if m is None:
        return None
    unit, here, dest, via, _hold, sup, stype, starget, sdest, con, ctype, ctarget, cdest = (
        m.groups()
    )
    names = gmap.names
    loc = names.get(here)
    if loc is None:
        return None
    if dest is not None:
        to = names.get(dest)
        if to is None:
            return None
        return Syntax(
            "move", _UNIT_LETTER[unit], (loc, None), None, None, (to, None), via is not None
        )
    if sup is not None or con is not None:
        if sup is not None:
            kind, ttype, target, dest = "support", stype, names.get(starget), sdest
        else:
            kind, ttype, target, dest = "convoy", ctype, names.get(ctarget), cdest
        to = names.get(dest) if dest is not None else None
        if target is None or (dest is not None and to is None):
            return None
        where = (to, None) if to is not None else None
        return Syntax(
            kind, _UNIT_LETTER[unit], (loc, None), _UNIT_LETTER[ttype], (target, None), where
        )
    return Syntax("hold", _UNIT_LETTER[unit], (loc, None))


def _read(text: str, gmap: GameMap, phase_type: str) -> Syntax:
    if phase_type == MOVEMENT:
        fast = _read_fast(text, gmap)
        if fast is not None:
            return fast
    return _read_general(text, gmap, phase_type)


_POWER_TAG = re.compile(r"\(\s*([A-Za-z]+)\s*\)")


def _without_power_tags(text: str, gmap: GameMap) -> str:
    """Take out a bracketed power before a unit, as in 'A PIC S (E) F NTH - BEL': it
    names whose unit is meant, which the position already says."""

    def tag(m: re.Match[str]) -> str:
        word = m.group(1).upper()
        known = any(word in (p.name, p.initial.upper(), p.adjective.upper())
                    for p in gmap.powers.values())  # fmt: skip
        return " " if known else m.group(0)

    return _POWER_TAG.sub(tag, text) if "(" in text else text


def _power_named(word: str, gmap: GameMap, initials: bool = True) -> str | None:
    w = word.replace(" ", "").upper()
    for p in gmap.powers.values():
        if w in (p.name, p.adjective.upper()) or (initials and w == p.initial.upper()):
            return p.name
    return None


def power_prefix(text: str, gmap: GameMap) -> tuple[str | None, str]:
    """DPjudge's ``[ENGLAND] F LON - NTH`` (also ``(ENGLAND)``, ``ENGLAND:``, ``E)`` and
    ``ENGLAND A LVP - YOR``): the power the order is written for (None when no power is
    named in front), and the order without it."""
    for pattern, initials in ((_POWER_PREFIX, True), (_POWER_ROUND, True),
                              (_POWER_MARK, True), (_POWER_WORD, False)):  # fmt: skip
        m = pattern.match(text)
        if m is None:
            continue
        named = _power_named(m.group(1), gmap, initials)
        if named is not None and text[m.end() :].strip():
            return named, text[m.end() :]
    return None, text


def power_alone(text: str, gmap: GameMap) -> str | None:
    """A power named on a line of its own (DPjudge: ``[ENGLAND]``, ``(FRANCE)``,
    ``FRANCE``, ``ENGLAND:``; an initial only in brackets, ``[E]``): the orders after it
    are that power's."""
    m = _POWER_ALONE.match(text)
    if m is None:
        return None
    bracketed = text.strip()[:1] in "[(" or text.rstrip().endswith((":", ")", "]"))
    return _power_named(m.group(1), gmap, initials=bracketed)


def _read_general(text: str, gmap: GameMap, phase_type: str) -> Syntax:
    _, text = power_prefix(text, gmap)
    if "ferry" in text.lower():
        text = _FAST_FERRY.sub("ferry", text)
    text = _without_power_tags(text, gmap)
    shape, values = _lex(text, gmap)
    if phase_type == ADJUSTMENT:
        # njudge: R is remove in a build phase, and a unit alone is a build or a removal
        # (the counts decide: see checker.check_order's "adjust").
        shape = shape.replace(RETREAT_W, REMOVE_W)
        if shape == UNIT_W + LOC_W:
            return Syntax("adjust", str(values[0]), values[1])  # type: ignore[arg-type]
    spec = _SHAPES.get(shape)
    if spec is not None:
        syntax = _build(spec, values, phase_type)
        if syntax is not None:
            return syntax
    return _grammar(shape, values, text, phase_type)


@remembered(4096)
def _read_cached(text: str, gmap: GameMap, phase_type: str) -> Syntax:
    return _read(text, gmap, phase_type)


def clear_reader_cache() -> None:
    """Forget memoised readings (benchmarks use it to measure reading from cold)."""
    forget(_read_cached)


def read_order(text: str, gmap: GameMap, phase_type: str = MOVEMENT) -> Syntax:
    """Read the words of one order (Urk and name checks only). Pure, so it is memoised
    (maps are immutable and compared by identity)."""
    return _read_cached(text, gmap, phase_type)


# The same, for callers that read many orders: one call fewer for each.
read_order_memo = _read_cached


# Words that open an order on their own; a lone "A" or "F" must be followed by a place or
# an order sign, since "A" also opens English sentences.
_OPENERS = frozenset(["army", "fleet", BUILD_W, REMOVE_W, RETREAT_W, WAIVE_W, LOC_W])
_ORDER_SIGNS = frozenset(["-", "->", "=>", ">", "h", "s", "c", "r", "d", "b"])


def reads_as_order(text: str, gmap: GameMap, phase_type: str = MOVEMENT) -> bool:
    """Whether a free line in a mail is meant as an order (it may still be a wrong one).

    A line that reads cleanly is one; so is a line opened by a place, ARMY, FLEET, BUILD,
    REMOVE, RETREAT or WAIVE, or by A/F and then a place or an order sign. Anything else
    ("Thanks, see you next turn.") is small talk that must not touch the orders on file.
    """
    try:
        read_order(text, gmap, phase_type)
        return True
    except OrderError:
        return looks_like_order(text, gmap)


def looks_like_order(text: str, gmap: GameMap) -> bool:
    """Whether a line that does not read cleanly still opens as an order does (see
    reads_as_order): a wrong order, not small talk."""
    raw = _TOKEN.findall(_fold(_without_power_tags(power_prefix(text, gmap)[1], gmap)))
    if not raw:
        return False
    lex = _lexicon(gmap)
    first = raw[0]
    if any(_match_words(raw, 0, parts) for parts, _ in lex.multi.get(first, [])):
        return True
    hit = lex.words.get(first)
    if hit is None:
        return False
    if first in ("army", "fleet") or hit[0] in _OPENERS:
        return True
    if hit[0] != UNIT_W or len(raw) < 2:
        return False
    second = lex.words.get(raw[1])
    if second is not None and second[0] == LOC_W:
        return True
    return raw[1] in lex.multi or any(word in _ORDER_SIGNS for word in raw[1:])


_SEPARATORS = re.compile(r"\s*[;,]\s*")


# Words that belong to orders: a line with them is meant as one, however it is written.
_ORDER_WORDS = frozenset(
    {"to", "move", "moves", "moving", "go", "goes", "hold", "holds", "stand", "stands",
     "support", "supports", "supporting", "convoy", "convoys", "convoying", "via", "attack",
     "attacks", "retreat", "retreats", "disband", "disbands", "build", "builds", "remove",
     "removes", "waive", "army", "fleet", "a", "f", "h", "s", "c", "r", "d", "b"}
)  # fmt: skip


@cache
def _order_words(gmap: GameMap) -> frozenset[str]:
    """The words an order on this map may hold: order words, and every word of the map's
    place names and spellings ("mid", "atlantic", "par")."""
    places = (word for name in gmap.names for word in re.findall(r"[a-z]+", name))
    return _ORDER_WORDS | frozenset(places)


def is_prose(text: str, gmap: GameMap, phase_type: str) -> bool:
    """Small talk that happens to open with a place ("Paris is lovely in spring.",
    "Moscow sends its regards"): a line of four words or more, two of them lower-case
    words that are no order words, that does not read as an order. It is left alone like
    any other small talk (and echoed as such), not refused by the Urk check."""
    if not sounds_like_prose(text, gmap):
        return False
    try:  # the order reader last: most lines are orders, and fail the cheap tests above
        read_order(text, gmap, phase_type)
        return False
    except OrderError:
        return True


def sounds_like_prose(text: str, gmap: GameMap) -> bool:
    """is_prose's test of the words alone: four words or more, two of them lower-case
    words no order holds. A line that passes it is prose unless it reads as an order."""
    words = text.split()
    if len(words) < 4:
        return False
    plain = [w.strip(".,;:!?'\"()") for w in words]
    known = _order_words(gmap)
    talk = [w for w in plain if w.isalpha() and w.islower() and w not in known]
    return len(talk) >= 2


def split_orders(text: str, gmap: GameMap, phase_type: str = MOVEMENT) -> list[str]:
    """Several orders on one line, as the classic judges took them: ``A PAR - BUR, F BRE -
    MAO; A MAR H``. The line is cut at commas and semicolons only when its first piece is
    an order and the whole is no sentence, so that small talk with a comma ("Kiel, Berlin
    and Munich are yours") stays one line of it."""
    if ("," not in text and ";" not in text) or is_prose(text, gmap, phase_type):
        return [text]
    parts = [p for p in _SEPARATORS.split(text.strip().strip(",;")) if p]
    if len(parts) < 2 or not reads_as_order(parts[0], gmap, phase_type):
        return [text]
    return parts
