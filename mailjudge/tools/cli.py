"""The `mailjudge` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from mailjudge.config.settings import Settings, SettingsError
from mailjudge.config.settings_docs import describe_settings, settings_docs
from mailjudge.config.settings_files import load_settings
from mailjudge.engine.interchange import InterchangeError, adjudicate_document

BENCHMARKS: dict[str, str] = {
    "adjudicate": "mailjudge.benchmarks.adjudicate",
    "smtp": "mailjudge.benchmarks.smtp_spool",
    "voting": "mailjudge.benchmarks.voting",
    "mail": "mailjudge.benchmarks.mail_e2e",
    "democratic": "mailjudge.benchmarks.democratic",
    "web": "mailjudge.benchmarks.web",
    "board": "mailjudge.benchmarks.board",
    "mailsize": "mailjudge.benchmarks.mail_size",
    "text": "mailjudge.benchmarks.text",
    "legal": "mailjudge.benchmarks.legal",
    "standin": "mailjudge.benchmarks.standin",
    "year": "mailjudge.benchmarks.year",
    "sizes": "mailjudge.benchmarks.sizes",
}


def cmd_adjudicate(args: argparse.Namespace) -> int:
    """Read one interchange document and print the result; a bad document is one clear line."""
    source = args.file
    try:
        if source == "-":
            text = sys.stdin.read()
        else:
            with open(source, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as err:
        print(f"mailjudge adjudicate: cannot read {source}: {err.strerror}", file=sys.stderr)
        return 2
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        print(
            f"mailjudge adjudicate: {source} is not JSON (line {err.lineno}, column {err.colno}: "
            f"{err.msg})",
            file=sys.stderr,
        )
        return 2
    try:
        result = adjudicate_document(doc)
    except InterchangeError as err:
        print(f"mailjudge adjudicate: {err}", file=sys.stderr)
        return 2
    try:
        json.dump(result, sys.stdout, indent=None if args.compact else 2)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped early (`| head`): not an error of ours, and no traceback.
        sys.stderr.close()
    return 0


def _settings(args: argparse.Namespace) -> Settings:
    path = Path(args.config) if args.config else None
    return load_settings(path, os.environ)


def _open_judge_database(url: str, read_only: bool = False) -> str | None:
    """Connect to the judge's database for a command that reads it; the reason it cannot,
    in one line, where it does not exist or holds no judge tables (nothing is created).
    ``read_only``: the connections refuse every write (db.open_database)."""
    from urllib.parse import unquote

    from peewee import PeeweeException

    from mailjudge.store import db

    scheme, _, rest = url.partition("://")
    where = "the PostgreSQL database of database.url"
    if scheme == "sqlite" and rest != "/:memory:":
        where = unquote(rest[1:])
        if not Path(where).is_file():
            return (f"there is no database at {where}: set database.url to the judge's "
                    "database, or create it with mailjudge init")  # fmt: skip
    try:
        db.connect(url, read_only=read_only)
        has_tables = db.database_proxy.table_exists("game")
    except (ValueError, PeeweeException) as err:
        db.close()
        return f"cannot open {where}: {' '.join(str(err).split())}"
    if not has_tables:
        db.close()
        return (f"{where} holds no judge tables: is database.url the judge's database? "
                "mailjudge init makes them")  # fmt: skip
    from mailjudge.tools.migrations import schema_refusal

    # An older schema lacks columns the commands read: one line, not their traceback.
    if refusal := schema_refusal(db.database_proxy.obj):
        db.close()
        return refusal
    return None


def cmd_serve(args: argparse.Namespace) -> int:
    from mailjudge.app.runner import Judge
    from mailjudge.config.logs import setup_logging
    from mailjudge.inbound.smtp import PortInUse
    from mailjudge.tools.first_run import first_run_settings
    from mailjudge.tools.migrations import SchemaError
    from mailjudge.tools.preflight import dkim_problems
    from mailjudge.tools.running import JudgeRunning, serving
    from mailjudge.web.server import WebPortInUse

    settings = _settings(args)
    for problem in dkim_problems(settings):
        print(f"mailjudge serve: {problem}", file=sys.stderr)
        return 1
    settings = first_run_settings(settings, Path(args.config) if args.config else None, os.environ)
    if settings.outbound.mbox:
        print(f"mailjudge serve: the judge's mail is kept in {settings.outbound.mbox} "
              f"(outbound.mbox), not sent; read it with: mutt -f {settings.outbound.mbox}",
              flush=True)  # fmt: skip
    if args.log_level:
        settings = replace(settings, logging=replace(settings.logging, level=args.log_level))
    setup_logging(settings.logging, "listener" if args.workers else "judge")
    try:
        with serving(settings.database.url):  # restore refuses while this is held
            Judge(settings, workers=args.workers).serve_forever()
    except (PortInUse, WebPortInUse, JudgeRunning, SchemaError) as err:
        print(f"mailjudge serve: {err}", file=sys.stderr)
        return 1
    return 0


def cmd_web(args: argparse.Namespace) -> int:
    """The web pages alone, for a machine that reads the judge's PostgreSQL (or SQLite)."""
    import signal
    import threading

    from mailjudge.config.logs import setup_logging
    from mailjudge.store import db
    from mailjudge.web.server import WebPortInUse, bind, serve

    settings = _settings(args)
    setup_logging(settings.logging, "web")
    if not settings.web.port:
        print("mailjudge web: web.port is 0, which turns the pages off; set a port",
              file=sys.stderr)  # fmt: skip
        return 2
    # Read-only: the pages never write, so database.url may name a standby (a libpq URL
    # with target_session_attrs=prefer-standby), and a write would be refused, not made.
    if problem := _open_judge_database(settings.database.url, read_only=True):
        print(f"mailjudge web: {problem}", file=sys.stderr)
        return 1
    try:
        sock = bind(settings.web)
    except WebPortInUse as err:
        print(f"mailjudge web: {err}", file=sys.stderr)
        db.close()
        return 1
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    try:
        serve(sock, stop)
    finally:
        sock.close()
        db.close()
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    """Make the tables of a new database, or bring an older one to this judge's schema,
    saying which migrations ran."""
    from peewee import PeeweeException

    from mailjudge.store import db
    from mailjudge.tools import migrations

    settings = _settings(args)
    try:
        database = db.connect(settings.database.url)
        new = not database.table_exists("game")
        applied = migrations.upgrade()
    except (ValueError, PeeweeException, migrations.SchemaError) as err:
        print(f"mailjudge init: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    finally:
        db.close()
    if new:
        print(f"tables made, at schema version {migrations.LATEST}")
    for migration in applied:
        print(f"migration {migration.number} applied: {migration.what}")
    if not new and not applied:
        print(f"the database is at schema version {migrations.LATEST} already")
    print(f"database ready: {_without_password(settings.database.url)}")
    return 0


def _without_password(url: str) -> str:
    """The database's URL as an operator may see it printed: no password in it."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def cmd_check_config(args: argparse.Namespace) -> int:
    from mailjudge.tools.preflight import problems

    settings = _settings(args)
    print(describe_settings(settings))
    found = problems(settings)
    for problem in found:
        print(f"mailjudge check-config: {problem}", file=sys.stderr)
    return 1 if found else 0


def cmd_backup(args: argparse.Namespace) -> int:
    from mailjudge.tools.backup import BackupError, backup, restore

    url = _settings(args).database.url
    try:
        if args.command == "backup":
            print(backup(url, Path(args.file)))
        else:
            print(restore(url, Path(args.file), force=args.force))
    except (BackupError, ValueError) as err:
        print(f"mailjudge {args.command}: {err}", file=sys.stderr)
        return 1
    return 0


def cmd_prune(args: argparse.Namespace) -> int:
    from datetime import timedelta

    from mailjudge.outbound.outbox import prune_sent
    from mailjudge.store import db
    from mailjudge.store.models import utcnow
    from mailjudge.tools.backup import shrink

    settings = _settings(args)
    if args.days is not None and args.days < 0:
        print(f"mailjudge prune: --days {args.days} is negative; write how many days sent "
              "mail keeps its whole text, 0 or more (--days 30)", file=sys.stderr)  # fmt: skip
        return 2
    days = args.days if args.days is not None else settings.outbound.keep_sent_days
    if problem := _open_judge_database(settings.database.url):
        print(f"mailjudge prune: {problem}", file=sys.stderr)
        return 1
    try:
        count = prune_sent(utcnow() - timedelta(days=days))
    finally:
        db.close()
    print(f"{count} sent mails older than {days} days kept their headers and outcome only")
    print(shrink(settings.database.url))
    return 0


def cmd_release_held(args: argparse.Namespace) -> int:
    """Let go the mail a restore held because nothing told whether it had gone already."""
    from mailjudge.store import db
    from mailjudge.tools.restored_mail import release_held

    if problem := _open_judge_database(_settings(args).database.url):
        print(f"mailjudge release-held: {problem}", file=sys.stderr)
        return 1
    try:
        out, inbound = release_held()
    finally:
        db.close()
    print(f"{out} mails to send and {inbound} to answer released: the judge deals with them "
          "at its next turn (start it if it is stopped)")  # fmt: skip
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    """The report; exit 1 when something stops the judge doing its job (mailjudge.store.health),
    the database's absence included."""
    from peewee import PeeweeException

    from mailjudge.store import db
    from mailjudge.store.health import unreachable
    from mailjudge.tools.status import problem_lines, status

    settings = _settings(args)
    if problem := _open_judge_database(settings.database.url):
        print(f"mailjudge status: {problem}", file=sys.stderr)
        if problem.startswith("cannot open"):  # it exists, and cannot be reached
            print("\n".join(problem_lines([unreachable(problem)])))
        return 1
    try:
        report, found = status(settings.database.url)
    except PeeweeException as err:  # lost while reading
        print("\n".join(problem_lines([unreachable(err)])))
        return 1
    finally:
        db.close()
    print(report, end="")
    return 1 if found else 0


def cmd_requeue(args: argparse.Namespace) -> int:
    """Hand a game the clock held after a failure back to the clock (service/deadlines.py)."""
    from mailjudge.game.errors import ServiceError
    from mailjudge.service.deadlines import requeue
    from mailjudge.store import db

    if problem := _open_judge_database(_settings(args).database.url):
        print(f"mailjudge requeue: {problem}", file=sys.stderr)
        return 1
    try:
        print(requeue(args.game))
    except ServiceError as err:
        print(f"mailjudge requeue: {err}", file=sys.stderr)
        return 1
    finally:
        db.close()
    return 0


def cmd_docs(args: argparse.Namespace) -> int:
    from mailjudge.tools.docs import module_tree, reference

    print(module_tree() if args.tree else reference(), end="")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write a game's archive as JSON (and, with --html, its page of pictures)."""
    from mailjudge.game.errors import ServiceError
    from mailjudge.game.state import get_game
    from mailjudge.service.archive import export_game, export_html
    from mailjudge.store import db

    if problem := _open_judge_database(_settings(args).database.url):
        print(f"mailjudge export: {problem}", file=sys.stderr)
        return 1
    try:
        game = get_game(args.game)
    except ServiceError as err:
        print(f"mailjudge export: {err}", file=sys.stderr)
        db.close()
        return 2
    text = json.dumps(export_game(game), indent=1, ensure_ascii=False) + "\n"
    if args.out in (None, "-"):
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
    if args.html:
        Path(args.html).write_text(export_html(game), encoding="utf-8")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    """The missed-turn figures /stats shows, as text or JSON."""
    from mailjudge.render.stats import stats_text
    from mailjudge.service.stats import stats

    if problem := _open_judge_database(_settings(args).database.url, read_only=True):
        print(f"mailjudge stats: {problem}", file=sys.stderr)
        return 1
    doc = stats().as_json()
    print(
        json.dumps(doc, indent=1) if args.json else stats_text(doc), end="\n" if args.json else ""
    )
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Play an exported game again through the engine and say whether every phase agrees."""
    from mailjudge.service.archive import replay

    try:
        doc = json.loads(Path(args.file).read_text(encoding="utf-8"))
        problems = replay(doc)
    except (OSError, ValueError, KeyError, TypeError) as err:
        print(f"mailjudge replay: {args.file} is not an archive mailjudge export wrote: {err}",
              file=sys.stderr)  # fmt: skip
        return 2
    for line in problems:
        print(line)
    print(f"{len(doc['phases'])} phases, {len(problems)} differences")
    return 1 if problems else 0


def cmd_demo(args: argparse.Namespace) -> int:
    from mailjudge.demo.run import run_from_args

    return run_from_args(args)


def cmd_bench(args: argparse.Namespace, rest: list[str]) -> int:
    import importlib

    module = importlib.import_module(BENCHMARKS[args.name])
    main: Callable[[list[str]], int] = module.main
    return main(rest)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="mailjudge", description="An email Diplomacy judge.")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    adj = sub.add_parser(
        "adjudicate",
        help="play one phase from a JSON document (see docs/interchange.md)",
        description='Reads {"position": ..., "orders": ...} from FILE (or - for standard input) '
        "and prints the result as JSON.",
    )
    adj.add_argument("file", metavar="FILE|-")
    adj.add_argument("--compact", action="store_true", help="print the result on one line")
    bench = sub.add_parser(
        "bench",
        help="run a benchmark and print its figures",
        description="Benchmarks: " + ", ".join(BENCHMARKS) + ". Options after the name go to it "
        "(mailjudge bench adjudicate --help).",
    )
    bench.add_argument("name", choices=sorted(BENCHMARKS))
    export = sub.add_parser(
        "export",
        help="write a game's archive: phases, orders, results, public press (JSON)",
        description="Writes the whole game as JSON (to standard output, or --out FILE); "
        "with --html FILE also a page with every phase's picture. `mailjudge replay` "
        "plays the JSON again through the engine.",
    )
    export.add_argument("game")
    export.add_argument("--out", metavar="FILE", help="where the JSON goes (default: stdout)")
    export.add_argument("--html", metavar="FILE", help="also write the game's page here")
    export.add_argument("--config", metavar="FILE", help="a TOML settings file")
    replay = sub.add_parser(
        "replay",
        help="adjudicate every phase of an exported game again and compare",
        description="Reads a file `mailjudge export` wrote, plays each phase through the "
        "engine's interchange contract and prints any difference from the stored results.",
    )
    replay.add_argument("file", metavar="FILE")
    from mailjudge.demo.run import build_parser as demo_options

    demo_options(
        sub.add_parser(
            "demo",
            help="play a whole game by mail on loopback and show what a player sees",
            description="A judge with a temporary database and seven scripted players on "
            "127.0.0.1: one plays greedily, six at random, until a solo or a draw. Every mail "
            "the judge sends is saved in --out as an .eml file.",
        )
    )
    _add_operator_commands(sub)
    return ap


def _add_operator_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The commands an operator runs on a judge's database, each with --config."""
    for name, helptext, description in (
        ("serve", "run the judge: SMTP/LMTP listener, IMAP poller, worker, clock, web pages", None),
        (
            "web",
            "serve only the public web pages (for a second machine on the same database)",
            None,
        ),
        ("init", "create the database tables", None),
        ("check-config", "show the settings in force (secrets masked)", settings_docs()),
        ("docs", "print the README's reference of commands and settings", None),
        ("backup", "copy the database to FILE while the judge runs", None),
        ("restore", "put a backup back into the database (stop the judge first)", None),
        ("status", "games, mail waiting, last errors, database size and largest tables", None),
        ("prune", "keep only headers and outcome of mail sent long ago (also done daily)", None),
        (
            "release-held",
            "send and answer the mail a restore held (it could not tell if it had gone already)",
            None,
        ),
        ("requeue", "hand a game the clock held after a failure back to the clock", None),
        ("stats", "the missed-turn figures of /stats: NMR by phase kind, month and game", None),
    ):
        cmd = sub.add_parser(
            name,
            help=helptext,
            description=description,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        cmd.add_argument("--config", metavar="FILE", help="a TOML settings file")
        _add_operator_options(name, cmd)


def _add_operator_options(name: str, cmd: argparse.ArgumentParser) -> None:
    """The options of one operator command beyond --config."""
    if name in ("backup", "restore"):
        cmd.add_argument(
            "file",
            metavar="FILE",
            help="the backup: a SQLite file, or pg_dump's custom format for PostgreSQL",
        )
    if name == "restore":
        cmd.add_argument(
            "--force",
            action="store_true",
            help="replace the games of a database that has some",
        )
    if name == "stats":
        cmd.add_argument("--json", action="store_true", help="the figures as JSON")
    if name == "requeue":
        cmd.add_argument("game", metavar="GAME", help="the game's name")
    if name == "docs":
        cmd.add_argument(
            "--tree",
            action="store_true",
            help="the package's modules instead, each with its docstring's first sentence "
            "(the README's Layout)",
        )
    if name == "prune":
        cmd.add_argument("--days", type=int, help="instead of outbound.keep_sent_days (0 or more)")
    if name == "serve":
        cmd.add_argument(
            "--workers",
            type=int,
            default=1,
            help="processes answering mail (default 1), besides one sending; "
            "0 runs everything as threads of one process",
        )
        cmd.add_argument(
            "--log-level",
            choices=("DEBUG", "INFO", "WARNING", "ERROR"),
            type=str.upper,
            help="least important log lines written (instead of logging.level)",
        )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    if argv[:1] == ["bench"]:
        # What follows the benchmark's name is the benchmark's own (its --help included).
        args = parser.parse_args(argv[:2])
        return cmd_bench(args, argv[2:])
    args = parser.parse_args(argv)
    commands: dict[str, Callable[[argparse.Namespace], int]] = {
        "adjudicate": cmd_adjudicate,
        "serve": cmd_serve,
        "web": cmd_web,
        "status": cmd_status,
        "prune": cmd_prune,
        "release-held": cmd_release_held,
        "requeue": cmd_requeue,
        "init": cmd_init,
        "check-config": cmd_check_config,
        "docs": cmd_docs,
        "export": cmd_export,
        "replay": cmd_replay,
        "stats": cmd_stats,
        "demo": cmd_demo,
        "backup": cmd_backup,
        "restore": cmd_backup,
    }
    try:
        return commands[args.command](args)
    except SettingsError as err:
        print(f"mailjudge {args.command}: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
