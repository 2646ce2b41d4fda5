"""Fog of war (FOG) by mail over real sockets, on the standard map and on a three-player
start: the game is created in one word (``fog``: Gunboat with FOG), played phase by phase
with random legal orders, and every mail each player receives (its text, HTML part and
calendar invitation) is read against the boards the judge keeps: no unit of another power
that stood out of that player's sight before, during and after the phase is named, no
other power's centre count is given, and the board in the HTML part is the one drawn of
that player's view. SUMMARY and MAP by mail are cut down the same way, and an order is
checked against what its power sees (a support of a unit out of sight is refused as one of
a unit that is not there, so the answer tells nothing); nobody may OBSERVE;
the game has no public page, feed or JSON while it runs. The master's results name every
unit, and the game opens whole when it ends."""

from __future__ import annotations

import hashlib
import json
import random
import re

import pytest
from helpers.e2e import MASTER, Harness, player, secret
from starlette.testclient import TestClient

from mailjudge.demo.sink import Received
from mailjudge.demo.table import Person, Table
from mailjudge.engine.catalogue import playable_powers
from mailjudge.engine.fog import fogged_for, sight_of
from mailjudge.engine.interchange import position_from_dict
from mailjudge.engine.maps import load_map, province_of
from mailjudge.engine.randomplay import random_orders
from mailjudge.engine.state import MOVEMENT, Position
from mailjudge.game import fog
from mailjudge.game.state import get_game
from mailjudge.service.processing import history
from mailjudge.store.models import BoardPicture, GameState
from mailjudge.web.app import make_app

GAME = "foggy"
PHASES = 7


def texts_of(mail: Received) -> str:
    """Every text part of a mail: plain, HTML, the calendar invitation."""
    parts = [p for p in mail.message.walk() if p.get_content_maintype() == "text"]
    return "\n".join(str(p.get_content()) for p in parts) + "\n" + str(mail.message["Subject"])


def image_of(mail: Received) -> bytes | None:
    for part in mail.message.walk():
        if part.get_content_type() == "image/png":
            payload = part.get_payload(decode=True)
            return payload if isinstance(payload, bytes) else None
    return None


def hidden_units(boards: list[Position], power: str, sent: str) -> set[str]:
    """``A MUN``: the other powers' units out of ``power``'s sight on every one of
    ``boards`` (and not named in the orders it sent itself)."""
    gmap = load_map(get_game(GAME).map_name)
    seen: frozenset[str] = frozenset()
    for board in boards:
        seen |= sight_of(gmap, board, (power,))
    return {
        f"{u.type} {u.loc.upper()}"
        for board in boards
        for u in board.units.values()
        if u.power != power and province_of(u.loc) not in seen
    } - {m for m in re.findall(r"\b[AF] [A-Z]{3}(?:/[NSEW]C)?", sent.upper())}


def counted_powers(text: str) -> set[str]:
    """The powers a results mail gives a centre count for."""
    block = text.split("Supply centres:", 1)[1].split("\n\n", 1)[0]
    rows = [line.split() for line in block.splitlines()]
    return {row[0] for row in rows if len(row) > 1 and row[0].isupper() and row[1].isdigit()}


def play(t: Table, rng: random.Random) -> tuple[str, dict[str, str]]:
    gmap = load_map(t.state().map_name)
    pos = t.position()  # each power orders from what it sees
    views = {p: random_orders(gmap, fogged_for(gmap, pos, (p,)), rng) for p in t.players}
    mine = {p: orders[p] for p, orders in views.items() if orders.get(p)}
    return t.play_phase(mine), {p: "\n".join(o) for p, o in mine.items()}


def boards_of(t: Table, phase: str) -> list[Position]:
    """The boards of a phase played: before it, after it, and the next phase's."""
    gmap = load_map(t.state().map_name)
    record = next(r for r in history(t.state()) if r.phase == phase)
    after = position_from_dict(record.results["after"], gmap)
    following = [r for r in history(t.state()) if r.sequence > record.sequence]
    nxt = following[0].position if following else t.state().position
    return [position_from_dict(record.position, gmap), after, position_from_dict(nxt, gmap)]


