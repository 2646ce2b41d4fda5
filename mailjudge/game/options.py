"""A game's options: the settings with a value (a length, a share, a count), where the
rules flags (rules.py) are on or off. The master sets them with SET OPTION NAME value;
a game that never set one reads its default.

The kinds of value:
- a length: ``48H``, ``2D``, ``90M``; ``PHASE`` for one length of the current phase; ``OFF``;
- a share: ``2/3``, ``0.75`` or ``75%``, above 0 and at most 1;
- a count: a whole number, ``0`` (or ``OFF``) for none;
- a record: ``0.9 OVER 20`` (that share of phases on time over at least that many), ``OFF``;
- a choice: one of the words the option names (SCORING: ``DRAW_SIZE``, ``SUM_OF_SQUARES``).

Stored in ``game.options`` as the canonical text of each value set, by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from fractions import Fraction

from mailjudge.engine.timing import TimingError, format_length, parse_length
from mailjudge.game.errors import ServiceError
from mailjudge.store.models import Game

LENGTH, SHARE, COUNT, RECORD, CHOICE = "length", "share", "count", "record", "choice"
# SCORING's choices: how a finished game scores its powers for the ratings (game/scores.py).
SCORINGS = ("DRAW_SIZE", "SUM_OF_SQUARES")
PHASE = "PHASE"  # a length: one length of the phase it applies to
OFF = "OFF"


class OptionError(ServiceError):
    """An option name or value that cannot be read; the message says how to write it."""


@dataclass(frozen=True)
class Option:
    name: str
    kind: str
    default: str  # canonical text
    summary: str


OPTIONS: dict[str, Option] = {
    option.name: option
    for option in (
        Option("TAKEOVER_EXTENSION", LENGTH, PHASE,
               "how long the deadline moves when someone takes over an open power "
               "(at most once a phase; PHASE is one length of the phase, OFF for never)"),
        Option("EXTEND_QUORUM", SHARE, "2/3",
               "the share of the powers in play whose VOTE EXTEND moves the deadline"),
        Option("EXTEND_MAX", LENGTH, "72H",
               "the longest extension VOTE EXTEND may ask for"),
        Option("EXTENSIONS", COUNT, "2",
               "how many times a game year the players may extend a deadline (0: never)"),
        Option("MIN_RECORD", RECORD, OFF,
               "the record a player needs to JOIN, e.g. 0.9 OVER 20: on time in nine "
               "phases of ten, over at least 20 phases (newcomers may always join)"),
        Option("STALEMATE_DRAW", COUNT, OFF,
               "after this many game years with no supply centre changing owner the "
               "players are asked to draw, and silence is consent: VOTE NOSTALEMATE "
               "refuses (OFF: never)"),
        Option("SCORING", CHOICE, "DRAW_SIZE",
               "how the game's end scores its powers for the ratings (RATING): DRAW_SIZE "
               "(a solo all to the winner, a draw shared equally by its members) or "
               "SUM_OF_SQUARES (a solo all to the winner, else each power its centres "
               "squared over the sum of every power's centres squared)"),
    )
}  # fmt: skip

_NUMBER = r"(\d+(?:\.\d+)?)"
_RECORD = re.compile(rf"{_NUMBER}(%?)\s+OVER\s+(\d+)")


def option_named(name: str) -> Option:
    found = OPTIONS.get(name.strip().upper())
    if found is None:
        raise OptionError(
            f"no option is called {name.strip()!r}; the options are {', '.join(OPTIONS)} "
            "(HELP OPTIONS says what each does)"
        )
    return found


def canonical(option: Option, text: str) -> str:
    """The stored form of ``text`` as a value of ``option``, or OptionError saying how to
    write one."""
    value = " ".join(text.split()).upper()
    if option.kind == CHOICE:
        if value not in SCORINGS:
            raise OptionError(f"{option.name} cannot be {text.strip()!r}: write one of "
                              f"{', '.join(SCORINGS)}")  # fmt: skip
        return value
    reader = {LENGTH: _length, SHARE: _share, COUNT: _count, RECORD: _record}[option.kind]
    try:
        return reader(value)
    except (ValueError, ZeroDivisionError, TimingError):
        how = _HOW[option.kind]
        raise OptionError(f"{option.name} cannot be {text.strip()!r}: {how}") from None


_HOW = {
    LENGTH: "write a length like 48H, 2D or 90M, PHASE for one phase's length, or OFF",
    SHARE: "write a share above 0 and at most 1, like 2/3, 0.75 or 75%",
    COUNT: "write a whole number like 2, or OFF (0) for none",
    RECORD: "write a share of phases on time and the phases it needs, like 0.9 OVER 20, or OFF",
    CHOICE: "write one of " + ", ".join(SCORINGS),
}


def _length(value: str) -> str:
    if value in (PHASE, OFF):
        return value
    if value == "0":
        return OFF
    return format_length(parse_length(value))


def _share(value: str) -> str:
    share = _fraction(value)
    if not 0 < share <= 1:
        raise ValueError(value)
    return f"{share.numerator}/{share.denominator}"


def _fraction(value: str) -> Fraction:
    if value.endswith("%"):
        return Fraction(value[:-1].strip()) / 100
    return Fraction(value)


def _count(value: str) -> str:
    if value in (OFF, "0"):
        return OFF
    if not (value.isascii() and value.isdigit()) or len(value) > 6:
        raise ValueError(value)
    return str(int(value))


def _record(value: str) -> str:
    if value in (OFF, "0"):
        return OFF
    found = _RECORD.fullmatch(value)
    if found is None:
        raise ValueError(value)
    share = _share(found.group(1) + found.group(2))
    return f"{float(Fraction(share)):.4g} OVER {int(found.group(3))}"


def option_text(game: Game, name: str) -> str:
    """The option's value in the game, as text: what the master set, or the default."""
    option = option_named(name)
    stored = (game.options or {}).get(option.name)
    return str(stored) if stored else option.default


def set_option(game: Game, name: str, text: str) -> str:
    """The master's SET OPTION: stores the value, returns its canonical text."""
    option = option_named(name)
    value = canonical(option, text)
    game.options = {**(game.options or {}), option.name: value}
    game.save()
    return value


def length_option(game: Game, name: str, phase_length: timedelta) -> timedelta | None:
    """A length option in time; ``phase_length`` stands for PHASE; None when OFF."""
    text = option_text(game, name)
    if text == OFF:
        return None
    return phase_length if text == PHASE else parse_length(text)


def share_option(game: Game, name: str) -> Fraction:
    return Fraction(option_text(game, name))


def count_option(game: Game, name: str) -> int:
    """A count option; OFF reads as 0."""
    text = option_text(game, name)
    return 0 if text == OFF else int(text)


def record_option(game: Game, name: str) -> tuple[float, int] | None:
    """A record option as (share on time, phases it needs), or None when OFF."""
    text = option_text(game, name)
    if text == OFF:
        return None
    share, _, phases = text.partition(" OVER ")
    return float(share), int(phases)


def option_lines(game: Game) -> list[str]:
    """Every option with its value in the game, for SUMMARY and HELP OPTIONS."""
    return [f"{name} {option_text(game, name)}" for name in OPTIONS]
