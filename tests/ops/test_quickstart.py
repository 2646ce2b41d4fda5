"""The README's first two commands on a fresh machine: a copy of the checkout, a brand-new
virtual environment (no system site-packages), `pip install -e '.[test]'` and the demo; then
the test command, which must find and import every test there.

It installs from the package index pip is configured for, as a new user would: about 20 s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from mailjudge.config.paths import ROOT_DIR

README = (ROOT_DIR / "README.md").read_text()
LEFT_BEHIND = shutil.ignore_patterns(
    ".git", ".venv", "venv", "__pycache__", "*.egg-info", ".*_cache", "demo-mail", "build"
)


def readme_commands() -> tuple[str, str]:
    """The first two commands of the README (indented code lines)."""
    lines = [
        line[4:]
        for line in README.splitlines()
        if line.startswith("    .venv/bin/") or line.startswith("    python3 -m venv")
    ]
    return lines[0], lines[1]


def test_ci_runs_what_the_readme_says() -> None:
    install, tests = readme_commands()
    ci = (ROOT_DIR / ".ci" / "run").read_text()
    assert install.startswith("python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && ")
    assert install.endswith(".venv/bin/mailjudge demo")
    assert "python3 -m venv .venv" in ci and ".venv/bin/pip install -q -e '.[test]'" in ci
    assert tests == ".venv/bin/python -m pytest" and tests in ci


def test_the_readme_commands_work_in_a_new_virtual_environment(tmp_path: Path) -> None:
    checkout = tmp_path / "mailjudge"
    shutil.copytree(ROOT_DIR, checkout, ignore=LEFT_BEHIND)
    install, tests = readme_commands()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}

    def run(command: str | list[str], cwd: Path, timeout: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command, shell=isinstance(command, str), cwd=cwd, env=env,
            capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip

    installed = run(f"{install} --years 1 --seed 4", checkout, 600)
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    assert "Game over after" in installed.stdout and "DRAW" in installed.stdout
    assert len(list((checkout / "demo-mail").glob("*.eml"))) > 20
    venv = checkout / ".venv"
    config = (venv / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in config
    # The installed package is the copy's, not the one these tests run from (and the
    # command runs from / so that no folder named mailjudge sits beside it).
    program = "import mailjudge; print(mailjudge.__file__)"
    where = run([str(venv / "bin" / "python"), "-c", program], Path("/"), 60)
    assert where.stdout.strip() == str(checkout / "mailjudge" / "__init__.py")
    collected = run(f"{tests} --collect-only -p no:cacheprovider", checkout, 300)
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    assert "tests collected" in collected.stdout and "tests/ops/test_demo.py::" in collected.stdout
