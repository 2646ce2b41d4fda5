"""Load, short form: order mails stream in over SMTP for a while at a steady rate; every one
is answered once. (Speed and memory are for the long form, which prints them:
`python tests/soak/soak_load.py --minutes 10 --rate 100`.)"""

from __future__ import annotations

from pathlib import Path

from helpers.reliability import run_load


def test_a_steady_stream_is_answered_mail_for_mail(tmp_path: Path) -> None:
    figures = run_load(tmp_path, seconds=15, rate=30, sample_every=1.0)
    # How many were taken in the 15 s is the machine's business (the soak prints the rate).
    assert figures.accepted > 0, figures.lines()
    assert figures.lost == 0 and figures.duplicates == 0 and figures.resent == 0, figures.lines()
    assert figures.processed_twice == 0 and figures.shunted == 0, figures.lines()
    assert figures.extra["rss_peak_mib"], figures.lines()  # the judge's memory was sampled
