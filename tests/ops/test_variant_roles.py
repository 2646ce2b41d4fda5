"""A variant declares what it adds: its kinds of seat (``roles``), the columns of Seat its
seats fill (``seat_fields``), its tables, and what its centres count for toward victory
(its phase protocol's ``centre_weights``). Shared code names none of its roles (they were
plain strings in eight shared modules, 27 places), and a variant whose centres count
double needs no shared file changed for the engine to count them and the results to say
why 9 centres beat 12."""

from __future__ import annotations

import ast
import random
from pathlib import Path
from types import MappingProxyType

import pytest
from helpers.boards import GMAP, position

import mailjudge.commands  # noqa: F401  (registers the commands)
from mailjudge.game.state import get_game
from mailjudge.service import processing
from mailjudge.service.games import create_game
from mailjudge.service.results import phase_mails
from mailjudge.service.seats import join
from mailjudge.store.models import ROLES, Seat
from mailjudge.variants import VARIANTS
from mailjudge.variants.base import Variant
from mailjudge.variants.phase import PhaseHooks

PACKAGE = Path(__file__).resolve().parents[2] / "mailjudge"
SHARED_ROLES = {"master", "player", "observer"}
# The modules that list every role on purpose: the database's check of a seat's role, and
# the permission table's vocabulary (which the variants' rows are written in).
ROLE_LISTS = {"store/models.py", "permissions/vocabulary.py"}
# The tools that run the judge from outside (as tests do) and set up a variant's game to
# measure it: the Democratic benchmarks seat citizens.
TOOLS = ("benchmarks/", "demo/")
SHARED_SEAT_FIELDS = {
    "id", "game", "person", "role", "name", "public_name", "powers", "password_hash",
    "status", "wait", "dummy", "eliminated", "absence", "preference", "standin",
    "failed_signons", "locked_until", "joined_at",
}  # fmt: skip


def variant_roles() -> dict[str, str]:
    """Each variant's role -> the variant that declares it."""
    return {role: v.name for v in VARIANTS.values() for role in v.roles}


def named_roles(source: str, roles: set[str]) -> list[tuple[int, str]]:
    """(line, role) for every string in the code that is exactly one of ``roles``."""
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in roles
    ]


def test_no_shared_module_names_a_variant_s_role() -> None:
    """Outside mailjudge/variants/ a seat's role is compared with the shared ones only;
    what a variant's seat may do, the variant's hooks and permission rows say."""
    roles = set(variant_roles())
    assert {"citizen", "diplomat", "teammate"} <= roles
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where.startswith(("variants/", *TOOLS)) or where in ROLE_LISTS:
            continue
        bad += [f"{where}:{line} {role!r}" for line, role in named_roles(path.read_text(), roles)]
    assert bad == []


def test_the_role_rule_sees_a_role_named() -> None:
    source = 'if seat.role in ("teammate", "player"):\n    """a teammate"""\n'
    assert named_roles(source, {"teammate"}) == [(1, "teammate")]


def test_the_database_knows_every_role_a_variant_declares() -> None:
    assert set(ROLES) == SHARED_ROLES | set(variant_roles())
    assert len(variant_roles()) == sum(len(v.roles) for v in VARIANTS.values())  # each once


def test_every_column_of_a_seat_is_shared_or_one_variant_s() -> None:
    declared = [field for v in VARIANTS.values() for field in v.seat_fields]
    columns = {field.name for field in Seat._meta.sorted_fields}
    assert len(declared) == len(set(declared))
    assert columns == SHARED_SEAT_FIELDS | set(declared)
    assert not SHARED_SEAT_FIELDS & set(declared)


# -- a toy variant, registered here only ------------------------------------------------


class TsarPhase(PhaseHooks):
    centre_weights = MappingProxyType({"RUSSIA": 2})


class Tsardom(Variant):
    """Russia's centres count double: the phase protocol says so, nothing else."""

    name = "tsardom"
    phase = TsarPhase()


def test_a_toy_variant_s_centres_count_double_and_its_results_say_why(
    sqlite_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Russia holds 9 centres, which count 18 (the victory count), France 12: Russia wins,
    and the results show each count and what it counts for. Nothing shared names the
    variant: it is registered in this test alone."""
    monkeypatch.setitem(VARIANTS, Tsardom.name, Tsardom())
    game = create_game("tsar", "gm@example.org", "gmpw", variant="tsardom")
    for n in range(7):
        join(game, f"p{n}@example.org", f"pw{n}", rng=random.Random(n))
    game = get_game("tsar")
    assert game.state == "active" and game.victory_count == 18
    russian = ["mos", "stp", "war", "sev", "rum", "bud", "vie", "tri", "con"]
    centres = sorted(c for c in GMAP.centres if c not in russian)
    french = centres[:12]
    owners = {c: "RUSSIA" for c in russian if c in GMAP.centres} | {c: "FRANCE" for c in french}
    assert sum(1 for o in owners.values() if o == "RUSSIA") == 9
    game.phase, game.position = "F1905M", position("F1905M", ["RUSSIA A mos"], owners)
    game.save()
    done = processing.process(get_game("tsar"), force=True)
    assert done is not None
    game = get_game("tsar")
    assert game.state == "finished" and game.outcome == "WIN RUSSIA"
    (results, *_) = [m for m in phase_mails(game, done) if m.subject.endswith("results F1905M")]
    lines = [" ".join(line.split()) for line in results.body.splitlines()]
    assert any(line.startswith("FRANCE 12 ") and "toward" not in line for line in lines)
    russia = next(line for line in lines if line.startswith("RUSSIA 9 "))
    assert russia.endswith("(each counts 2: 18 toward victory)"), russia
    assert "The game is won by RUSSIA." in lines
