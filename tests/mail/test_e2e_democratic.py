"""A Democratic game by email over real sockets: 23 citizens (every home centre inhabited) through a full game year with
diplomat elections, proposals and ranked ballots, and Trieste taken so that its citizens
become Italians. Every mail the judge sent is then scanned: none shows a ballot, and no
count appears before the deadline it belongs to."""

from __future__ import annotations

import re

from helpers.e2e import MASTER, Harness, join_by_mail

from mailjudge.game.state import get_game
from mailjudge.store.models import Outbox
from mailjudge.variants.democratic.citizens import citizens_of
from mailjudge.variants.democratic.country_lists import list_address

CITIZENS = [f"citizen{i:02d}" for i in range(23)]
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
# What each country's citizens propose, by phase; a power not named holds.
PLAN = {
    "S1901M": {"AUSTRIA": ["F TRI - ALB"]},
    "F1901M": {"ITALY": ["A VEN - TRI"]},
    "W1901A": {"ITALY": ["A VEN B"], "AUSTRIA": ["F ALB D"]},  # only these two adjust
}


def address(name: str) -> str:
    return f"{name}@citizens.test"


def test_a_democratic_year_by_mail(harness: Harness) -> None:
    h = harness
    assert "created" in h.command(MASTER, "CREATE demo masterpw VARIANT democratic")
    for name in CITIZENS:
        assert "you joined demo" in join_by_mail(h, address(name), f"JOIN demo pw-{name} AS {name}")
    assert "has started" in h.command(MASTER, "SIGNON Mdemo masterpw\nSTART")
    h.wait_until(
        lambda: (
            sum(
                len(m.rcpt_tos)
                for m in h.sink.mails
                if "you are a citizen of" in m.message["Subject"]
            )
            == len(CITIZENS)
        )
    )

    def countries() -> dict[str, str]:
        """Each citizen's country as the judge's mail told them, latest word last."""
        found: dict[str, str] = {}
        for mail in h.sink.mails:
            told = re.search(r"citizen of (\w+) \((\w+)\)", mail.message["Subject"])
            for rcpt in mail.rcpt_tos if told else []:
                found[rcpt.split("@")[0]] = told.group(1)
        return found

    assert set(countries().values()) == set(POWERS)

    def members(power: str) -> list[str]:
        return sorted(n for n, p in countries().items() if p == power)

    def say(name: str, text: str) -> str:
        return h.command(address(name), f"SIGNON {name}@demo pw-{name}\n{text}")

    # The diplomats: each country's first citizen stands; everyone votes for them.
    for power in POWERS:
        first = members(power)[0]
        assert "is nominated" in say(first, f"NOMINATE {first} I will speak for us")
        for name in members(power):
            assert "ballot recorded" in say(name, f"VOTE DIPLOMAT {first}")
    counted_before = _subjects(h, "orders for")
    for phase in ("S1901M", "F1901M", "W1901A"):
        assert get_game("demo").phase == phase
        for power in POWERS:
            people = members(power)
            units = _units(power)
            if phase.endswith("A"):
                if power not in PLAN[phase]:
                    continue
                orders, holds = PLAN[phase][power], []
            else:
                moves = {line.split(" - ")[0]: line for line in PLAN[phase].get(power, [])}
                orders = [moves.get(u, f"{u} H") for u in units]
                holds = [f"{u} H" for u in units]
            reply = say(people[0], "PROPOSAL ORDERS\n" + "\n".join(orders) + "\nEND")
            number = int(re.search(r"order set (\d+)", reply).group(1))
            ranking = f"{number}"
            if holds:
                alternative = say(people[-1], "PROPOSAL ORDERS\n" + "\n".join(holds) + "\nEND")
                other = int(re.search(r"order set (\d+)", alternative).group(1))
                ranking = f"{number} {other}" if number != other else ranking
            for name in people:
                assert "ballot recorded" in say(name, f"VOTE ORDERS {ranking}")
        # Before the deadline nobody has seen a count.
        assert _subjects(h, "orders for") == counted_before
        assert "processed" in h.command(MASTER, "SIGNON Mdemo masterpw\nPROCESS!")
        h.wait_until(lambda done=phase: len(_subjects(h, f"results {done}")) == len(CITIZENS) + 1)
        h.wait_until(lambda: Outbox.select().where(Outbox.state != "sent").count() == 0)
        counted_before = _subjects(h, "orders for")
        assert any(phase in s for s in counted_before)
    game = get_game("demo")
    assert game.phase == "S1902M"
    from mailjudge.game.state import current_position

    units = current_position(game).units
    assert units["ven"].power == "ITALY" and units["tri"].power == "ITALY" and "alb" not in units
    # Trieste fell to Italy: its citizens were told they are Italians now.
    moved = _subjects(h, "your centre was taken")
    assert moved and all("ITALY (TRI)" in s for s in moved)
    diplomats = [m for m in h.sink.mails if "the diplomats" in m.message["Subject"]]
    assert len(diplomats) >= 7 and all(m.message["List-Id"] for m in diplomats)
    reached = {r for m in diplomats for r in m.rcpt_tos}
    assert reached == {address(n) for n in CITIZENS}
    # Secrecy (no mail but a voter's own reply shows a ballot): conftest checks it after
    # every end-to-end test.


