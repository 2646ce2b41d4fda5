"""Games on every map of data/maps other than the standard one, by mail over real sockets:
CREATE ... MAP name, the map's powers JOIN, random legal orders to the first adjustment
phase, results that name the map's provinces, LIST and HELP MAPS, an unknown map refused
with the list, and the archive of such a game played again by the engine. The variants
on another map: Survive's victory count, Democratic's citizens, Double refused where the
map has no ring. The maps come from the data folder: a map added there is tested here."""

from __future__ import annotations

import json
import random

import pytest
from helpers.e2e import MASTER, Harness, join_by_mail, player, secret
from helpers.map_sizes import sized
from starlette.testclient import TestClient

from mailjudge.demo.table import Person, Table
from mailjudge.engine.catalogue import map_names, playable_powers
from mailjudge.engine.maps import load_map
from mailjudge.engine.randomplay import random_orders
from mailjudge.engine.state import ADJUSTMENT
from mailjudge.game.state import get_game
from mailjudge.service.archive import export_game, replay
from mailjudge.store.models import Seat
from mailjudge.variants.democratic.citizens import citizens, country_of
from mailjudge.variants.double import ring_of, ring_refusal
from mailjudge.web.app import make_app

OTHER_MAPS = [name for name in map_names() if name != "standard"]
RINGLESS = [name for name in OTHER_MAPS if ring_refusal(load_map(name)) is not None]
MAX_YEARS = 8  # random play reaches an adjustment within a year or two (England-Turkey: 5)


def table(h: Harness, game: str, map_name: str) -> Table:
    gmap = load_map(map_name)
    players = {p: Person(player(p), secret(p)) for p in playable_powers(gmap)}
    return Table(h, game, Person(MASTER, "masterpw"), players)


@pytest.mark.parametrize("map_name", sized(OTHER_MAPS))
def test_a_game_on_another_map_by_mail(harness: Harness, map_name: str) -> None:
    h = harness
    gmap = load_map(map_name)
    game = "onmap"
    t = table(h, game, map_name)
    created = t.say(
        t.master, f"CREATE {game} masterpw MAP {map_name} RULES POWER_CHOICE", "created"
    )
    assert f"on the map {map_name}" in created
    for power, person in t.players.items():
        t.say(person, f"JOIN {game} {person.password} {power}", "ok: you joined")
    h.wait_until(lambda: get_game(game).state == "active", what="the game to start")
    assert get_game(game).map_name == map_name
    assert get_game(game).victory_count == gmap.victory_centres
    first = t.position()
    assert {u.power for u in first.units.values()} <= set(gmap.power_names)

    rng = random.Random(7)
    played: list[str] = []  # Chaos begins with its adjustment (the builds): that one only
    while not played or (t.position().phase.type != ADJUSTMENT and "A" not in played[-1]):
        assert t.position().phase.year < first.phase.year + MAX_YEARS, played
        orders = random_orders(gmap, t.position(), rng)
        played.append(t.play_phase({p: o for p, o in orders.items() if p in t.players}))
    board = t.position()
    phase = played[-1]
    results = [r for r in t.results(phase) if r.rcpt_tos == [MASTER]][-1]
    text = results.message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert board.units
    for unit in board.units.values():  # the results name the map's provinces
        assert unit.loc.split("/")[0].upper() in text.upper()

    asked = " ".join(h.command(MASTER, f"MAP {game}").split())
    if gmap.positions:
        assert "follows in its own mail" in asked
    else:
        assert "has no drawing yet" in asked
        unit = next(iter(board.units.values()))
        assert f"{unit.type} {unit.loc.upper()}" in asked

    listed = " ".join(h.command(MASTER, "LIST").split())
    assert f"{game} standard active" in listed and f"on {map_name}" in listed
    assert f"{map_name}: {len(gmap.power_names)} powers, {len(gmap.centres)} centres" in listed
    helped = " ".join(h.command(MASTER, "HELP MAPS").split())
    assert f"{map_name}: {gmap.title}" in helped
    assert all(gmap.power_title(p) in helped for p in gmap.power_names)  # nobody's too

    with TestClient(make_app()) as web:
        page = web.get(f"/games/{game}").text
        assert f"({map_name})" in page and gmap.title in page
        assert ("has no drawing yet" in page) == (not gmap.positions)
        assert f"on {map_name}" in web.get("/").text
        board = web.get(f"/games/{game}/phases/{played[0]}/board.svg")
        assert board.status_code == 200 and board.text.startswith("<svg")

    doc = json.loads(json.dumps(export_game(get_game(game))))
    assert doc["game"]["map"] == map_name
    # A phase in which only the map's dummy has anything to do (its retreats, its removals)
    # owes nobody's orders: the judge processes it at once, so it is archived unplayed.
    archived = [p["phase"] for p in doc["phases"]]
    assert set(played) <= set(archived)
    assert len(archived) == len(played) or gmap.dummies
    assert replay(doc) == []


