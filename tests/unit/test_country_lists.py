"""Country lists of Democratic games: an outside list set by the master, and the digests
(RFC 1153 and MIME multipart/digest) at each phase change and on the schedule."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest

import mailjudge.commands
import mailjudge.config.settings
from mailjudge.commands.run import execute
from mailjudge.config.settings import SecuritySettings, Settings
from mailjudge.config.settings_files import load_settings
from mailjudge.game.errors import ServiceError
from mailjudge.game.state import get_game
from mailjudge.outbound.outbox import render_draft
from mailjudge.outbound.queue import queue_outgoing
from mailjudge.render.digest import PREAMBLE_END, SEPARATOR, DigestHeading, DigestItem, rfc1153
from mailjudge.render.outgoing import Outgoing
from mailjudge.service import deadlines, processing
from mailjudge.service.games import create_game, start_game
from mailjudge.service.seats import join
from mailjudge.store.models import Outbox
from mailjudge.variants import democratic as dem
from mailjudge.variants.democratic import country_lists as lists
from mailjudge.variants.democratic import digests
from mailjudge.variants.democratic.tables import CountryList, ListPost

pytestmark = pytest.mark.usefixtures("sqlite_db")
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
JUDGE = "judge@example.org"


def judge_settings(monkeypatch: pytest.MonkeyPatch, digest_hours: int = 24) -> Settings:
    """The running judge's settings, as `mailjudge serve` would set them."""
    env = {"MAILJUDGE_JUDGE_ADDRESS": JUDGE, "MAILJUDGE_JUDGE_DIGEST_HOURS": str(digest_hours)}
    settings = load_settings(None, env)
    monkeypatch.setattr(mailjudge.config.settings, "_CURRENT", settings)
    return settings


@pytest.fixture(autouse=True)
def _judge(monkeypatch: pytest.MonkeyPatch) -> None:
    judge_settings(monkeypatch)


def send(text: str, sender: str) -> list[Outgoing]:
    ctx = execute(text, sender, JUDGE, NOW)
    assert all(a.ok for a in ctx.answers), [a.lines for a in ctx.answers]
    return ctx.outgoing


def seated_game(name: str = "ivory", citizens: int = 30) -> dict[str, str]:
    """A started Democratic game; returns each citizen's name -> country."""
    create_game(name, "gm@example.org", "secret", variant="democratic")
    game = get_game(name)
    for i in range(citizens):
        join(game, f"c{i}@example.org", f"pw{i}", name=f"c{i}")
    start_game(get_game(name), random.Random(3), now=NOW)
    return {s.name: dem.country_of(s) or "" for s in dem.citizens(get_game(name))}


def citizen_of(country: dict[str, str], power: str) -> str:
    return next(name for name, p in sorted(country.items()) if p == power)


def test_rfc1153_digest_has_the_standard_shape() -> None:
    heading = DigestHeading("ivory-france", 4, "ivory-france@example.org", NOW)
    items = [
        DigestItem("alice", NOW, "nomination: alice", "alice is nominated\n"),
        DigestItem("the judge", NOW, "results of S1901M", "A PAR - BUR\n" + "-" * 30 + "\n"),
    ]
    text = rfc1153(heading, items)
    head, _, rest = text.partition("\n" + PREAMBLE_END + "\n")
    assert "ivory-france Digest #4" in head and "Today's Topics:" in head
    assert "nomination: alice (alice)" in head and "results of S1901M (the judge)" in head
    messages = rest.split("\n" + SEPARATOR + "\n")
    assert len(messages) == 3  # two messages, then the trailer
    first = messages[0].strip().split("\n")
    assert first[0].startswith("Date: ") and first[1] == "From: alice <ivory-france@example.org>"
    assert first[2] == "Subject: nomination: alice" and first[3] == ""
    # A body line of 30 hyphens would end the message early: it is indented.
    assert " " + "-" * 30 in messages[1]
    trailer = messages[2].strip().split("\n")
    assert trailer == ["End of ivory-france Digest #4", "*" * len(trailer[0])]


