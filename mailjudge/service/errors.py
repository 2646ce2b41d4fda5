"""Refusals the service gives, with the reason a player or master is told."""

from __future__ import annotations


class ServiceError(ValueError):
    """A request that cannot be done; ``str(err)`` says why and what to do instead."""


class NotAllowed(ServiceError):
    """The rules or the game's state forbid it."""


class NotFound(ServiceError):
    """No such game, power or person."""


class BadSecret(ServiceError):
    """A wrong password (counted towards a lock-out)."""
