"""The judge's settings: one table, read from a TOML file and MAILJUDGE_* variables.

Each section is a frozen dataclass whose fields carry their default and help text, so
the typed `Settings` object, the `SETTINGS` table, the environment names and the
documentation all come from one place. Every key may be set in the file as
`[section] key = value` and overridden by `MAILJUDGE_<SECTION>_<KEY>`.
"""

from __future__ import annotations

import difflib
import os
import tomllib
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_T = TypeVar("_T")
ENV_PREFIX = "MAILJUDGE"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class SettingsError(ValueError):
    """A setting is unknown or has a value it cannot take; the message says which."""


def _check_address(value: str) -> str | None:
    local, at, domain = value.rpartition("@")
    if not at or not local or not domain or any(c.isspace() for c in value):
        return "write an address like judge@example.org"
    return None


def _check_zone(value: str) -> str | None:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        return "write an IANA time zone name such as UTC or Europe/London"
    return None


def _check_database_url(value: str) -> str | None:
    scheme = value.partition("://")[0]
    if "://" not in value or scheme not in ("sqlite", "postgresql", "postgres"):
        return "write sqlite:///path/to/judge.db or postgresql://user@host:port/dbname"
    return None


def _setting(
    default: _T,
    help: str,
    *,
    choices: tuple[str, ...] = (),
    minimum: float | None = None,
    maximum: float | None = None,
    secret: bool = False,
    check: Callable[[Any], str | None] | None = None,
) -> _T:
    """A field with its documentation; the type comes from the annotation."""
    meta = {
        "help": help,
        "choices": choices,
        "minimum": minimum,
        "maximum": maximum,
        "secret": secret,
        "check": check,
    }
    result: _T = field(default=default, metadata=meta)
    return result


@dataclass(frozen=True)
class JudgeSettings:
    address: str = _setting(
        "judge@localhost",
        "The judge's own address; judge+GAME@ sub-addresses of it are accepted too.",
        check=_check_address,
    )
    name: str = _setting(
        "mailjudge", "The display name in the From of the judge's mail; empty for none."
    )
    timezone: str = _setting("UTC", "Default time zone of new games.", check=_check_zone)
    digest_hours: int = _setting(
        24,
        "Hours between two digests to a country's list (besides the one at each phase "
        "change); 0 sends them at phase changes only.",
        minimum=0,
    )

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2].lower()


@dataclass(frozen=True)
class DatabaseSettings:
    url: str = _setting(
        "sqlite:///mailjudge.db",
        "Where the judge keeps its state: sqlite:///FILE or postgresql://user@host:port/db.",
        check=_check_database_url,
    )


@dataclass(frozen=True)
class SmtpSettings:
    host: str = _setting("127.0.0.1", "Address the inbound SMTP (and LMTP) listener binds to.")
    port: int = _setting(
        8025, "Inbound SMTP port; 0 turns the SMTP listener off.", minimum=0, maximum=65535
    )
    lmtp_port: int = _setting(
        0, "Inbound LMTP port; 0 (the default) turns LMTP off.", minimum=0, maximum=65535
    )
    max_message_bytes: int = _setting(
        10 * 1024 * 1024,
        "Hard limit refused during the SMTP dialogue (552); smaller mails over "
        "inbound.max_bytes are taken and answered with an error.",
        minimum=1,
    )


@dataclass(frozen=True)
class ImapSettings:
    host: str | None = _setting(None, "IMAP server to poll; unset turns the poller off.")
    port: int = _setting(
        993, "IMAP port (993 for TLS, 143 for plain IMAP).", minimum=0, maximum=65535
    )
    user: str | None = _setting(None, "IMAP login name.")
    password: str | None = _setting(None, "IMAP password.", secret=True)
    mailbox: str = _setting("INBOX", "Mailbox the judge's mail arrives in.")
    ssl: bool = _setting(True, "Connect with TLS from the start (IMAPS).")
    cafile: str | None = _setting(
        None, "PEM file of certificate authorities to trust instead of the system's."
    )
    after_read: str = _setting(
        "seen",
        "What to do with a mail once it is stored: mark it \\Seen, or delete and expunge it.",
        choices=("seen", "delete"),
    )
    idle: bool = _setting(
        True, "Wait for new mail with IMAP IDLE where the server offers it; false polls."
    )
    idle_seconds: int = _setting(
        300, "Renew IMAP IDLE this often (servers drop idle clients after 30 min).", minimum=1
    )
    poll_seconds: int = _setting(
        60, "Poll interval when the server does not offer IDLE.", minimum=1
    )
    timeout_seconds: int = _setting(60, "Network timeout of one IMAP command.", minimum=1)

    @property
    def enabled(self) -> bool:
        return bool(self.host)