def test_an_unknown_map_is_refused_with_the_maps_named(harness: Harness) -> None:
    reply = " ".join(harness.command(MASTER, "CREATE nomap masterpw MAP atlantis").split())
    assert "there is no map 'atlantis'" in reply
    assert all(name in reply for name in map_names())
    assert get_game_or_none("nomap") is None
    other = OTHER_MAPS[0] if OTHER_MAPS else "standard"
    moved = harness.command(MASTER, f"CREATE later masterpw VARIANT gunboat\nMAP {other}")
    assert f"the map is {other}" in moved
    assert get_game("later").map_name == other
    again = harness.command(MASTER, "SIGNON Mlater masterpw\nLIST later")
    assert f"later: gunboat{'' if other == 'standard' else ' on ' + other}, forming" in again


def get_game_or_none(name: str) -> object:
    from mailjudge.store.models import Game

    return Game.get_or_none(Game.name == name)


@pytest.mark.parametrize("map_name", OTHER_MAPS[:2])
def test_survive_and_diplonomic_numbers_follow_the_map(harness: Harness, map_name: str) -> None:
    centres = len(load_map(map_name).centres)
    for variant, count in (("survive", centres + 1), ("diplonomic", centres // 2 + 1)):
        game = f"{variant[:4]}map"
        reply = harness.command(MASTER, f"CREATE {game} masterpw VARIANT {variant} MAP {map_name}")
        assert "created" in reply, reply
        assert get_game(game).victory_count == count


WITH_NOBODYS = [n for n in OTHER_MAPS if playable_powers(load_map(n)) != load_map(n).power_names]


@pytest.mark.parametrize("map_name", OTHER_MAPS[:1] + WITH_NOBODYS[:1])
def test_democratic_citizens_live_in_the_maps_centres(harness: Harness, map_name: str) -> None:
    h = harness
    gmap = load_map(map_name)
    assert "created" in h.command(
        MASTER, f"CREATE demmap masterpw VARIANT democratic MAP {map_name}"
    )
    names = [f"cit{i}" for i in range(3)]
    for name in names:
        reply = join_by_mail(h, f"{name}@citizens.test", f"JOIN demmap pw-{name} AS {name}")
        assert "you joined demmap" in reply
    assert "has started" in h.command(MASTER, "SIGNON Mdemmap masterpw\nSTART")
    homes = {c for p in playable_powers(gmap) for c in gmap.home_centres[p]}
    game = get_game("demmap")
    assert len(citizens(game)) == len(names)
    for citizen in citizens(game):
        assert citizen.centre in homes
        assert country_of(citizen) in playable_powers(gmap)


@pytest.mark.parametrize("map_name", RINGLESS)
def test_double_is_refused_on_a_map_without_a_ring(harness: Harness, map_name: str) -> None:
    reply = " ".join(
        harness.command(MASTER, f"CREATE dblmap masterpw VARIANT double MAP {map_name}").split()
    )
    assert f"double cannot be played on the map {map_name}" in reply
    assert ring_refusal(load_map(map_name)) in reply
    assert get_game_or_none("dblmap") is None


RINGED = [name for name in OTHER_MAPS if ring_refusal(load_map(name)) is None]


@pytest.mark.parametrize("map_name", RINGED[:1])
def test_double_deals_the_maps_ring(harness: Harness, map_name: str) -> None:
    h = harness
    gmap = load_map(map_name)
    reply = h.command(MASTER, f"CREATE dblring masterpw VARIANT double MAP {map_name}")
    assert "created" in reply, reply
    names = [f"twin{i}" for i in range(len(gmap.power_names))]
    for name in names:
        assert "you joined" in h.command(
            f"{name}@players.test", f"JOIN dblring pw-{name} AS {name}"
        )
    h.wait_until(lambda: get_game("dblring").state == "active", what="the game to start")
    seats = Seat.select().where((Seat.game == get_game("dblring")) & (Seat.role == "player"))
    dealt = sorted(tuple(s.powers) for s in seats)
    assert dealt == sorted(ring_of(gmap))
    assert all(sum(p in pair for pair in dealt) == 2 for p in gmap.power_names)


def test_a_start_is_created_gunboat_in_one_word(harness: Harness) -> None:
    """``CREATE game pw evt``: England-Turkey as players expect it, anonymous (Gunboat);
    a VARIANT after the word has the last word; Build anywhere keeps the standard game."""
    h = harness
    created = " ".join(h.command(MASTER, "CREATE evt1 masterpw evt").split())
    assert "created (gunboat on the map standard_england_turkey" in created
    game = get_game("evt1")
    assert (game.variant, game.map_name) == ("gunboat", "standard_england_turkey")
    named = " ".join(h.command(player("ENGLAND"), "JOIN evt1 pw-e ENGLAND AS Alice").split())
    assert "evt1 is anonymous: players are known by their powers only" in named
    pressed = h.command(MASTER, "CREATE fvj1 masterpw frankland_juggernaut VARIANT standard")
    assert "created (standard on the map standard_frankland_juggernaut" in pressed
    anywhere = h.command(MASTER, "CREATE ba1 masterpw build_anywhere")
    assert "created (standard on the map standard_build_anywhere" in anywhere
    assert get_game("ba1").map_name == "standard_build_anywhere"
    helped = " ".join(h.command(MASTER, "HELP MAPS").split())
    assert "evt: VARIANT gunboat MAP standard_england_turkey" in helped
    assert "fog: VARIANT gunboat MAP standard RULES FOG" in helped
