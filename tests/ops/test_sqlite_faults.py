"""SQLite at its edges, under a steady stream of order mails (issue 51, point 4): the disk
the database lives on fills up (a small tmpfs of the test's own, filled by a file), then
is freed. While it is full, mail is refused with a 4xx (senders' servers try again
later), never a 5xx, and the log says so once for each part of the judge; nothing that
got a 250 is lost, answered twice or shunted; once there is room again the judge carries
on by itself. The judge killed is
tests/ops/test_reliability_crash.py (and the SQLite kill soak, tests/ops/test_kill_soak.py)."""

from __future__ import annotations

import errno
import subprocess
import time
from pathlib import Path

import pytest
from helpers.ha import judges_on, set_up_games, streams_to, wait_next_answer
from helpers.reliability import count, timed_sink, wait_for_answers


def _mount_small_disk(where: Path, size: str) -> None:
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs",
                           str(where)], capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs to fill ({done.stderr.strip() or 'mount failed'}):"
                    " this test needs root and permission to mount")  # fmt: skip


def _fill(disk: Path) -> Path:
    """A file that takes every free block of ``disk``."""
    filler = disk / "filler"
    with filler.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError as err:
            assert err.errno == errno.ENOSPC, err
    return filler


def test_a_full_disk_refuses_mail_4xx_and_the_judge_carries_on_when_freed(
    tmp_path: Path,
) -> None:
    disk = tmp_path / "disk"
    _mount_small_disk(disk, "24m")
    try:
        url = f"sqlite:///{disk / 'judge.db'}"
        mails = set_up_games(url)
        with (
            timed_sink() as sink,
            judges_on(tmp_path, url, sink, 1) as judges,
            streams_to(judges, mails, 10.0, sink) as streams,
        ):
            (stream,) = streams
            filler = _fill(disk)
            deadline = time.monotonic() + 60
            while not stream.refusals and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(2.0)  # full for a while: the sender's servers keep trying
            refused_while_full = dict(stream.refusals)
            filler.unlink()
            freed_at = time.monotonic()
            waited = wait_next_answer(sink, streams, freed_at, timeout=90)
            time.sleep(2.0)
            stream.stop()
            wait_for_answers(sink, stream.message_ids, timeout=90)
            figures = count(sink, stream.message_ids, url)
        log = (tmp_path / "judge0.log").read_text()
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
    told = [line for line in log.splitlines() if "cannot be used" in line]
    print(f"\ndisk full: refused while full {refused_while_full}; next answer {waited:.2f} s "
          f"after the disk was freed; {len(told)} lines saying the database cannot be used; "
          + ", ".join(figures.lines()))  # fmt: skip
    assert refused_while_full, "the full disk never refused a mail"
    assert all(code.startswith("4") for code in refused_while_full), refused_while_full
    assert figures.lost == 0 and figures.duplicates == 0, figures.lines()
    assert figures.shunted == 0 and figures.processed_twice == 0, figures.lines()
    # The log says it once for each part of the judge (listener, clock, worker, sender),
    # not once a try: reads go on on a full disk, and do not end the outage.
    assert 0 < len(told) <= 4, told
