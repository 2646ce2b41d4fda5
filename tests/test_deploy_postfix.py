"""deploy/postfix/ with a real Postfix: mail for the judge's domain reaches its LMTP listener."""

from __future__ import annotations

import shutil
import smtplib
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from postfix import DOMAIN, Postfix, postfix_binary

from mailjudge.demo.mailroom import Harness, running_judge
from mailjudge.demo.sink import LOOPBACK, MailSink, free_port
from mailjudge.models import InboundMessage

JUDGE = f"judge@{DOMAIN}"


@pytest.fixture
def postfix_in_front(
    tmp_path: Path, smtp_sink: MailSink, cheap_scrypt: None
) -> Iterator[tuple[Postfix, Harness]]:
    postfix_binary()  # skip (or fail) first when there is no Postfix
    lmtp_port = free_port()
    # Postfix's daemons drop to their own user: the folder must be open to them, which
    # pytest's tmp_path (mode 0700) is not.
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-postfix-"))
    folder.chmod(0o755)
    postfix = Postfix(folder, lmtp_port)
    postfix.configure()
    try:
        with running_judge(
            tmp_path / "judge.db",
            smtp_sink,
            JUDGE,
            smtp_port="0",
            smtp_lmtp_port=str(lmtp_port),
            free_ports=False,
        ) as harness:
            postfix.start()
            yield postfix, harness
    finally:
        postfix.stop()
        shutil.rmtree(folder, ignore_errors=True)


def test_postfix_hands_the_judges_mail_to_its_lmtp_port(
    postfix_in_front: tuple[Postfix, Harness],
) -> None:
    postfix, h = postfix_in_front
    assert postfix.postconf().stderr == ""  # every setting in deploy/postfix/main.cf is known

    def through_postfix(sender: str, raw: bytes, to: str = JUDGE) -> None:
        with smtplib.SMTP(LOOPBACK, postfix.port, timeout=10) as client:
            client.sendmail(sender, [to], raw)

    h.deliver = through_postfix
    sent = h.send("someone@players.test", "LIST")
    try:
        reply = h.reply(sent, timeout=30)  # stored, answered, relayed to the sink
    except TimeoutError as err:
        raise AssertionError(f"no reply; Postfix's log:\n{postfix.log()}") from err
    assert "demo" not in reply.get_content() and reply["To"] == "someone@players.test"
    stored = InboundMessage.get(InboundMessage.message_id == sent)
    assert stored.source == "lmtp" and stored.state == "done"
    assert JUDGE in stored.envelope_to
    # judge+GAME@ is the judge's too; a name the judge does not know is refused by it.
    plus = h.mail("someone@players.test", "LIST", to=f"judge+mygame@{DOMAIN}")
    through_postfix("someone@players.test", plus.as_bytes(), to=f"judge+mygame@{DOMAIN}")
    h.reply(str(plus["Message-ID"]), timeout=30)
    # An address the judge does not have is refused in the sender's dialogue, with 550
    # (unverified_recipient_reject_code), so the sender hears at once and does not retry.
    stray = h.mail("someone@players.test", "LIST", to=f"nosuch@{DOMAIN}")
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        through_postfix("someone@players.test", stray.as_bytes(), to=f"nosuch@{DOMAIN}")
    code, _ = refused.value.recipients[f"nosuch@{DOMAIN}"]
    assert code == 550, postfix.log()
    assert (
        not InboundMessage.select()
        .where(InboundMessage.message_id == str(stray["Message-ID"]))
        .exists()
    )
