"""The settings read from where an operator writes them: a TOML file and MAILJUDGE_*
variables, each checked against its section's field (mailjudge.config.sections) and refused with
what was wrong. The table of every setting (SETTINGS) drives the reading, the command
line's check-config and the docs (settings_docs.py)."""

from __future__ import annotations

import difflib
import tomllib
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from types import NoneType, UnionType
from typing import Any

from mailjudge.config.sections import Settings, SettingsError

ENV_PREFIX = "MAILJUDGE"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class Setting:
    """One row of the settings table."""

    section: str
    key: str
    default: Any
    type: type  # str, int, float or bool
    optional: bool  # may be unset (None)
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    secret: bool = False
    check: Callable[[Any], str | None] | None = None

    @property
    def name(self) -> str:
        return f"{self.section}.{self.key}"

    @property
    def env(self) -> str:
        return f"{ENV_PREFIX}_{self.section}_{self.key}".upper()

    @property
    def type_name(self) -> str:
        return _TYPE_NAMES[self.type]


_TYPE_NAMES: dict[type, str] = {str: "text", int: "integer", float: "number", bool: "true/false"}


def _unwrap(annotation: Any) -> tuple[type, bool]:
    """(str, True) for `str | None`; (int, False) for `int`."""
    if isinstance(annotation, UnionType):
        args = [a for a in typing.get_args(annotation) if a is not NoneType]
        if len(args) != 1 or args[0] not in _TYPE_NAMES:
            raise TypeError(f"unsupported setting type {annotation!r}")
        return args[0], True
    if annotation not in _TYPE_NAMES:
        raise TypeError(f"unsupported setting type {annotation!r}")
    return annotation, False


def _build_table() -> tuple[Setting, ...]:
    rows = []
    section_types = typing.get_type_hints(Settings)
    for section in fields(Settings):
        cls = section_types[section.name]
        hints = typing.get_type_hints(cls)
        for f in fields(cls):
            kind, optional = _unwrap(hints[f.name])
            rows.append(
                Setting(
                    section=section.name,
                    key=f.name,
                    default=f.default,
                    type=kind,
                    optional=optional,
                    help=f.metadata["help"],
                    choices=f.metadata["choices"],
                    minimum=f.metadata["minimum"],
                    maximum=f.metadata["maximum"],
                    secret=f.metadata["secret"],
                    check=f.metadata["check"],
                )
            )
    return tuple(rows)


SETTINGS: tuple[Setting, ...] = _build_table()
_BY_NAME: dict[tuple[str, str], Setting] = {(s.section, s.key): s for s in SETTINGS}
SECTIONS: tuple[str, ...] = tuple(dict.fromkeys(s.section for s in SETTINGS))


# -- reading values -------------------------------------------------------------------------


def _from_toml(setting: Setting, value: Any) -> Any:
    """A TOML value must already have the setting's type (TOML is typed)."""
    if setting.optional and value == "":
        return None
    if setting.type is bool:
        ok = isinstance(value, bool)
    elif setting.type is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif setting.type is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    else:
        ok = isinstance(value, str)
    if not ok:
        raise SettingsError(f"expected {_expected(setting)}, got {value!r}")
    return value


def _from_text(setting: Setting, text: str) -> Any:
    """An environment value is text; convert it to the setting's type."""
    text = text.strip()
    if setting.optional and text == "":
        return None
    try:
        if setting.type is bool:
            if text.lower() in _TRUE:
                return True
            if text.lower() in _FALSE:
                return False
            raise ValueError(text)
        if setting.type is int:
            return int(text)
        if setting.type is float:
            return float(text)
    except ValueError:
        raise SettingsError(f"expected {_expected(setting)}, got {text!r}") from None
    return text


def _expected(setting: Setting) -> str:
    if setting.type is bool:
        what = "true or false (also yes/no, on/off, 1/0 in the environment)"
    else:
        what = {str: "text", int: "a whole number", float: "a number"}[setting.type]
    return what + (", or empty to leave it unset" if setting.optional else "")


def _validate(setting: Setting, value: Any) -> Any:
    if value is None:
        return value
    if value == "" and setting.type is str:
        raise SettingsError(
            f"expected text, got an empty value; the default is {setting.default!r}"
        )
    if setting.choices and value not in setting.choices:
        allowed = ", ".join(setting.choices)
        raise SettingsError(f"{value!r} is not one of: {allowed}")
    if setting.minimum is not None and value < setting.minimum:
        raise SettingsError(f"{value!r} is below the minimum {setting.minimum:g}")
    if setting.maximum is not None and value > setting.maximum:
        raise SettingsError(f"{value!r} is above the maximum {setting.maximum:g}")
    if setting.check is not None and (problem := setting.check(value)):
        raise SettingsError(f"{value!r}: {problem}")
    return value


def _unknown(what: str, name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown {what} {name!r}{hint}; known: {', '.join(known)}"


def _read_file(path: Path) -> tuple[dict[tuple[str, str], Any], list[str]]:
    try:
        with path.open("rb") as fh:
            document = tomllib.load(fh)
    except OSError as exc:
        raise SettingsError(f"cannot read settings file {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path} is not valid TOML: {exc}") from None
    values: dict[tuple[str, str], Any] = {}
    errors: list[str] = []
    for section, table in document.items():
        if section not in SECTIONS:
            errors.append(f"{path}: {_unknown('section', section, list(SECTIONS))}")
            continue
        if not isinstance(table, dict):
            errors.append(f"{path}: {section} must be a table: write [{section}] and keys below")
            continue
        known = [s.key for s in SETTINGS if s.section == section]
        for key, raw in table.items():
            setting = _BY_NAME.get((section, key))
            if setting is None:
                errors.append(f"{path}: [{section}] {_unknown('key', key, known)}")
                continue
            try:
                values[section, key] = _validate(setting, _from_toml(setting, raw))
            except SettingsError as exc:
                errors.append(f"{path}: {setting.name}: {exc}")
    return values, errors


def load_settings(path: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Defaults, then the file at `path` (if any), then MAILJUDGE_* variables of `environ`.

    All problems are reported together in one SettingsError, one per line. Variables
    with the prefix that name no setting are left alone: other tools share the prefix.
    """
    values: dict[tuple[str, str], Any] = {}
    errors: list[str] = []
    if path is not None:
        values, errors = _read_file(path)
    for setting in SETTINGS:
        if environ is not None and setting.env in environ:
            try:
                value = _from_text(setting, environ[setting.env])
                values[setting.section, setting.key] = _validate(setting, value)
            except SettingsError as exc:
                errors.append(f"{setting.env} ({setting.name}): {exc}")
    if errors:
        raise SettingsError("\n".join(errors))
    settings = Settings()
    for section in SECTIONS:
        changes = {key: v for (sec, key), v in values.items() if sec == section}
        if changes:
            settings = replace(
                settings, **{section: replace(getattr(settings, section), **changes)}
            )
    return settings


def value_of(settings: Settings, setting: Setting) -> Any:
    return getattr(getattr(settings, setting.section), setting.key)


# The settings a running judge was started with, for the few places deep in the service
# that need one (a country list's address needs the judge's domain).
