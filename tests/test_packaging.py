"""The judge installed as an operator installs it (issue 17, point 1): a wheel built from
the checkout, installed (not editable) into a new virtual environment outside it, run from
another folder. The map, the rules and the templates must come with the wheel.

It installs the wheel's dependencies from the package index pip is configured for."""

from __future__ import annotations

import json
import os
import shutil
import smtplib
import subprocess
import sys
import time
import tomllib
import urllib.request
from email.message import EmailMessage
from pathlib import Path

from mailjudge.demo.sink import MailSink, free_port, text_of
from mailjudge.paths import ROOT_DIR

LEFT_BEHIND = shutil.ignore_patterns(
    ".git", ".venv", "venv", "__pycache__", "*.egg-info", ".*_cache", "demo-mail", "build", "dist"
)


def test_every_package_is_listed_for_the_wheel() -> None:
    listed = set(tomllib.loads((ROOT_DIR / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])  # fmt: skip
    found = {
        ".".join(init.parent.relative_to(ROOT_DIR).parts)
        for init in (ROOT_DIR / "mailjudge").rglob("__init__.py")
    }
    assert listed == found | {"mailjudge.data", "mailjudge.templates"}


def test_check_config_says_what_is_missing(tmp_path: Path) -> None:
    env = {**os.environ, "MAILJUDGE_DATABASE_URL": f"sqlite:///{tmp_path}/nowhere/judge.db"}
    program = str(Path(sys.executable).parent / "mailjudge")
    done = subprocess.run([program, "check-config"], env=env,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 1
    assert f"the database folder {tmp_path}/nowhere does not exist" in done.stderr


def test_the_wheel_installs_and_answers_mail(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT_DIR, checkout, ignore=LEFT_BEHIND)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "MAILJUDGE_"))}  # fmt: skip

    def run(command: list[str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)  # fmt: skip
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return done

    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"),
         str(checkout)], tmp_path)  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("mailjudge-*.whl")
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], tmp_path, 600)
    shutil.rmtree(checkout)  # nothing may come from the checkout now
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    mailjudge = str(venv / "bin" / "mailjudge")

    doc = {"position": {"phase": "S1901M", "units": [{"power": "FRANCE", "type": "A", "loc": "par"}]},
           "orders": {"FRANCE": ["A PAR - BUR"]}}  # fmt: skip
    (elsewhere / "spring.json").write_text(json.dumps(doc))
    result = json.loads(run([mailjudge, "adjudicate", "spring.json"], elsewhere).stdout)
    assert result["units"] == [{"power": "FRANCE", "type": "A", "loc": "bur"}]

    sink = MailSink()
    sink.start()
    port, web_port = free_port(), free_port()
    env.update({
        "MAILJUDGE_DATABASE_URL": f"sqlite:///{elsewhere}/judge.db",
        "MAILJUDGE_JUDGE_ADDRESS": "judge@example.test",
        "MAILJUDGE_SMTP_PORT": str(port),
        "MAILJUDGE_WEB_PORT": str(web_port),
        "MAILJUDGE_OUTBOUND_HOST": "127.0.0.1",
        "MAILJUDGE_OUTBOUND_PORT": str(sink.port),
    })  # fmt: skip
    run([mailjudge, "check-config"], elsewhere, 60)
    serve = subprocess.Popen([mailjudge, "serve", "--workers", "0"], cwd=elsewhere, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # fmt: skip
    try:
        _send_help(port)
        deadline = time.monotonic() + 60
        while not sink.mails and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sink.mails, "the installed judge answered nothing"
        reply = sink.mails[0].message
        assert reply["To"] == "newcomer@example.org" and "SIGNON" in text_of(reply)
        # The web pages come from the wheel's own templates too.
        page = urllib.request.urlopen(f"http://127.0.0.1:{web_port}/", timeout=10)
        assert page.status == 200 and b"The games" in page.read()
    finally:
        serve.terminate()
        serve.wait(timeout=30)
        sink.stop()


def _send_help(port: int) -> None:
    message = EmailMessage()
    message["From"], message["To"] = "newcomer@example.org", "judge@example.test"
    message["Subject"] = "hello"
    message.set_content("HELP")
    deadline = time.monotonic() + 60
    while True:
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
                client.send_message(message)
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