def check_phase(t: Table, phase: str, sent: dict[str, str]) -> None:
    record = next(r for r in history(t.state()) if r.phase == phase)
    boards = boards_of(t, phase)
    addresses = [person.address for person in t.players.values()]
    t.harness.wait_until(
        lambda: all(any(m.rcpt_tos == [a] for m in t.results(phase)) for a in addresses),
        what=f"every player's results of {phase}",
    )
    for power, person in t.players.items():
        mails = [m for m in t.results(phase) if m.rcpt_tos == [person.address]]
        text = texts_of(mails[-1])
        leaked = [u for u in hidden_units(boards, power, sent.get(power, "")) if u in text]
        assert leaked == [], f"{power}'s results of {phase} show {leaked}:\n{text}"
        assert counted_powers(text) <= {power}, text
        assert "fog of war" in text
        shown = image_of(mails[-1])
        if shown is not None:  # the picture is of this power's view, not the whole board
            eyes = frozenset({power})
            board = fog.fogged_position(t.state(), record.position, eyes)
            rows = fog.fogged_rows(t.state(), record.position, record.results["results"], eyes)
            key = hashlib.sha256(json.dumps([board, rows], sort_keys=True).encode()).hexdigest()
            assert shown == BoardPicture.get(BoardPicture.key == key).png
    master = [m for m in t.results(phase) if m.rcpt_tos == [MASTER]][-1]
    whole = texts_of(master)
    if boards[0].phase.type == MOVEMENT:  # every unit has an order, shown to the master
        assert all(f"{u.type} {u.loc.upper()}" in whole.upper() for u in boards[0].units.values())


@pytest.mark.parametrize("map_name", ["standard", "standard_italy_england_russia"])
def test_each_power_is_mailed_only_what_it_sees(harness: Harness, map_name: str) -> None:
    h = harness
    gmap = load_map(map_name)
    players = {p: Person(player(p), secret(p)) for p in playable_powers(gmap)}
    t = Table(h, GAME, Person(MASTER, "masterpw"), players)
    created = t.say(t.master, f"CREATE {GAME} masterpw fog MAP {map_name} RULES +POWER_CHOICE")
    assert "created (gunboat" in created and "FOG" in created
    for power, person in players.items():
        t.say(person, f"JOIN {GAME} {person.password} {power}", "ok: you joined")
    h.wait_until(lambda: get_game(GAME).state == GameState.ACTIVE, what="the game to start")
    watcher = " ".join(h.command("watcher@home.test", f"OBSERVE watcher@{GAME} pw-w").split())
    assert "takes no observers (FOG)" in watcher

    if "AUSTRIA" in players:  # Munich is out of Vienna's sight: its army is not there
        probe = h.command(player("AUSTRIA"), f"{t.signon('AUSTRIA')}\nA VIE S A MUN - BOH")
        assert "there is no unit in Munich (MUN) to support" in " ".join(probe.split())

    rng = random.Random(11)
    for _ in range(PHASES):
        phase, sent = play(t, rng)
        check_phase(t, phase, sent)

    for power in players:  # HISTORY of the last phase, as each player reads it
        told = h.command(player(power), f"{t.signon(power)}\nHISTORY {GAME} {phase}")
        leaked = [u for u in hidden_units(boards_of(t, phase), power, sent.get(power, ""))
                  if u in told.upper()]  # fmt: skip
        assert leaked == [] and "fog of war" in told, told

    first = next(iter(players))
    summary = " ".join(h.command(player(first), f"{t.signon(first)}\nSUMMARY").split())
    others = [p for p in gmap.power_names if p != first]
    assert first in summary and not any(f"{p} " in summary for p in others)
    with TestClient(make_app()) as web:
        for path in ("", "/feed.atom", "/board.svg"):
            assert web.get(f"/games/{GAME}{path}").status_code == 404
        assert web.get(f"/api/games/{GAME}").status_code == 404
        assert GAME not in web.get("/").text

    board = " ".join(h.command(player(first), f"{t.signon(first)}\nMAP {GAME}").split())
    assert "follows in its own mail" in board
    view = fog.fogged_position(t.state(), t.state().position, frozenset({first}))
    key = hashlib.sha256(json.dumps([view, []], sort_keys=True).encode()).hexdigest()
    h.wait_until(lambda: [m for m in t.mails_to(player(first)) if " map " in m.subject])
    sent_map = [m for m in t.mails_to(player(first)) if " map " in m.subject][-1]
    svg = next(p for p in sent_map.message.walk() if p.get_content_type() == "image/svg+xml")
    assert svg.get_payload(decode=True) == BoardPicture.get(BoardPicture.key == key).svg.encode()
    t.vote_draw(list(players))  # the game ends: it opens whole
    game = get_game(GAME)
    assert fog.eyes_of(game, None) is None
    played = " ".join(h.command(player(first), f"HISTORY {GAME}").split())
    others_orders = [p for p in others if f"{p}: " in played]
    assert others_orders  # every power's orders, once the game is over
    with TestClient(make_app()) as web:
        assert web.get(f"/games/{GAME}").status_code == 200
        assert web.get(f"/api/games/{GAME}").status_code == 200
