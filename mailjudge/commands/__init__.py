"""Email commands: the body of a mail cut into commands, each a small class with one job.

Importing this package registers every command family (see registry.COMMANDS).
"""

from mailjudge.commands import (  # noqa: F401
    account,
    democratic,
    diary,
    diplonomic,
    double,
    info,
    master,
    orders,
    press,
    survive,
    veterans,
    vote,
)