@dataclass(frozen=True)
class InboundSettings:
    max_bytes: int = _setting(
        256 * 1024, "Mails larger than this get one error reply and nothing else.", minimum=1
    )
    max_lines: int = _setting(
        500, "Mails with more command lines than this get one error reply.", minimum=1
    )
    claim_timeout_seconds: int = _setting(
        600,
        "A mail left in processing this long (its worker died) is taken up again.",
        minimum=1,
    )
    max_attempts: int = _setting(
        2,
        "A mail whose worker died (or stalled past claim_timeout_seconds) this many times "
        "is shunted, not retried.",
        minimum=1,
    )


@dataclass(frozen=True)
class OutboundSettings:
    host: str = _setting("127.0.0.1", "SMTP server (relay) the judge sends its mail through.")
    port: int = _setting(25, "Port of that SMTP server.", minimum=0, maximum=65535)
    starttls: bool = _setting(False, "Upgrade the connection with STARTTLS before sending.")
    user: str | None = _setting(None, "Login name at the relay; unset sends without login.")
    password: str | None = _setting(None, "Password at the relay.", secret=True)
    timeout_seconds: int = _setting(30, "Network timeout of one SMTP command.", minimum=1)
    connections: int = _setting(
        1,
        "SMTP connections kept open to the relay at once: more for a relay across a "
        "network, whose round trips they overlap; mails to one address go over one of "
        "them, in order.",
        minimum=1,
        maximum=20,
    )
    max_attempts: int = _setting(
        30, "Give a mail up as failed after this many failed attempts.", minimum=1
    )
    retry_first_seconds: int = _setting(
        30, "Wait before the first retry; each later wait doubles.", minimum=1
    )
    retry_max_seconds: int = _setting(3600, "Longest wait between two attempts.", minimum=1)
    lease_seconds: int = _setting(
        600,
        "A mail a sender took up and did not report on this long (the sender died) is sent again.",
        minimum=1,
    )
    reply_limit: int = _setting(
        120,
        "Answer at most this many mails per address within reply_window_minutes "
        "(loop safety; beyond it the address gets one notice that answers are paused); "
        "0 means no limit.",
        minimum=0,
    )
    keep_sent_days: int = _setting(
        30,
        "Days the whole text of a sent mail is kept; after that only its headers and "
        "outcome (mailjudge prune, and the judge once a day).",
        minimum=1,
    )
    bounce_limit: int = _setting(
        3,
        "After this many bounces an address gets no mail until its player signs on "
        "again (the game's master is told of each bounce); 0 never stops.",
        minimum=0,
    )
    reply_window_minutes: int = _setting(
        60, "The window of the reply limit, in minutes.", minimum=1
    )
    calendar_invitations: bool = _setting(
        True,
        "Put each phase's deadline in the mail to the players and the master as a calendar "
        "invitation (text/calendar, iMIP), which mail clients offer to add to a calendar; "
        "false sends the mail without it.",
    )


@dataclass(frozen=True)
class SecuritySettings:
    max_commands: int = _setting(
        40, "Commands read from one mail; the rest are refused with one line.", minimum=1
    )
    max_mails_out: int = _setting(
        40,
        "Mails one incoming mail may cause to addresses outside the game's seats, besides "
        "its reply (results of a phase it completes, and mail to the people seated in the "
        "game, are not counted).",
        minimum=1,
    )
    max_reply_bytes: int = _setting(
        65536, "The longest reply; what does not fit is cut with a line saying so.", minimum=1024
    )
    unproven_per_hour: int = _setting(
        10,
        "Mails in an hour to an address that never answered a mail of the judge's (HELP, "
        "LIST, errors, JOIN replies to a forged From); beyond it, nothing until the hour is "
        "over. A password proves nothing about the address it came from.",
        minimum=1,
    )
    unproven_bytes_per_hour: int = _setting(
        262144,
        "Bytes in an hour to an address that never answered a mail of the judge's, answers "
        "and pictures together; beyond it, nothing until the hour is over.",
        minimum=16384,
    )
    proven_bytes_per_hour: int = _setting(
        1048576,
        "Bytes in an hour of answers and the mail they cause (pictures, notices; not a "
        "phase's results) to an address that answered the judge, or to the seat a right "
        "password signed on to.",
        minimum=65536,
    )
    max_password_commands: int = _setting(
        3,
        "Commands in one mail that set a password (CREATE, JOIN, OBSERVE, TAKEOVER, SET "
        "PASSWORD: each costs a slow hash); the rest are refused with one line.",
        minimum=1,
    )
    same_mail_answers: int = _setting(
        3,
        "Answers in an hour to the same text from the same address, when it signs on to "
        "no seat (an auto-responder without auto-reply headers); later copies are stored "
        "and not answered.",
        minimum=1,
    )
    confirm_hours: int = _setting(
        72, "Hours a CONFIRM token is good for; an older one is refused.", minimum=1
    )
    signon_window_minutes: int = _setting(
        60, "The window over which wrong passwords are counted.", minimum=1
    )
    signon_slow_after: int = _setting(
        3,
        "Wrong passwords for one seat from one address that are answered; later ones in the "
        "window get no answer. A right password is always checked and always works.",
        minimum=1,
    )
    signon_lock_after: int = _setting(
        6,
        "Wrong passwords for one seat, from anyone, that are answered in the window; after "
        "signon_slow_after of them, the answer to a right password from another address "
        "than the seat's goes to the seat's own address. A right password resets the count.",
        minimum=1,
    )
    address_lock_after: int = _setting(
        20,
        "Wrong passwords from one address, for any seats, that are answered in the window.",
        minimum=1,
    )
    trusted_authserv_id: str | None = _setting(
        None,
        "The authserv-id your MTA writes in the Authentication-Results headers it adds "
        "(RFC 8601; OpenDKIM and OpenDMARC take it from their AuthservID). Set with "
        "token_key, the ready-to-send block carries a token in place of the password and a "
        "Reply keeping it files that seat's orders for that phase, when this header says "
        "DKIM or SPF passed for the seat's own address. Set it only when all mail reaches the "
        "judge through that MTA (smtp.port 0 or on loopback): the judge believes such a header "
        "above the first Received one. Unset: no tokens.",
    )
    token_key: str | None = _setting(
        None,
        "The judge's key for the Reply tokens (any long random text, e.g. from `openssl "
        "rand -hex 32`); changing it voids every token sent.",
        secret=True,
    )
    list_post_bytes: int = _setting(
        16384,
        "The longest post to a Democratic country's list; a longer one is refused, and no "
        "digest carries it.",
        minimum=1024,
    )


