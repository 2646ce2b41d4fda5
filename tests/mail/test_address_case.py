"""Addresses as they are (issue 51, point 11): the judge lower-cased every address it
stored and sent to, and `Jean.Dupont@` is not `jean.dupont@` to every mail server. The
local part keeps the case its owner writes it in wherever the judge sends; who is who is
still decided without regard to case."""

from __future__ import annotations

from helpers.e2e import MASTER, Harness

from mailjudge.addresses import kept_case
from mailjudge.inbound.parse import parse_mail
from mailjudge.store.models import Outbox, Person

JEAN = "Jean.Dupont@Example.ORG"
WRITTEN = "Jean.Dupont@example.org"  # the domain knows no case


def test_the_answer_and_the_games_mail_go_to_the_address_as_written(harness: Harness) -> None:
    h = harness
    help_id = h.send(JEAN, "HELP")
    answer = h.reply(help_id)
    (received,) = [m for m in h.sink.mails if m.in_reply_to == help_id]
    assert received.rcpt_tos == [WRITTEN]
    assert str(answer["To"]) == WRITTEN
    assert "game casey created" in h.command(MASTER, "CREATE casey masterpw")
    assert "you joined" in h.command(JEAN, "JOIN casey jeanpw")
    person = Person.get(Person.email == WRITTEN.lower())  # one person, by the lower case
    assert person.address == WRITTEN
    # The game's own mail to Jean's seat (the start) goes to the address as written.
    h.command(MASTER, "SIGNON Mcasey masterpw\nSTART")
    h.wait_until(lambda: any(m.subject.startswith("[casey]") and m.rcpt_tos == [WRITTEN]
                             for m in h.sink.mails), what="the start mail to Jean")  # fmt: skip
    assert not [m for m in h.sink.mails if "jean.dupont@example.org" in m.rcpt_tos]
    # Identity ignores case: the same seat, written in lower case, signs on.
    power = next(s for s in person.seats if s.role == "player").name
    status = h.command("jean.dupont@example.org", f"SIGNON {power}@casey jeanpw\nSTATUS")
    assert "ERROR" not in status
    # A mail written in lower case does not undo the case Jean writes in.
    assert Person.get(Person.email == WRITTEN.lower()).address == WRITTEN
    rows = Outbox.select().where(Outbox.to_addrs.contains("dupont"))
    assert {r.to_addrs for r in rows} == {WRITTEN, "jean.dupont@example.org"}


def test_parsing_keeps_the_written_form_beside_the_lower_case() -> None:
    raw = (b"From: Jean <Jean.Dupont@Example.ORG>\r\nTo: judge@example.test\r\n"
           b"Subject: x\r\nMessage-ID: <a@b>\r\n\r\nHELP\r\n")  # fmt: skip
    mail = parse_mail(raw)
    assert mail.sender == mail.reply_to == "jean.dupont@example.org"
    assert mail.written == (WRITTEN,)
    assert mail.as_written("jean.dupont@example.org") == WRITTEN
    assert mail.as_written("someone@else.test") == "someone@else.test"
    plain = parse_mail(raw.replace(b"Jean.Dupont@Example.ORG", b"jean@example.org"))
    assert plain.written == ()
    assert kept_case(" <Jean.Dupont@Example.ORG> ") == WRITTEN