def test_master_sets_an_outside_list_and_list_mail_goes_there() -> None:
    country = seated_game()
    france = citizen_of(country, "FRANCE")
    answer = execute("SIGNON mivory secret\nSET LIST france FRANCE-L@lists.example.org MIME",
                     "gm@example.org", JUDGE, NOW).answers  # fmt: skip
    assert answer[1].ok and "france-l@lists.example.org" in answer[1].lines[0]
    (mail,) = send(f"SIGNON {france}@ivory pw{france[1:]}\nNOMINATE {france} I know Paris",
                   f"{france}@example.org")  # fmt: skip
    assert mail.to == ["france-l@lists.example.org"] and mail.bcc == [] and mail.list_id is None
    # The judge's own address for France no longer takes posts.
    game = get_game("ivory")
    with pytest.raises(lists.ServiceError, match=r"france-l@lists\.example\.org"):
        lists.post(game, "FRANCE", f"SIGNON {france}@ivory pw{france[1:]}\nhello")
    # Back to the judge's own list.
    send("SIGNON mivory secret\nSET LIST FRANCE JUDGE", "gm@example.org")
    (mail,) = send(f"SIGNON {france}@ivory pw{france[1:]}\nNOMINATE {france}",
                   f"{france}@example.org")  # fmt: skip
    assert mail.to == [lists.list_address(game, "FRANCE")] and f"{france}@example.org" in mail.bcc


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("SET LIST FRANCE", "write SET LIST FRANCE"),
        ("SET LIST PRUSSIA x@lists.example.org", "not a country"),
        ("SET LIST FRANCE not-an-address", "not a mail address"),
        ("SET LIST FRANCE judge@example.org", "the judge's own address"),
        ("SET LIST FRANCE x@lists.example.org FANCY", "PLAIN (RFC 1153) or MIME"),
    ],
)
def test_set_list_refusals_say_what_to_write(line: str, error: str) -> None:
    seated_game()
    answers = execute(f"SIGNON mivory secret\n{line}", "gm@example.org", JUDGE, NOW).answers
    assert not answers[1].ok and error in " ".join(answers[1].lines)


def test_a_citizen_may_not_set_the_list() -> None:
    country = seated_game()
    france = citizen_of(country, "FRANCE")
    answers = execute(f"SIGNON {france}@ivory pw{france[1:]}\nSET LIST FRANCE x@y.org",
                      f"{france}@example.org", JUDGE, NOW).answers  # fmt: skip
    assert not answers[1].ok


def _phase_digests(game_name: str) -> dict[str, Outgoing]:
    game = get_game(game_name)
    game.deadline = NOW
    game.save()
    done = processing.process(game, force=True, now=NOW + timedelta(minutes=1))
    assert done is not None
    return {m.to[0]: m for m in done.notices if m.kind == "digest"}


def test_each_phase_change_sends_every_country_its_digest() -> None:
    country = seated_game()
    france, england = citizen_of(country, "FRANCE"), citizen_of(country, "ENGLAND")
    fsign = f"SIGNON {france}@ivory pw{france[1:]}"
    send(f"{fsign}\nNOMINATE {france} I speak for Paris", f"{france}@example.org")
    send(f"{fsign}\nPROPOSAL ORDERS\nA PAR - BUR\nF BRE - MAO\nA MAR - SPA\nEND",
         f"{france}@example.org")  # fmt: skip
    number = last_order_set("FRANCE")
    send(f"{fsign}\nCOMMENT {number}\nBurgundy first, then Belgium.\nEND", f"{france}@example.org")
    send(f"{fsign}\nVOTE ORDERS {number}", f"{france}@example.org")
    send(f"{fsign}\nVOTE DIPLOMAT {france}", f"{france}@example.org")
    send(f"SIGNON {england}@ivory pw{england[1:]}\nNOMINATE {england}", f"{england}@example.org")
    game = get_game("ivory")
    by_list = _phase_digests("ivory")
    fr = by_list[lists.list_address(game, "FRANCE")]
    assert fr.subject == "[ivory-france] digest #1" and fr.list_id and fr.bcc
    for text in (
        "I speak for Paris",
        "A PAR - BUR",
        "Burgundy first",
        "results of S1901M",
        "FRANCE's orders for S1901M",
        f"set {number}",
        "the diplomats",
    ):
        assert text in fr.body, text
    # England's digest has England's nomination and not France's proposal.
    en = by_list[lists.list_address(game, "ENGLAND")]
    assert england in en.body and "Burgundy first" not in en.body
    # The next digest carries only what is new.
    second = _phase_digests("ivory")[lists.list_address(game, "FRANCE")]
    assert second.subject == "[ivory-france] digest #2" and "I speak for Paris" not in second.body
    assert "results of F1901M" in second.body


def last_order_set(power: str) -> int:
    """The number of the order set last sent to ``power``'s list."""
    row = (
        ListPost.select()
        .where(ListPost.subject.startswith("order set") & (ListPost.power == power))
        .order_by(ListPost.id.desc())
        .first()
    )
    assert row is not None
    return int(row.subject.split()[2])


