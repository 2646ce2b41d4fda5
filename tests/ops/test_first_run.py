"""The README's first local game (issue 54): `mailjudge serve` in a fresh folder, on loopback,
told nothing about a relay; the README's "Trying it" mail sent by SMTP; the answer read
where the README says, with the README's own commands: the judge kept it in
./mailjudge-mail.mbox, which Python's mailbox (and so mutt) opens. A relay set by one
outbound variable turns the mbox off."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from mailjudge.config.paths import ROOT_DIR
from mailjudge.config.settings import Settings, SmtpSettings
from mailjudge.demo.sink import free_port, wait_for_port
from mailjudge.tools.first_run import first_run_settings

MAILJUDGE = str(Path(sys.executable).parent / "mailjudge")
TRYING = (ROOT_DIR / "README.md").read_text().split("## Trying it", 1)[1].split("\n## ", 1)[0]


def readme_scripts() -> list[str]:
    """The Python scripts of the README's "Trying it" (``python3 - <<'PY'`` ... ``PY``)."""
    blocks = re.findall(r"    python3 - <<'PY'\n(.*?)\n    PY\n", TRYING, re.S)
    return ["\n".join(line[4:] for line in block.splitlines()) for block in blocks]


def run(script: str, folder: Path) -> str:
    done = subprocess.run([sys.executable, "-"], input=script, cwd=folder, text=True,
                          capture_output=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_first_local_game_answers_where_the_readme_says(tmp_path: Path) -> None:
    send, read = readme_scripts()
    assert 'smtplib.SMTP("127.0.0.1", 8025)' in send and "mailjudge-mail.mbox" in read
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAILJUDGE_")}
    env.update({"MAILJUDGE_SMTP_PORT": str(port), "MAILJUDGE_WEB_PORT": "0"})
    log = tmp_path / "serve.log"
    judge = subprocess.Popen([MAILJUDGE, "serve"], cwd=tmp_path, env=env,
                             stdout=log.open("wb"), stderr=subprocess.STDOUT)  # fmt: skip
    try:
        wait_for_port(port)
        run(send.replace("8025", str(port)), tmp_path)
        shown, deadline = "", time.monotonic() + 60
        while "created" not in shown and time.monotonic() < deadline:
            time.sleep(0.5)
            if (tmp_path / "mailjudge-mail.mbox").exists():
                shown = run(read, tmp_path)
    finally:
        judge.terminate()
        judge.wait(timeout=30)
    said = log.read_text()
    assert "mail is kept in" in said and "mutt -f" in said, said
    assert "To: me@example.org" in shown, said
    assert "mygame" in shown and "created" in shown
    assert shown.count("To: me@example.org") == 1  # one answer, not one per retry


def test_a_relay_set_turns_the_mbox_off(tmp_path: Path) -> None:
    plain = Settings()
    assert first_run_settings(plain, None, {}).outbound.mbox is not None
    listening = Settings(smtp=SmtpSettings(host="0.0.0.0"))  # reachable by others: not a try
    assert first_run_settings(listening, None, {}).outbound.mbox is None
    assert first_run_settings(plain, None, {"MAILJUDGE_OUTBOUND_HOST": "mx"}).outbound.mbox is None
    config = tmp_path / "mailjudge.toml"
    config.write_text('[outbound]\nhost = "127.0.0.1"\nport = 25\n')
    assert first_run_settings(plain, config, {}).outbound.mbox is None
    config.write_text('[judge]\naddress = "judge@dip.example.org"\n')
    assert first_run_settings(plain, config, {}).outbound.mbox is not None
