"""A first game on a laptop: `mailjudge serve` told nothing about a relay, listening on
loopback only, keeps the judge's mail in a local mbox file that any mail reader opens,
rather than in an outbox that waits for an MTA on port 25 nobody runs (issue 54)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from mailjudge.config.settings import Settings
from mailjudge.config.settings_files import ENV_PREFIX

FIRST_RUN_MBOX = "mailjudge-mail.mbox"  # in the working folder, beside mailjudge.db
LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


def outbound_given(path: Path | None, environ: Mapping[str, str]) -> bool:
    """Whether the operator said anything about outgoing mail: an [outbound] table in the
    settings file, or a MAILJUDGE_OUTBOUND_* variable."""
    if any(name.upper().startswith(f"{ENV_PREFIX}_OUTBOUND_") for name in environ):
        return True
    if path is None:
        return False
    with path.open("rb") as fh:
        return "outbound" in tomllib.load(fh)


def first_run_settings(
    settings: Settings, path: Path | None, environ: Mapping[str, str]
) -> Settings:
    """``settings`` with outbound.mbox set to ./mailjudge-mail.mbox when no relay was
    configured and the judge listens on loopback; as they are otherwise."""
    if outbound_given(path, environ) or settings.smtp.host not in LOOPBACK:
        return settings
    mbox = str(Path(FIRST_RUN_MBOX).resolve())
    return replace(settings, outbound=replace(settings.outbound, mbox=mbox))
