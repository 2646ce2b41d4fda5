"""The docs hold what the code is: the README's reference of every command and setting,
its module tree, the variant hooks in docs/architecture.md, the interchange contract in
docs/."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from mailjudge.tools.docs import module_tree, reference, summary
from mailjudge.variants.addresses import AddressHooks
from mailjudge.variants.base import Variant
from mailjudge.variants.events import PeopleEvent, PhaseEvent
from mailjudge.variants.people import PeopleHooks
from mailjudge.variants.phase import PhaseHooks
from mailjudge.variants.questions import Lines, Refusal
from mailjudge.variants.web import WebHooks

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
# The types the docs name beside the members: the protocols' classes and the unions of
# questions and events their hooks take.
PROTOCOL_CLASSES = {"PhaseHooks", "PeopleHooks", "AddressHooks", "WebHooks", "PhaseEvent",
                    "PeopleEvent", "Refusal", "Lines"}  # fmt: skip


def test_readme_reference_is_in_step_with_the_code() -> None:
    assert reference() in README.read_text(), "run `mailjudge docs` and paste it into README.md"


def test_readme_tree_names_every_module_as_its_docstring_says() -> None:
    """The README's Layout is `mailjudge docs --tree` as the code is now: every module of
    the package, web/ included, with its docstring's first sentence."""
    text = README.read_text()
    block = text.split("<!-- module tree: mailjudge docs --tree -->\n", 1)[1]
    block = block.split("<!-- end of the module tree -->", 1)[0]
    package = ROOT / "mailjudge"
    for path in package.rglob("*.py"):
        name = path.parent.name + "/" if path.name == "__init__.py" else path.name
        assert f"`{name}`: {summary(path)}" in block, f"README.md's tree misses {path}"
    assert block == module_tree(), "run `mailjudge docs --tree` and paste it into README.md"


def test_every_module_says_what_it_is_for() -> None:
    """The tree's line of a module is its docstring: none is empty."""
    empty = [p for p in (ROOT / "mailjudge").rglob("*.py") if not summary(p)]
    assert empty == [], "give these modules a docstring"


def test_readme_starts_with_install_and_test_commands() -> None:
    text = README.read_text()
    head = text[: text.index("mailjudge is an email-driven")]
    assert "pip install -e '.[test]'" in head and "mailjudge serve" in head
    assert ".venv/bin/python -m pytest" in head


def _variant_members() -> set[str]:
    """What a variant may set: the Variant class's declarations and protocols, each
    protocol's public methods and attributes, and the questions and events its hooks
    take (variants/questions.py, variants/events.py)."""
    names = {n for n in vars(Variant) if not n.startswith("_")}
    for protocol in (PhaseHooks, PeopleHooks, AddressHooks, WebHooks):
        names |= {n for n in vars(protocol) if not n.startswith("_")}
    for union in (PhaseEvent, PeopleEvent, Refusal, Lines):
        names |= {form.__name__ for form in typing.get_args(union)}
    return names


def test_architecture_names_every_variant_hook_and_attribute() -> None:
    """Someone adding a variant reads the protocols in docs/architecture.md: no member may
    be missing there, and none named there may be gone from the code."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    members = _variant_members()
    missing = sorted(name for name in members if f"`{name}`" not in text)
    assert not missing, f"docs/architecture.md does not name {missing}"
    section = text.split("The protocols are:", 1)[1].split("`tests/ops/test_docs.py`", 1)[0]
    named = set(re.findall(r"`(\w+)`", section)) - PROTOCOL_CLASSES
    assert named == members, f"named but not in the code: {named - members}"


def test_the_interchange_contract_is_in_the_repository() -> None:
    """Every mention of interchange.md in the package points at docs/interchange.md, which
    names every key a document and a result have."""
    contract = (ROOT / "docs" / "interchange.md").read_text()
    for path in (ROOT / "mailjudge").rglob("*.py"):
        for mention in re.findall(r"[\w/]*interchange\.md", path.read_text()):
            assert mention == "docs/interchange.md", f"{path}: {mention}"
    for key in ("position", "orders", "options", "map", "units", "dislodged", "contested",
                "sc_owners", "results", "destroyed", "next_phase", "winners",
                "at_victory_count", "held_last_year"):  # fmt: skip
        assert f"`{key}`" in contract, key


def test_architecture_places_every_game_and_service_module() -> None:
    """Each module of the two game packages is placed in docs/architecture.md, under its
    own package's line."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    for package in ("game", "service"):
        line = text.split(f"  - `{package}/` sits", 1)[1].split("\n  - ", 1)[0]
        for path in (ROOT / "mailjudge" / package).glob("*.py"):
            if path.stem != "__init__":
                assert f"`{path.name}`" in line, f"docs/architecture.md does not place {path}"
