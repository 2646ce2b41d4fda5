"""Refusals the service gives, with the reason a player or master is told."""

from __future__ import annotations


class ServiceError(ValueError):
    """A request that cannot be done; ``str(err)`` says why and what to do instead."""


class NotAllowed(ServiceError):
    """The rules or the game's state forbid it."""


class NotFound(ServiceError):
    """No such game, power or person."""


class BadSecret(ServiceError):
    """A wrong password, counted against the address that sent it. ``tell_owner``: the
    seat's player should hear of it (the first time in a window only); ``answered``:
    whether the mail gets an answer (not beyond a few wrong guesses)."""

    def __init__(self, message: str, tell_owner: bool = False, answered: bool = True) -> None:
        super().__init__(message)
        self.tell_owner = tell_owner
        self.answered = answered
