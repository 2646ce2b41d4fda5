"""The outbox against a real SMTP server on loopback: queued mail arrives once, with its
headers; an outage delays mail and never loses or doubles it."""

from __future__ import annotations

import shutil
import smtplib
import ssl
import subprocess
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP as SMTPServer
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session
from helpers.mailstack import LOOPBACK, SmtpSink, free_port

from mailjudge.config.settings import OutboundSettings
from mailjudge.demo.sink import MailSink, _Recorder
from mailjudge.inbound import spool
from mailjudge.outbound import answered, outbox
from mailjudge.outbound.message import build_message
from mailjudge.outbound.retry import RetryPolicy
from mailjudge.outbound.send import Handed, SmtpSender, is_permanent
from mailjudge.store.models import Outbox, utcnow

JUDGE = "judge@example.org"
FAST = RetryPolicy(
    max_attempts=4, first_delay=timedelta(seconds=30), max_delay=timedelta(minutes=5)
)


def sender_for(sink: SmtpSink) -> SmtpSender:
    return SmtpSender(LOOPBACK, sink.port, JUDGE, timeout=5)


def notice(n: int, to: str = "alice@example.com", **kwargs: object) -> Outbox:
    message = build_message(
        sender=JUDGE,
        to=[to],
        subject=f"Results {n}",
        text=f"Result {n}\n",
        game="ivory",
        phase="S1901M",
        role="player FRANCE",
        **kwargs,  # type: ignore[arg-type]
    )
    return outbox.enqueue(message)


def test_queued_mail_is_sent_later_with_every_header(any_db: str, smtp_sink: SmtpSink) -> None:
    row = notice(1)
    assert row.state == "queued" and smtp_sink.mails == []  # queued, not sent inline
    with sender_for(smtp_sink) as sender:
        result = outbox.flush(sender)
    assert (result.sent, result.retried, result.failed) == (1, 0, 0)
    (received,) = smtp_sink.wait_for(1)
    # Bounces come back to a VERP address of the judge naming this mail (inbound.bounces).
    assert received.mail_from.startswith("judge+bounce-") and received.mail_from.endswith(
        "@example.org"
    )
    assert received.rcpt_tos == ["alice@example.com"]
    message = received.message
    for header in ("From", "To", "Subject", "Date", "Message-ID", "Auto-Submitted"):
        assert message[header], header
    assert message["Message-ID"] == row.message_id
    assert message["X-Mailjudge-Game"] == "ivory"
    assert message["X-Mailjudge-Phase"] == "S1901M"
    assert message["X-Mailjudge-Role"] == "player FRANCE"
    row = Outbox.get_by_id(row.__data__["id"])
    assert row.state == "sent" and row.attempts == 1 and row.sent_at is not None
    assert row.relay_reply == "250 2.0.0 Ok: queued as sink-1"  # the sink's own words


def test_envelope_has_bcc_but_the_mail_does_not(any_db: str, smtp_sink: SmtpSink) -> None:
    message = build_message(
        sender=JUDGE, to=["a@example.com"], cc=["B@Example.com"], subject="x", text="x"
    )
    message["Bcc"] = "master@example.com"
    row = outbox.enqueue(message)
    # The local part as written (issue 51.11: B@ may not be b@ to its server), the domain
    # lower-cased.
    assert row.to_addrs == "a@example.com B@example.com master@example.com"
    assert b"master@example.com" not in row.raw
    assert message["Bcc"] == "master@example.com"  # the caller's message is left alone
    with sender_for(smtp_sink) as sender:
        outbox.flush(sender)
    (received,) = smtp_sink.wait_for(1)
    assert received.rcpt_tos == ["a@example.com", "B@example.com", "master@example.com"]
    assert "Bcc" not in received.message


def test_enqueue_is_idempotent_and_checks_its_input(any_db: str) -> None:
    message = build_message(sender=JUDGE, to=["a@example.com"], subject="x", text="x")
    first = outbox.enqueue(message)
    assert outbox.enqueue(message).__data__["id"] == first.__data__["id"]
    assert Outbox.select().count() == 1
    del message["Message-ID"]
    with pytest.raises(ValueError, match="Message-ID"):
        outbox.enqueue(message)
    bare = build_message(sender=JUDGE, to=["not an address"], subject="x", text="x")
    with pytest.raises(ValueError, match="no recipient"):
        outbox.enqueue(bare)
    explicit = outbox.enqueue(bare, to_addrs=["Someone@Example.com"])
    assert explicit.to_addrs == "Someone@example.com"  # the local part's case kept