def test_a_mime_digest_is_a_multipart_digest_of_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    country = seated_game()
    france = citizen_of(country, "FRANCE")
    send("SIGNON mivory secret\nSET LIST FRANCE JUDGE MIME", "gm@example.org")
    send(f"SIGNON {france}@ivory pw{france[1:]}\nNOMINATE {france} Grüße aus Paris",
         f"{france}@example.org")  # fmt: skip
    game = get_game("ivory")
    mail = digests.digest(game, "FRANCE", NOW)
    assert mail is not None and mail.digest
    queue_outgoing(mail, judge_settings(monkeypatch), NOW)
    row = Outbox.select().order_by(Outbox.id.desc()).first()
    assert set(row.to_addrs.split()) == set(mail.bcc)  # the citizens, not the list address
    parsed = message_from_bytes(row.raw or render_draft(row.draft), policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    assert parsed["List-Id"] and parsed["Auto-Submitted"] == "auto-generated"
    kinds = [p.get_content_type() for p in parsed.walk()]
    assert kinds[:3] == ["multipart/mixed", "text/plain", "multipart/digest"]
    inner = [p for p in parsed.walk() if p.get_content_type() == "message/rfc822"]
    assert inner and all(p.get_default_type() == "message/rfc822" for p in inner)
    subjects = [p.get_content()["Subject"] for p in inner]
    assert subjects == ["the diplomats", f"nomination 1: {france}"]
    assert "Grüße aus Paris" in inner[1].get_content().get_content()


def test_digests_go_out_on_the_schedule_and_only_with_news(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    country = seated_game()
    france = citizen_of(country, "FRANCE")
    game = get_game("ivory")
    game.deadline = NOW + timedelta(days=10)
    game.next_reminder_at = None
    game.save()
    send(f"SIGNON {france}@ivory pw{france[1:]}\nNOMINATE {france}", f"{france}@example.org")
    assert [m for m in deadlines.tick(NOW + timedelta(hours=1)) if m.kind == "digest"] == []
    sent = [m for m in deadlines.tick(NOW + timedelta(hours=25)) if m.kind == "digest"]
    # Every country had the start's announcement of diplomats; France also the nomination.
    (fr,) = [m for m in sent if m.to == [lists.list_address(game, "FRANCE")]]
    assert f"nomination 1: {france}" in fr.body and "the diplomats" in fr.body
    assert deadlines.tick(NOW + timedelta(hours=50)) == []  # nothing new since
    row = CountryList.get((CountryList.game == game) & (CountryList.power == "FRANCE"))
    assert row.digest_number == 1
    # With digest_hours 0 only phase changes send digests.
    judge_settings(monkeypatch, digest_hours=0)
    send(f"SIGNON {france}@ivory pw{france[1:]}\nNOMINATE {france}", f"{france}@example.org")
    assert deadlines.tick(NOW + timedelta(hours=100)) == []


def test_two_workers_never_send_the_same_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    country = seated_game()
    france = citizen_of(country, "FRANCE")
    send(f"SIGNON {france}@ivory pw{france[1:]}\nNOMINATE {france}", f"{france}@example.org")
    game = get_game("ivory")
    stale = digests._list_row(game, "FRANCE")
    assert digests.digest(game, "FRANCE", NOW) is not None
    # A second worker read the row before the first one claimed its digest: it gets nothing,
    # even though a new post has come since.
    lists.archive(game, "FRANCE", france, "later", "a later post")
    monkeypatch.setattr(digests, "_list_row", lambda g, p: stale)
    assert digests.digest(game, "FRANCE", NOW) is None


def test_no_digest_carries_a_post_over_the_size_limit() -> None:
    """Issue 38: a list multiplies every byte by its members. A person's post over
    security.list_post_bytes is refused, and one kept from before the limit is never sent
    again by a digest."""
    country = seated_game()
    france = citizen_of(country, "FRANCE")
    game = get_game("ivory")
    limit = SecuritySettings().list_post_bytes
    with pytest.raises(ServiceError, match=f"at most {limit} bytes"):
        lists.list_mail(game, "FRANCE", "long", "x" * (limit + 1), france)
    lists.archive(game, "FRANCE", france, "kept from before", "y" * (limit + 1))
    lists.archive(game, "FRANCE", france, "short", "a short post")
    mail = digests.digest(game, "FRANCE", NOW)
    assert mail is not None and "a short post" in mail.body
    assert "y" * 100 not in mail.body and "x" * 100 not in mail.body
