"""What every command shares: the context of one mail, the reply, outgoing mail, and the
Command class that HELP is built from."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from mailjudge.engine.maps import GameMap, MapError
from mailjudge.engine.orders import OrderError
from mailjudge.engine.readings import Readings
from mailjudge.engine.rules import RuleError
from mailjudge.engine.timing import TimingError
from mailjudge.game.errors import ServiceError
from mailjudge.permissions.actors import Actor
from mailjudge.permissions.policy import check
from mailjudge.permissions.vocabulary import Action
from mailjudge.render.outgoing import Outgoing
from mailjudge.secrecy.masking import mask_text
from mailjudge.store.models import Game, Seat


class CommandError(ValueError):
    """A command that could not be done; the message says what to write instead."""


# What a command may refuse with: the player is told why (a variant's own refusals are
# ServiceErrors). Other exceptions are bugs.
JUDGE_ERRORS = (CommandError, ServiceError, OrderError, RuleError, TimingError, MapError)


@dataclass
class Answer:
    """One line of the reply: the command as written (passwords masked), then the verdict."""

    echo: str
    ok: bool
    lines: list[str] = field(default_factory=list)


@dataclass
class Context:
    sender: str  # where the reply goes
    judge: str  # the judge's own address
    now: datetime
    default_game: str | None = None  # from a judge+GAME@ sub-address
    game: Game | None = None
    seat: Seat | None = None
    answers: list[Answer] = field(default_factory=list)
    outgoing: list[Outgoing] = field(default_factory=list)
    stopped: bool = False  # a failed SIGNON stops the rest of the mail
    quiet: bool = False  # after SIGNOFF the rest is ignored without a word
    unanswered: bool = False  # a wrong password beyond a few: the mail gets no answer
    to_seat_only: bool = False  # a seat under guessing: the answer goes to its own address
    # The MTA vouches (Authentication-Results) that the sender wrote the mail, and a SIGNON
    # by a Reply token (game/reply_tokens) signed it on: then only orders are taken.
    sender_proven: bool = False
    token_signed: bool = False
    token_for_sender: bool = False  # the answer carries a CONFIRM token: to the From only
    password_commands: int = 0  # commands that hashed a password (security.max_password_commands)
    pending: list[tuple[int, str]] = field(default_factory=list)  # bare order lines
    command_name: str = ""  # the command running now, and its variant (see signed_on)
    command_variant: str | None = None
    order_errors: int = 0  # order lines not accepted, in the whole mail
    orders_given: bool = False  # some command of this mail filed orders
    touched: set[int] = field(default_factory=set)  # games to check for processing
    pictured: set[int] = field(default_factory=set)  # games a MAP already drew in this mail
    max_commands: int = 40  # security.max_commands: the rest of a mail is refused
    # After njudge's PHASE line: the later phase the bare order lines that follow are for.
    future_phase: str | None = None
    # Why the bare order lines that follow are not filed (a refused PHASE line, njudge's
    # IF ... ENDIF): they must not fall into another phase or run unconditionally.
    held_back: str | None = None
    # njudge's IF ... ELSE ... ENDIF blocks open here, outermost first: each IF's condition
    # (canonical text; None for one refused) and whether its ELSE was passed.
    conditions: list[tuple[str | None, bool]] = field(default_factory=list)
    chained_ifs: list[bool] = field(default_factory=list)  # each IF opened by an ELSE IF
    # DPjudge's power named on a line of its own ([ENGLAND]): the bare lines after it are
    # that power's orders.
    line_power: str | None = None
    stopped_by: str = "SIGNON"  # the command whose failure stopped the mail
    # The master's command of this mail that moved a game's phase (PROCESS, ROLLBACK ...)
    # and what it did: one mail moves a phase once (issue 52).
    phase_moved: str | None = None
    # The order lines this mail read, each once, for every step of filing them to share.
    readings: Readings | None = None

    def readings_for(self, gmap: GameMap, phase_type: str) -> Readings:
        """The mail's readings of order lines of this map and kind of phase."""
        self.readings = Readings.of(self.readings, gmap, phase_type)
        return self.readings

    @property
    def actor(self) -> Actor:
        return Actor(self.sender, self.game, self.seat)

    def require(self, action: Action) -> None:
        decision = check(self.actor, action)
        if not decision:
            raise CommandError(decision.reason)

    def signed_on(self) -> tuple[Game, Seat]:
        """The game and seat signed on to; a variant's command (``self.command_variant``,
        set by the runner) is refused in a game of another variant."""
        if self.game is None or self.seat is None:
            raise CommandError("SIGNON first: SIGNON power@game password")
        wanted = self.command_variant
        if wanted is not None and wanted != self.game.variant:
            raise CommandError(
                f"{self.command_name} is for {wanted.capitalize()} games; {self.game.name} is "
                f"{self.game.variant}"
            )
        return self.game, self.seat


@dataclass(frozen=True)
class Block:
    """One command found in the mail: its words, and the lines of its block if it has one."""

    line_no: int
    words: tuple[str, ...]
    body: tuple[str, ...] = ()
    unterminated: bool = False


class Command:
    """A command: its words, how to write it, what it does. HELP is built from these."""

    name: str = ""  # the words that start it, upper case: "SET WAIT", "PROCESS!"
    aliases: tuple[str, ...] = ()
    variant: str | None = None  # the variant whose games have it; None: every game
    # What it does, for the permission table: the runner asks the table before run.
    action: Action
    # The words after the name, declared once (commands/arguments.py): the usage line,
    # where its passwords stand (secret_words.py) and the refusal of a wrong form come
    # from it. None: the command reads its words itself (it has several forms), and its
    # usage and veteran forms say where its passwords stand.
    arguments: str | None = None
    hint: str = ""  # what to write when the words do not fit; "write <usage>" by default
    stops_mail: bool = False  # a wrong form stops the rest of the mail (SIGNON)
    usage: str = ""
    summary: str = ""
    block_end: str | None = None  # "END" or "ENDPRESS" for commands with a block
    # Lines that may follow the command and belong to it, each a spec after its opening
    # word: DPjudge's setup lines after CREATE ("PRIVATE password").
    followers: tuple[str, ...] = ()
    master_only: bool = False
    # How players of njudge and DPjudge write the same thing, shown by HELP beside ours.
    veteran_forms: tuple[str, ...] = ()
    # A form kept for players of other judges: HELP lists it under the command it stands
    # for, not as a command of its own.
    listed: bool = True

    def claims(self, words: list[str]) -> bool:
        """Whether a line opening with the command's name and then ``words`` is the
        command; a name that is also a word of small talk (SEND) claims only its shape."""
        return True

    def run(self, ctx: Context, args: list[str], block: Block) -> list[str]:
        raise NotImplementedError

    def echo(self, block: Block) -> str:
        """The command's line as the reply shows it: its passwords masked."""
        return mask_text(" ".join(block.words))
