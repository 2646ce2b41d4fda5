"""What a variant is: what it declares (its name, its kinds of seat and their columns,
its tables, permission rows, commands, default rules and timing), and four protocols, each
an object of a small class whose methods the shared code calls: ``phase`` (around
adjudication), ``people`` (seats and who may do what), ``addresses`` (who gets which
mail) and ``web`` (what its public page adds). The standard game changes nothing."""

from __future__ import annotations

from mailjudge.permissions.rows import Row
from mailjudge.store.models import BaseModel
from mailjudge.variants.addresses import AddressHooks
from mailjudge.variants.people import PeopleHooks
from mailjudge.variants.phase import PhaseHooks
from mailjudge.variants.web import WebHooks


class Variant:
    name = "standard"
    # Rules flags and TIMING a new game of the variant starts with (CREATE adds its own).
    default_rules = ""
    default_timing = ""
    # The kinds of seat the variant adds to the shared ones (master, player, observer),
    # its people's first: Democratic's citizen and the diplomat its citizens elect,
    # Diplonomic's teammate. Shared code names none of them: it asks the seat's role,
    # the variant's protocols and its permission rows (tests/ops/test_variant_roles.py).
    roles: tuple[str, ...] = ()
    # The columns of Seat that only the variant's seats fill (Democratic's centre).
    seat_fields: tuple[str, ...] = ()
    # Rows of the permission table for the variant's roles and actions, read after the
    # gates and before the shared rows (permissions/policy.py).
    permission_rows: tuple[Row, ...] = ()
    # The variant's own tables (its package's tables.py); the migrations create them.
    tables: tuple[type[BaseModel], ...] = ()
    # The module of the variant's own commands ("mailjudge.variants.NAME.commands"), which
    # the command table imports; "" when it has none.
    commands_module = ""
    # The protocols: a variant sets one to an object of its own subclass where it changes
    # something (Survive's ``phase = SurvivePhase()``), and keeps the standard one elsewhere.
    phase: PhaseHooks = PhaseHooks()
    people: PeopleHooks = PeopleHooks()
    addresses: AddressHooks = AddressHooks()
    web: WebHooks = WebHooks()
