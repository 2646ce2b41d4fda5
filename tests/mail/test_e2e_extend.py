"""VOTE EXTEND played by mail through the SMTP listener: the players move their own
deadline. Below the quorum nothing moves and nobody but the voter hears of a vote (the
conftest's secrecy check reads every mail out for the ballots); at the quorum everyone
in the game gets the new deadline, in their zone, with the calendar event moved; the
year's cap refuses with its reason; an observer and a player of another game are refused."""

from __future__ import annotations

from datetime import timedelta

from helpers.e2e import MASTER, POWERS, Harness, player, seated, text_of

from mailjudge.game.state import get_game

SUBJECT = "[ext] deadline extended for S1901M"


def signon(power: str) -> str:
    return f"SIGNON {power.lower()}@ext pw-{power.lower()}-7"


def extended_mails(h: Harness) -> list[object]:
    return [m for m in h.sink.mails if m.message["Subject"] == SUBJECT]


def test_players_extend_their_deadline_by_a_secret_vote(harness: Harness) -> None:
    h = harness
    table = seated(h, "ext")
    table.sign_on()
    reply = h.command(MASTER, "SIGNON Mext masterpw\nSET OPTION EXTENSIONS 1")
    assert "EXTENSIONS is now 1" in reply, reply
    before = get_game("ext").deadline
    assert before is not None

    # Four of seven: short of two thirds. Each answer confirms that vote alone.
    for power in POWERS[:4]:
        reply = h.command(player(power), f"{signon(power)}\nVOTE EXTEND 24H")
        assert "your secret vote to extend the deadline by 1D is recorded" in reply, reply
        assert not any(other in reply for other in POWERS if other != power)
    assert get_game("ext").deadline == before
    assert extended_mails(h) == []

    # The fifth makes the quorum: a shorter length, so 12H is what all five agreed to.
    reply = h.command(player("ITALY"), f"{signon('ITALY')}\nVOTE EXTEND 12H")
    assert "the deadline moved by 12H" in reply, reply
    assert get_game("ext").deadline == before + timedelta(hours=12)
    h.wait_until(lambda: len(extended_mails(h)) == 8, what="everyone told the new deadline")
    told = sorted(r for m in extended_mails(h) for r in m.rcpt_tos)  # type: ignore[attr-defined]
    assert told == sorted([MASTER, *(player(p) for p in POWERS)])
    for mail in extended_mails(h):
        body = text_of(mail.message)  # type: ignore[attr-defined]
        assert "voted to extend the deadline of S1901M by 12H" in body
        assert not any(p in body for p in POWERS)  # nobody named
        parts = [p.get_content_type() for p in mail.message.walk()]  # type: ignore[attr-defined]
        assert "text/calendar" in parts  # the deadline's event moves

    # The year's one extension is used: refused, and why.
    reply = h.command(player("RUSSIA"), f"{signon('RUSSIA')}\nVOTE EXTEND 24H")
    assert "extended 1 time(s) in 1901 already" in reply and "EXTENSIONS 1" in reply, reply
    assert get_game("ext").deadline == before + timedelta(hours=12)


def test_an_observer_and_a_player_of_another_game_cannot_vote(harness: Harness) -> None:
    h = harness
    seated(h, "ext").sign_on()
    before = get_game("ext").deadline
    watcher = "watcher@example.test"
    assert "observ" in h.command(watcher, "OBSERVE watcher@ext watchpw").lower()
    reply = h.command(watcher, "SIGNON watcher@ext watchpw\nVOTE EXTEND 24H")
    assert "only the game's players vote to extend its deadline" in reply, reply

    # A player of another game: signed on to their own game they reach only that game;
    # their password is no way into this one.
    stranger = "stranger@elsewhere.test"
    assert "game far created" in h.command(
        "gm@elsewhere.test", "CREATE far farpw RULES POWER_CHOICE"
    )
    assert "you joined" in h.command(stranger, "JOIN far strangerpw FRANCE")
    reply = h.command(stranger, "SIGNON france@far strangerpw\nVOTE EXTEND 24H")
    assert "only an active game's deadline is extended" in reply, reply
    reply = h.command(stranger, "SIGNON france@ext strangerpw\nVOTE EXTEND 24H")
    assert "VOTE EXTEND" in reply and "recorded" not in reply, reply
    assert "SIGNON first" in reply or "password" in reply.lower(), reply
    assert get_game("ext").deadline == before
    assert extended_mails(h) == []
