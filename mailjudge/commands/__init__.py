"""Email commands: the body of a mail cut into commands, each a small class with one job.

Importing this package registers every command family (see registry.COMMANDS): the shared
ones here, then each variant's own, from the module its ``commands_module`` names.
"""

from importlib import import_module

from mailjudge.commands import (  # noqa: F401
    account,
    diary,
    extend,
    info,
    joining,
    master,
    openings,
    orders,
    press,
    ratings,
    records,
    seat_settings,
    tournaments,
    veterans,
    vote,
)
from mailjudge.variants import VARIANTS

for _variant in VARIANTS.values():
    if _variant.commands_module:
        import_module(_variant.commands_module)