def test_relay_outage_delays_mail_and_loses_nothing(any_db: str, smtp_sink: SmtpSink) -> None:
    rows = [notice(n) for n in range(5)]
    smtp_sink.stop()  # nothing listens on the relay's port now
    now = utcnow()
    sender = sender_for(smtp_sink)
    result = outbox.flush(sender, now=now, retry=FAST)
    assert (result.sent, result.retried, result.failed) == (0, 5, 0)
    for row in Outbox.select():
        assert row.state == "queued" and row.attempts == 1
        assert "ConnectionRefusedError" in row.last_error
        assert row.next_attempt_at == now + timedelta(seconds=30)
    # Not due yet: nothing is tried.
    assert outbox.flush(sender, now=now + timedelta(seconds=10), retry=FAST).retried == 0
    # Due, still down: the wait doubles.
    later = now + timedelta(seconds=31)
    assert outbox.flush(sender, now=later, retry=FAST).retried == 5
    assert {r.attempts for r in Outbox.select()} == {2}
    assert {r.next_attempt_at for r in Outbox.select()} == {later + timedelta(seconds=60)}
    # The relay is back: everything goes, once.
    smtp_sink.start()
    result = outbox.flush(sender, now=later + timedelta(minutes=2), retry=FAST)
    assert (result.sent, result.retried, result.failed) == (5, 0, 0)
    assert outbox.flush(sender, now=later + timedelta(hours=1), retry=FAST).sent == 0
    sender.close()
    received = smtp_sink.wait_for(5)
    assert sorted(m.message["Message-ID"] for m in received) == sorted(r.message_id for r in rows)
    assert {r.state for r in Outbox.select()} == {"sent"}
    assert {r.attempts for r in Outbox.select()} == {3}


def test_mail_is_given_up_after_the_last_attempt(any_db: str) -> None:
    notice(1)
    sender = SmtpSender(LOOPBACK, free_port(), JUDGE, timeout=2)
    now = utcnow()
    for attempt in range(1, 5):
        outcome = outbox.flush(sender, now=now, retry=FAST)
        row = Outbox.get()
        assert row.attempts == attempt
        now = row.next_attempt_at
    assert (outcome.retried, outcome.failed) == (0, 1)
    row = Outbox.get()
    assert row.state == "failed" and "ConnectionRefusedError" in row.last_error
    assert outbox.flush(sender, now=now + timedelta(days=1), retry=FAST).failed == 0


def test_permanent_refusal_fails_at_once_temporary_is_retried(
    any_db: str, smtp_sink: SmtpSink
) -> None:
    notice(1, to="nobody@example.com")
    notice(2, to="busy@example.com")
    with sender_for(smtp_sink) as sender:
        result = outbox.flush(sender, retry=FAST)
    assert (result.sent, result.retried, result.failed) == (0, 1, 1)
    states = {r.to_addrs: r for r in Outbox.select()}
    assert states["nobody@example.com"].state == "failed"
    assert "550" in states["nobody@example.com"].last_error
    assert states["busy@example.com"].state == "queued"
    assert {r.relay_reply for r in states.values()} == {""}  # nothing was taken


def test_partly_refused_mail_is_sent_to_the_rest(any_db: str, smtp_sink: SmtpSink) -> None:
    message = build_message(
        sender=JUDGE, to=["a@example.com", "nobody@example.com"], subject="x", text="x"
    )
    outbox.enqueue(message)
    with sender_for(smtp_sink) as sender:
        assert outbox.flush(sender).sent == 1
    assert smtp_sink.wait_for(1)[0].rcpt_tos == ["a@example.com"]
    row = Outbox.get()
    assert row.state == "sent" and row.last_error == "refused: nobody@example.com"
    assert row.relay_reply == "250 2.0.0 Ok: queued as sink-1"