@dataclass(frozen=True)
class DkimSettings:
    selector: str | None = _setting(
        None, "DKIM selector (the DNS name SELECTOR._domainkey.DOMAIN); unset: no signing."
    )
    key_file: str | None = _setting(
        None, "The DKIM private key, a PEM file readable by the judge only."
    )
    domain: str | None = _setting(
        None, "The signing domain (d=); by default the judge's own address's domain."
    )


@dataclass(frozen=True)
class LoggingSettings:
    level: str = _setting(
        "INFO",
        "Least important log lines written: DEBUG, INFO (one line per mail handled and "
        "per mail sent), WARNING or ERROR.",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
    )
    format: str = _setting(
        "text",
        '"text" (time, level, process, message) or "json" (one object a line, for log shippers).',
        choices=("text", "json"),
    )


def _check_base_url(value: str | None) -> str | None:
    if value is None:
        return None
    if not value.startswith(("http://", "https://")) or value.endswith("/"):
        return "write the site's address without a trailing slash, like https://judge.example.org"
    return None


@dataclass(frozen=True)
class WebSettings:
    host: str = _setting("127.0.0.1", "Address the public web pages are served on.")
    port: int = _setting(
        8080,
        "Port of the web pages (mailjudge serve and mailjudge web); 0 turns them off.",
        minimum=0,
        maximum=65535,
    )
    base_url: str | None = _setting(
        None,
        "The pages' public address as players reach it (through a reverse proxy, say); when "
        "set, results mails link to the game's page, and the Atom feeds' links start with it.",
        check=_check_base_url,
    )
    palette: str = _setting(
        "standard",
        "Colours of the board pictures, on the web and in mails: standard, or colourblind "
        "(kept apart for red-green colour blindness); a web visitor may pick with ?palette=.",
        choices=("standard", "colourblind"),
    )


@dataclass(frozen=True)
class Settings:
    judge: JudgeSettings = field(default_factory=JudgeSettings)
    database: DatabaseSettings = field(default_factory=DatabaseSettings)
    smtp: SmtpSettings = field(default_factory=SmtpSettings)
    imap: ImapSettings = field(default_factory=ImapSettings)
    inbound: InboundSettings = field(default_factory=InboundSettings)
    outbound: OutboundSettings = field(default_factory=OutboundSettings)
    logging: LoggingSettings = field(default_factory=LoggingSettings)
    dkim: DkimSettings = field(default_factory=DkimSettings)
    security: SecuritySettings = field(default_factory=SecuritySettings)
    web: WebSettings = field(default_factory=WebSettings)


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
_SECTIONS: tuple[str, ...] = tuple(dict.fromkeys(s.section for s in SETTINGS))


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
        if section not in _SECTIONS:
            errors.append(f"{path}: {_unknown('section', section, list(_SECTIONS))}")
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
    for section in _SECTIONS:
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
_CURRENT: Settings | None = None


def use_settings(settings: Settings) -> None:
    global _CURRENT
    _CURRENT = settings


def current_settings() -> Settings:
    """The running judge's settings; the defaults and environment when none was set."""
    return _CURRENT if _CURRENT is not None else load_settings(None, os.environ)
