"""Issue 53 point 4 by mail: a Democratic game's country lists and what a citizen's client
sends back to them. A Reply to a digest is a post to the list (the digest had no Reply-To:
it reached nobody); NOMINATE in a Reply to a list mail is done, not posted as text; a copy
of the list mail below the writer's text, in a client the reader does not know, is not
posted again; a Reply saying "Yes, confirm." to the JOIN's CONFIRM mail confirms (it was
left alone without a word)."""

from __future__ import annotations

from email.message import EmailMessage

from helpers.e2e import MASTER, Harness, join_by_mail, text_of, wire
from helpers.replyforms import reply_mail

from mailjudge.game.state import get_game
from mailjudge.store.models import Seat
from mailjudge.variants.democratic.citizens import citizens_of
from mailjudge.variants.democratic.country_lists import list_address

CITIZENS = [f"citizen{i:02d}" for i in range(23)]


def address(name: str) -> str:
    return f"{name}@citizens.test"


def flat(text: str) -> str:
    return " ".join(text.split())


def mails_to(h: Harness, to: str, subject_has: str) -> list[EmailMessage]:
    return [m.message for m in h.sink.mails
            if to in m.rcpt_tos and subject_has in str(m.message["Subject"])]  # fmt: skip


def reply(h: Harness, form: str, to_mail: EmailMessage, sender: str, writer: str, tag: str) -> str:
    """``sender``'s Reply in ``form`` to ``to_mail``: to its Reply-To (else From), as a
    client sends it; the judge's answer."""
    mail = reply_mail(form, writer, text_of(to_mail), str(to_mail["Subject"]), sender,
                      f"<{tag}@citizens.test>", str(to_mail["Message-ID"]))  # fmt: skip
    mail.replace_header("To", str(to_mail["Reply-To"] or to_mail["From"]))
    h.deliver(sender, wire(mail))
    return flat(text_of(h.reply(f"<{tag}@citizens.test>")))


def test_a_reply_saying_yes_to_the_confirm_mail_confirms(harness: Harness) -> None:
    h = harness
    h.command(MASTER, "CREATE yes masterpw VARIANT democratic")
    joined = h.mail(address("ann"), "JOIN yes pw-ann AS ann")
    h.deliver(address("ann"), wire(joined))
    asked = h.reply(str(joined["Message-ID"]))
    assert "CONFIRM" in text_of(asked)
    answer = reply(h, "gmail", asked, address("ann"), "What is this about?", "what")
    assert "nothing was confirmed: your Reply does not say so" in answer, answer
    assert Seat.get(Seat.name == "ann").status == "invited"
    answer = reply(h, "outlook-mobile", asked, address("ann"), "Yes, confirm.", "yes")
    assert "you are a citizen of yes as ann" in answer and "ERROR" not in answer, answer
    assert Seat.get(Seat.name == "ann").status == "active"


def test_replies_to_a_countrys_list_mail(harness: Harness) -> None:
    h = harness
    h.command(MASTER, "CREATE talk masterpw VARIANT democratic")
    for name in CITIZENS:
        join_by_mail(h, address(name), f"JOIN talk pw-{name} AS {name}")
    h.command(MASTER, "SIGNON Mtalk masterpw\nSTART")
    game = get_game("talk")
    turks = sorted(s.name for s in citizens_of(game, "TURKEY"))
    first, second = turks[0], turks[1]
    listed = list_address(game, "TURKEY")
    sent = h.send(address(first), f"SIGNON {first}@talk pw-{first}\nLet us take the Black Sea.",
                  to=listed, subject="Black Sea")  # fmt: skip
    assert "ok: your post went to the list of TURKEY" in text_of(h.reply(sent))
    h.wait_until(lambda: mails_to(h, address(second), "[talk-turkey] Black Sea"))
    post = mails_to(h, address(second), "[talk-turkey] Black Sea")[0]
    # NOMINATE in a Reply to the post: done, and the rest of the text posted.
    answer = reply(h, "mutt", post, address(second),
                   f"SIGNON {second}@talk pw-{second}\nAgreed.\nNOMINATE {first}", "nominate")  # fmt: skip
    assert "its commands (NOMINATE) were done, as below" in answer, answer
    assert f"{first} is nominated for diplomat of TURKEY" in answer, answer
    assert "the rest of it: your post went to the list of TURKEY" in answer, answer
    h.wait_until(lambda: mails_to(h, address(first), "Re: [talk-turkey] Black Sea"))
    posted = text_of(mails_to(h, address(first), "Re: [talk-turkey] Black Sea")[0])
    assert "Agreed." in posted and "NOMINATE" not in posted, posted
    # A client that copies the post unquoted, with no attribution: only the writer's
    # words go to the list (before: the copy went again, whole).
    answer = reply(h, "unknown-unquoted", post, address(second),
                   f"SIGNON {second}@talk pw-{second}\nNaval first.", "unquoted")  # fmt: skip
    assert "ok: your post went to the list of TURKEY" in answer, answer
    h.wait_until(lambda: len(mails_to(h, address(first), "Re: [talk-turkey] Black Sea")) == 2)
    posted = text_of(mails_to(h, address(first), "Re: [talk-turkey] Black Sea")[1])
    assert "Naval first." in posted and "Let us take the Black Sea" not in posted, posted
    # The phase's digest to the list: a Reply to it is a post to the list.
    assert "processed" in h.command(MASTER, "SIGNON Mtalk masterpw\nPROCESS!")
    h.wait_until(lambda: mails_to(h, address(second), "[talk-turkey] digest"))
    digest = mails_to(h, address(second), "[talk-turkey] digest")[0]
    assert digest["Reply-To"] == listed
    answer = reply(h, "thunderbird", digest, address(second),
                   f"SIGNON {second}@talk pw-{second}\nA good digest.", "digest")  # fmt: skip
    assert "ok: your post went to the list of TURKEY" in answer, answer
    h.wait_until(lambda: mails_to(h, address(first), "Re: [talk-turkey] digest"))
    posted = text_of(mails_to(h, address(first), "Re: [talk-turkey] digest")[0])
    assert "A good digest." in posted and "wrote:" not in posted
