"""The secrecy check that runs after every end-to-end test (conftest.py) finds a password
or a ballot where it should not be, and lets a voter's own echo and published press by."""

from __future__ import annotations

from helpers.e2e import wire
from helpers.mailstack import Received
from helpers.secrecy import Secrets

from mailjudge.outbound.message import judge_headers, plain_text_bytes


def _player_mail(sender: str, text: str) -> bytes:
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "judge@example.test"
    msg["Subject"] = "commands"
    msg.set_content(text)
    return wire(msg)


def _out(to: str, text: str) -> Received:
    headers = judge_headers(sender="judge@example.test", to=[to], subject="Re: x")
    raw = plain_text_bytes(headers, text)
    return Received("judge@example.test", [to], raw)


def _secrets() -> Secrets:
    secrets = Secrets()
    secrets.read(_player_mail("ann@p.test", "SIGNON france@g hunter-2\nVOTE OUT TURKEY 3\n"))
    secrets.read(_player_mail("bob@p.test", "SET PASSWORD Zebra9\nVOTE OUT TURKEY 3\n"))
    secrets.read(_player_mail("cy@p.test", "PRESS TO M\nVOTE OUT ITALY 3\nENDPRESS\n"))
    return secrets


def test_a_password_anywhere_in_a_mail_out_is_a_leak() -> None:
    secrets = _secrets()
    assert secrets.passwords == {"hunter-2", "Zebra9"}
    leaks = secrets.leaks([_out("ann@p.test", "> SIGNON france@g hunter-2\nok")])
    assert leaks == ["mail 'Re: x' to ann@p.test carries the password 'hunter-2'"]
    # Base64 bodies are read decoded.
    assert secrets.leaks([_out("cy@p.test", "é" * 90 + "\nyour password is Zebra9")])
    assert not secrets.leaks([_out("ann@p.test", "> SIGNON france@g ********\nhunter-23")])


def test_a_ballot_goes_only_to_those_who_cast_it() -> None:
    secrets = _secrets()
    echo = "> VOTE OUT TURKEY 3\nvote-out ballot recorded"
    assert not secrets.leaks([_out("ann@p.test", echo), _out("bob@p.test", echo)])
    assert secrets.leaks([_out("cy@p.test", echo)]) == [
        "mail 'Re: x' to cy@p.test shows the ballot '> VOTE OUT TURKEY 3'"
    ]
    # Press is published by its writer's choice.
    assert not secrets.leaks([_out("dee@p.test", "VOTE OUT ITALY 3")])
