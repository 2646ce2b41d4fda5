"""DKIM (issue 17, point 5): with dkim.selector and dkim.key_file set, every mail the
judge sends (replies, notices, results with their pictures, press) carries a signature
that dkimpy's verify accepts against the public key the operator would publish."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path
from typing import Any

import dkim
import pytest
from helpers.e2e import HARNESSES, JUDGE, player, seated, set_up_game

from mailjudge.config.settings import DkimSettings
from mailjudge.demo.mailroom import running_judge
from mailjudge.outbound.dkim_sign import DkimError, DkimSigner


def make_key(folder: Path) -> tuple[Path, bytes]:
    """A 2048-bit RSA key and the TXT record that publishes it."""
    key = folder / "dkim.pem"
    subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True,
                   capture_output=True)  # fmt: skip
    der = subprocess.run(["openssl", "rsa", "-in", str(key), "-pubout", "-outform", "DER"],
                         check=True, capture_output=True).stdout  # fmt: skip
    return key, b"v=DKIM1; k=rsa; p=" + base64.b64encode(der)


def test_every_kind_of_mail_is_signed(tmp_path: Path, smtp_sink: Any, cheap_scrypt: None) -> None:
    key, record = make_key(tmp_path)

    def dns(name: bytes, timeout: int = 5) -> bytes | None:
        return record if name == b"mj2026._domainkey.example.test." else None

    settings = {"dkim_selector": "mj2026", "dkim_key_file": str(key)}
    with running_judge(tmp_path / "judge.db", smtp_sink, JUDGE, **settings) as h:
        HARNESSES.append(h)
        set_up_game(h, "signed")  # replies, and the start notices
        table = seated(h, "signed")
        table.say(table.players["ENGLAND"],
                  f"{table.signon('ENGLAND')}\nPRESS TO FRANCE\nhello\nENDPRESS")  # fmt: skip
        phase = table.play_phase({p: [] for p in table.players})  # results with pictures
        h.wait_until(lambda: len(h.results_for("signed", phase)) == 8)
        h.wait_until(lambda: any("press from" in m.message["Subject"] for m in h.sink.mails))
    subjects = set()
    for mail in h.sink.mails:
        assert mail.raw.startswith(b"DKIM-Signature:"), mail.message["Subject"]
        assert dkim.verify(mail.raw, dnsfunc=dns), mail.message["Subject"]
        subjects.add(str(mail.message["Subject"]))
    kinds = (f"Re: commands [signed {phase}]", "[signed] the game has started", "[signed] press from ENGLAND",
             f"[signed] results {phase}")  # fmt: skip
    assert set(kinds) <= subjects, subjects
    # The start and the results carry the deadline's invitation (text/calendar), signed too.
    invited = {str(m.message["Subject"]) for m in h.sink.mails
               if any(p.get_content_type() == "text/calendar" for p in m.message.walk())}  # fmt: skip
    assert {kinds[1], kinds[3]} <= invited, invited
    tampered = h.sink.mails[-1].raw.replace(b"Subject: [signed]", b"Subject: [forged]")
    assert not dkim.verify(tampered, dnsfunc=dns)
    assert any(m.rcpt_tos == [player("FRANCE")] for m in h.sink.mails)


def test_a_bad_key_file_is_reported(tmp_path: Path) -> None:
    missing = DkimSettings(selector="s", key_file=str(tmp_path / "none.pem"))
    with pytest.raises(DkimError, match=r"none\.pem"):
        DkimSigner.from_settings(missing, "example.test")
    (tmp_path / "public.pem").write_text("-----BEGIN PUBLIC KEY-----\n")
    public = DkimSettings(selector="s", key_file=str(tmp_path / "public.pem"))
    with pytest.raises(DkimError, match="no PEM private key"):
        DkimSigner.from_settings(public, "example.test")
    assert DkimSigner.from_settings(DkimSettings(), "example.test") is None
