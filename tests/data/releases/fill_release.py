"""Makes tests/data/releases/<commit>.sql: a judge of an earlier release with a row in every
table, made by that release's own code.

Not collected by the test run (it lives under tests/data). To remake one release's
database, check the release out beside the repository and run this file there with that
release's tests as its conftest:

    git worktree add /tmp/rel-X X
    cp tests/data/releases/fill_release.py /tmp/rel-X/tests/test_fill_release.py
    cd /tmp/rel-X && RELEASE_DUMP=/path/to/tests/data/releases/X.sql \
        PYTHONPATH=/tmp/rel-X .venv/bin/python -m pytest tests/test_fill_release.py -s
    git worktree remove --force /tmp/rel-X

(PYTHONPATH puts the release's own package first; this checkout's venv has every
dependency any release needed.) It prints each table's row count and fails if a table
is left empty.

Everything goes in by mail through the release's own harness (a real judge on loopback
and a real SMTP sink): a standard game in F1901M with orders on file from both phases,
press, draw votes, a wrong password, an observer; a Democratic game with diplomats
elected, order sets proposed and ranked, a country list set and posted to; a Diplonomic
game with a rulebook, a teammate who orders, a rules proposal with amendments; a game
still forming. A table the mail cannot reach in one game year
(a Survive outcast, a bounce, an IMAP cursor) gets a row from the release's own models.
Only commands every release knows are used; a command a release does not know is answered
with an error and changes nothing, which is what that release would have done.
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path
from typing import Any

try:
    from helpers.e2e import MASTER, POWERS, player, running_judge, secret
except ImportError:  # a release from before the tests were laid out by kind
    from e2e import MASTER, POWERS, player, running_judge, secret  # type: ignore[no-redef]

GAME, DEMO, NOMIC = "classic", "demo", "nomic"
HOME_UNITS = {
    "AUSTRIA": ["A VIE", "A BUD", "F TRI"],
    "ENGLAND": ["F LON", "F EDI", "A LVP"],
    "FRANCE": ["F BRE", "A PAR", "A MAR"],
    "GERMANY": ["F KIE", "A BER", "A MUN"],
    "ITALY": ["F NAP", "A ROM", "A VEN"],
    "RUSSIA": ["A WAR", "A MOS", "F SEV", "F STP/SC"],
    "TURKEY": ["F ANK", "A CON", "A SMY"],
}
CITIZENS = [f"citizen{i:02d}" for i in range(8)]


def state_of(name: str) -> str:
    from mailjudge.store.models import Game

    state = Game.get(Game.name == name).state
    return str(getattr(state, "value", state))


def signon(power: str, game: str = GAME) -> str:
    return f"SIGNON {power.lower()}@{game} {secret(power)}\n"


def play_standard(h: Any) -> None:
    h.command(MASTER, f"CREATE {GAME} masterpw RULES POWER_CHOICE")
    for power in POWERS:
        h.command(player(power), f"JOIN {GAME} {secret(power)} {power}")
    h.wait_until(lambda: state_of(GAME) == "active")
    h.command(player("FRANCE"), signon("FRANCE") + "A PAR - BUR\nA MAR H\nF BRE - MAO")
    h.command(player("ITALY"), signon("ITALY") + "A VEN H\nA ROM H\nF NAP - ION")
    h.command(
        player("ENGLAND"), signon("ENGLAND") + "PRESS TO F\nA fleet in the channel?\nENDPRESS"
    )
    h.command(player("GERMANY"), signon("GERMANY") + "BROADCAST\nPeace in our time.\nENDPRESS")
    h.command(MASTER, f"SIGNON M{GAME} masterpw\nPROCESS!")
    h.wait_until(lambda: len(h.results_for(GAME, "S1901M")) >= 8)
    # F1901M in progress: orders on file by France, draw votes, a diary, a preference.
    h.command(player("FRANCE"), signon("FRANCE") + "A BUR - BEL")
    h.command(player("ITALY"), signon("ITALY") + "A VEN H")
    for power in ("FRANCE", "ENGLAND", "RUSSIA"):
        h.command(player(power), signon(power) + "VOTE DRAW")
    h.command(player("TURKEY"), signon("TURKEY") + "VOTE NODRAW")
    h.command(player("AUSTRIA"), signon("AUSTRIA") + "DIARY\nTrust nobody.\nEND")
    h.command(player("RUSSIA"), signon("RUSSIA") + "SET PREFERENCE RUSSIA")
    h.command(player("ITALY"), f"SIGNON italy@{GAME} not-the-password\nSTATUS")  # a counter
    h.command("watcher@example.test", f"OBSERVE watcher@{GAME} watchpw")  # a confirmation
    h.command(MASTER, "CREATE forming masterpw")  # a game still forming


def play_democratic(h: Any) -> None:
    h.command(MASTER, f"CREATE {DEMO} masterpw VARIANT democratic")
    for name in CITIZENS:
        h.command(f"{name}@citizens.test", f"JOIN {DEMO} pw-{name} AS {name}")
    h.command(MASTER, f"SIGNON M{DEMO} masterpw\nSTART")
    h.command(MASTER, f"SIGNON M{DEMO} masterpw\nSET LIST FRANCE france-l@lists.test MIME")
    h.wait_until(lambda: state_of(DEMO) == "active")

    def say(name: str, text: str) -> str:
        return str(h.command(f"{name}@citizens.test", f"SIGNON {name}@{DEMO} pw-{name}\n{text}"))

    # Each citizen's country, as the judge's mail told them.
    h.wait_until(lambda: len(_citizenships(h)) == len(CITIZENS))
    countries: dict[str, list[str]] = {}
    for name, power in sorted(_citizenships(h).items()):
        countries.setdefault(power, []).append(name)
    for power, people in sorted(countries.items()):
        say(people[0], f"NOMINATE {people[0]} I will speak for us")
        for name in people:
            say(name, f"VOTE DIPLOMAT {people[0]}")
        holds = "\n".join(f"{unit} H" for unit in HOME_UNITS[power])
        proposed = re.search(r"order set (\d+)", say(people[0], f"PROPOSAL ORDERS\n{holds}\nEND"))
        say(people[0], "CC LIST\nWe hold this year.\nENDPRESS")
        for name in people:
            say(name, f"VOTE ORDERS {proposed.group(1) if proposed else 1}")


def _citizenships(h: Any) -> dict[str, str]:
    found: dict[str, str] = {}
    for mail in h.sink.mails:
        told = re.search(r"citizen of (\w+)", str(mail.message["Subject"]))
        for rcpt in mail.rcpt_tos if told else []:
            found[rcpt.split("@")[0]] = told.group(1)
    return found


def play_diplonomic(h: Any) -> None:
    h.command(MASTER, f"CREATE {NOMIC} masterpw VARIANT diplonomic RULES POWER_CHOICE")
    rules = "1. Contestants play the standard map.\n\n7. Teammates may help.\n"
    h.command(MASTER, f"SIGNON M{NOMIC} masterpw\nRULEBOOK\n{rules}END")
    for power in POWERS:
        h.command(player(power), f"JOIN {NOMIC} {secret(power)} {power}")
    h.wait_until(lambda: state_of(NOMIC) == "active")
    bob = "bob@teammates.test"
    h.command(player("FRANCE"), signon("FRANCE", NOMIC) + f"TEAMMATE ADD {bob} AS bob")
    h.command(bob, f"ACCEPT {NOMIC} bobsecret")
    h.command(player("FRANCE"), signon("FRANCE", NOMIC) + "AUTHORIZE bob")
    h.command(bob, f"SIGNON bob@{NOMIC} bobsecret\nA PAR - BUR")
    amend = 'AMEND RULE 7 APPEND {\nTeammates may order.\n}\nAMEND RULE 1 REPLACE "standard" WITH "usual"\n'
    h.command(player("AUSTRIA"), signon("AUSTRIA", NOMIC) + f"PROPOSAL RULES Teammates\n{amend}END")


def fill_the_rest() -> None:
    """Rows the mail of one game year does not make, written by the release's models."""
    from mailjudge.store import models
    from mailjudge.store.models import Game, Seat

    game = Game.get(Game.name == GAME)
    tables = {m._meta.table_name: m for m in vars(models).values() if _is_model(m)}
    try:  # variants own some tables in later releases
        from mailjudge.tools.migrations import ALL_TABLES

        tables.update({m._meta.table_name: m for m in ALL_TABLES})
    except ImportError:
        pass
    if "outcast" in tables and not tables["outcast"].select().exists():
        fields = tables["outcast"]._meta.fields
        row: dict[str, Any] = {"game": game, "reason": "voted", "phase": "W1902A"}
        if "power" in fields:
            row["power"] = "ITALY"
        if "seat" in fields:
            row["seat"] = Seat.get(Seat.game == game, Seat.name == "italy")
        if "year" in fields:
            row["year"] = 1900
        if "person" in fields:
            row["person"] = Seat.get(Seat.game == game, Seat.name == "italy").person
        _create(tables["outcast"], row)
    if "bounce" in tables and not tables["bounce"].select().exists():
        outbox = tables["outbox"].select().first()
        _create(
            tables["bounce"],
            {
                "address": "gone@players.test",
                "outbox": outbox,
                "reason": "550 5.1.1 no such user",
                "kind": "hard",
            },
        )
    if "mailbox_cursor" in tables and not tables["mailbox_cursor"].select().exists():
        _create(tables["mailbox_cursor"], {"mailbox": "INBOX", "uidvalidity": 7, "last_uid": 42})
    # Tables of later releases that one game year by mail does not reach: an opening, its
    # subscriber, a deadline the players extended, a stalemate question.
    later: dict[str, dict[str, Any]] = {
        "opening": {"game": game, "power": "ITALY", "reason": "resigned", "phase": "F1901M"},
        "openings_subscriber": {"address": "watcher@players.test", "confirmed": True},
        "deadline_extension": {"game": game, "phase": "F1901M", "sequence": 1, "year": 1901,
                               "length": 86400},
        "stalemate_question": {"game": game, "phase": "F1901M", "sequence": 1},
    }  # fmt: skip
    for table, known in later.items():
        if table in tables and not tables[table].select().exists():
            _create(tables[table], known)


