"""Press under every rule combination: who may write to whom, with the reason when not;
grey press, ALL BUT, the archive, and delivery to exactly the people addressed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import mailjudge.commands  # noqa: F401
from mailjudge.commands.run import execute
from mailjudge.game.errors import NotAllowed
from mailjudge.game.state import get_game, seat_named
from mailjudge.service.press import resolve_recipients, send_press
from mailjudge.service.seats import observe, seat_for_power
from mailjudge.store.models import Press
from unit.test_service_rules import game_with

pytestmark = pytest.mark.usefixtures("sqlite_db")
NOW = datetime(2026, 11, 21, tzinfo=UTC)

# (rules, sender, target) -> allowed; the reason names the rule where one refuses.
CASES = [
    (rules, sender, target, allowed)
    for rules, table in {
        "": {
            "player": (True, True, True),
            "observer": (False, False, True),
            "master": (True, True, True),
        },
        "NO_PRESS": {
            "player": (False, False, True),
            "observer": (False, False, True),
            "master": (True, True, True),
        },
        "PUBLIC_PRESS": {
            "player": (False, True, True),
            "observer": (False, False, True),
            "master": (True, True, True),
        },
    }.items()
    for sender, verdicts in table.items()
    for target, allowed in zip(("private", "broadcast", "master"), verdicts, strict=True)
]


@pytest.mark.parametrize(("rules", "sender", "target", "allowed"), CASES)
def test_press_matrix(rules: str, sender: str, target: str, allowed: bool) -> None:
    game = game_with(rules, "press")
    if sender == "observer":
        seat = observe(game, "watcher@example.org", "pw", "watcher")
    elif sender == "master":
        seat = seat_named(game, "master")
    else:
        seat = seat_for_power(game, "FRANCE")
    words = {"private": ["ENGLAND"], "broadcast": ["ALL"], "master": ["M"]}[target]
    recipients = resolve_recipients(game, words)
    if allowed:
        note = send_press(game, seat, recipients, "hello\n")
        assert Press.get_by_id(note.press.id).body == "hello\n"
    else:
        with pytest.raises(NotAllowed) as err:
            send_press(game, seat, recipients, "hello\n")
        reason = str(err.value)
        assert (rules and rules in reason) or "observers" in reason
        assert Press.select().count() == 0


def send(text: str, sender: str) -> list[tuple[list[str], str]]:
    ctx = execute(text, sender, "judge@example.org", NOW)
    return [(o.to, o.subject) for o in ctx.outgoing]


def test_all_but_reaches_exactly_the_others_and_the_master() -> None:
    game_with("", "allbut")
    france = get_game("allbut")
    email = seat_for_power(france, "FRANCE").person.email
    mails = send(
        f"SIGNON france@allbut pw{email[1]}\nPRESS TO ALL BUT ENGLAND TURKEY\nhi\nENDPRESS", email
    )
    reached = sorted(to[0] for to, _ in mails)
    expected = [
        *sorted(
            seat_for_power(france, p).person.email
            for p in ("AUSTRIA", "GERMANY", "ITALY", "RUSSIA")
        ),
        "gm@example.org",
    ]
    assert reached == sorted(expected)


def test_grey_press_is_archived_with_its_sender_but_shown_without() -> None:
    game = game_with("", "grey")
    email = seat_for_power(game, "FRANCE").person.email
    mails = send(f"SIGNON france@grey pw{email[1]}\nPRESS TO E GREY\nboo\nENDPRESS", email)
    assert len(mails) == 1 and "grey" in mails[0][1] and "FRANCE" not in mails[0][1]
    press = Press.get()
    assert press.grey and press.sender.name == "france"  # the master's archive knows
