"""One log format in every process of the judge: the listener's, each worker's and the
sender's. A line says when, how important, which process, and what:

    2026-11-25 01:02:03,456 INFO worker-0 mail <id@x> from a@b: 3 commands, answered, 12 ms

or, with logging.format = "json", one JSON object a line for log shippers.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3

from peewee import InterfaceError, OperationalError

from mailjudge.config.settings import LoggingSettings

# At DEBUG, aiosmtpd's "mail.log" writes every line of a mail's DATA (a SIGNON password
# with it), and peewee every query with its values (stored mails, password hashes).
QUIET_LOGGERS = ("mail.log", "peewee")

# Faults of the machine or of the database's server rather than of the judge's code: a
# full disk ("database or disk is full"), a database away. Logged in one line each.
OPERATIONAL = (OSError, sqlite3.OperationalError, OperationalError, InterfaceError)
_TOLD = "_mailjudge_told"


def log_fault(logger: logging.Logger, what: str, err: BaseException) -> None:
    """``what`` failed because of ``err``: one line for an operational fault (a traceback
    adds nothing, and would come again with every mail), the traceback for anything else.
    The exception is marked, so that a caller that sees it again need not say it again."""
    if isinstance(err, OPERATIONAL):
        logger.error("%s: %s", what, " ".join(str(err).split()) or type(err).__name__)
    else:
        logger.error("%s", what, exc_info=err)
    # An exception that takes no attribute is said twice: no harm.
    with contextlib.suppress(AttributeError):
        setattr(err, _TOLD, True)


def fault_told(err: BaseException) -> bool:
    """Whether `log_fault` has logged this very exception already."""
    return bool(getattr(err, _TOLD, False))


TEXT_FORMAT = "%(asctime)s %(levelname)s %(role)s %(name)s: %(message)s"


class _Role(logging.Filter):
    def __init__(self, role: str) -> None:
        super().__init__()
        self.role = role

    def filter(self, record: logging.LogRecord) -> bool:
        record.role = self.role
        return True


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "role": getattr(record, "role", ""),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def setup_logging(settings: LoggingSettings, role: str, level: str | None = None) -> None:
    """Log to standard error (systemd's journal takes it) in the chosen format, each line
    marked with `role` (listener, worker-0, sender). aiosmtpd's line per SMTP verb shows
    only when DEBUG is asked for; the loggers in QUIET_LOGGERS never go below INFO,
    whatever is asked, since at DEBUG they write what mail and the database hold."""
    chosen = (level or settings.level).upper()
    handler = logging.StreamHandler()
    handler.addFilter(_Role(role))
    formatter = JsonLines() if settings.format == "json" else logging.Formatter(TEXT_FORMAT)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(chosen)
    floor = max(logging.INFO, logging.getLevelName(chosen))
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(floor)
    if chosen != "DEBUG":  # aiosmtpd's connection lines are INFO: only shown at DEBUG
        logging.getLogger("mail.log").setLevel("WARNING")