def test_two_senders_at_once_send_each_mail_once(any_db: str, smtp_sink: SmtpSink) -> None:
    count = 40
    for n in range(count):
        notice(n)
    gun = threading.Barrier(3)
    results = []

    def flusher() -> None:
        with sender_for(smtp_sink) as sender:
            gun.wait()
            results.append(outbox.flush(sender))

    threads = [threading.Thread(target=flusher) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(r.sent for r in results) == count
    received = smtp_sink.wait_for(count)
    ids = [m.message["Message-ID"] for m in received]
    assert len(ids) == len(set(ids)) == count


def test_a_dead_senders_claim_runs_out(any_db: str, smtp_sink: SmtpSink) -> None:
    notice(1)
    now = utcnow()
    claimed = outbox.claim_due(now, 10, lease=timedelta(minutes=10))
    assert len(claimed) == 1 and Outbox.get().state == "sending"
    with sender_for(smtp_sink) as sender:
        assert outbox.flush(sender, now=now + timedelta(minutes=5)).sent == 0  # still leased
        assert outbox.flush(sender, now=now + timedelta(minutes=11)).sent == 1
    assert len(smtp_sink.wait_for(1)) == 1


def test_flush_limit(any_db: str, smtp_sink: SmtpSink) -> None:
    for n in range(5):
        notice(n)
    with sender_for(smtp_sink) as sender:
        assert outbox.flush(sender, limit=2).sent == 2
        assert outbox.flush(sender).sent == 3


def test_reply_rate_limit_counts_answers_per_address(any_db: str) -> None:
    inbound, _ = spool.store(
        b"Message-ID: <q@x>\r\n\r\nHELP\r\n", "al@example.com", [JUDGE], "smtp"
    )

    def answer(to: str) -> None:
        message = build_message(
            sender=JUDGE, to=[to], subject="Re: HELP", text="x", in_reply_to="<q@x>"
        )
        outbox.enqueue(message, inbound=inbound)

    for _ in range(3):
        answer("al@example.com")
    answer("val@example.com")  # contains "al@example.com", but is someone else
    notice(1, to="al@example.com")  # a notice, not an answer
    window = timedelta(minutes=60)
    assert answered.replies_sent("AL@example.com", window) == 3
    # The answer to val@ was for al@'s mail (a Reply-To): it never spends val@'s limit.
    assert answered.replies_sent("val@example.com", window) == 0
    own, _ = spool.store(b"Message-ID: <v@x>\r\n\r\nHELP\r\n", "val@example.com", [JUDGE], "smtp")
    outbox.enqueue(build_message(sender=JUDGE, to=["val@example.com"], subject="Re: HELP",
                                 text="x", in_reply_to="<v@x>"), inbound=own)  # fmt: skip
    assert answered.replies_sent("val@example.com", window) == 1
    assert answered.replies_sent("al@example.com", window, now=utcnow() + timedelta(hours=2)) == 0
    limits = OutboundSettings(reply_limit=3, reply_window_minutes=60)
    assert not answered.may_reply("al@example.com", limits)
    assert answered.may_reply("val@example.com", limits)
    assert answered.may_reply("al@example.com", OutboundSettings(reply_limit=0))


def test_which_failures_are_permanent() -> None:
    assert is_permanent(smtplib.SMTPRecipientsRefused({"a@x": (550, b"no"), "b@x": (551, b"no")}))
    assert not is_permanent(
        smtplib.SMTPRecipientsRefused({"a@x": (550, b"no"), "b@x": (452, b"full")})
    )
    assert is_permanent(smtplib.SMTPDataError(554, b"spam"))
    assert not is_permanent(smtplib.SMTPDataError(451, b"later"))
    # The judge's own configuration: fixed by the operator, so the mail must wait.
    assert not is_permanent(smtplib.SMTPAuthenticationError(535, b"bad password"))
    assert not is_permanent(smtplib.SMTPSenderRefused(553, b"not allowed", "judge@x"))
    assert not is_permanent(ConnectionRefusedError())


def test_retry_policy() -> None:
    policy = RetryPolicy.from_settings(
        OutboundSettings(max_attempts=7, retry_first_seconds=10, retry_max_seconds=60)
    )
    assert policy.max_attempts == 7
    waits = [policy.delay(n).total_seconds() for n in range(1, 7)]
    assert waits == [10, 20, 40, 60, 60, 60]
    assert RetryPolicy().delay(10_000) == timedelta(hours=1)


# -- the sender itself: STARTTLS and login against a real server ---------------------------


class _Keeper:
    def __init__(self) -> None:
        self.mails: list[bytes] = []
        self.reply = "250 OK"

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        self.mails.append(envelope.original_content or b"")
        return self.reply


def _authenticate(
    server: SMTPServer, session: Session, envelope: Envelope, mechanism: str, auth_data: object
) -> AuthResult:
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (
        b"judge",
        b"s3cret",
    )
    return AuthResult(success=ok, handled=False)


def test_starttls_and_login(tmp_path: Path) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    keeper = _Keeper()
    port = free_port()
    controller = Controller(
        keeper,
        hostname=LOOPBACK,
        port=port,
        tls_context=server_tls,
        require_starttls=True,
        auth_required=True,
        authenticator=_authenticate,
    )
    controller.start()
    try:
        client_tls = ssl.create_default_context(cafile=str(cert))
        raw = build_message(sender=JUDGE, to=["a@example.com"], subject="x", text="x").as_bytes()
        good = SmtpSender(
            LOOPBACK,
            port,
            JUDGE,
            starttls=True,
            user="judge",
            password="s3cret",
            ssl_context=client_tls,
        )
        with good:
            assert good.send(raw, ["a@example.com"]) == Handed("250 OK")
            # Over the same connection; a multi-line reply is kept on one line.
            keeper.reply = "250-2.0.0 Ok\r\n250 queued as 4Xyz"
            assert good.send(raw, ["a@example.com"]) == Handed("250 2.0.0 Ok queued as 4Xyz")
        assert len(keeper.mails) == 2
        bad = SmtpSender(
            LOOPBACK,
            port,
            JUDGE,
            starttls=True,
            user="judge",
            password="wrong",
            ssl_context=client_tls,
        )
        with pytest.raises(smtplib.SMTPAuthenticationError):
            bad.send(raw, ["a@example.com"])
        clear = SmtpSender(LOOPBACK, port, JUDGE)  # no STARTTLS: the server insists
        with pytest.raises(smtplib.SMTPException):
            clear.send(raw, ["a@example.com"])
    finally:
        controller.stop()


class _Impatient(SMTPServer):
    """A relay that, like Postfix, says 421 and hangs up on a session quiet too long."""

    def _timeout_cb(self) -> None:
        assert self.transport is not None
        self.transport.write(b"421 4.4.2 relay.test Error: timeout exceeded\r\n")
        self.transport.close()


class _ImpatientRelay(Controller):
    def factory(self) -> SMTPServer:
        return _Impatient(self.handler, timeout=0.3)


def test_a_relay_dropping_an_idle_connection_delays_nothing(sqlite_db: str) -> None:
    sink = MailSink()
    relay = _ImpatientRelay(_Recorder(sink), hostname="127.0.0.1", port=free_port())
    relay.start()
    try:
        sender = SmtpSender("127.0.0.1", relay.port, "judge@example.org")
        outbox.enqueue(build_message(sender="judge@example.org", to=["a@example.org"],
                                     subject="one", text="first"))  # fmt: skip
        assert outbox.flush(sender).sent == 1
        time.sleep(1.0)  # the relay times the session out: 421, then it hangs up
        outbox.enqueue(build_message(sender="judge@example.org", to=["a@example.org"],
                                     subject="two", text="second"))  # fmt: skip
        result = outbox.flush(sender)
        assert (result.sent, result.retried) == (1, 0)
        assert [m.message["Subject"] for m in sink.mails] == ["one", "two"]
        sender.close()
    finally:
        relay.stop()


def test_a_refused_data_raises_as_sendmail_did_and_the_next_mail_goes(tmp_path: Path) -> None:
    """The relay refuses the content (554, permanent; 451, worth a retry): the same
    SMTPDataError smtplib's sendmail raised, and the sender's next mail is taken."""
    keeper = _Keeper()
    controller = Controller(keeper, hostname=LOOPBACK, port=free_port())
    controller.start()
    raw = build_message(sender=JUDGE, to=["a@example.com"], subject="x", text="x").as_bytes()
    try:
        with SmtpSender(LOOPBACK, controller.port, JUDGE, timeout=5) as sender:
            for reply, permanent in (("554 5.7.1 spam", True), ("451 4.3.0 later", False)):
                keeper.reply = reply
                with pytest.raises(smtplib.SMTPDataError) as refused:
                    sender.send(raw, ["a@example.com"])
                assert refused.value.smtp_code == int(reply[:3])
                assert is_permanent(refused.value) is permanent
            keeper.reply = "250 2.0.0 Ok: queued as 4Xyz"
            assert sender.send(raw, ["a@example.com"]) == Handed("250 2.0.0 Ok: queued as 4Xyz")
        assert len(keeper.mails) == 3
    finally:
        controller.stop()


@pytest.mark.parametrize("table", ["bounce", "board_picture"])
def test_mail_the_database_went_away_under_is_put_back_not_counted_failed(
    pg: str, smtp_sink: SmtpSink, cheap_scrypt: None, table: str
) -> None:
    """The sender's session is ended (a failover, a restart) after it leased a results
    mail and before it sent it: while it asks which addresses bounce (`bounce`), or reads
    the board picture to make the mail (`board_picture`). The mail is put back as it was,
    due at once: no failed attempt counted (it would wait outbound.retry_first_seconds),
    not left leased (it would wait lease_seconds), not logged as the relay's refusal."""
    import psycopg

    from mailjudge.outbound.draft import MailDraft
    from mailjudge.service import games
    from mailjudge.store import db
    from mailjudge.store.models import BoardPicture
    from mailjudge.store.outages import DatabaseAway

    game = games.create_game("ivory", "gm@example.com", "gm-pw")
    picture = BoardPicture.create(game=game, phase="S1901M", sequence=0, key="k", svg="<svg/>",
                                  png=b"\x89PNG")  # fmt: skip
    draft = MailDraft(sender=JUDGE, to=("alice@example.com",), subject="results S1901M",
                      text="Results\n", board=picture.id)  # fmt: skip
    row = outbox.enqueue_draft(draft)
    retry = RetryPolicy(first_delay=timedelta(minutes=5), lease=timedelta(minutes=10))
    outcome: dict[str, object] = {}

    def send() -> None:
        with sender_for(smtp_sink) as sender:
            try:
                outbox.flush(sender, retry=retry)
            except DatabaseAway as err:
                outcome["away"] = str(err)
            db.forget_connection()  # as mailjudge.store.outages does; the next round connects
            outcome["then"] = outbox.flush(sender, retry=retry)

    blocker = psycopg.connect(pg)
    try:
        with blocker.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
            thread = threading.Thread(target=send)
            thread.start()
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                # The sender's session, waiting for this schema's table (by its lock).
                cursor.execute("SELECT pid FROM pg_locks WHERE relation = %s::regclass "
                               "AND NOT granted", (table,))  # fmt: skip
                if found := cursor.fetchall():
                    break
                time.sleep(0.05)
            assert found, "the sender never waited for the table"
            cursor.execute("SELECT pg_terminate_backend(%s)", (found[0][0],))
        blocker.rollback()
        thread.join(30)
    finally:
        blocker.close()
    assert "away" in outcome  # the round ended as an outage, not as a failed send
    then = outcome["then"]
    assert isinstance(then, outbox.FlushResult) and then.sent == 1 and then.retried == 0
    assert len(smtp_sink.wait_for(1)) == 1
    kept = Outbox.get_by_id(row.id)
    assert kept.state == "sent" and kept.attempts == 1 and kept.last_error == ""


def test_a_killed_senders_mails_are_sent_at_once_not_when_the_lease_runs_out(
    any_db: str, smtp_sink: SmtpSink
) -> None:
    """Another process leases a mail and is killed before sending it (a judge killed with
    mail in hand). The next sender of the machine sends it at once; the lease of a live
    sender (this process's own) is left alone until it runs out."""
    import os
    import signal
    import sys

    from mailjudge.outbound import leases

    mine = notice(1)
    assert [r.id for r in outbox.claim_due(utcnow(), 1, lease=timedelta(minutes=10))] == [mine.id]
    theirs = notice(2)
    code = (
        "import time; from datetime import timedelta; from mailjudge.store import db; "
        "from mailjudge.store.models import utcnow; from mailjudge.outbound import outbox; "
        f"db.connect({any_db!r}); "
        "rows = outbox.claim_due(utcnow(), 1, lease=timedelta(minutes=10)); "
        "print(rows[0].id, flush=True); time.sleep(600)"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    assert child.stdout is not None
    assert int(child.stdout.readline()) == theirs.id
    child.send_signal(signal.SIGKILL)  # killed with the mail in hand
    child.wait(10)
    leased = Outbox.get_by_id(theirs.id)
    assert leased.state == "sending" and f":{child.pid}:" in leased.leased_by
    assert Outbox.get_by_id(mine.id).leased_by == leases.holder()
    outbox._leases_looked = 0.0  # look for gone senders now, not a second after the last look
    with sender_for(smtp_sink) as sender:
        result = outbox.flush(sender)
    assert result.sent == 1 and Outbox.get_by_id(theirs.id).state == "sent"
    assert Outbox.get_by_id(mine.id).state == "sending"  # still leased to a live sender
