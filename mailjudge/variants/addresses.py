"""The addresses protocol: who gets which mail besides the players of the powers written
to. Press routes (a Democratic country's diplomat, its list), and the mailing lists a
variant runs for its countries: the address of one, a post to it, press copied to it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mailjudge.game.errors import ServiceError
from mailjudge.render.outgoing import Outgoing
from mailjudge.store.models import Game, Seat


@dataclass
class PressRoutes:
    """Where a variant sends press besides the players: seats written to directly (a
    Democratic country's diplomat), country lists it is posted on, and the countries it
    could not reach (told to the writer)."""

    seats: list[Seat] = field(default_factory=list)
    lists: list[str] = field(default_factory=list)
    unreached: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ListThread:
    """Where a post to a list sits in its conversation: its own Message-ID, and the mail it
    answered (In-Reply-To, References), as the poster's mail gave them."""

    message_id: str | None = None
    in_reply_to: str | None = None
    references: Sequence[str] = ()

    def headers(self) -> tuple[str | None, tuple[str, ...]]:
        """In-Reply-To and References for the post's copies: they answer the post itself,
        after what it answered, so that mail clients thread the copies of a conversation
        (RFC 5322 3.6.4) as they would have threaded the posts."""
        chain = [r for r in self.references if r]
        if self.in_reply_to and self.in_reply_to not in chain:
            chain.append(self.in_reply_to)
        if self.message_id is None:
            return (chain[-1] if chain else None), tuple(chain)
        return self.message_id, tuple(r for r in chain if r != self.message_id)


class AddressHooks:
    def press_routes(
        self, game: Game, sender: Seat, recipients: list[str], cc_list: bool
    ) -> PressRoutes:
        """Where press goes besides the players who hold the powers written to."""
        return PressRoutes()

    def list_at(self, address: str, judge: str) -> tuple[Game, str] | None:
        """(game, country) when ``address`` is a mailing list the variant runs for a
        country of one of its games (Democratic's country lists); None: not one."""
        return None

    def post_to_list(
        self, game: Game, power: str, text: str, subject: str, sender: str, thread: ListThread
    ) -> tuple[Seat, Outgoing]:
        """A mail sent to a list ``list_at`` found: the poster's seat and the list's mail."""
        raise ServiceError(f"{game.name} has no country lists")

    def list_mail(
        self, game: Game, power: str, subject: str, body: str, author: str
    ) -> Outgoing | None:
        """Press routed to a country's list (``press_routes``): the list's mail, or None
        when nobody is on the list."""
        return None
