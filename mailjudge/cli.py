"""The `mailjudge` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from mailjudge.engine.interchange import InterchangeError, adjudicate_document

BENCHMARKS: dict[str, str] = {
    "adjudicate": "mailjudge.benchmarks.adjudicate",
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
        help="play one phase from a JSON document (see interchange.md)",
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
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    if argv[:1] == ["bench"]:
        args, rest = parser.parse_known_args(argv)
        return cmd_bench(args, rest)
    args = parser.parse_args(argv)
    if args.command == "adjudicate":
        return cmd_adjudicate(args)
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
