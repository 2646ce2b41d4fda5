"""Real mail servers on loopback for the tests: a throw-away Dovecot, an aiosmtpd sink.

`Dovecot` writes a self-contained configuration under a private directory (nothing
under /etc/dovecot is read), runs `dovecot -F` as a child process on free 127.0.0.1
ports and stops it by that process id; `crash()` kills its process group instead, to
break open connections as a real outage does. The `dovecot` fixture (one per session) skips
the tests that need it when it cannot start, or fails them when
MAILJUDGE_REQUIRE_DOVECOT=1 (CI sets it, so a missing server is never silent).

`SmtpSink` is an aiosmtpd server that keeps what it receives, for outbound tests.

Environment: MAILJUDGE_DOVECOT_BINARY (default: dovecot on PATH or /usr/sbin/dovecot),
MAILJUDGE_KEEP_DOVECOT=1 keeps the directory (config, logs, maildirs) for a look.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from imapclient import IMAPClient  # type: ignore[import-untyped]

from mailjudge.demo.sink import LOOPBACK, MailSink, Received, free_port

__all__ = ["LOOPBACK", "Dovecot", "Received", "SmtpSink", "free_port"]

INSTALL_HINT = (
    "install it as root with: apt-get update && "
    "apt-get install -y --no-install-recommends dovecot-imapd openssl"
)


def _dovecot_binary() -> Path | None:
    named = os.environ.get("MAILJUDGE_DOVECOT_BINARY")
    candidates = [named] if named else [shutil.which("dovecot"), "/usr/sbin/dovecot"]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


def _make_certificate(directory: Path) -> tuple[Path, Path] | None:
    """A self-signed certificate for 127.0.0.1, or None without openssl."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    cert, key = directory / "cert.pem", directory / "key.pem"
    request = "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2"
    subject = ["-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]
    subprocess.run(
        [openssl, *request.split(), *subject, "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    key.chmod(0o600)
    return cert, key


@dataclass
class Dovecot:
    directory: Path
    binary: Path
    users: dict[str, str]
    imap_port: int = field(default_factory=free_port)
    imaps_port: int | None = None
    cafile: Path | None = None
    process: subprocess.Popen[bytes] | None = None

    @property
    def conf(self) -> Path:
        return self.directory / "dovecot.conf"

    @property
    def log(self) -> Path:
        return self.directory / "dovecot.log"

    def configure(self) -> None:
        self.directory.chmod(0o755)  # mail processes run as another user when we are root
        mail = self.directory / "mail"
        mail.mkdir(exist_ok=True)
        (self.directory / "run").mkdir(exist_ok=True)
        (self.directory / "state").mkdir(exist_ok=True)
        users = self.directory / "users"
        users.write_text("".join(f"{u}:{{PLAIN}}{p}::::::\n" for u, p in self.users.items()))
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            uid, gid = nobody.pw_uid, nobody.pw_gid
            os.chown(mail, uid, gid)
            rootless = ""
        else:
            uid, gid = os.getuid(), os.getgid()
            me = pwd.getpwuid(uid).pw_name
            # Rootless Dovecot: every process runs as us, and nothing may chroot.
            rootless = (
                f"default_login_user = {me}\ndefault_internal_user = {me}\n"
                f"default_internal_group = {self.directory.group()}\n"
                f"service auth-worker {{\n  user = {me}\n}}\n"
                + "".join(
                    f"service {name} {{\n  chroot =\n}}\n"
                    for name in ("anvil", "imap-login", "pop3-login", "submission-login")
                )
            )
        certificate = _make_certificate(self.directory)
        if certificate is not None:
            self.cafile = certificate[0]
            self.imaps_port = self.imaps_port or free_port()
            tls = f"ssl = yes\nssl_cert = <{certificate[0]}\nssl_key = <{certificate[1]}\n"
        else:
            tls = "ssl = no\n"
        d = self.directory
        self.conf.write_text(
            f"""# Test server written by tests/helpers/mailstack.py
protocols = imap
listen = {LOOPBACK}
base_dir = {d}/run
state_dir = {d}/state
instance_name = mailjudge-test-{d.name}
log_path = {self.log}
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%Lu {users}
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={mail}/%Ln
}}
mail_location = maildir:~/Maildir
mail_fsync = never
mail_max_userip_connections = 200
first_valid_uid = 1
{tls}service imap-login {{
  inet_listener imap {{
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    port = {self.imaps_port or 0}
    ssl = yes
  }}
}}
{rootless}"""
        )

    def start(self, timeout: float = 15.0) -> None:
        self.process = subprocess.Popen(
            [str(self.binary), "-F", "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=(self.directory / "stderr.log").open("wb"),
            start_new_session=True,  # a Ctrl-C in pytest is for pytest, not for Dovecot
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"dovecot exited with {self.process.returncode}: {self._tail()}")
            if self._greets():
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"dovecot did not greet on port {self.imap_port}: {self._tail()}")

    def _greets(self) -> bool:
        try:
            with socket.create_connection((LOOPBACK, self.imap_port), timeout=1) as conn:
                return conn.recv(64).startswith(b"* OK")
        except OSError:
            return False

    def _tail(self) -> str:
        text = ""
        for name in ("stderr.log", "dovecot.log"):
            path = self.directory / name
            if path.exists():
                text += path.read_text(errors="replace")[-1500:]
        return text.strip()

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM to our own master process (it takes its children down), SIGKILL to
        the whole group it leads if it lingers."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout)
        # A login process may outlive its master for a moment and keep the login socket
        # answering: a Dovecot started at once would then find it "already running".
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    def restart(self) -> None:
        self.stop()
        self.start()

    def crash(self) -> None:
        """Kill the master and every Dovecot process under it at once (a power cut, as
        far as clients can tell: open connections break), then start again."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        self.start()

    # -- helpers for tests ------------------------------------------------------------

    def connect(self, user: str = "judge@example.test") -> Any:
        client = IMAPClient(LOOPBACK, port=self.imap_port, ssl=False, timeout=10)
        client.login(user, self.users[user])
        return client

    def append(self, folder: str, *messages: bytes, user: str = "judge@example.test") -> None:
        client = self.connect(user)
        try:
            for raw in messages:
                client.append(folder, raw)
        finally:
            client.logout()


def _unavailable(reason: str) -> None:
    message = f"real Dovecot unavailable: {reason}; {INSTALL_HINT}"
    if os.environ.get("MAILJUDGE_REQUIRE_DOVECOT") == "1":
        pytest.fail(f"{message} (MAILJUDGE_REQUIRE_DOVECOT=1 requires it)", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    binary = _dovecot_binary()
    if binary is None:
        _unavailable("no dovecot binary found")
        return
    # Not pytest's tmp_path: its 0700 parents keep the mail user (nobody) out.
    directory = Path(tempfile.mkdtemp(prefix="mailjudge-dovecot-", dir="/tmp"))
    server = Dovecot(
        directory,
        binary,
        users={"judge@example.test": "judge-pass", "player@example.test": "player-pass"},
    )
    try:
        server.configure()
        server.start()
    except (OSError, RuntimeError, subprocess.CalledProcessError, KeyError) as exc:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)
        _unavailable(str(exc))
        return
    try:
        yield server
    finally:
        server.stop()
        if os.environ.get("MAILJUDGE_KEEP_DOVECOT") != "1":
            shutil.rmtree(directory, ignore_errors=True)


# -- an SMTP sink for what the judge sends -----------------------------------------------


class SmtpSink(MailSink):
    """The package's sink, refusing recipients named nobody@ (550) and busy@ (451)."""

    def refusal(self, address: str) -> str | None:
        if address.startswith("nobody@"):
            return "550 5.1.1 No such user here"
        if address.startswith("busy@"):
            return "451 4.2.1 Mailbox busy, try later"
        return None


@pytest.fixture
def smtp_sink() -> Iterator[SmtpSink]:
    sink = SmtpSink()
    sink.start()
    try:
        yield sink
    finally:
        sink.stop()
