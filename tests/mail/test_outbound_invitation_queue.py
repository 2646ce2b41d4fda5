"""A queued mail's calendar invitation on both ways into the outbox: kept as text in the
stored draft the sender renders later, and built in at once with a mail that carries
attachments; and the operator's setting that leaves it out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

from helpers.itip import calendar_of, check_itip

from mailjudge.config.settings import Settings
from mailjudge.config.settings_files import load_settings
from mailjudge.outbound.draft import MailDraft, Outgoing
from mailjudge.outbound.outbox import render_draft
from mailjudge.outbound.queue import queue_outgoing
from mailjudge.render.calendar import Attendee, DeadlineEvent, Method, event_uid, invitation
from mailjudge.store.models import Outbox

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)


def settings(invitations: bool = True) -> Settings:
    env = {"MAILJUDGE_JUDGE_ADDRESS": "judge@judge.test",
           "MAILJUDGE_OUTBOUND_CALENDAR_INVITATIONS": str(invitations).lower()}  # fmt: skip
    return load_settings(None, env)


def ics() -> bytes:
    event = DeadlineEvent(
        uid=event_uid("g1", NOW, "S1901M", "judge.test"), game="g1", phase="S1901M",
        phase_label="Spring 1901 movement", deadline=NOW + timedelta(days=2), warn=(),
        sequence=3, judge="judge@judge.test", judge_name="Judge", link=None,
    )  # fmt: skip
    return invitation(event, Attendee("france@players.test", "france", ("FRANCE",)),
                      Method.REQUEST, NOW)  # fmt: skip


def outgoing(**extra: object) -> Outgoing:
    mail = Outgoing(["france@players.test"], "[g1] results S1901M", "The results.\n",
                    "results", game="g1", phase="S1901M")  # fmt: skip
    for name, value in extra.items():
        setattr(mail, name, value)
    return mail


def last_mail() -> EmailMessage:
    row = Outbox.select().order_by(Outbox.id.desc()).first()
    assert row is not None
    parsed = message_from_bytes(row.raw or render_draft(row.draft), policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def calendar_parts(message: EmailMessage) -> list[EmailMessage]:
    return [p for p in message.walk() if p.get_content_type() == "text/calendar"]  # type: ignore[misc]


def test_a_draft_keeps_the_invitation_until_the_sender_renders_it(sqlite_db: str) -> None:
    queue_outgoing(outgoing(calendar=ics()), settings(), NOW)
    row = Outbox.select().order_by(Outbox.id.desc()).first()
    assert row is not None and row.raw == b"" and row.draft["calendar"].startswith("BEGIN:")
    assert MailDraft.from_json(row.draft).calendar == ics().decode("utf-8")
    message = last_mail()
    assert message.get_content_type() == "multipart/alternative"
    kinds = [p.get_content_type() for p in message.iter_parts()]
    assert kinds == ["text/plain", "text/calendar"]
    assert check_itip(calendar_of(calendar_parts(message)[0]), "REQUEST")


def test_a_mail_built_at_once_carries_it_beside_its_attachment(sqlite_db: str) -> None:
    attached = [("board.svg", "image/svg+xml", b"<svg/>")]
    queue_outgoing(outgoing(calendar=ics().decode("utf-8"), attachments=attached), settings(), NOW)
    message = last_mail()
    assert message.get_content_type() == "multipart/mixed"
    first, attachment = message.iter_parts()
    kinds = [p.get_content_type() for p in first.iter_parts()]
    assert kinds == ["text/plain", "text/calendar"] and attachment.get_filename() == "board.svg"
    assert check_itip(calendar_of(calendar_parts(message)[0]), "REQUEST")


def test_the_operator_may_leave_invitations_out(sqlite_db: str) -> None:
    queue_outgoing(outgoing(calendar=ics()), settings(invitations=False), NOW)
    message = last_mail()
    assert message.get_content_type() == "text/plain" and not calendar_parts(message)
    queue_outgoing(outgoing(calendar=ics(), attachments=[("a.txt", "text/plain", b"a")]),
                   settings(invitations=False), NOW)  # fmt: skip
    assert not calendar_parts(last_mail())
