"""Each kind of mail the judge sends has one owner, which builds it or queues it: the
mail after a phase (service/results.py), the answers (app/replies.py), and the outbox's
way in for every other mail (outbound/). The clock queues its mail the way the pipeline
does, without borrowing the pipeline's code."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "mailjudge"


def called(source: str) -> set[str]:
    """The names of the functions and classes the code calls (``f()``, ``mod.f()``)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            names.add(node.func.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            names.add(node.func.attr)
    return names


def callers(*names: str) -> set[str]:
    """The modules (paths under mailjudge/) that call a function or class in `names`."""
    return {
        path.relative_to(PACKAGE).as_posix()
        for path in sorted(PACKAGE.rglob("*.py"))
        if called(path.read_text(encoding="utf-8")) & set(names)
    }


def renders(template: str, variants: bool = False) -> set[str]:
    """The modules whose code names `template`: outside variants/, or (``variants``)
    anywhere."""
    return {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if f'"{template}"' in path.read_text(encoding="utf-8")
        and (variants or (PACKAGE / "variants") not in path.parents)
    }


def test_the_mail_after_a_phase_is_built_in_one_place() -> None:
    """PROCESS, the last orders in, ROLLFORWARD and the clock all take a processed phase's
    mail from service.results.phase_mails, so none of them can forget a part of it."""
    assert callers("results_mails") == {"service/results.py"}
    assert renders("results.txt.j2") == {"service/results.py"}
    # However the game ended, a variant's rule too (Diplonomic's declared draw, on the
    # clock): one notice, with the deadline withdrawn from the calendars.
    assert renders("game_over.txt.j2", variants=True) == {"service/results.py"}
    # (bench sizes takes a played phase's mails as the judge would, to measure them.)
    assert callers("phase_mails") == {
        "service/deadlines.py", "commands/master.py", "benchmarks/sizes.py"}  # fmt: skip


def test_only_the_outbox_and_the_replies_queue_mail() -> None:
    queueing = callers("enqueue", "enqueue_draft", "enqueue_draft_later", "MailDraft")
    assert {p for p in queueing if not p.startswith("outbound/")} == {"app/replies.py"}
    # Everything but the answers goes in through app/caps.py, within each mailbox's caps
    # (issue 52): a mail's commands' (handlers), the clock's (runner), the operator's.
    # (bench sizes queues a played game's mails straight, to measure them as sent.)
    assert callers("queue_outgoing", "queue_all") - {"outbound/queue.py"} == {
        "app/caps.py", "benchmarks/sizes.py"}  # fmt: skip
    assert callers("queue_within_caps") == {"app/handlers.py", "app/runner.py", "app/alerts.py"}


def test_the_clock_borrows_nothing_of_the_pipeline() -> None:
    """The runner hands a mail to the pipeline and nothing else: the clock's mail goes
    to the outbox through outbound/queue.py."""
    tree = ast.parse((PACKAGE / "app" / "runner.py").read_text(encoding="utf-8"))
    used = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "pipeline"
    }
    assert used == {"handle", "prepare"}


def test_the_checks_see_a_call() -> None:
    """A bare call and a call through a module count; a name only mentioned does not."""
    source = "from x import results_mails\nresults_mails(1)\nmod.enqueue(2)\nMailDraft.from_json\n"
    assert called(source) == {"results_mails", "enqueue"}
