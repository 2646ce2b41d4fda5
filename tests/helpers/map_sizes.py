"""The maps a test runs on, the giant ones (over 150 provinces: Empire, World, Known World
901) under `-m soak` where a test repeats on them what the smaller maps already show at a
third to a quarter of the cost: CI's two cores run the smaller ones."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from mailjudge.engine.maps import load_map

GIANT = 150  # provinces; Modern, the largest kept in CI, has 141


def sized(names: Iterable[str]) -> list[object]:
    """``names`` as parameters, each giant map's marked soak."""
    return [
        pytest.param(name, marks=pytest.mark.soak)
        if len(load_map(name).provinces) > GIANT
        else name
        for name in names
    ]
