"""A Survive game by email over real sockets, to the first vote-out (F1902, then the
W1902A adjustment phase, kept although nobody adjusts): a split ballot, one sent as press
to the master, refused ballots (a wrong total, a vote for oneself), and the published
result. Every mail the judge sent is then scanned: only the voter's own reply (and the
master's copy of a press ballot) shows a ballot; the result names the power only."""

from __future__ import annotations

import re

from helpers.e2e import MASTER, POWERS, Harness, player, secret, text_of

from mailjudge.game.state import current_position, get_game
from mailjudge.store.models import Outbox

GAME = "surv"
# Each power's ballot in W1902A; Russia has 4 centres, the others 3. Turkey gets 9 votes.
BALLOTS = {
    "AUSTRIA": "VOTE OUT TURKEY 2 ITALY 1",  # a split vote
    "ENGLAND": "VOTE OUT FRANCE 3",
    "FRANCE": "VOTE OUT ENGLAND 3",
    "GERMANY": "VOTE OUT TURKEY 3",
    "ITALY": "VOTE OUT AUSTRIA 3",
    "RUSSIA": "VOTE OUT TURKEY 4",
    "TURKEY": "VOTE OUT RUSSIA 3",
}


def signon(power: str) -> str:
    return f"SIGNON {power.lower()}@{GAME} {secret(power)}\n"


def test_a_survive_game_to_the_first_vote_out(harness: Harness) -> None:
    h = harness
    assert "created" in h.command(
        MASTER, f"CREATE {GAME} masterpw VARIANT survive RULES POWER_CHOICE"
    )
    for power in POWERS:
        assert "you joined" in h.command(player(power), f"JOIN {GAME} {secret(power)} {power}")
    h.wait_until(lambda: get_game(GAME).state == "active")
    assert get_game(GAME).victory_count == 35
    for phase in ("S1901M", "F1901M", "S1902M", "F1902M"):  # everyone holds
        assert get_game(GAME).phase == phase
        pos = current_position(get_game(GAME))
        for power in POWERS:
            holds = "\n".join(f"{u} H" for u in pos.units_of(power))
            assert "ERROR" not in h.command(player(power), signon(power) + holds)
        h.wait_until(lambda done=phase: len(h.results_for(GAME, done)) == 8)
    assert get_game(GAME).phase == "W1902A"  # kept for the vote although nobody adjusts

    wrong = h.command(player("FRANCE"), signon("FRANCE") + "VOTE OUT ENGLAND 2")
    assert "FRANCE has 3 votes (one per supply centre) and must use them all" in wrong
    assert "add up to 2" in wrong and "VOTE OUT" in wrong
    self_vote = h.command(player("ITALY"), signon("ITALY") + "VOTE OUT ITALY 3")
    assert "ITALY may not vote for itself" in self_vote
    for power, ballot in BALLOTS.items():
        # Germany sends its ballot by press to the master, as the seed has it.
        press = f"PRESS TO M\nMy vote, please.\n{ballot}\nENDPRESS"
        text = press if power == "GERMANY" else ballot
        reply = h.command(player(power), signon(power) + text)
        assert "vote-out ballot recorded" in reply, reply
        if power != "TURKEY":  # the last ballot completes the phase
            assert get_game(GAME).phase == "W1902A"
    h.wait_until(lambda: get_game(GAME).phase == "S1903M")
    h.wait_until(lambda: Outbox.select().where(Outbox.state != "sent").count() == 0)

    notices = [m for m in h.sink.mails if m.message["Subject"] == f"[{GAME}] vote-out W1902A"]
    assert len(notices) == 8  # every player and the master
    for notice in notices:
        text = notice.message.get_content()
        assert "TURKEY is voted out." in text
        assert not re.search(r"\d", text.replace("W1902A", ""))  # no number
        assert not any(p in text for p in POWERS if p != "TURKEY")  # nor who voted how
    # Turkey plays on as an outcast: its orders are refused, its results still come.
    refused = h.command(player("TURKEY"), signon("TURKEY") + "A CON H")
    assert "TURKEY is out of the game and takes no orders" in refused

    # Secrecy: a ballot shows only in its voter's reply and in the master's copy of the
    # press that carried it; no other mail names a number of votes next to a power.
    ballot_words = re.compile(r"VOTE OUT|\b(AUSTRIA|ENGLAND|FRANCE|ITALY|RUSSIA|TURKEY) \d\b")
    for mail in h.sink.mails:
        message = mail.message
        text = text_of(message)
        if not ballot_words.search(text):
            continue
        if message["In-Reply-To"]:
            echoed = re.findall(r"SIGNON (\w+)@" + GAME, text)
            assert mail.rcpt_tos == [player(echoed[0].upper())], message["Subject"]
        else:
            assert mail.rcpt_tos == [MASTER] and "press from GERMANY" in message["Subject"]
