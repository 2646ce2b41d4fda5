"""A Diplonomic game by email over real sockets: the master loads the rules, France names
a teammate who confirms by mail, is authorized and sends France's orders, and France asks
who sent what; Austria proposes a rule change, which is published without its author,
voted on in the next turn, enacted, and the new rules text goes to everyone."""

from __future__ import annotations

from helpers.e2e import MASTER, POWERS, Harness, player, secret, text_of

from mailjudge.game.state import get_game

GAME = "nomic"
BOB = "bob@teammates.test"
RULES = """\
1. Contestants play the standard map.

7. Contestants may seek the assistance of non-contestants.

22. If a player fails to order a retreat, the unit is disbanded.
"""
AMENDMENTS = """\
AMEND RULE 7 APPEND {
A contestant CAN authorize a teammate to submit or change orders.
}
AMEND RULE 22 REPLACE "If a player" WITH "If a country"
"""


def signon(power: str) -> str:
    return f"SIGNON {power.lower()}@{GAME} {secret(power)}\n"


def subjects(h: Harness, to: str, contains: str) -> list[str]:
    return [
        str(m.message["Subject"])
        for m in h.sink.mails
        if any(to in r for r in m.rcpt_tos) and contains in str(m.message["Subject"])
    ]


def bodies(h: Harness, contains: str) -> list[str]:
    found = [m.message for m in h.sink.mails if contains in str(m.message["Subject"])]
    return [text_of(m) for m in found]


def process_turn(h: Harness) -> None:
    """The master processes until the next movement phase (ALWAYS_WAIT is on by default)."""
    while True:
        reply = h.command(MASTER, f"SIGNON M{GAME} masterpw\nPROCESS!")
        assert "processed" in reply, reply
        if get_game(GAME).phase.endswith("M"):
            return


def test_a_diplonomic_game_by_email(harness: Harness) -> None:
    h = harness
    assert "created" in h.command(
        MASTER, f"CREATE {GAME} masterpw VARIANT diplonomic RULES POWER_CHOICE"
    )
    loaded = h.command(MASTER, f"SIGNON M{GAME} masterpw\nRULEBOOK\n{RULES}END")
    assert "rules version 1 stored: 3 rules, 1 to 22" in loaded
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN {GAME} {secret(power)} {power}")
    h.wait_until(lambda: get_game(GAME).state == "active")
    h.wait_until(lambda: len(bodies(h, "the rules, version 1")) == 8)  # at the start
    assert "7. Contestants may seek the assistance" in bodies(h, "the rules, version 1")[0]

    # A teammate is added, confirms, is authorized and orders for France.
    added = h.command(player("FRANCE"), signon("FRANCE") + f"TEAMMATE ADD {BOB} AS bob")
    assert "is asked to be your teammate (bob)" in added
    h.wait_until(lambda: bool(subjects(h, BOB, "names you as a teammate")))
    accepted = h.command(BOB, f"ACCEPT {GAME} bobsecret")
    assert "you are a teammate of FRANCE" in accepted
    h.wait_until(lambda: len(subjects(h, "", "bob joins FRANCE's team")) == 9)  # announced
    early = h.command(BOB, f"SIGNON bob@{GAME} bobsecret\nA PAR - BUR")
    assert "a teammate orders only when the player AUTHORIZEs it" in early
    assert "bob may now submit" in h.command(player("FRANCE"), signon("FRANCE") + "AUTHORIZE bob")
    orders = h.command(BOB, f"SIGNON bob@{GAME} bobsecret\nA PAR - BUR\nA MAR - SPA\nF BRE - MAO")
    assert "A MAR - SPA" in orders and "ERROR" not in orders
    status = h.command(player("FRANCE"), signon("FRANCE") + "STATUS")
    assert status.count("(by bob,") == 3

    # A proposal: sent in S1901, published in F1901, voted, enacted after F1901's turn.
    sent = h.command(
        player("AUSTRIA"), signon("AUSTRIA") + f"PROPOSAL RULES Teammates\n{AMENDMENTS}END"
    )
    assert "proposal 1 received" in sent
    process_turn(h)
    h.wait_until(lambda: len(bodies(h, "proposals to vote on")) == 9)
    published = bodies(h, "proposals to vote on")[0]
    assert "Proposal 1:\nTeammates" in published and 'REPLACE "If a player"' in published
    for power in ("ENGLAND", "FRANCE", "GERMANY", "ITALY"):
        assert "is recorded" in h.command(player(power), signon(power) + "VOTE PROPOSAL 1 FOR")
    assert "is recorded" in h.command(
        player("TURKEY"), signon("TURKEY") + "VOTE PROPOSAL 1 AGAINST"
    )
    process_turn(h)
    h.wait_until(lambda: len(bodies(h, "rule changes resolved")) == 9)
    resolved = bodies(h, "rule changes resolved")[0]
    assert "Proposal 1: 4 votes in favour, of 7 contestants (4 needed)." in resolved
    assert "Enacted." in resolved and "The new text (version 2) follows" in resolved
    assert "22. If a country fails to order a retreat" in resolved
    assert "A contestant CAN authorize a teammate" in resolved
    asked = h.command("curious@example.test", f"RULES {GAME}")
    assert "rules version 2" in asked and "22. If a country fails" in asked

    # Anonymity: the publication and the resolution name no power, author or voter.
    for body in bodies(h, "proposals to vote on") + bodies(h, "rule changes resolved"):
        for who in [*POWERS, "bob"]:
            assert who.lower() not in body.lower()
