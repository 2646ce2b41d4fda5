"""Variants: each a class declaring what it is and setting the protocols it changes
(phase, people, addresses, web: variants/base.py)."""

from __future__ import annotations

from mailjudge.store.models import Game
from mailjudge.variants.base import Variant
from mailjudge.variants.democratic import Democratic
from mailjudge.variants.diplonomic import Diplonomic
from mailjudge.variants.double import Double
from mailjudge.variants.gunboat import Gunboat
from mailjudge.variants.survive import Survive

VARIANTS: dict[str, Variant] = {
    v.name: v for v in (Variant(), Democratic(), Double(), Survive(), Diplonomic(), Gunboat())
}


def variant_of(game: Game) -> Variant:
    return VARIANTS[game.variant]


def list_target(address: str, judge: str) -> tuple[Game, str] | None:
    """(game, country) when ``address`` is a list some variant runs (AddressHooks.list_at)."""
    for variant in VARIANTS.values():
        found = variant.addresses.list_at(address, judge)
        if found is not None:
            return found
    return None
