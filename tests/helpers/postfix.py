"""A private Postfix on loopback, configured with deploy/postfix/, for the hand-off test.

The installed Postfix binaries run with a configuration of their own in a scratch folder
(`postfix -c DIR`): nothing under /etc/postfix is read or written. The folder's main.cf is
the few lines a private instance needs (its queue, its log, loopback only, no DNS) followed
by deploy/postfix/main.cf as an operator would append it, the transport map pointing at the
port the judge listens on. Postfix's master must start as root; without Postfix or root
the test is skipped, or fails when MAILJUDGE_REQUIRE_POSTFIX=1 (CI sets it).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from mailjudge.config.paths import ROOT_DIR
from mailjudge.demo.sink import LOOPBACK, free_port

DEPLOY = ROOT_DIR / "deploy" / "postfix"
DOMAIN = "dip.example.org"  # the judge's domain in deploy/postfix/
INSTALL_HINT = "install it as root with: apt-get install -y postfix"
MASTER = Path("/usr/lib/postfix/sbin/master")


def postfix_binary() -> str:
    """The postfix command, or skip (fail under MAILJUDGE_REQUIRE_POSTFIX=1) saying why."""
    found = shutil.which("postfix") or "/usr/sbin/postfix"
    reason = None
    if not (os.access(found, os.X_OK) and MASTER.exists()):
        reason = f"Postfix is not installed; {INSTALL_HINT}"
    elif os.geteuid() != 0:
        reason = "Postfix's master process must start as root"
    if reason is not None:
        if os.environ.get("MAILJUDGE_REQUIRE_POSTFIX") == "1":
            pytest.fail(f"{reason}, and MAILJUDGE_REQUIRE_POSTFIX=1 requires it")
        pytest.skip(reason)
    return found


def _account(*names: str) -> str:
    for name in names:
        if subprocess.run(["id", name], capture_output=True).returncode == 0:
            return name
    raise RuntimeError(f"none of the accounts {names} exists")


def _private_lines(folder: Path, port: int) -> str:
    """What any private instance needs, before the operator's lines from deploy/."""
    owner = _account("postfix", "mail")
    group = "postdrop" if owner == "postfix" else "mail"
    return f"""compatibility_level = 3.6
queue_directory = {folder}/spool
data_directory = {folder}/data
meta_directory = {folder}/etc
maillog_file = {folder}/log/postfix.log
maillog_file_prefixes = {folder}/log
syslog_name = mailjudge-test-postfix
mail_owner = {owner}
setgid_group = {group}
myhostname = mx.example.test
mydestination =
local_recipient_maps =
alias_maps =
alias_database =
inet_interfaces = {LOOPBACK}
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
smtp_dns_support_level = disabled
smtpd_tls_security_level = none
queue_run_delay = 2s
minimal_backoff_time = 2s
maximal_backoff_time = 10s
# {port}: the SMTP port of this instance (master.cf)
"""


MASTER_CF = """{port} inet n - n - - smtpd
pickup unix n - n 60 1 pickup
cleanup unix n - n - 0 cleanup
qmgr unix n - n 300 1 qmgr
rewrite unix - - n - - trivial-rewrite
bounce unix - - n - 0 bounce
defer unix - - n - 0 bounce
trace unix - - n - 0 bounce
verify unix - - n - 1 verify
flush unix n - n 1000? 0 flush
proxymap unix - - n - - proxymap
smtp unix - - n - - smtp
relay unix - - n - - smtp
lmtp unix - - n - - lmtp
showq unix n - n - - showq
error unix - - n - - error
retry unix - - n - - error
discard unix - - n - - discard
anvil unix - - n - 1 anvil
scache unix - - n - 1 scache
postlog unix-dgram n - n - 1 postlogd
"""


def deployed_setting(name: str) -> str:
    """A setting's value as deploy/postfix/main.cf has it (an operator's copy gets this)."""
    return subprocess.run(
        ["postconf", "-c", str(DEPLOY), "-h", name],
        capture_output=True, text=True, timeout=30, check=True,
    ).stdout.strip()  # fmt: skip


