"""Replies as real mail clients write them (tests/data/replies/: mutt, Thunderbird, Gmail,
Outlook desktop, web, iOS and Android, Apple Mail, iPhone, Samsung Email, Yahoo on the web
and on Android; English, French, German, Spanish, Italian, Dutch; top and bottom posted,
HTML-only), each sent through the judge's SMTP listener after the orders are on
file: none is answered with an error, and none changes an order it does not name.

The samples named FORM-to-KIND.eml are Replies (and Forwards) in each client's form
(tests/helpers/replyforms.py) to four mails the judge really sent France in game "corpus"
(tests/data/replies/judge/: its answer to France's orders, the results, the notice that
the game started, a press copy with order lines in it), quoted and unquoted. The judge's
outbox holds those four when they arrive, as it would. MAKE_REPLY_CORPUS=1 captures the
four from a running judge again and rewrites the samples; MAKE_REPLY_CORPUS=missing writes
only those of a form added to tests/helpers/replyforms.py, from the four as captured.
"""

from __future__ import annotations

import os
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from helpers.e2e import Harness, player, seated, set_up_game, text_of
from helpers.replyforms import ALL_FORMS, reply_mail

from mailjudge.game.state import get_game, orders_on_file
from mailjudge.store.models import Outbox

CORPUS = Path(__file__).parents[1] / "data" / "replies"
ORDERS = ["A MAR H", "A PAR - BUR", "F BRE - MAO"]
# The samples whose writer changed an order: the unit's new order, replacing its old one.
CHANGES = {"mutt-interleaved-order": ("A MAR H", "A MAR - SPA"),
           "gmail-order-change": ("A MAR H", "A MAR - SPA")}  # fmt: skip


JUDGE_MAILS = CORPUS / "judge"
KINDS = ("answer", "results", "notice", "press")


def samples() -> list[Path]:
    return sorted(CORPUS.glob("*.eml"))


def judge_sent_them() -> None:
    """The judge's four mails to France, in its outbox as sent mail."""
    for path in sorted(JUDGE_MAILS.glob("*.eml")):
        raw = path.read_bytes()
        headers = message_from_bytes(raw, policy=policy.compat32)
        Outbox.create(to_addrs=player("FRANCE"), subject=str(headers["Subject"]), raw=raw,
                      message_id=str(headers["Message-ID"]), state="sent")  # fmt: skip


def test_the_corpus_covers_the_common_clients_and_languages() -> None:
    names = {p.stem for p in samples()}
    for client in ("mutt", "thunderbird", "gmail", "outlook", "apple-mail", "samsung", "yahoo"):
        assert any(n.startswith(client) for n in names), client
    for form in ALL_FORMS:  # every client's Reply to every kind of the judge's mail
        for kind in KINDS:
            assert f"{form}-to-{kind}" in names
    for language in ("fr", "de", "es", "it", "nl"):
        assert any(n.endswith(f"-{language}") for n in names), language
    assert "gmail-html-only" in names and "mutt-bottom" in names


def france_orders() -> list[str]:
    return sorted(line.text for line in orders_on_file(get_game("corpus")).get("FRANCE", []))


def client_of(sample: Path) -> str:
    """A sample's client form (FORM-to-KIND.eml), or its own name."""
    return sample.stem.split("-to-")[0]


CLIENTS = sorted({client_of(sample) for sample in samples()})


@pytest.mark.parametrize("client", CLIENTS)
def test_a_reply_from_a_real_client_keeps_the_orders(harness: Harness, client: str) -> None:
    """Each of a client's samples in turn, in one game, the orders given again before
    each (one game a client, not one a sample: the corpus grows with every round)."""
    h = harness
    set_up_game(h, "corpus")
    table = seated(h, "corpus")
    judge_sent_them()
    for sample in (s for s in samples() if client_of(s) == client):
        table.send_orders("FRANCE", ["ORDERS", *ORDERS, "END"])
        assert france_orders() == sorted(ORDERS)
        raw = sample.read_bytes().replace(b"pw-france-7", table.players["FRANCE"].password.encode())
        h.deliver(player("FRANCE"), raw)
        reply = text_of(h.reply(f"<{sample.stem}@players.test>"))
        if "forward-to-" in sample.stem:  # the answer says the forwarded mail was not read
            assert "never a forwarded mail" in " ".join(reply.split()), (sample.stem, reply)
            reply = reply.split("\n\n", 1)[1]
        assert "ERROR" not in reply and "not accepted" not in reply, (sample.stem, reply)
        expected = list(ORDERS)
        if sample.stem in CHANGES:
            old, new = CHANGES[sample.stem]
            expected[expected.index(old)] = new
        else:
            assert "orders on file are unchanged" in reply, (sample.stem, reply)
        assert france_orders() == sorted(expected), sample.stem