def _is_model(value: Any) -> bool:
    from mailjudge.store.models import BaseModel

    return isinstance(value, type) and issubclass(value, BaseModel) and value is not BaseModel


def _create(model: Any, known: dict[str, Any]) -> None:
    """A row of `model` with `known` where the release has those columns, defaults else."""
    from datetime import UTC, datetime

    from peewee import BooleanField, DateTimeField, ForeignKeyField, IntegerField, TextField

    row: dict[str, Any] = {}
    for name, field in model._meta.fields.items():
        if name == "id":
            continue
        if name in known:
            row[name] = known[name]
        elif field.null or field.default is not None:
            continue
        elif isinstance(field, ForeignKeyField):
            row[name] = field.rel_model.select().first()
        elif isinstance(field, DateTimeField):
            row[name] = datetime.now(UTC)
        elif isinstance(field, BooleanField):
            row[name] = False
        elif isinstance(field, IntegerField):
            row[name] = 1
        elif isinstance(field, TextField):
            row[name] = "x"
        else:
            row[name] = "x"
    model.create(**row)


def test_fill_release(tmp_path: Path, smtp_sink: Any, cheap_scrypt: None) -> None:
    database = tmp_path / "judge.db"
    with running_judge(database, smtp_sink) as h:
        play_standard(h)
        play_democratic(h)
        play_diplonomic(h)
        fill_the_rest()
        h.wait_until(lambda: _outbox_settled())
    with sqlite3.connect(database) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
                " ORDER BY name"
            )
        ]
        counts = {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
        dump = "\n".join(conn.iterdump()) + "\n"
    print(counts)
    Path(os.environ["RELEASE_DUMP"]).write_text(dump)
    empty = [t for t, n in counts.items() if n == 0]
    assert not empty, f"tables left empty: {empty}"


def _outbox_settled() -> bool:
    from mailjudge.store.models import Outbox

    return not Outbox.select().where(Outbox.state.not_in(["sent", "failed", "dead"])).exists()