def _with_settings(main_cf: str, settings: dict[str, str]) -> str:
    """deploy/postfix/main.cf with some of its own lines given other values (a test that
    waits out a cache time sets a shorter one): each line must be in the file."""
    for name, value in settings.items():
        main_cf, found = re.subn(rf"(?m)^{re.escape(name)} = .*$", f"{name} = {value}", main_cf)
        if found != 1:
            raise ValueError(f"{name} is not set once in deploy/postfix/main.cf")
    return main_cf


class Postfix:
    """One private Postfix: `port` takes SMTP; the judge's domain goes to `judge_lmtp_port`.
    `settings` replace the values of some of deploy/postfix/main.cf's own lines."""

    def __init__(
        self, folder: Path, judge_lmtp_port: int, settings: dict[str, str] | None = None
    ) -> None:
        self.folder = folder
        self.settings = settings or {}
        self.port = free_port()
        self.judge_lmtp_port = judge_lmtp_port
        self.binary = postfix_binary()
        self.etc = folder / "etc"

    def configure(self) -> None:
        for sub in ("etc", "spool", "data", "log"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True)
        shutil.chown(self.folder / "data", user=_account("postfix", "mail"))
        transport = self.etc / "mailjudge-transport"
        transport.write_text(
            (DEPLOY / "transport").read_text().replace(":8024", f":{self.judge_lmtp_port}")
        )
        verify, virtual = self.etc / "mailjudge-verify", self.etc / "mailjudge-virtual"
        shutil.copy(DEPLOY / "verify", verify)
        shutil.copy(DEPLOY / "virtual", virtual)
        operator = _with_settings((DEPLOY / "main.cf").read_text(), self.settings)
        operator = operator.replace("/etc/postfix/mailjudge-transport", str(transport))
        operator = operator.replace("/etc/postfix/mailjudge-verify", str(verify))
        operator = operator.replace("/etc/postfix/mailjudge-virtual", str(virtual))
        main = _private_lines(self.folder, self.port) + "\n# deploy/postfix/main.cf\n" + operator
        (self.etc / "main.cf").write_text(main)
        (self.etc / "master.cf").write_text(MASTER_CF.format(port=f"{LOOPBACK}:{self.port}"))
        for name in ("postfix-files", "dynamicmaps.cf"):
            shutil.copy(Path("/etc/postfix") / name, self.etc / name)
        for sub in ("postfix-files.d", "dynamicmaps.cf.d"):
            (self.etc / sub).mkdir(exist_ok=True)

    def postconf(self) -> subprocess.CompletedProcess[str]:
        """`postconf -n` on the configuration: it warns about any setting it does not know."""
        return subprocess.run(
            ["postconf", "-c", str(self.etc), "-n"], capture_output=True, text=True, timeout=30
        )

    def setting(self, name: str) -> str:
        """One setting's value in force (postconf -h)."""
        return subprocess.run(
            ["postconf", "-c", str(self.etc), "-h", name],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout.strip()  # fmt: skip

    def start(self) -> None:
        run = subprocess.run(
            [self.binary, "-c", str(self.etc), "start"], capture_output=True, text=True, timeout=60
        )
        if run.returncode != 0:
            raise RuntimeError(f"postfix did not start: {run.stderr}{self.log()}")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((LOOPBACK, self.port), timeout=1) as conn:
                    if conn.recv(100).startswith(b"220"):
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"no SMTP greeting from postfix on {self.port}: {self.log()}")

    def master_pid(self) -> int | None:
        try:
            return int((self.folder / "spool" / "pid" / "master.pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def stop(self) -> None:
        pid = self.master_pid()
        subprocess.run([self.binary, "-c", str(self.etc), "stop"], capture_output=True, timeout=30)
        deadline = time.monotonic() + 10
        while pid is not None and time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
        if pid is not None:
            os.kill(pid, signal.SIGKILL)

    def log(self) -> str:
        path = self.folder / "log" / "postfix.log"
        return path.read_text(errors="replace") if path.exists() else ""
