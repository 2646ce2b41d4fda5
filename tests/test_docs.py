"""The README holds the reference made from the code: every command and every setting."""

from __future__ import annotations

from pathlib import Path

from mailjudge.docs import reference

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_reference_is_in_step_with_the_code() -> None:
    assert reference() in README.read_text(), "run `mailjudge docs` and paste it into README.md"


def test_readme_starts_with_install_and_test_commands() -> None:
    text = README.read_text()
    head = text[: text.index("mailjudge is an email-driven")]
    assert "pip install -e '.[test]'" in head and "mailjudge serve" in head
    assert ".venv/bin/python -m pytest" in head
