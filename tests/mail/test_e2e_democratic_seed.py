"""Democratic Diplomacy (seed 000) in the seed's own terms, by mail: each citizen is told
their country, order sets are numbered per country and phase, the diplomat election's
count is published stage by stage, and diplomats talk with diplomats."""

from __future__ import annotations

import re

from helpers.e2e import MASTER, Harness, join_by_mail, text_of

from mailjudge.demo.sink import Received
from mailjudge.game.state import get_game
from mailjudge.variants.democratic.citizens import diplomat_of
from mailjudge.variants.democratic.country_lists import list_address

GAME = "seed0"
CITIZENS = [f"cit{i:02d}" for i in range(22)]  # one to each home centre


def address(name: str) -> str:
    return f"{name}@citizens.test"


def flat(text: str) -> str:
    return " ".join(text.split())


def subjects(h: Harness, part: str) -> list[Received]:
    return [m for m in h.sink.mails if part in m.message["Subject"]]


def test_democratic_game_as_seed_000_writes_it(harness: Harness) -> None:
    h = harness
    assert "created" in h.command(MASTER, f"CREATE {GAME} masterpw VARIANT democratic")
    for name in CITIZENS:
        assert "you joined" in join_by_mail(h, address(name), f"JOIN {GAME} pw-{name} AS {name}")
    assert "has started" in h.command(MASTER, f"SIGNON M{GAME} masterpw\nSTART")
    h.wait_until(lambda: len(subjects(h, "you are a citizen of")) == len(CITIZENS))

    # Point 11: each citizen's own mail, To them, with their country in X-Mailjudge-Role.
    country: dict[str, str] = {}
    for mail in subjects(h, "you are a citizen of"):
        told = re.search(r"citizen of (\w+) \((\w+)\)", mail.message["Subject"])
        assert told is not None
        (rcpt,) = mail.rcpt_tos
        assert mail.message["To"] == rcpt
        assert mail.message["X-Mailjudge-Role"] == f"citizen {told.group(1)}"
        country[rcpt.split("@")[0]] = told.group(1)
    h.wait_until(lambda: len(subjects(h, "has started")) >= len(CITIZENS))
    for mail in subjects(h, "has started"):
        name = mail.rcpt_tos[0].split("@")[0]
        if name in country:
            body = flat(text_of(mail.message))
            assert f"You are a citizen of {country[name]} (" in body, body
            assert f"citizen {country[name]}" == mail.message["X-Mailjudge-Role"]

    def members(power: str) -> list[str]:
        return sorted(n for n, p in country.items() if p == power)

    def say(name: str, text: str) -> str:
        return flat(h.command(address(name), f"SIGNON {name}@{GAME} pw-{name}\n{text}"))

    # Diplomat elections: in France three nominees tie at the first stage (a tie the
    # earlier stages cannot break, so a seeded draw settles it); England elects its first.
    fr, en, tr = members("FRANCE"), members("ENGLAND"), members("TURKEY")
    for name in fr:
        assert "is nominated" in say(name, f"NOMINATE {name}")
    for n, name in enumerate(fr):
        nxt = fr[(n + 1) % len(fr)]
        assert "ballot recorded" in say(name, f"VOTE DIPLOMAT {name} {nxt}")
    assert "(nomination 1)" in say(en[0], f"NOMINATE {en[0]}")  # England counts its own
    for name in en:
        say(name, f"VOTE DIPLOMAT {en[0]}")

    # Point 10: order sets numbered per country and phase, whatever the others propose.
    holds = "PROPOSAL ORDERS\nA PAR H\nA MAR H\nF BRE H\nEND"
    assert "order set 1 for FRANCE in S1901M" in say(fr[0], holds)
    assert "order set 1 for ENGLAND in S1901M" in say(en[0], "PROPOSAL ORDERS\nF LON H\nEND")
    moves = "PROPOSAL ORDERS\nA PAR - BUR\nA MAR H\nF BRE - MAO\nEND"
    assert "order set 2 for FRANCE in S1901M" in say(fr[1], moves)
    assert "comment on order set 2" in say(fr[2], "COMMENT 2\nBurgundy first.\nEND")
    for name in fr:
        assert "ballot recorded" in say(name, "VOTE ORDERS 2 1")
    assert "processed" in h.command(MASTER, f"SIGNON M{GAME} masterpw\nPROCESS!")
    h.wait_until(lambda: bool(subjects(h, "FRANCE's orders for S1901M")))
    count = flat(text_of(subjects(h, "FRANCE's orders for S1901M")[0].message))
    assert "Order set 2 was chosen" in count and "A PAR - BUR" in count
    assert get_game(GAME).phase == "F1901M"

    # Point 9: the election's count goes to the country's list, stage by stage, with the
    # eliminations and the tie-break; no ballot.
    def diplomats_mail(power: str) -> str:
        mails = [m for m in subjects(h, "the diplomats")
                 if m.message["To"] == list_address(get_game(GAME), power)]  # fmt: skip
        return flat(text_of(mails[-1].message))

    h.wait_until(lambda: "stage 1:" in diplomats_mail("FRANCE"))
    french = diplomats_mail("FRANCE")
    assert "How FRANCE's citizens elected their diplomat" in french
    first_stage = r"stage 1: (cit\d\d: 1, ){" + str(len(fr) - 1) + r"}cit\d\d: 1"
    assert re.search(first_stage, french), french
    assert "tie for elimination between" in french and "settled by a draw: sha256" in french
    assert "eliminated: cit" in french and "chosen: cit" in french
    diplomat_fr = diplomat_of(get_game(GAME), "FRANCE")
    diplomat_en = diplomat_of(get_game(GAME), "ENGLAND")
    assert diplomat_fr is not None and diplomat_en is not None and diplomat_en.name == en[0]
    assert f"chosen: {diplomat_fr.name}" in french
    assert f"chosen: {en[0]}" in diplomats_mail("ENGLAND")

    # Point 8: diplomats talk with diplomats.
    before = len(h.sink.mails)
    sent = say(diplomat_fr.name, "PRESS TO ENGLAND\nShall we share the Channel?\nENDPRESS")
    assert "press sent to ENGLAND" in sent
    h.wait_until(lambda: bool(subjects(h, "press from FRANCE")))
    press = [m for m in h.sink.mails[before:] if "press from FRANCE" in m.message["Subject"]]
    assert [m.rcpt_tos for m in press] == [[address(en[0])]]  # England's diplomat alone
    assert press[0].message["Reply-To"].startswith(f"judge+{GAME}-press-france@")
    # England's diplomat tells England's citizens what they choose, on their own list.
    assert "press sent to ENGLAND" in say(en[0], "PRESS TO ENGLAND\nFrance offers peace.\nENDPRESS")
    # CC LIST posts a diplomat's press on their own country's list as well.
    before = len(h.sink.mails)
    copied = say(diplomat_fr.name, "PRESS TO ENGLAND CC LIST\nAgreed: ENG stays empty.\nENDPRESS")
    assert "press sent to ENGLAND" in copied

    def agreed() -> list[Received]:
        return [m for m in h.sink.mails[before:]
                if "press from FRANCE" in m.message["Subject"] and "Agreed" in text_of(m.message)]  # fmt: skip

    h.wait_until(lambda: len(agreed()) == 2)
    press = agreed()
    reached = sorted(r for m in press for r in m.rcpt_tos)
    assert reached == sorted([address(en[0]), *(address(n) for n in fr)])
    # A country with no diplomat cannot be written to, and a citizen does not write abroad.
    refused = say(diplomat_fr.name, "PRESS TO TURKEY\nHello?\nENDPRESS")
    assert "TURKEY has no diplomat now" in refused and "nothing was sent" in refused
    citizen = next(n for n in fr if n != diplomat_fr.name)
    assert "ERROR" in say(citizen, "PRESS TO ENGLAND\nHi from a citizen\nENDPRESS")
    assert tr  # Turkey has citizens, just no diplomat
