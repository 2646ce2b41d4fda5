"""The web protocol: what a variant adds to the game's public page, besides the board."""

from __future__ import annotations

from dataclasses import dataclass, field

from mailjudge.store.models import Game


@dataclass
class PublicTable:
    caption: str
    header: list[str]
    rows: list[list[str]]


@dataclass
class PublicText:
    caption: str
    body: str


@dataclass
class PublicSection:
    """A part of the game's public web page that a variant adds: only what the rules make
    public to anyone (counts, never ballots; texts, never hidden authors)."""

    title: str
    tables: list[PublicTable] = field(default_factory=list)
    texts: list[PublicText] = field(default_factory=list)


class WebHooks:
    def public_sections(self, game: Game) -> list[PublicSection]:
        """What the variant shows on the game's public web page, besides the board."""
        return []
