"""Fuzzing, long form: `python tests/soak/soak_fuzz.py --examples 10000`.

Generated malformed, oversized, wrongly encoded, multipart and HTML-only mails (see
tests/helpers/fuzzmail.py) go through the spool and the pipeline on one SQLite database. Prints how
many were answered, dropped by the loop rules, or generated twice; exits 1 (with the
smallest failing mail hypothesis finds) when one is shunted or answered other than once."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helpers.fuzzmail import FuzzMail, check_one, fuzz_mails
from hypothesis import HealthCheck, given, settings


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--examples", type=int, default=10000)
    args = ap.parse_args()
    from helpers.e2e import judge_settings

    from mailjudge.secrecy import passwords
    from mailjudge.store import db
    from mailjudge.tools import migrations

    passwords.SCRYPT_N = 2**10
    outcomes: Counter[str] = Counter()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mailjudge-fuzz-") as folder:
        path = Path(folder) / "judge.db"
        db.connect(f"sqlite:///{path}")
        migrations.upgrade()
        judge = judge_settings(path, 25)

        @settings(max_examples=args.examples, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))  # fmt: skip
        @given(mail=fuzz_mails())
        def run(mail: FuzzMail) -> None:
            outcomes[check_one(mail, judge)] += 1

        try:
            run()
            failed = False
        except AssertionError as err:
            print(f"FAILED: {err}")
            failed = True
        db.close()
    print(f"mails: {sum(outcomes.values())}")
    for outcome in ("answered", "silent", "duplicate"):
        print(f"{outcome}: {outcomes[outcome]}")
    print("shunted or answered other than once: " + ("see above" if failed else "0"))
    print(f"seconds: {time.monotonic() - started:.0f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
