"""Shared fixtures.

`postgres_url`: a PostgreSQL URL whose connections work in a fresh, empty schema that is
dropped afterwards. The server is MAILJUDGE_TEST_POSTGRES_URL (default below). When it
cannot be reached the test is skipped, or fails if MAILJUDGE_REQUIRE_POSTGRES=1.
`harness_any_db`: the end-to-end harness's judge on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest

pytest_plugins = ["helpers.mailstack", "helpers.refusing_relay"]  # loopback servers

DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"


# The files of the suite's longest tests (10 to 80 s each on a 2-core machine) go first,
# so that the test processes finish together instead of one running a long test alone
# at the end; the rest keep their order (the sort is stable, a file's tests stay together).
LONGEST_FIRST = (
    "test_quickstart.py", "test_packaging.py", "test_demo.py", "test_outlines.py",
    "test_e2e_maps.py", "test_web_browser.py", "test_deploy_postfix.py",
    "test_kill_soak.py", "test_failover.py", "test_sqlite_faults.py",
    "test_reliability_load.py", "test_reliability_judges_kill.py", "test_reliability_crash.py",
    "test_reliability_outage.py", "test_e2e_imap.py", "test_serve_lifecycle.py",
)  # fmt: skip


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        name = item.path.name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)


@pytest.fixture(scope="session")
def postgres_server() -> str:
    url = os.environ.get("MAILJUDGE_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)
    try:
        psycopg.connect(url, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        reason = f"PostgreSQL at {url} is not reachable ({' '.join(str(exc).split())})"
        if os.environ.get("MAILJUDGE_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"{reason}, and MAILJUDGE_REQUIRE_POSTGRES=1 requires it")
        pytest.skip(f"{reason}; set MAILJUDGE_TEST_POSTGRES_URL to test against one")
    return url


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    schema = f"test_{uuid.uuid4().hex[:12]}"
    admin = psycopg.connect(postgres_server)
    admin.autocommit = True
    try:
        with admin.cursor() as cursor:
            # A test that leaves a transaction open should fail the drop, not hang it.
            cursor.execute("SET lock_timeout = '10s'")
            cursor.execute(f'CREATE SCHEMA "{schema}"')
        joiner = "&" if "?" in postgres_server else "?"
        yield f"{postgres_server}{joiner}options={quote(f'-csearch_path={schema}')}"
        with admin.cursor() as cursor:
            cursor.execute(f'DROP SCHEMA "{schema}" CASCADE')
    finally:
        admin.close()


@pytest.fixture
def pg(postgres_url: str) -> Iterator[str]:
    """A scratch PostgreSQL schema, connected and at the newest schema."""
    from mailjudge.store import db
    from mailjudge.tools import migrations

    db.connect(postgres_url)
    migrations.upgrade()
    yield postgres_url
    db.close()


@pytest.fixture
def cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real scrypt at a low cost: many tests make many seats, and the full cost is slow on
    purpose. The stored hash names its cost, so checking still works the same way."""
    from mailjudge.secrecy import passwords

    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)


def _open(url: str) -> Iterator[str]:
    from mailjudge.store import db
    from mailjudge.tools import migrations

    db.connect(url)
    migrations.upgrade()
    yield url
    db.close()


@pytest.fixture
def sqlite_db(tmp_path: Path, cheap_scrypt: None) -> Iterator[str]:
    """A fresh SQLite judge database in a temporary file, bound to the models."""
    yield from _open(f"sqlite:///{tmp_path / 'judge.db'}")


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request: pytest.FixtureRequest, tmp_path: Path, cheap_scrypt: None) -> Iterator[str]:
    """The same test on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        yield from _open(f"sqlite:///{tmp_path / 'judge.db'}")
    else:
        yield from _open(request.getfixturevalue("postgres_url"))


@pytest.fixture
def harness(tmp_path: Path, smtp_sink: Any, cheap_scrypt: None) -> Iterator[Any]:
    """A judge on loopback with SQLite in tmp_path, its outbound mail caught by smtp_sink
    (the end-to-end tests play through it: see tests/helpers/e2e.py)."""
    from helpers.e2e import running_judge

    with running_judge(tmp_path / "judge.db", smtp_sink) as h:
        yield h


@pytest.fixture(params=["sqlite", "postgresql"])
def harness_any_db(
    request: pytest.FixtureRequest, tmp_path: Path, smtp_sink: Any, cheap_scrypt: None
) -> Iterator[Any]:
    """The harness's judge on SQLite, and on PostgreSQL in a schema of the test's own: the
    same play by mail on both databases."""
    from helpers.e2e import running_judge

    extra = {}
    if request.param == "postgresql":
        extra["database_url"] = request.getfixturevalue("postgres_url")
    with running_judge(tmp_path / "judge.db", smtp_sink, **extra) as h:
        yield h


@pytest.fixture(autouse=True)
def no_secret_in_mail_out() -> Iterator[None]:
    """Secrecy and form across every test that plays through an e2e Harness: when the test
    ends, every mail the judge sent reads well in a mail client (tests/helpers/mailform.py), and
    none carries a password the players wrote, or a ballot to anyone but its voters (see
    tests/helpers/secrecy.py)."""
    e2e = sys.modules.get("e2e")
    if e2e is not None:
        e2e.HARNESSES.clear()
    yield
    e2e = sys.modules.get("e2e")
    if e2e is None:
        return
    from helpers.mailform import format_problems
    from helpers.secrecy import Secrets

    for harness in e2e.HARNESSES:
        problems = [
            problem
            for mail in harness.sink.mails
            for problem in format_problems(mail.message, mail.subject)
        ]
        if problems:
            pytest.fail("mail out that reads badly:\n" + "\n".join(problems[:20]), pytrace=False)
        secrets = Secrets()
        for raw in harness.delivered:
            secrets.read(raw)
        leaks = secrets.leaks(harness.sink.mails)
        if leaks:
            pytest.fail("secret shown in mail out:\n" + "\n".join(leaks[:20]), pytrace=False)
    e2e.HARNESSES.clear()
