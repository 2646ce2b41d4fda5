"""One log format in every process of the judge: the listener's, each worker's and the
sender's. A line says when, how important, which process, and what:

    2026-11-25 01:02:03,456 INFO worker-0 mail <id@x> from a@b: 3 commands, answered, 12 ms

or, with logging.format = "json", one JSON object a line for log shippers.
"""

from __future__ import annotations

import json
import logging

from mailjudge.settings import LoggingSettings

# At DEBUG, aiosmtpd's "mail.log" writes every line of a mail's DATA (a SIGNON password
# with it), and peewee every query with its values (stored mails, password hashes).
QUIET_LOGGERS = ("mail.log", "peewee")

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