WRITER = "SIGNON france@corpus pw-france-7\nThanks, see you next turn."


def text_parts_only(raw: bytes) -> bytes:
    """A mail of the judge's without its board pictures (the corpus keeps what a client
    copies into a Reply: the text and HTML parts)."""
    mail = message_from_bytes(raw, policy=policy.default)
    for part in list(mail.walk()):
        if part.is_multipart():
            kept = [p for p in part.iter_parts() if p.is_multipart() or p.get_content_maintype() == "text"]  # fmt: skip
            part.set_payload(kept)
    return mail.as_bytes(policy=policy.SMTP)


@pytest.mark.skipif(os.environ.get("MAKE_REPLY_CORPUS") != "missing", reason="adds to the corpus")
def test_make_the_missing_samples() -> None:
    """Write the samples of the forms that have none yet (a form added to
    tests/helpers/replyforms.py) from the judge's four mails as captured, leaving the others as
    they are: MAKE_REPLY_CORPUS=missing."""
    for path in sorted(JUDGE_MAILS.glob("*.eml")):
        sent = message_from_bytes(path.read_bytes(), policy=policy.default)
        for form in ALL_FORMS:
            stem = f"{form}-to-{path.stem}"
            if (CORPUS / f"{stem}.eml").exists():
                continue
            mail = reply_mail(form, WRITER, text_of(sent), str(sent["Subject"]), player("FRANCE"),
                              f"<{stem}@players.test>", str(sent["Message-ID"]))  # fmt: skip
            (CORPUS / f"{stem}.eml").write_bytes(mail.as_bytes(policy=policy.SMTP))


@pytest.mark.skipif(os.environ.get("MAKE_REPLY_CORPUS") != "1", reason="rewrites the corpus")
def test_make_the_corpus(harness: Harness) -> None:
    """Capture the judge's four mails to France and write every client's Reply to each."""
    h = harness
    set_up_game(h, "corpus")
    table = seated(h, "corpus")
    england = table.signon("ENGLAND")
    table.say(table.players["ENGLAND"],
              f"{england}\nPRESS TO FRANCE\nMy plan for you:\nA PAR - PIC\nA TRI H\nENDPRESS")  # fmt: skip
    answer_id = h.send(player("FRANCE"), table.signon("FRANCE") + "\nORDERS\n"
                       + "\n".join(ORDERS) + "\nEND\n")  # fmt: skip
    h.reply(answer_id)
    table.play_phase({})

    def to_france(kind: str, subject_has: str) -> list[bytes]:
        return [m.raw for m in h.sink.mails
                if m.rcpt_tos == [player("FRANCE")] and subject_has in str(m.message["Subject"])
                and (kind != "answer" or m.message["In-Reply-To"] == answer_id)]  # fmt: skip

    JUDGE_MAILS.mkdir(exist_ok=True)
    wanted = {"answer": "Re:", "results": "results S1901M", "notice": "started",
              "press": "press from"}  # fmt: skip
    for kind, subject_has in wanted.items():
        h.wait_until(lambda k=kind, s=subject_has: to_france(k, s), what=kind)
        raw = text_parts_only(to_france(kind, subject_has)[0])
        (JUDGE_MAILS / f"{kind}.eml").write_bytes(raw)
        sent = message_from_bytes(raw, policy=policy.default)
        for form in ALL_FORMS:
            stem = f"{form}-to-{kind}"
            mail = reply_mail(form, WRITER, text_of(sent), str(sent["Subject"]), player("FRANCE"),
                              f"<{stem}@players.test>", str(sent["Message-ID"]))  # fmt: skip
            (CORPUS / f"{stem}.eml").write_bytes(mail.as_bytes(policy=policy.SMTP))
