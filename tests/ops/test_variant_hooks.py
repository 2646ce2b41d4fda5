"""What a variant may change, counted: the Variant class declares what the variant is,
and four protocols (``phase``, ``people``, ``addresses``, ``web``) hold what it changes.
Each member is listed with the variants that set it and the shared modules that use it;
a member no shared module uses, or a question or event no shared module asks, is a hook
nobody calls. New single-variant behaviour goes into a question or an event, not a new
hook: the counts below only fall (issue 58: 56 members, 38 of them methods, before the
protocols). Run this file to print the table:

    .venv/bin/python tests/ops/test_variant_hooks.py
"""

from __future__ import annotations

import ast
import inspect
import typing
from pathlib import Path

from mailjudge.variants import VARIANTS, events, questions
from mailjudge.variants.addresses import AddressHooks
from mailjudge.variants.base import Variant
from mailjudge.variants.people import PeopleHooks
from mailjudge.variants.phase import PhaseHooks
from mailjudge.variants.web import WebHooks

PACKAGE = Path(__file__).resolve().parents[2] / "mailjudge"
TESTS = PACKAGE.parent / "tests"
PROTOCOLS: dict[str, type] = {
    "phase": PhaseHooks,
    "people": PeopleHooks,
    "addresses": AddressHooks,
    "web": WebHooks,
}
# The declarations the Variant class itself holds (the protocols aside).
DECLARATIONS = 8
# Each protocol's public methods and attributes: only ever fewer.
MEMBERS = {"phase": 16, "people": 11, "addresses": 4, "web": 1}


def public(cls: type) -> list[str]:
    """A class's own public members, methods and attributes, in the order written."""
    return [n for n in vars(cls) if not n.startswith("_")]


def shared_sources(root: Path = PACKAGE) -> dict[str, ast.Module]:
    """Every module outside mailjudge/variants/ (and the registry, which is shared)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root.parent).as_posix()
        if not where.startswith("mailjudge/variants/") or where.endswith("variants/__init__.py"):
            found[where.removeprefix("mailjudge/")] = ast.parse(path.read_text())
    return found


def uses(trees: dict[str, ast.Module], protocol: str | None, member: str) -> list[str]:
    """The shared modules that read ``variant.<protocol>.<member>`` (or, with no protocol,
    ``variant.<member>``: any attribute of that name)."""
    where = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or node.attr != member:
                continue
            inner = node.value
            if protocol is None or (isinstance(inner, ast.Attribute) and inner.attr == protocol):
                where.append(name)
                break
    return where


def asked(trees: dict[str, ast.Module], cls: type) -> list[str]:
    """The shared modules that build a question or event of class ``cls``."""
    where = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and cls.__name__ in ast.unparse(node.func).split("."):
                where.append(name)
                break
    return where


def set_by(protocol: str | None, member: str) -> list[str]:
    """The registered variants that set the member their own way."""
    out = []
    for variant in VARIANTS.values():
        owner = variant if protocol is None else getattr(variant, protocol)
        base = Variant if protocol is None else PROTOCOLS[protocol]
        if getattr(type(owner), member) is not getattr(base, member):
            out.append(variant.name)
    return out


def table() -> list[tuple[str, list[str], list[str]]]:
    """(member, variants that set it, shared modules that use it), each protocol after
    the Variant's own declarations."""
    trees = shared_sources()
    # The declarations are read by the registry (``name``), the migrations, the command
    # table, the permission table, and the test of each Seat column's owner.
    readers = trees | shared_sources(TESTS)
    rows = [
        (
            name,
            set_by(None, name),
            ["the registry"] if name == "name" else uses(readers, None, name),
        )
        for name in public(Variant)
        if name not in PROTOCOLS
    ]
    for protocol, cls in PROTOCOLS.items():
        rows += [
            (f"{protocol}.{name}", set_by(protocol, name), uses(trees, protocol, name))
            for name in public(cls)
        ]
    return rows


def union_members(alias: object) -> tuple[type, ...]:
    return typing.get_args(alias)


FORMS = [*union_members(events.PhaseEvent), *union_members(events.PeopleEvent),
         *union_members(questions.Refusal), *union_members(questions.Lines)]  # fmt: skip


def test_every_member_is_used_by_shared_code() -> None:
    unused = [name for name, _, where in table() if not where]
    assert unused == []


def test_every_question_and_event_is_asked_by_shared_code() -> None:
    trees = shared_sources()
    assert [cls.__name__ for cls in FORMS if not asked(trees, cls)] == []
    defined = [c for _, c in inspect.getmembers(questions, inspect.isclass)]
    defined += [c for _, c in inspect.getmembers(events, inspect.isclass)]
    mine = {
        c
        for c in defined
        if c.__module__ in (questions.__name__, events.__name__) and not c.__name__.startswith("_")
    }
    assert mine == set(FORMS), "a question or event outside the unions the hooks take"


def test_the_hooks_do_not_grow() -> None:
    declarations = [n for n in public(Variant) if n not in PROTOCOLS]
    assert len(declarations) <= DECLARATIONS, declarations
    for protocol, cls in PROTOCOLS.items():
        assert len(public(cls)) <= MEMBERS[protocol], (protocol, public(cls))
        assert isinstance(getattr(Variant, protocol), cls)


def is_method(name: str) -> bool:
    protocol, _, member = name.rpartition(".")
    owner = PROTOCOLS[protocol] if protocol else Variant
    return inspect.isfunction(getattr(owner, member))


if __name__ == "__main__":
    rows = table()
    for name, variants, where in rows:
        print(f"{name:30} set by {', '.join(variants) or '-':38} used in {', '.join(where)}")
    methods = [name for name, _, _ in rows if is_method(name)]
    alone = [name for name, variants, _ in rows if len(variants) == 1]
    print(f"{len(rows)} members, {len(methods)} of them methods; {len(alone)} set by one variant")
    print(f"{len(FORMS)} questions and events: {', '.join(c.__name__ for c in FORMS)}")
