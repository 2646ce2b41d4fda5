"""The column types the judge's tables are made of (models.py): JSON, powers, rules flags,
aware UTC times and bytes kept alike on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Self

from peewee import (
    SQL,
    BlobField,
    CharField,
    Check,
    DateTimeField,
    FieldAccessor,
    NodeList,
    TextField,
)

from mailjudge.engine.rules import RuleSet


def utcnow() -> datetime:
    return datetime.now(UTC)


def one_of(column: str, values: tuple[str, ...]) -> SQL | NodeList:
    allowed = ", ".join(f"'{value}'" for value in values)
    return Check(f"{column} IN ({allowed})")


class JSONField(TextField):
    """JSON kept as text, so that SQLite and PostgreSQL store it alike."""

    def db_value(self, value: Any) -> str | None:
        if value is None:
            return None
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def python_value(self, value: Any) -> Any:
        return None if value is None else json.loads(value)


class Powers(tuple[str, ...]):
    """The powers a seat holds: (FRANCE,), or (ENGLAND, TURKEY) in Double; () for a master,
    an observer or a citizen. Shown as the names with spaces between."""

    __slots__ = ()

    def __new__(cls, names: Iterable[str] = ()) -> Self:
        return super().__new__(cls, (name.upper() for name in names))

    @classmethod
    def of(cls, value: str | Iterable[str] | None) -> Powers:
        """From the stored text ("ENGLAND TURKEY"), a sequence of names, or None."""
        if isinstance(value, Powers):
            return value
        if value is None:
            return cls()
        return cls(value.split() if isinstance(value, str) else value)

    def __str__(self) -> str:
        return " ".join(self)


class _PowersAccessor(FieldAccessor):
    """Whatever is assigned (text, a list, Powers) is held as Powers, so code never
    iterates over a string's letters."""

    def __set__(self, instance: Any, value: Any) -> None:
        super().__set__(instance, Powers.of(value))


class PowersField(CharField):
    """Powers stored as their names with spaces between, read back as Powers."""

    accessor_class = _PowersAccessor

    def db_value(self, value: Any) -> str:
        return str(Powers.of(value))

    def python_value(self, value: Any) -> Powers:
        return Powers.of(value)


class _RulesAccessor(FieldAccessor):
    """Whatever is assigned (text or names) is held as a RuleSet."""

    def __set__(self, instance: Any, value: Any) -> None:
        super().__set__(instance, RuleSet.parse(value or ""))


class RulesField(TextField):
    """A game's rules flags: stored as the names sorted, with spaces between; read back as
    a RuleSet, parsed once per row instead of at every question."""

    accessor_class = _RulesAccessor

    def db_value(self, value: Any) -> str:
        return str(RuleSet.parse(value or ""))

    def python_value(self, value: Any) -> RuleSet:
        return RuleSet.parse(value or "")


class UTCDateTimeField(DateTimeField):
    """Aware datetimes in, aware UTC datetimes out; stored as naive UTC.

    A naive datetime is refused: its zone would be a guess, and a deadline an hour off
    is a bug players notice.
    """

    def db_value(self, value: Any) -> Any:
        if isinstance(value, datetime):
            if value.tzinfo is None:
                raise ValueError(f"{value!r} has no time zone; store aware datetimes only")
            # peewee's own db_value hands a datetime back as it is: none to call (a mail
            # stores about ten of these).
            if value.tzinfo is not UTC:
                value = value.astimezone(UTC)
            return value.replace(tzinfo=None)
        return super().db_value(value)  # type: ignore[no-untyped-call]

    def python_value(self, value: Any) -> Any:
        if isinstance(value, str):
            # SQLite's text form; fromisoformat reads it many times faster than peewee's
            # list of strptime formats (a mail reads a few dozen of them).
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                value = super().python_value(value)  # type: ignore[no-untyped-call]
            else:  # stored naive, as db_value writes it: the usual case, answered at once
                if value.tzinfo is None:
                    return value.replace(tzinfo=UTC)
        else:
            value = super().python_value(value)  # type: ignore[no-untyped-call]
        if not isinstance(value, datetime):
            return value
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class BytesField(BlobField):
    """Raw bytes both ways (whatever buffer a driver hands back: psycopg 2 gave a memoryview)."""

    def python_value(self, value: Any) -> bytes | None:
        return None if value is None else bytes(value)


# A foreign key that leads a composite index below is declared index=False: the composite
# index already serves lookups by it.
