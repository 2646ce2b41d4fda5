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
import zipfile
from email.message import EmailMessage
from pathlib import Path

import mailjudge
from mailjudge.config.paths import ROOT_DIR
from mailjudge.demo.sink import MailSink, free_port, text_of

LEFT_BEHIND = shutil.ignore_patterns(
    ".git", ".venv", "venv", "__pycache__", "*.egg-info", ".*_cache", "demo-mail", "build", "dist"
)


def packages_in(wheel: Path) -> set[str]:
    """The packages a wheel holds: the folders of its __init__.py files, and of the data
    files of mailjudge.data and mailjudge.templates (which have none)."""
    names = zipfile.ZipFile(wheel).namelist()
    inits = {n.rpartition("/")[0].replace("/", ".") for n in names if n.endswith("/__init__.py")}
    shared = {p for p in ("mailjudge.data", "mailjudge.templates")
              if any(n.startswith(p.replace(".", "/") + "/") for n in names)}  # fmt: skip
    return inits | shared


def every_package() -> set[str]:
    """Every package under mailjudge/, and the two the wheel maps in from data/ and
    templates/."""
    found = {
        ".".join(init.parent.relative_to(ROOT_DIR).parts)
        for init in (ROOT_DIR / "mailjudge").rglob("__init__.py")
    }
    return found | {"mailjudge.data", "mailjudge.templates"}


