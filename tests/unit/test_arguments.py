"""Commands declare their arguments once: the usage HELP shows, the masking of passwords
and the refusal of a wrong form all come from that spec."""

from __future__ import annotations

import pytest

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.commands.arguments import SpecError, fits, parse, secret_place
from mailjudge.commands.registry import unique_commands
from mailjudge.secrecy.secret_words import SecretPlace


@pytest.mark.parametrize(
    ("words", "ok"),
    [
        ("g p", True), ("g p FRANCE", True), ("g p AS bob", True), ("g p FRANCE as bob", True),
        ("g", False), ("g p FRANCE AS", False), ("g p x y", False),
    ],
)  # fmt: skip
def test_join_form(words: str, ok: bool) -> None:
    assert fits("game password [power] [AS name]", words.split()) is ok


def test_values_keywords_and_repeats() -> None:
    assert fits("YYYY-MM-DD HH:MM [zone]", ["2026-12-01", "12:00"])
    assert fits("name [why...]", ["a"]) and fits("name [why...]", ["a", "b", "c"])
    assert fits("power order...", ["ENGLAND", "F", "LON", "H"]) and not fits(
        "power order...", ["X"]
    )
    assert fits("", []) and not fits("", ["x"])
    assert secret_place("game password [AS name]") == SecretPlace((1,), to_end=False)
    assert secret_place("newpassword") == SecretPlace((0,), to_end=True)
    assert secret_place("power order...") is None
    with pytest.raises(SpecError):  # its place would change with the words before it
        secret_place("game [power] password")
    with pytest.raises(SpecError):
        parse("game [power")


def test_every_declared_spec_reads_and_makes_the_usage_line() -> None:
    declared = [c for c in unique_commands() if c.arguments is not None]
    assert len(declared) >= 30
    for command in declared:
        parse(command.arguments)
        assert command.usage == f"{command.name} {command.arguments}".strip()
