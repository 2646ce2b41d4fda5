"""Diplonomic 2020 (seed 003) in the seed's own terms, by mail: advisors announced under
rule 7, proposals written in the seed's words, and rule 15's retreats and builds given
with the Fall orders and used at once."""

from __future__ import annotations

from helpers.boards import position
from helpers.e2e import MASTER, POWERS, Harness, player, secret, text_of

from mailjudge.demo.sink import Received
from mailjudge.game.state import get_game

GAME = "nomic2020"
RULES = """\
7. Contestants may seek the assistance of non-Contestants.

9. The game ends in a draw when the Gamemaster says so.

12. Press is private.

22. If a player fails to order a retreat, the unit is disbanded.
"""
# Seed 003's own proposal, word for word as far as these rules go.
SEED_PROPOSAL = """\
Amend rule 7 by appending the paragraph:
{
A Contestant CAN by announcement grant (or revoke) authorization to a
teammate to submit or change orders for eir country.
}
Amend rule 22 by replacing “If a player” with “If a country”.
Replace rule 9 with: {The game ends in a draw when no centre changes hands for three years.}
Repeal rule 12.
Add rule 30: {Advisors are announced to everyone.}
"""


def flat(text: str) -> str:
    return " ".join(text.split())


def say(h: Harness, power: str, text: str) -> str:
    return flat(h.command(player(power), f"SIGNON {power.lower()}@{GAME} {secret(power)}\n{text}"))


def master(h: Harness, text: str) -> str:
    return flat(h.command(MASTER, f"SIGNON M{GAME} masterpw\n{text}"))


def mails(h: Harness, subject: str) -> list[Received]:
    return [m for m in h.sink.mails if subject in str(m.message["Subject"])]


def test_diplonomic_as_seed_003_writes_it(harness: Harness) -> None:
    h = harness
    assert "created" in h.command(
        MASTER, f"CREATE {GAME} masterpw VARIANT diplonomic RULES POWER_CHOICE"
    )
    assert "rules version 1 stored" in master(h, f"RULEBOOK\n{RULES}END")
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN {GAME} {secret(power)} {power}")
    h.wait_until(lambda: get_game(GAME).state == "active")

    # Point 14, rule 7: "Contestants using non-Contestant help SHALL notify the Judge and
    # publicly announce who and what help".
    added = say(h, "FRANCE", "ADVISOR ADD carol reads our orders before we send them")
    assert "carol is announced to everyone as an advisor of FRANCE" in added
    h.wait_until(lambda: len(mails(h, "carol advises FRANCE")) == 8)
    told = sorted(r for m in mails(h, "carol advises FRANCE") for r in m.rcpt_tos)
    assert told == sorted([MASTER, *(player(p) for p in POWERS)])
    assert "reads our orders before we send them" in flat(
        text_of(mails(h, "carol advises")[0].message)
    )
    listed = flat(h.command("anyone@example.test", f"LIST {GAME}"))
    assert "advisor carol: reads our orders before we send them" in listed
    assert "is no longer an advisor of FRANCE" in say(h, "FRANCE", "ADVISOR REMOVE carol")
    h.wait_until(lambda: len(mails(h, "carol no longer advises FRANCE")) == 8)
    assert "advisor carol" not in flat(h.command("anyone@example.test", f"LIST {GAME}"))
    assert "ERROR" in say(h, "FRANCE", "ADVISOR REMOVE dave")

    # Point 15: a proposal in the seed's own words is read; an unreadable one says both forms.
    sent = say(h, "AUSTRIA", f"PROPOSAL RULES Teammate Participation\n{SEED_PROPOSAL}END")
    assert "proposal 1 received" in sent, sent
    unreadable = say(h, "ITALY", "PROPOSAL RULES Wish\nPlease let Italy win.\nEND")
    assert "is not an amendment" in unreadable
    assert "AMEND RULE n APPEND {text}" in unreadable
    assert "Amend rule n by appending the paragraph: {text}" in unreadable
    assert "processed" in master(h, "PROCESS")  # S1901M: the proposal is published
    h.wait_until(lambda: len(mails(h, "proposals to vote on")) == 8)
    for power in ("ENGLAND", "FRANCE", "GERMANY", "ITALY"):
        assert "is recorded" in say(h, power, "VOTE PROPOSAL 1 FOR")

    # Point 13, rule 15: "one order set includes retreats, disbands and conditional builds".
    # A Fall board where Germany dislodges France's army in Burgundy and both gain a build.
    game = get_game(GAME)
    game.position = position(
        "F1901M",
        ["FRANCE A bur", "FRANCE A mar", "FRANCE F bre", "GERMANY A mun", "GERMANY A ruh",
         "ENGLAND F lon"],
        {"par": "FRANCE", "bre": "FRANCE", "mar": "FRANCE", "mun": "GERMANY",
         "ber": "GERMANY", "kie": "GERMANY", "lon": "ENGLAND"},
    )  # fmt: skip
    game.save()
    france = say(h, "FRANCE", "A BUR H\nA MAR - SPA\nF BRE H\nIF DISLODGED A BUR R PIC\n"
                              "IF ADJUSTING BUILD A MAR")  # fmt: skip
    assert "for FRANCE in F1901R, if it comes to that: A BUR R PIC" in france, france
    assert "for FRANCE in W1901A, if it comes to that: A MAR B" in france
    assert "ERROR" in say(h, "FRANCE", "IF ADJUSTING BUILD A MUN")  # not a French centre
    say(h, "GERMANY", "A MUN - BUR\nA RUH S A MUN - BUR")  # no build given in advance
    say(h, "ENGLAND", "F LON H")
    assert "F1901M processed" in master(h, "PROCESS")
    # The retreat given in advance is used at once: F1901R does not wait for its deadline.
    h.wait_until(lambda: get_game(GAME).phase == "W1901A", what="the retreat phase")
    h.wait_until(lambda: len(mails(h, "results F1901R")) == 8)
    assert "A BUR R PIC" in text_of(mails(h, "results F1901R")[0].message)
    # Germany gave no build in advance, so the adjustments wait for it, with a deadline.
    assert get_game(GAME).deadline is not None
    assert not mails(h, "results W1901A")
    assert "A BER B" in say(h, "GERMANY", "A BER B")
    h.wait_until(lambda: len(mails(h, "results W1901A")) == 8)
    winter = text_of(mails(h, "results W1901A")[0].message)
    assert "A MAR B" in winter and "A BER B" in winter

    # The proposal, voted in F1901, is enacted as the seed's words said.
    h.wait_until(lambda: len(mails(h, "rule changes resolved")) == 8)
    resolved = text_of(mails(h, "rule changes resolved")[0].message)
    assert "Enacted." in resolved
    assert "22. If a country fails to order a retreat" in resolved
    assert "teammate to submit or change orders" in resolved
    assert "no centre changes hands for three years" in resolved
    assert "12. Press is private." not in resolved and "30. Advisors are announced" in resolved
