"""The actor behind a command: an address, and the seat it signed on to (if any)."""

from __future__ import annotations

from dataclasses import dataclass

from mailjudge.permissions.vocabulary import Role
from mailjudge.store.models import Game, Seat


@dataclass(frozen=True)
class Actor:
    address: str
    game: Game | None = None
    seat: Seat | None = None

    @property
    def role(self) -> Role:
        if self.seat is None:
            return Role.ANYONE
        if self.seat.role == Role.TEAMMATE and self.seat.authorized:
            return Role.AUTHORIZED_TEAMMATE
        return Role(self.seat.role)

    @property
    def powers(self) -> list[str]:
        if self.seat is None:
            return []
        return list(self.seat.powers)

    @property
    def rules(self) -> set[str]:
        return set(self.game.rules) if self.game is not None else set()

    def describe(self) -> str:
        if self.seat is None:
            return self.address
        powers = " ".join(self.powers)
        return (
            f"{self.seat.name}@{self.seat.game.name} ({self.role}{' ' + powers if powers else ''})"
        )
