"""The judge's settings, section by section: each setting's default, help and checks.

Each section is a frozen dataclass whose fields carry their default and help text, so
the typed `Settings` object, the `SETTINGS` table, the environment names and the
documentation all come from one place. Every key may be set in the file as
`[section] key = value` and overridden by `MAILJUDGE_<SECTION>_<KEY>`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_T = TypeVar("_T")


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
    operator: str | None = _setting(
        None,
        "The operator's address: mailed once when something stops the judge doing its job "
        "(the relay refuses, the outbox is not sent, a game held by the clock, mail shunted, "
        "a full disk, the database away) and once when it is over. Unset: nobody is mailed; "
        "mailjudge status and the web's /health say so all the same.",
        check=_check_address,
    )
    digest_hours: int = _setting(
        24,
        "Hours between two digests to a country's list (besides the one at each phase "
        "change); 0 sends them at phase changes only.",
        minimum=0,
    )
    outage_grace_minutes: int = _setting(
        15,
        "After the judge could not take mail (its database away, or the judge stopped), a "
        "deadline that fell in that time or this many minutes after it moves to at least "
        "this long after the judge is back (the players are told): the servers that were "
        "refused meanwhile send their mail again within minutes.",
        minimum=0,
    )

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2].lower()


@dataclass(frozen=True)
class DatabaseSettings:
    url: str = _setting(
        "sqlite:///mailjudge.db",
        "Where the judge keeps its state: sqlite:///FILE or postgresql://user@host:port/db; "
        "a primary and its standby: postgresql://user@db1:5432,db2:5432/db?"
        "target_session_attrs=read-write (deploy/README.md).",
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
        1024 * 1024,
        "Hard limit refused during the SMTP dialogue (552), before the mail is stored: "
        "the sender's own server tells them. Smaller mails over inbound.max_bytes are "
        "taken and answered with an error. Keep it near inbound.max_bytes: every mail "
        "taken is stored, masked and read before it is refused.",
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
    mbox: str | None = _setting(
        None,
        "Keep the judge's outgoing mail in this mbox file (mutt -f FILE opens it) instead of "
        "sending it through the relay; unset sends it. mailjudge serve given no outbound "
        "setting at all, with its SMTP on loopback, keeps it in ./mailjudge-mail.mbox.",
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
        "LIST, errors, JOIN replies to a forged From); beyond it, one notice says until when "
        "answers are held (and that a Reply lifts the limit), then nothing until the hour is "
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
    game_bytes_per_hour: int = _setting(
        8 * 1024 * 1024,
        "Bytes in an hour of the games' mail (results, notices, press, digests, the "
        "clock's reminders) to one address that answered the judge; beyond it, that "
        "mail to it is not sent until the hour is over (the web keeps every result). To "
        "an address that never answered the judge, unproven_per_hour mails and "
        "unproven_bytes_per_hour bytes.",
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
        "and not answered, but for one notice an hour saying until when.",
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
        "than the seat's goes to the seat's own address. After this many, a SIGNON from any "
        "address but the seat's own is refused unchecked until the window is over.",
        minimum=1,
    )
    address_lock_after: int = _setting(
        20,
        "Wrong passwords from one address, for any seats, that are answered in the window; "
        "after this many, its SIGNONs (but to its own seats) are refused unchecked.",
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
