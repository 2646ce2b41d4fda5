"""The command tests' way to run a mail's commands: a JOIN the judge keeps waiting for its
CONFIRM (from an address new to it: issue 52) is confirmed at once, as its player would."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from mailjudge.commands.base import Context
from mailjudge.commands.run import execute

_JOIN = re.compile(r"^\s*JOIN\s", re.IGNORECASE | re.MULTILINE)
_TOKEN = re.compile(r"^\s*CONFIRM (\w+)$")


def execute_confirming(text: str, sender: str, judge: str, now: datetime, **kw: Any) -> Context:
    """execute(); when the mail holds a JOIN that waits for its token, the token is
    answered from the same address, and the CONFIRM's context is returned (its answer
    says "you joined", its mail is the game's start)."""
    ctx = execute(text, sender, judge, now, **kw)
    if not _JOIN.search(text):
        return ctx
    for answer in ctx.answers:
        for line in answer.lines:
            found = _TOKEN.match(line)
            if found:
                return execute(f"CONFIRM {found.group(1)}", sender, judge, now)
    return ctx
