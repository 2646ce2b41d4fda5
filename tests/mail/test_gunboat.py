"""A Gunboat game by email over real sockets: created, joined by seven people whose names
nobody else sees (not on the forming game's page, not in LIST, not in the results), press
between players refused with the reason, press to the master and the master's broadcast
delivered, and a phase played to its results."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from helpers.e2e import MASTER, POWERS, Harness, text_of
from starlette.testclient import TestClient

from mailjudge.game.state import current_position, get_game
from mailjudge.store.models import Person, Seat
from mailjudge.web.app import make_app

GAME = "gun"
# Seven people whose addresses would give them away; the judge must show none of this.
PEOPLE = ["alice.brook", "bruno.vance", "chidi.okafor", "dana.wren", "emil.strand",
          "farah.nadir", "gustav.lindqvist"]  # fmt: skip


def address(person: str) -> str:
    return f"{person}@home.test"


def password(person: str) -> str:
    return f"pw-{person.split('.')[0]}-7"


def names_in(text: str) -> list[str]:
    """The people ``text`` gives away: a first name or surname, as a word of its own (the
    judge's seat names are made from the address: alice.brook)."""
    return [p for p in PEOPLE
            if any(re.search(rf"\b{part}\b", text, re.IGNORECASE) for part in p.split("."))]  # fmt: skip


@pytest.fixture
def web(harness: Harness) -> Iterator[TestClient]:
    with TestClient(make_app()) as client:
        yield client


def flat(reply: str) -> str:
    """A reply with its wrapped lines joined."""
    return " ".join(reply.split())


def power_of(person: str) -> str:
    seat = Seat.get(
        (Seat.game == get_game(GAME)) & (Seat.person == Person.get(Person.email == address(person)))
    )
    return str(seat.powers)


def signon(person: str) -> str:
    return f"SIGNON {power_of(person).lower()}@{GAME} {password(person)}\n"


def test_a_gunboat_game_keeps_its_players_apart_and_unnamed(
    harness: Harness, web: TestClient
) -> None:
    h = harness
    assert "created (gunboat" in h.command(MASTER, f"CREATE {GAME} masterpw VARIANT gunboat")

    # Anonymous from the first JOIN: a public name is refused, and says why.
    named = flat(h.command(address(PEOPLE[0]), f"JOIN {GAME} {password(PEOPLE[0])} AS Alice"))
    assert "anonymous" in named and "without AS name" in named
    for person in PEOPLE[:3]:
        assert "you joined" in h.command(address(person), f"JOIN {GAME} {password(person)}")

    forming = web.get(f"/games/{GAME}").text
    assert "Gunboat Diplomacy, forming" in forming and "joined" in forming
    assert "AS your-public-name" not in forming and "anonymous" in forming
    assert names_in(forming) == []
    listed = flat(h.command(address(PEOPLE[6]), f"LIST {GAME}"))
    assert "gunboat, forming" in listed and names_in(listed) == []

    for person in PEOPLE[3:]:
        assert "you joined" in h.command(address(person), f"JOIN {GAME} {password(person)}")
    h.wait_until(lambda: get_game(GAME).state == "active")
    listed = h.command(address(PEOPLE[6]), f"LIST {GAME}")
    assert listed.count("played") == 7 and names_in(listed) == []
    assert names_in(web.get(f"/games/{GAME}").text) == []

    # No press between players, private or to all, grey or not: the reason is given.
    writer, other = PEOPLE[0], PEOPLE[1]
    for press in (f"PRESS TO {power_of(other)}\nShall we?\nENDPRESS",
                  f"PRESS TO {power_of(other)} GREY\nShall we?\nENDPRESS",
                  "BROADCAST\nHello all\nENDPRESS"):  # fmt: skip
        refused = flat(h.command(address(writer), signon(writer) + press))
        assert "a Gunboat game has no press between players" in refused, refused
    # To the master it goes, signed with the power alone; the master may write to all.
    before = len(h.sink.mails)
    assert "ERROR" not in h.command(
        address(writer), signon(writer) + "PRESS TO M\nI will be away next week.\nENDPRESS"
    )
    h.wait_until(lambda: any(m.message["To"] == MASTER for m in h.sink.mails[before:]))
    to_master = next(m for m in h.sink.mails[before:] if m.message["To"] == MASTER)
    assert power_of(writer) in text_of(to_master.message)
    assert names_in(text_of(to_master.message)) == []
    assert "ERROR" not in h.command(
        MASTER, f"SIGNON master@{GAME} masterpw\nBROADCAST\nWelcome, all.\nENDPRESS"
    )

    # A phase played: everyone holds, and nobody's results name anyone.
    pos = current_position(get_game(GAME))
    for person in PEOPLE:
        holds = "\n".join(f"{u} H" for u in pos.units_of(power_of(person)))
        assert "ERROR" not in h.command(address(person), signon(person) + holds)
    h.wait_until(lambda: len(h.results_for(GAME, "S1901M")) == 8)
    assert get_game(GAME).phase == "F1901M"
    for received in h.results_for(GAME, "S1901M"):
        body = text_of(received.message)
        assert "Results of gun" in body and names_in(body) == []
    assert set(POWERS) == {power_of(p) for p in PEOPLE}
