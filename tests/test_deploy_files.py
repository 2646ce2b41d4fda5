"""deploy/: the systemd unit is well formed and says what an operator needs; the example
configuration loads and agrees with the Postfix hand-off."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mailjudge.paths import ROOT_DIR
from mailjudge.settings import load_settings

DEPLOY = ROOT_DIR / "deploy"


def unit_entries(text: str) -> dict[str, dict[str, list[str]]]:
    """systemd's unit syntax: [Section] lines, Key=Value lines (keys may repeat)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None and "=" in line, f"not a unit line: {raw!r}"
        key, value = line.split("=", 1)
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def test_the_systemd_unit_has_what_an_operator_needs() -> None:
    unit = unit_entries((DEPLOY / "mailjudge.service").read_text())
    service = unit["Service"]
    command = service["ExecStart"][0].split()
    assert command[0].endswith("/mailjudge") and command[1:3] == ["serve", "--config"]
    assert command[3] == "/etc/mailjudge/mailjudge.toml"
    assert service["User"] == ["mailjudge"] and service["Restart"] == ["on-failure"]
    assert service["ProtectSystem"] == ["strict"] and service["NoNewPrivileges"] == ["yes"]
    # With ProtectSystem=strict the database folder must be the unit's state folder, and
    # the example configuration keeps its SQLite database there.
    assert service["StateDirectory"] == ["mailjudge"]
    settings = load_settings(DEPLOY / "mailjudge.toml.example", {})
    assert settings.database.url.startswith("sqlite:////var/lib/mailjudge/")
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_analyze_verifies_the_unit(tmp_path: Path) -> None:
    # verify insists that ExecStart's program exists: point it at this mailjudge.
    program = shutil.which("mailjudge") or str(Path(sys.executable).parent / "mailjudge")
    text = (DEPLOY / "mailjudge.service").read_text()
    unit = tmp_path / "mailjudge.service"
    unit.write_text(text.replace("/opt/mailjudge/bin/mailjudge", program))
    run = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    # It warns about values it cannot parse but still exits 0: any output is a mistake.
    assert run.returncode == 0 and run.stderr.strip() == "" and run.stdout.strip() == "", run


def test_the_example_configuration_matches_the_postfix_hand_off() -> None:
    settings = load_settings(DEPLOY / "mailjudge.toml.example", {})
    main_cf = (DEPLOY / "postfix" / "main.cf").read_text()
    transport = (DEPLOY / "postfix" / "transport").read_text()
    domain = settings.judge.address.rpartition("@")[2]
    assert f"relay_domains = {domain}" in main_cf
    assert f"{domain}    lmtp:inet:127.0.0.1:{settings.smtp.lmtp_port}" in transport
