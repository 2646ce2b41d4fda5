"""Scripted people at one game: a master and seven players who sign on and play by mail.

Each player's orders go in one mail (SIGNON line, then orders) and each mail waits for the
judge's reply. The players read the board from the judge's database, as a program reading
the results would; everything they do goes to the judge by SMTP.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mailjudge.demo.mailroom import Harness
from mailjudge.demo.sink import Received
from mailjudge.engine.state import Position
from mailjudge.game.state import current_position, get_game
from mailjudge.store.models import Game, GameState


class DemoError(RuntimeError):
    """The judge refused what a scripted player meant to be right."""


@dataclass(frozen=True)
class Person:
    address: str
    password: str


@dataclass
class Table:
    harness: Harness
    game: str
    master: Person
    players: Mapping[str, Person]  # power -> the person who plays it
    log: list[tuple[str, str, str]] = field(default_factory=list)  # (who, mail text, reply)

    def say(self, who: Person, text: str, expect: str = "") -> str:
        """Mail `text` as `who`; the reply's text, which must contain `expect`."""
        reply = self.harness.command(who.address, text)
        self.log.append((who.address, text, reply))
        if expect not in reply or "ERROR" in reply or "not accepted" in reply:
            raise DemoError(f"the judge answered {who.address}:\n{reply}")
        return reply

    def sign_on(self, rules: str = "POWER_CHOICE") -> None:
        """The master creates the game and every player joins it with the power they want."""
        m = self.master
        self.say(m, f"CREATE {self.game} {m.password} RULES {rules}", f"game {self.game} created")
        for power, p in self.players.items():
            self.say(p, f"JOIN {self.game} {p.password} {power}", "ok: you joined")
        self.harness.wait_until(
            lambda: self.state().state == GameState.ACTIVE, what="the game to start"
        )

    def state(self) -> Game:
        return get_game(self.game)

    def position(self) -> Position:
        return current_position(self.state())

    def signon(self, power: str) -> str:
        return f"SIGNON {power.lower()}@{self.game} {self.players[power].password}"

    def send_orders(self, power: str, lines: list[str]) -> str:
        return self.say(self.players[power], self.signon(power) + "\n" + "\n".join(lines) + "\n")

    def results(self, phase: str) -> list[Received]:
        return self.harness.results_for(self.game, phase)

    def play_phase(self, orders: Mapping[str, list[str]]) -> str:
        """Each power's orders in a mail; the phase played, once its results reached the master."""
        phase = str(self.state().phase)
        for power, lines in orders.items():
            self.send_orders(power, lines)
        if self.state().phase == phase and not self.results(phase):
            # Every unit has an order, but some removals were left to civil disorder.
            m = self.master
            self.say(m, f"SIGNON M{self.game} {m.password}\nPROCESS!", "processed")
        self.harness.wait_until(
            lambda: any(r.rcpt_tos == [self.master.address] for r in self.results(phase)),
            what=f"the results of {phase}",
        )
        return phase

    def vote_draw(self, powers: list[str]) -> None:
        """Every power still in the game votes for a draw; the last vote ends it."""
        for power in powers:
            self.say(self.players[power], f"{self.signon(power)}\nVOTE DRAW")
        self.harness.wait_until(lambda: self.state().state == GameState.FINISHED, what="the draw")

    def mails_to(self, address: str) -> list[Received]:
        return [m for m in self.harness.sink.mails if m.rcpt_tos == [address]]
