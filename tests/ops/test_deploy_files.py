"""deploy/: the systemd unit is well formed and says what an operator needs; the example
configuration loads and agrees with the Postfix hand-off."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mailjudge.config.paths import ROOT_DIR
from mailjudge.config.settings_files import load_settings

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
    # How it is stopped: SIGTERM to the judge, which stops its children within 8 s
    # (runner.STOP_SECONDS), well inside the time systemd gives it.
    assert service["KillMode"] == ["mixed"] and service["KillSignal"] == ["SIGTERM"]
    assert service["TimeoutStopSec"] == ["30s"]


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


def test_the_nginx_snippet_proxies_the_pages(tmp_path: Path, smtp_sink: object,
                                             cheap_scrypt: None) -> None:  # fmt: skip
    """deploy/nginx/mailjudge.conf, as shipped but for ports and certificate, passes
    `nginx -t` and serves the judge's pages over TLS: a page, a 304 on its ETag, and a
    403 for anything but GET."""
    import ssl
    import time
    import urllib.error
    import urllib.request

    from helpers.e2e import JUDGE
    from helpers.mailstack import _make_certificate, free_port

    from mailjudge.demo import mailroom

    nginx = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if nginx is None:
        pytest.skip("nginx is not installed (apt-get install nginx)")
    made = _make_certificate(tmp_path)
    if made is None:
        pytest.skip("openssl is not installed")
    cert, key = made
    with mailroom.running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, web_port="8080") as h:
        plain, tls = free_port(), free_port()
        snippet = (DEPLOY / "nginx" / "mailjudge.conf").read_text()
        snippet = (snippet.replace("127.0.0.1:8080", f"127.0.0.1:{h.judge.web_port}")
                   .replace("listen 80;", f"listen 127.0.0.1:{plain};")
                   .replace("listen [::]:80;", "")
                   .replace("listen 443 ssl http2;", f"listen 127.0.0.1:{tls} ssl http2;")
                   .replace("listen [::]:443 ssl http2;", "")
                   .replace("/etc/letsencrypt/live/judge.example.org/fullchain.pem", str(cert))
                   .replace("/etc/letsencrypt/live/judge.example.org/privkey.pem", str(key)))  # fmt: skip
        (tmp_path / "site.conf").write_text(snippet)
        (tmp_path / "nginx.conf").write_text(
            f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n"
            "events {}\n"
            f"http {{ access_log off; client_body_temp_path {tmp_path}/body; "
            f"proxy_temp_path {tmp_path}/proxy; include {tmp_path}/site.conf; }}\n"
        )
        command = [nginx, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")]
        checked = subprocess.run([*command, "-t"], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
        server = subprocess.Popen([*command, "-g", "daemon off;"])
        try:
            context = ssl.create_default_context(cafile=str(cert))
            url = f"https://127.0.0.1:{tls}/"
            deadline = time.monotonic() + 20
            while True:
                try:
                    first = urllib.request.urlopen(url, context=context, timeout=5)
                    break
                except (urllib.error.URLError, ConnectionError):
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            assert first.status == 200 and b"The games" in first.read()
            again = urllib.request.Request(url, headers={"If-None-Match": first.headers["ETag"]})
            with pytest.raises(urllib.error.HTTPError) as not_modified:
                urllib.request.urlopen(again, context=context, timeout=5)
            assert not_modified.value.code == 304
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(urllib.request.Request(url, data=b"x"), context=context)
            assert refused.value.code == 403
        finally:
            server.terminate()
            server.wait(timeout=10)