def _subjects(h: Harness, part: str) -> list[str]:
    return sorted(m.message["Subject"] for m in h.sink.mails if part in m.message["Subject"])


def _units(power: str) -> list[str]:
    from mailjudge.game.state import current_position

    pos = current_position(get_game("demo"))
    return [str(u) for u in pos.units_of(power)]


def test_posting_to_a_country_list(harness: Harness) -> None:
    h = harness
    h.command(MASTER, "CREATE lists masterpw VARIANT democratic")
    for name in CITIZENS:
        join_by_mail(h, address(name), f"JOIN lists pw-{name} AS {name}")
    h.command(MASTER, "SIGNON Mlists masterpw\nSTART")

    game = get_game("lists")
    turks = {s.name for s in citizens_of(game, "TURKEY")}
    others = [n for n in CITIZENS if n not in turks]
    sender = sorted(turks)[0]
    listed = list_address(game, "TURKEY")
    sent = h.send(
        address(sender), f"SIGNON {sender}@lists pw-{sender}\nLet us take the Black Sea.",
        to=listed, subject="Black Sea plan",
    )  # fmt: skip
    assert "ok: your post went to the list of TURKEY" in h.reply(sent).get_content()
    subject = "[lists-turkey] Black Sea plan"  # the poster's Subject, tagged
    h.wait_until(lambda: any(m.message["Subject"] == subject for m in h.sink.mails))
    post = next(m for m in h.sink.mails if m.message["Subject"] == subject)
    assert set(post.rcpt_tos) == {address(n) for n in turks if n != sender} | {address(sender)}
    assert post.message["List-Post"] == f"<mailto:{listed}>" and post.message["List-Id"]
    # Reply goes back to the list, as a list-reply does, and keeps the thread's Subject.
    assert post.message["Reply-To"] == listed
    # The copies thread under the post, so that a reply to them threads too.
    assert post.message["In-Reply-To"] == sent and post.message["References"] == sent
    second = sorted(turks)[1]
    answer = h.send(
        address(second),
        f"SIGNON {second}@lists pw-{second}\nAgreed, the Black Sea first.\n\n"
        f"On Mon, Nov 23, 2026 at 11:46:43PM +0000, {listed} wrote:\n> Let us take the Black Sea.\n",
        to=post.message["Reply-To"], subject=f"Re: {subject}",
        in_reply_to=post.message["Message-ID"],
        references=f"{sent} {post.message['Message-ID']}",
    )  # fmt: skip
    assert "ok: your post went to the list of TURKEY" in h.reply(answer).get_content()
    h.wait_until(lambda: any(m.message["Subject"] == f"Re: {subject}" for m in h.sink.mails))
    reply_post = next(m for m in h.sink.mails if m.message["Subject"] == f"Re: {subject}")
    assert "Agreed" in reply_post.message.get_content()
    assert reply_post.message["In-Reply-To"] == answer
    assert reply_post.message["References"].split() == [sent, post.message["Message-ID"], answer]
    assert "wrote:" not in reply_post.message.get_content()
    text = post.message.get_content()
    assert "Black Sea" in text and f"pw-{sender}" not in text and "SIGNON" not in text
    refused = h.send(address(others[0]), f"SIGNON {others[0]}@lists pw-{others[0]}\nhi", to=listed)
    assert "only citizens of TURKEY" in h.reply(refused).get_content()
    import smtplib

    with smtplib.SMTP("127.0.0.1", h.judge.listener.smtp_port) as client:
        code, _ = client.ehlo()
        client.mail("x@citizens.test")
        code, _ = client.rcpt("lists-narnia@example.test")
        assert code == 550