def test_no_package_is_listed_by_hand() -> None:
    """setup.py finds the packages, so a new one (a variant) needs no edit to go in."""
    setuptools = tomllib.loads((ROOT_DIR / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "packages" not in setuptools


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
    assert packages_in(wheel) == every_package()
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


def test_the_version_is_one_number_in_two_places() -> None:
    """pyproject.toml names the wheel, mailjudge.__version__ is what status shows."""
    project = tomllib.loads((ROOT_DIR / "pyproject.toml").read_text())["project"]
    assert project["version"] == mailjudge.__version__
    assert mailjudge.__version__ != "0.1.0"  # every release before 32's fix was 0.1.0


RELEASES = ROOT_DIR / "tests" / "data" / "releases"


def version_key(version: str) -> tuple[int, ...]:
    """ "0.10.1" -> (0, 10, 1): compared as numbers, not as text."""
    return tuple(int(part) for part in version.split("."))


def test_every_release_has_a_version_of_its_own() -> None:
    """Issue 51.7: three releases shipped as 0.2.0, so `pip install` of a newer one said
    "already installed" and the old code stayed. tests/data/releases/versions.toml lists
    the releases (each database kept there among them); the judge's own version must be
    above all of them, so a release listed there cannot leave the version as it was."""
    listed = tomllib.loads((RELEASES / "versions.toml").read_text())["releases"]
    kept = {dump.stem for dump in RELEASES.glob("*.sql")}
    assert kept <= set(listed), f"releases kept without their version: {kept - set(listed)}"
    own = version_key(mailjudge.__version__)
    older = {commit: r["version"] for commit, r in listed.items()
             if version_key(r["version"]) >= own}  # fmt: skip
    assert not older, f"mailjudge {mailjudge.__version__} is not newer than {older}"
    # One version, one schema: only the releases from before this test (0.1.0 and 0.2.0,
    # the fault itself) broke it.
    schemas: dict[str, set[int]] = {}
    for release in listed.values():
        schemas.setdefault(release["version"], set()).add(release["schema"])
    assert {v for v, s in schemas.items() if len(s) > 1} <= {"0.1.0", "0.2.0"}
    from mailjudge.tools.migrations import LATEST

    assert max(release["schema"] for release in listed.values()) <= LATEST


def readme_commands(marker: str) -> list[str]:
    """The shell lines of deploy/README.md's code blocks that contain `marker`."""
    text = (ROOT_DIR / "deploy" / "README.md").read_text()
    lines = [line.split("  #")[0].strip() for line in text.splitlines()]
    return [line for line in lines if marker in line and not line.startswith("#")]


def test_deploy_readme_builds_from_a_clean_tree_and_upgrades_with_new_dependencies(
    tmp_path: Path,
) -> None:
    """deploy/README.md's own commands, run: the build takes the committed files only (a
    module left in a used checkout is not shipped), and the upgrade installs a dependency
    the old release did not have (issue 32.9: --no-deps left it out), then a rollback puts
    the old version back."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "MAILJUDGE_"))}  # fmt: skip
    env["MAILJUDGE_DATABASE_URL"] = f"sqlite:///{tmp_path}/judge.db"

    def sh(line: str, timeout: int = 600) -> str:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", line], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=timeout)  # fmt: skip
        assert done.returncode == 0, f"{line}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        return done.stdout

    git = "git -c user.name=t -c user.email=t@example.test"
    checkout, source, dist = tmp_path / "checkout", tmp_path / "src", tmp_path / "dist"
    shutil.copytree(ROOT_DIR, checkout, ignore=LEFT_BEHIND)
    sh(f"cd {checkout} && git init -q && git add -A && {git} commit -q -m release")
    # The old release: version 0.0.1, from before dkimpy was a dependency.
    old = tmp_path / "old"
    shutil.copytree(checkout, old)
    pyproject = (old / "pyproject.toml").read_text()
    pyproject = pyproject.replace(f'version = "{mailjudge.__version__}"', 'version = "0.0.1"')
    (old / "pyproject.toml").write_text(pyproject.replace('    "dkimpy>=1.1",\n', ""))
    sh(f"{sys.executable} -m pip wheel -q --no-deps -w {dist} {old}")
    # The checkout was used: a module of an earlier build is still in it, two ways.
    for stale in (checkout / "mailjudge", checkout / "build" / "lib" / "mailjudge"):
        stale.mkdir(parents=True, exist_ok=True)
        (stale / "stale_leftover.py").write_text("raise ImportError('from an old build')\n")

    def as_here(line: str) -> str:
        return (line.replace("/tmp/mailjudge-src", str(source))
                .replace("/path/to/mailjudge-checkout", str(checkout))
                .replace("python3 ", f"{sys.executable} ")
                .replace("/opt/mailjudge/bin/pip", str(tmp_path / "venv" / "bin" / "pip"))
                .replace(" dist/", f" {dist}/").replace(" dist ", f" {dist} "))  # fmt: skip

    build = readme_commands("mailjudge-src")
    assert len(build) == 3 and "git -C" in build[1] and "archive HEAD" in build[1]
    for line in build:
        sh(as_here(line))
    new = dist / f"mailjudge-{mailjudge.__version__}-py3-none-any.whl"
    assert new.is_file()
    with zipfile.ZipFile(new) as wheel:
        names = wheel.namelist()
    assert "mailjudge/__init__.py" in names
    assert not [n for n in names if "stale_leftover" in n]

    venv = tmp_path / "venv"
    sh(
        f"{sys.executable} -m venv {venv} && {venv}/bin/pip install -q {dist}/mailjudge-0.0.1-py3-none-any.whl"
    )
    python = f"{venv}/bin/python"
    assert (
        "No module named 'dkim'"
        in subprocess.run(
            [python, "-c", "import dkim"], capture_output=True, text=True, env=env
        ).stderr
    )

    (upgrade,) = readme_commands("pip install dist/mailjudge-NEW")
    assert "--no-deps" not in upgrade
    sh(as_here(upgrade).replace("NEW", mailjudge.__version__))
    sh(f"{python} -c 'import dkim' && {venv}/bin/pip check")
    sh(f"cd {tmp_path} && {venv}/bin/mailjudge check-config", 120)
    version = "import importlib.metadata as m; print(m.version('mailjudge'))"
    assert sh(f'{python} -c "{version}"').strip() == mailjudge.__version__

    (rollback,) = readme_commands("pip install dist/mailjudge-OLD")
    sh(as_here(rollback).replace("OLD", "0.0.1"))
    assert sh(f'{python} -c "{version}"').strip() == "0.0.1"
