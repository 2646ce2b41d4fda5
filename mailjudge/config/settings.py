"""The running judge's settings: the ones put in use (by `serve`, a tool, a test), else the
defaults and the MAILJUDGE_* environment. The sections, each setting with its default, help
and checks, are in config/sections.py, and are named here too, as every reader imports them.
"""

from __future__ import annotations

import os

from mailjudge.config.sections import (
    DatabaseSettings,
    DkimSettings,
    ImapSettings,
    InboundSettings,
    JudgeSettings,
    LoggingSettings,
    OutboundSettings,
    SecuritySettings,
    Settings,
    SettingsError,
    SmtpSettings,
    WebSettings,
)
from mailjudge.config.settings_files import load_settings

__all__ = [
    "DatabaseSettings",
    "DkimSettings",
    "ImapSettings",
    "InboundSettings",
    "JudgeSettings",
    "LoggingSettings",
    "OutboundSettings",
    "SecuritySettings",
    "Settings",
    "SettingsError",
    "SmtpSettings",
    "WebSettings",
    "current_settings",
    "use_settings",
]

_CURRENT: Settings | None = None


def use_settings(settings: Settings) -> None:
    global _CURRENT
    _CURRENT = settings


def current_settings() -> Settings:
    """The running judge's settings; the defaults and environment when none was set."""
    if _CURRENT is not None:
        return _CURRENT
    return load_settings(None, os.environ)
