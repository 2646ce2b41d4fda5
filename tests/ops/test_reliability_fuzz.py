"""Fuzzing the inbound path: generated malformed, oversized, wrongly encoded, multipart and
HTML-only mail goes through the real spool and pipeline. Nothing escapes as an exception
(no mail is shunted); each is answered exactly once, or dropped by the loop rules.
Long form (10,000 mails): tests/soak/soak_fuzz.py."""

from __future__ import annotations

from pathlib import Path

from helpers.e2e import judge_settings
from helpers.fuzzmail import FuzzMail, check_one, fuzz_mails
from hypothesis import HealthCheck, given, settings


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(mail=fuzz_mails())
def test_no_mail_breaks_the_judge_and_each_is_answered_once_or_dropped(
    sqlite_db: str, mail: FuzzMail
) -> None:
    # One database for all examples: what earlier mails left must not upset later ones.
    check_one(mail, judge_settings(Path(sqlite_db.removeprefix("sqlite:///")), 25))
