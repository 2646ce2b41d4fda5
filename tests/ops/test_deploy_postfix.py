"""deploy/postfix/ with a real Postfix: mail for the judge's domain reaches its LMTP listener."""

from __future__ import annotations

import shutil
import smtplib
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.postfix import DOMAIN, Postfix, deployed_setting, postfix_binary

from mailjudge.demo.mailroom import Harness, running_judge
from mailjudge.demo.sink import LOOPBACK, MailSink, free_port
from mailjudge.store.models import InboundMessage

JUDGE = f"judge@{DOMAIN}"
# How long the test's Postfix remembers a refused recipient, in seconds: deploy/postfix/
# says 30, which the test checks is there, then waits out this shorter time instead.
NEGATIVE_CACHE = 10
NEGATIVE_CACHE_SETTINGS = (
    "address_verify_negative_expire_time",
    "address_verify_negative_refresh_time",
)


@pytest.fixture
def postfix_settings() -> dict[str, str]:
    """Values of deploy/postfix/main.cf's lines that a test changes: none by default."""
    return {}


@pytest.fixture
def postfix_in_front(
    tmp_path: Path, smtp_sink: MailSink, cheap_scrypt: None, postfix_settings: dict[str, str]
) -> Iterator[tuple[Postfix, Harness]]:
    postfix_binary()  # skip (or fail) first when there is no Postfix
    lmtp_port = free_port()
    # Postfix's daemons drop to their own user: the folder must be open to them, which
    # pytest's tmp_path (mode 0700) is not.
    folder = Path(tempfile.mkdtemp(prefix="mailjudge-postfix-"))
    folder.chmod(0o755)
    postfix = Postfix(folder, lmtp_port, postfix_settings)
    postfix.configure()
    # The operator's mailbox (deploy/postfix/virtual) is at example.org: here, the sink.
    with (postfix.etc / "mailjudge-transport").open("a") as transport:
        transport.write(f"example.org    smtp:[{LOOPBACK}]:{smtp_sink.port}\n")
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


def test_postmaster_and_abuse_reach_the_operator(
    postfix_in_front: tuple[Postfix, Harness],
) -> None:
    """RFC 5321 requires postmaster@ of a domain that takes mail, and the README sends
    security reports there: Postfix accepts postmaster@ and abuse@ of the judge's domain
    and hands them to the operator's address in deploy/postfix/virtual."""
    postfix, h = postfix_in_front
    for name in ("postmaster", "abuse"):
        report = h.mail("reporter@elsewhere.test", f"a report to {name}", to=f"{name}@{DOMAIN}")
        with smtplib.SMTP(LOOPBACK, postfix.port, timeout=10) as client:
            client.sendmail("reporter@elsewhere.test", [f"{name}@{DOMAIN}"], report.as_bytes())
        try:
            h.wait_until(
                lambda r=report: any(
                    m.rcpt_tos == ["operator@example.org"]
                    and m.message["Message-ID"] == r["Message-ID"]
                    for m in h.sink.mails
                ),
                what=f"the mail to {name}@ at the operator's mailbox",
            )
        except TimeoutError as err:
            raise AssertionError(f"not delivered; Postfix's log:\n{postfix.log()}") from err
    # The judge never saw them.
    assert (
        not InboundMessage.select()
        .where(InboundMessage.envelope_from == "reporter@elsewhere.test")
        .exists()
    )


@pytest.mark.parametrize(
    "postfix_settings",
    [{name: f"{NEGATIVE_CACHE}s" for name in NEGATIVE_CACHE_SETTINGS}],
    ids=[f"refusals-kept-{NEGATIVE_CACHE}s"],
)
def test_a_list_address_refused_before_its_game_exists_works_once_it_does(
    postfix_in_front: tuple[Postfix, Harness],
) -> None:
    """Postfix remembers a refusal for address_verify_negative_expire_time (30s in
    deploy/postfix/main.cf), then asks the judge again: by default it kept refusing a
    game's list address for hours if it was tried before the game was made. The test's
    Postfix keeps it NEGATIVE_CACHE seconds, not to wait out half a minute."""
    postfix, h = postfix_in_front
    address = f"later-france@{DOMAIN}"
    for name in NEGATIVE_CACHE_SETTINGS:
        assert deployed_setting(name) == "30s"
        assert postfix.setting(name) == f"{NEGATIVE_CACHE}s"

    def rcpt() -> int:
        with smtplib.SMTP(LOOPBACK, postfix.port, timeout=60) as client:
            client.ehlo()
            client.mail("someone@players.test")
            code, _ = client.rcpt(address)
            client.rset()
            return int(code)

    assert rcpt() == 550, postfix.log()
    refused_at = time.monotonic()

    def through_postfix(sender: str, raw: bytes) -> None:
        with smtplib.SMTP(LOOPBACK, postfix.port, timeout=10) as client:
            client.sendmail(sender, [JUDGE], raw)

    h.deliver = through_postfix
    assert "created" in h.command("master@players.test", "CREATE later masterpw VARIANT democratic")
    # Asked again within the cache time, Postfix answers from the cache (so the check
    # proves the cache only if the game was made in time).
    assert time.monotonic() - refused_at < NEGATIVE_CACHE - 1, "the game took too long"
    assert rcpt() == 550  # still remembered: the cache works
    time.sleep(max(0.0, refused_at + NEGATIVE_CACHE + 1 - time.monotonic()))
    assert rcpt() == 250, postfix.log()
