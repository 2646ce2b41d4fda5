"""Email commands: the body of a mail cut into commands, each a small class with one job.

Importing this package registers every command family (see registry.COMMANDS).
"""

from mailjudge.commands import account, info, master, orders, press, vote  # noqa: F401
