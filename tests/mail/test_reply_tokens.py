"""Issue 34 point 3: Reply tokens (game/reply_tokens.py) and the Authentication-Results
headers that must vouch for the sender (inbound/auth_results.py)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from mailjudge.commands.run import execute
from mailjudge.config import settings, settings_files
from mailjudge.game import reply_tokens
from mailjudge.game.state import get_game, orders_on_file, person_of
from mailjudge.inbound.auth_results import parse, sender_proven
from mailjudge.inbound.parse import parse_mail
from mailjudge.inbound.quoted_block import edited_quoted_block
from mailjudge.secrecy.masking import mask_text
from mailjudge.service.games import create_game, start_game
from mailjudge.service.openings import take_over
from mailjudge.service.ready_block import ready_lines
from mailjudge.service.seats import join, resign, set_password
from mailjudge.store.models import Seat, utcnow

MTA = "mx.judge.test"
ADDRESS = "p0@players.test"


@pytest.fixture
def tokens_on() -> Iterator[None]:
    before = settings._CURRENT
    environ = {"MAILJUDGE_SECURITY_TRUSTED_AUTHSERV_ID": MTA,
               "MAILJUDGE_SECURITY_TOKEN_KEY": "a-long-random-key-for-tests-only"}  # fmt: skip
    settings.use_settings(settings_files.load_settings(None, environ))
    yield
    settings.use_settings(before)  # type: ignore[arg-type]


def _proven(headers: str, address: str = ADDRESS) -> bool:
    raw = (headers + f"From: {address}\r\nSubject: x\r\n\r\nbody\r\n").encode()
    return sender_proven(parse_mail(raw).auth_results, MTA, address)


def test_a_header_with_comments_quotes_and_several_results_is_read() -> None:
    value = (
        'mx.judge.test (authserv; "quoted (not a comment)"); spf=pass (sender SPF '
        'authorized) smtp.mailfrom="p0@players.test"; dkim = fail reason="bad; sig" '
        "header.d=players.test; dkim=pass (2048-bit key) header.d=players.test header.s=s1"
    )
    found = parse(value)
    assert found is not None and found.authserv_id == MTA
    assert [(r.method, r.result) for r in found.results] == [
        ("spf", "pass"), ("dkim", "fail"), ("dkim", "pass")]  # fmt: skip
    assert found.results[0].props == {"smtp.mailfrom": ADDRESS}
    assert found.results[2].props["header.d"] == "players.test"


def test_dkim_or_spf_passing_for_the_address_proves_it() -> None:
    assert _proven(f"Authentication-Results: {MTA}; dkim=pass header.d=players.test\r\n")
    assert _proven(f"Authentication-Results: {MTA}; dkim=pass header.i=@players.test\r\n")
    assert _proven(f"Authentication-Results: {MTA}; spf=pass smtp.mailfrom={ADDRESS}\r\n")
    assert _proven(
        f"Authentication-Results: {MTA}; dkim=pass header.d=players.test\r\n",
        "p0@mail.players.test",  # a subdomain: relaxed alignment
    )
    assert _proven(f"Authentication-Results: {MTA}; dmarc=pass header.from=players.test\r\n")
    assert not _proven(f"Authentication-Results: {MTA}; dmarc=pass header.from=evil.test\r\n")
    assert not _proven(f"Authentication-Results: {MTA}; dkim=fail header.d=players.test\r\n")
    assert not _proven(f"Authentication-Results: {MTA}; dkim=pass header.d=evil.test\r\n")
    assert not _proven(f"Authentication-Results: {MTA}; dkim=pass header.d=test\r\n")
    assert not _proven(f"Authentication-Results: {MTA}; spf=pass smtp.mailfrom=x@evil.test\r\n")
    assert not _proven(f"Authentication-Results: {MTA}; none\r\n")
    assert not _proven("")


def test_another_authserv_id_or_a_header_below_received_is_not_trusted() -> None:
    assert not _proven("Authentication-Results: mx.evil.test; dkim=pass header.d=players.test\r\n")
    forged = (
        "Received: from mail.evil.test by mx.judge.test; Wed, 25 Nov 2026 10:00:00 +0000\r\n"
        f"Authentication-Results: {MTA}; dkim=pass header.d=players.test\r\n"
    )
    assert not _proven(forged)
    # The MTA's own header on top, saying it failed, and a forged pass lower down.
    assert not _proven(f"Authentication-Results: {MTA}; dkim=fail header.d=players.test\r\n"
                       + forged)  # fmt: skip
    assert not sender_proven(parse_mail(b"From: a@b.test\r\n\r\nx").auth_results, None, "a@b.test")


def _seat() -> Seat:
    game = create_game("tk", "gm@players.test", "pw", rules="START_MASTER")
    for i in range(7):
        join(game, f"p{i}@players.test", f"pw{i}", rng=random.Random(i))
    start_game(get_game("tk"), random.Random(1))
    return Seat.get((Seat.game == get_game("tk")) & (Seat.person == person_of(_by(ADDRESS))))


def _by(address: str) -> Seat:
    return next(s for s in Seat.select() if (p := person_of(s)) and p.email == address)


def _check(seat: Seat, word: str, sender: str = ADDRESS, proven: bool = True) -> str | None:
    return reply_tokens.check_token(Seat.get_by_id(seat.id), word, sender, proven)


@pytest.mark.usefixtures("sqlite_db", "tokens_on")
def test_a_token_is_good_for_its_seat_address_and_phase_only() -> None:
    seat = _seat()
    token = reply_tokens.token_for(get_game("tk"), seat)
    assert token is not None and token.startswith("TOKEN:")
    assert f"SIGNON {seat.name}@tk {token}" in ready_lines(get_game("tk"), seat)
    assert _check(seat, token) is None
    assert _check(seat, token.lower()) is None  # a mail client may change the case
    assert "own address" in str(_check(seat, token, sender="p1@players.test"))
    assert "could not prove" in str(_check(seat, token, proven=False))
    other = next(s for s in Seat.select() if s.id != seat.id and s.role == "player")
    assert "not (or no longer) good" in str(_check(other, token, "p1@players.test"))
    game = get_game("tk")
    game.phase = "F1901M"  # the phase ended
    game.save()
    assert "no longer" in str(_check(seat, token))


@pytest.mark.usefixtures("sqlite_db", "tokens_on")
def test_set_password_ends_the_token() -> None:
    seat = _seat()
    token = reply_tokens.token_for(get_game("tk"), seat)
    assert token is not None
    set_password(seat, "a-new-password")
    seat.save()
    assert "no longer" in str(_check(seat, token))
    fresh = reply_tokens.token_for(get_game("tk"), Seat.get_by_id(seat.id))
    assert fresh != token and _check(seat, str(fresh)) is None


@pytest.mark.usefixtures("sqlite_db", "tokens_on")
def test_resign_and_takeover_end_the_token_even_for_the_same_address() -> None:
    seat = _seat()
    token = reply_tokens.token_for(get_game("tk"), seat)
    assert token is not None
    resign(Seat.get_by_id(seat.id))
    assert "takes no token" in str(_check(seat, token))
    take_over(get_game("tk"), seat.powers[0], ADDRESS, "pw0", utcnow(), proven=True)
    assert "no longer" in str(_check(seat, token))


@pytest.mark.usefixtures("sqlite_db")
def test_without_the_settings_the_block_asks_for_the_password() -> None:
    seat = _seat()
    assert reply_tokens.token_for(get_game("tk"), seat) is None
    assert f"SIGNON {seat.name}@tk YOUR-PASSWORD" in ready_lines(get_game("tk"), seat)


def test_a_token_is_masked_and_never_read_from_a_quote() -> None:
    assert mask_text("SIGNON france@tk TOKEN:ABCDEFGHIJKLMNOP") == "SIGNON france@tk ****"
    quoted = "> SIGNON france@tk TOKEN:ABCDEFGHIJKLMNOP\n> ORDERS FRANCE\n> A PAR H\n> END"
    assert edited_quoted_block(quoted) == []


@pytest.mark.usefixtures("sqlite_db", "tokens_on")
def test_a_mail_signed_on_by_token_gives_orders_and_nothing_else() -> None:
    """A token mail of orders alone files them; one that holds anything else files
    nothing (issue 52: a refused PHASE line left the orders after it, meant for a later
    phase, filed for this one)."""
    seat = _seat()
    token = reply_tokens.token_for(get_game("tk"), seat)
    power = seat.powers[0]
    unit = next(u for u in ready_lines(get_game("tk"), seat) if u.endswith(" H"))
    orders = f"SIGNON {seat.name}@tk {token}\nORDERS {power}\n{unit}\nEND\n"
    text = orders + "SET PASSWORD stolen\nPRESS TO ALL\nhello\nENDPRESS\n"
    now = datetime.now(UTC)
    ctx = execute(text, ADDRESS, "judge@judge.test", now, sender_proven=True)
    assert [a.ok for a in ctx.answers] == [True, False, False, False], ctx.answers
    assert "none of it was filed" in ctx.answers[1].lines[0]
    assert all("may only give orders" in a.lines[0] for a in ctx.answers[2:])
    assert orders_on_file(get_game("tk")).get(power, []) == []
    assert Seat.get_by_id(seat.id).password_hash == seat.password_hash
    ahead = f"SIGNON {seat.name}@tk {token}\nPHASE F1901M\n{unit}\n"
    assert not execute(ahead, ADDRESS, "judge@judge.test", now, sender_proven=True).answers[1].ok
    assert orders_on_file(get_game("tk")).get(power, []) == []
    assert all(a.ok for a in execute(orders, ADDRESS, "judge@judge.test", now,
                                     sender_proven=True).answers)  # fmt: skip
    assert [o.text for o in orders_on_file(get_game("tk"))[power]] == [unit]
    unproven = execute(text, ADDRESS, "judge@judge.test", now)
    assert not unproven.answers[0].ok and "SIGNON" in unproven.answers[0].lines[0]
    assert unproven.seat is None and all(not a.ok for a in unproven.answers)
