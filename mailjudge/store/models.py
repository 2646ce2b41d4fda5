"""The judge's tables. Only the schema lives here; what the rows mean to a game is
decided by the modules that use them.

Conventions: times are aware datetimes in UTC; powers are upper-case names
(FRANCE); phases are names like S1901M; several names in one text column are
space-separated. Rows belonging to a game go when the game goes.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from peewee import (
    BigIntegerField,
    BooleanField,
    CharField,
    Check,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)

from mailjudge.store.db import database_proxy

# re-exported: the tables' users import them from here
from mailjudge.store.model_fields import BytesField as BytesField
from mailjudge.store.model_fields import JSONField as JSONField
from mailjudge.store.model_fields import Powers as Powers
from mailjudge.store.model_fields import PowersField as PowersField
from mailjudge.store.model_fields import RulesField as RulesField
from mailjudge.store.model_fields import UTCDateTimeField as UTCDateTimeField
from mailjudge.store.model_fields import one_of as one_of
from mailjudge.store.model_fields import utcnow as utcnow

GAME_NAME = re.compile(r"[a-z0-9_-]{1,32}")


class GameState(StrEnum):
    """Where a game is in its life: forming (taking players), active, paused, finished."""

    FORMING = "forming"
    ACTIVE = "active"
    PAUSED = "paused"
    FINISHED = "finished"


GAME_STATES = tuple(state.value for state in GameState)
# Every seat's role, as the database checks it: the shared ones (master, player, observer)
# and each variant's own (Variant.roles: tests/ops/test_variant_roles.py holds the two equal).
ROLES = ("master", "player", "teammate", "citizen", "diplomat", "observer")
# invited: a teammate who has not yet sent ACCEPT. Seats are kept after RESIGN or EJECT
# so that the orders and press they sent still say who sent them.
SEAT_STATUSES = ("active", "invited", "resigned", "ejected")
INBOUND_STATES = ("queued", "processing", "done", "shunted")
OUTBOX_STATES = ("queued", "sending", "sent", "failed")
# RFC 5322 allows a Message-ID line of up to 998 characters.
MESSAGE_ID_LENGTH = 998


class BaseModel(Model):
    # peewee adds these at run time (the id primary key, and a foreign key's raw value as
    # name_id); declared here for the type checker only: an annotation creates no field.
    id: Any

    class Meta:
        database = database_proxy
        legacy_table_names = False  # order_line, not orderline


class Person(BaseModel):
    """An email address; a person may sit in many games."""

    email = CharField(max_length=254, unique=True)  # stored lower-cased: who they are
    # The address as its owner writes it (the local part's case kept: a server may tell
    # Jean.Dupont@ from jean.dupont@); "" when that is `email`. Mail goes to `mailbox`.
    address = CharField(max_length=254, default="")
    name = CharField(max_length=100, default="")
    timezone = CharField(max_length=64, null=True)  # SET ZONE: times shown in it too
    # SET RECORD PUBLIC AS name: the record shown on the web under this name (never the
    # address); kept after SET RECORD PRIVATE, which only hides it.
    record_name = CharField(max_length=32, default="")
    record_public = BooleanField(default=False)
    created_at = UTCDateTimeField(default=utcnow)

    @property
    def mailbox(self) -> str:
        """Where the judge's mail to them goes: their address as they write it."""
        return str(self.address or self.email)


class Game(BaseModel):
    name = CharField(max_length=32, unique=True)
    variant = CharField(max_length=32, default="standard")
    map_name = CharField(max_length=32, default="standard")
    rules = RulesField(default="")  # a RuleSet, stored as its names sorted
    state = CharField(max_length=16, default="forming")
    # The person who created the game and gets its notices; the master's password
    # sits on their Seat with role "master".
    master = ForeignKeyField(Person, backref="mastered_games")
    private = BooleanField(default=False)
    # SOLITAIRE's privacy password, assigned by the judge at CREATE (seed 001), as a salted
    # hash; "" for a game without one (one from before it was kept: its master's then).
    privacy_hash = CharField(max_length=255, default="")
    phase = CharField(max_length=16, null=True)  # None while forming
    # The board at the start of the current phase, in the interchange format.
    position = JSONField(null=True)
    # Phases processed so far; processing moves it on with a compare-and-set, so two
    # workers never both process one phase.
    sequence = IntegerField(default=0)
    timezone = CharField(max_length=64, default="UTC")
    timing = TextField(default="")  # the game's TIMING line, canonical form
    deadline = UTCDateTimeField(null=True)
    # Goes up by one each time the deadline is set or moved (a new phase, SET DEADLINE,
    # an absence, a new TIMING, a pause, the end of the game), never down: the SEQUENCE
    # of the calendar invitations, which must grow with each change of one phase's event
    # (RFC 5545 3.8.7.4), also when a phase is played again after a rollback.
    deadline_sequence = IntegerField(default=0)
    next_reminder_at = UTCDateTimeField(null=True)
    # Why the clock holds the game after its handling raised ("" when it does not);
    # `mailjudge requeue GAME` clears it (service/deadlines.py).
    clock_error = TextField(default="")
    victory_count = IntegerField(default=18)
    outcome = TextField(default="")  # how a finished game ended, e.g. "DRAW FRANCE TURKEY"
    # What a variant keeps between phases (Double: an open joint-win vote, a tie-break).
    variant_state = JSONField(default=dict)
    # The master's SET OPTION values by name (game/options.py); a name not here reads its
    # default.
    options = JSONField(default=dict)
    created_at = UTCDateTimeField(default=utcnow)
    started_at = UTCDateTimeField(null=True)
    finished_at = UTCDateTimeField(null=True)

    class Meta:
        constraints = (
            one_of("state", GAME_STATES),
            Check("length(name) BETWEEN 1 AND 32 AND name = lower(name)"),
        )
        indexes = (
            (("state", "deadline"), False),
            (("state", "next_reminder_at"), False),
        )


class Seat(BaseModel):
    """A person's place in a game, with the secret they sign on with."""

    game_id: Any
    person_id: Any
    assists_id: Any
    teammates: Any  # the seats assisting this one (backref of assists)

    game = ForeignKeyField(Game, backref="seats", on_delete="CASCADE", index=False)
    # None for a power nobody holds (vacant or dummy).
    person = ForeignKeyField(Person, backref="seats", null=True, on_delete="SET NULL")
    role = CharField(max_length=16)
    # The name used in SIGNON name@game: the power for a player, a chosen name otherwise.
    name = CharField(max_length=64)
    # The name chosen in JOIN ... AS name, shown on the web; "" when none was chosen (a
    # seat's name may be made from the address, which is never shown).
    public_name = CharField(max_length=64, default="")
    powers = PowersField(max_length=255, default="")  # "FRANCE", "ENGLAND TURKEY", "" (master)
    centre = CharField(max_length=16, null=True)  # Democratic: the citizen's supply centre
    # Diplonomic: the contestant this teammate assists.
    assists = ForeignKeyField("self", backref="teammates", null=True, on_delete="CASCADE")
    password_hash = CharField(max_length=255, null=True)
    status = CharField(max_length=16, default="active")
    wait = BooleanField(default=False)
    dummy = BooleanField(default=False)
    eliminated = BooleanField(default=False)
    authorized = BooleanField(default=False)  # teammate may submit orders
    absence = TextField(default="")  # SET ABSENCE periods, canonical text
    # SET PREFERENCE: the powers wanted, best first ("ENGLAND FRANCE"), for a random deal.
    preference = CharField(max_length=255, default="")
    standin = BooleanField(default=False)  # SET STANDIN ON: the stand-in orders while away
    failed_signons = IntegerField(default=0)
    locked_until = UTCDateTimeField(null=True)
    joined_at = UTCDateTimeField(default=utcnow)

    class Meta:
        constraints = (one_of("role", ROLES), one_of("status", SEAT_STATUSES))
        indexes = (
            (("game", "name"), True),
            (("game", "role"), False),
            (("game", "powers"), False),
            (("game", "centre"), False),
        )


class PhaseRecord(BaseModel):
    """One processed phase: the position it started from, the orders, the results.

    Kept for every phase so that ROLLBACK and ROLLFORWARD are exact.
    """

    game = ForeignKeyField(Game, backref="phase_records", on_delete="CASCADE", index=False)
    phase = CharField(max_length=16)
    sequence = IntegerField()
    position = JSONField()
    orders = JSONField(default=dict)
    results = JSONField(default=dict)
    processed_at = UTCDateTimeField(default=utcnow)
    # What was on file as the phase was processed, for a ROLLBACK to put back: every order
    # line (the phase's own, each with its sender, and those sent ahead) and the variant's
    # own keep (service/processing.py); {} for phases kept before it was.
    kept = JSONField(default=dict)

    class Meta:
        indexes = (
            (("game", "phase"), True),
            (("game", "sequence"), True),
        )


# What became of a seat's duty in one phase (service/records.py says what each means).
RECORD_OUTCOMES = ("on time", "grace", "late", "disorder", "excused", "takeover")


class RecordEntry(BaseModel):
    """One line of a player's record: their seat's part in one processed phase of a game,
    or their TAKEOVER of a power. Written when the phase is processed."""

    person = ForeignKeyField(Person, backref="record", on_delete="CASCADE", index=False)
    game = ForeignKeyField(Game, backref="record_entries", on_delete="CASCADE", index=False)
    phase = CharField(max_length=16)
    sequence = IntegerField()  # the game's sequence of the phase
    powers = PowersField(max_length=255, default="")
    outcome = CharField(max_length=16)
    at = UTCDateTimeField(default=utcnow)

    class Meta:
        constraints = (one_of("outcome", RECORD_OUTCOMES),)
        indexes = (
            (("person", "game", "sequence"), False),
            (("game", "sequence"), False),
        )


class BoardPicture(BaseModel):
    """A board picture drawn once and mailed to many: results mails name it, and the
    sender attaches it when it writes each mail out. ``key`` says what was drawn (the
    position and the results), so a phase played again after ROLLBACK gets a new one."""

    game = ForeignKeyField(Game, backref="pictures", on_delete="CASCADE", index=False)
    phase = CharField(max_length=16)
    sequence = IntegerField()
    key = CharField(max_length=64)
    svg = TextField()
    png = BytesField(null=True)
    created_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("game", "key"), True),)


class OrderLine(BaseModel):
    """One order on file for the current phase, in canonical form."""

    game_id: Any
    submitted_by_id: Any

    game = ForeignKeyField(Game, backref="order_lines", on_delete="CASCADE", index=False)
    phase = CharField(max_length=16)
    power = CharField(max_length=32)
    line = IntegerField(default=0)  # keeps the player's order of lines
    text = TextField()
    # None: entered by the judge itself (civil-disorder defaults).
    submitted_by = ForeignKeyField(Seat, backref="order_lines", null=True, on_delete="SET NULL")
    submitted_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("game", "phase", "power"), False),)


class Press(BaseModel):
    game = ForeignKeyField(Game, backref="press", on_delete="CASCADE", index=False)
    phase = CharField(max_length=16, null=True)
    sender = ForeignKeyField(Seat, backref="press_sent", null=True, on_delete="SET NULL")
    recipients = TextField()  # seat names and MASTER, space-separated; ALL for a broadcast
    broadcast = BooleanField(default=False)
    grey = BooleanField(default=False)  # sender hidden from the recipients
    body = TextField()
    sent_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("game", "sent_at"), False),)


class DiaryEntry(BaseModel):
    """A note a player keeps with a game (DIARY ... ENDDIARY): shown to its writer only
    while the game runs, and to everyone once it is over."""

    game = ForeignKeyField(Game, backref="diary", on_delete="CASCADE", index=False)
    seat = ForeignKeyField(Seat, backref="diary", on_delete="CASCADE", index=False)
    number = IntegerField()  # the writer's own numbering in the game: 1, 2, ...
    phase = CharField(max_length=16, null=True)
    body = TextField()
    written_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("game", "seat", "number"), True),)


class Ballot(BaseModel):
    """A voter's standing ballot of one kind; a later one replaces it.

    `subject` tells apart ballots of one kind in one phase, e.g. the proposal number for
    Diplonomic votes; it is "" where a voter has one ballot of the kind.
    """

    game_id: Any
    voter_id: Any

    game = ForeignKeyField(Game, backref="ballots", on_delete="CASCADE", index=False)
    phase = CharField(max_length=16)
    kind = CharField(max_length=16)  # draw, diplomat, orders, out, proposal, joint, ...
    subject = CharField(max_length=64, default="")
    voter = ForeignKeyField(Seat, backref="ballots", on_delete="CASCADE", index=False)
    content = JSONField()
    cast_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = (
            (("voter", "kind", "subject", "phase"), True),
            (("game", "phase", "kind"), False),
        )


class DeadlineExtension(BaseModel):
    """A deadline the players moved by VOTE EXTEND (service/extend.py): EXTENSIONS counts
    these per game year. Who voted is not kept here (the ballots are deleted once
    counted)."""

    game_id: Any

    game = ForeignKeyField(Game, backref="extensions", on_delete="CASCADE", index=False)
    phase = CharField(max_length=16)
    sequence = IntegerField()  # the game's sequence in that phase
    year = IntegerField()
    length = IntegerField()  # seconds
    at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("game", "year"), False),)


class JudgeOutage(BaseModel):
    """A time the judge could not take mail: its database away (a restart, a failover, a
    full disk), or the judge itself stopped. A deadline that fell in one is moved past it
    (service/outages.py): nobody is late for time the judge could not take their orders.
    Each process that saw an outage notes its own view; they may overlap."""

    started_at = UTCDateTimeField(index=True)
    ended_at = UTCDateTimeField(index=True)
    cause = TextField(default="")


class JudgeBeat(BaseModel):
    """The last time a judge's clock ran (one row, updated at each tick): a judge that
    starts after a long silence knows that nobody took mail meanwhile."""

    name = CharField(max_length=16, unique=True)
    at = UTCDateTimeField()


class StalemateQuestion(BaseModel):
    """STALEMATE_DRAW asked the players of a game, in one phase, to draw (service/
    stalemate.py); a refusal is kept as its time only, never by whom."""

    game_id: Any

    game = ForeignKeyField(Game, backref="stalemate_questions", on_delete="CASCADE", index=False)
    phase = CharField(max_length=16)
    sequence = IntegerField()  # the game's sequence in the phase asked
    asked_at = UTCDateTimeField(default=utcnow)
    refused_at = UTCDateTimeField(null=True)

    class Meta:
        indexes = ((("game", "sequence"), True),)


class Proposal(BaseModel):
    """A Democratic order set or a Diplonomic rule change, numbered within the game."""

    game_id: Any

    game = ForeignKeyField(Game, backref="proposals", on_delete="CASCADE", index=False)
    phase = CharField(max_length=16)
    kind = CharField(max_length=16)  # orders, rules
    number = IntegerField()
    power = CharField(max_length=32, null=True)  # the country an order set is for
    text = TextField()
    author = ForeignKeyField(Seat, backref="proposals", null=True, on_delete="SET NULL")
    state = CharField(max_length=16, default="open")  # open, withdrawn, enacted, failed, ...
    votes_for = IntegerField(null=True)  # published when resolved
    created_at = UTCDateTimeField(default=utcnow)
    resolved_at = UTCDateTimeField(null=True)

    class Meta:
        indexes = (
            (("game", "number"), True),
            (("game", "phase", "kind"), False),
        )

    @classmethod
    def next_number(cls, game: Game) -> int:
        """Proposals of every kind are numbered together within their game."""
        last = cls.select(cls.number).where(cls.game == game).order_by(cls.number.desc()).first()
        return 1 if last is None else int(last.number) + 1


class InboundMessage(BaseModel):
    """A received mail, stored before any work is done on it."""

    # None when the mail had no Message-ID; then body_hash alone must be unique.
    message_id = CharField(max_length=MESSAGE_ID_LENGTH, null=True, unique=True)
    body_hash = CharField(max_length=64)  # hex SHA-256
    raw = BytesField()
    envelope_from = TextField(default="")
    envelope_to = TextField(default="")  # space-separated RCPT TO addresses
    source = CharField(max_length=16, default="smtp")  # smtp, lmtp, imap
    received_at = UTCDateTimeField(default=utcnow)
    state = CharField(max_length=16, default="queued")
    attempts = IntegerField(default=0)
    claimed_at = UTCDateTimeField(null=True)  # when a worker took it up
    processed_at = UTCDateTimeField(null=True)
    error = TextField(default="")
    # The game the mail is likely for (its SIGNON's, or its judge+GAME@ address's), worked
    # out when it is stored on PostgreSQL: a worker claims one game's mails together
    # (inbound.game_batches). Only a hint; "" when none was seen.
    game_key = CharField(max_length=64, default="")
    # Who holds the claim: on PostgreSQL the worker's session ("pid:start" of its server
    # process), on SQLite the worker's own process ("pid:start" on this machine). A claim
    # whose holder is gone is taken up again at once (inbound.claims), not after
    # claim_timeout_seconds.
    claimed_by = CharField(max_length=64, default="")
    # Not a column: a claimed mail's copy with its passwords masked, kept by its handler
    # and written with the mark that the mail is done or shunted (inbound.spool).
    masked_copy: bytes | None = None

    class Meta:
        constraints = (one_of("state", INBOUND_STATES),)
        indexes = ((("state", "received_at"), False),)


InboundMessage.add_index(
    InboundMessage.index(
        InboundMessage.body_hash, unique=True, where=InboundMessage.message_id.is_null()
    )
)


# Mail whose every recipient bounced outbound.bounce_limit times is held: queued, its
# last_error starting with HELD, looked at again every HOLD_RECHECK (and at once when
# the player signs on: game/bounces.py clear_bounces), given up after HOLD_FOR.
HELD = "held: "
# Mail a restore could not tell delivered or not (mailjudge.tools.backup) is kept out of the
# sender's way: failed, its last_error starting with RESTORE_HELD, until the operator
# releases it (mailjudge release-held) or leaves it.
RESTORE_HELD = "held at restore: "


class Outbox(BaseModel):
    """A mail the judge will send, kept until the SMTP server has taken it."""

    to_addrs = TextField()  # envelope recipients, space-separated
    subject = TextField(default="")
    raw = BytesField()  # empty until a draft is rendered, just before it is sent
    # What build_message needs, for mail queued as a draft: rendering MIME is slow, and
    # this way it happens in the sender, outside the transaction that queued it.
    draft = JSONField(null=True)
    state = CharField(max_length=16, default="queued")
    attempts = IntegerField(default=0)
    next_attempt_at = UTCDateTimeField(default=utcnow)
    last_error = TextField(default="")
    message_id = CharField(max_length=MESSAGE_ID_LENGTH, unique=True)
    game = ForeignKeyField(Game, backref="outbox", null=True, on_delete="SET NULL")
    # The mail this one answers, if any.
    inbound = ForeignKeyField(InboundMessage, null=True, on_delete="SET NULL")
    created_at = UTCDateTimeField(default=utcnow)
    sent_at = UTCDateTimeField(null=True)
    # The relay's final reply to the mail, in its words ("250 2.0.0 Ok: queued as 4Xyz").
    relay_reply = TextField(default="")
    # Who holds the lease of a mail being sent (state "sending"), named as a stored mail's
    # claim is (inbound.claims): a mail whose sender is gone is sent again at once, not
    # when its lease runs out (outbound.lease_seconds, ten minutes).
    leased_by = CharField(max_length=64, default="")

    class Meta:
        constraints = (one_of("state", OUTBOX_STATES),)
        indexes = ((("state", "next_attempt_at"), False),)


class Bounce(BaseModel):
    """A mail the judge sent that came back undelivered to one address. An address with
    outbound.bounce_limit of them gets no more mail until its player signs on again,
    which clears them."""

    address = CharField(max_length=254, index=True)  # lower-cased
    outbox = ForeignKeyField(Outbox, null=True, on_delete="SET NULL")
    status = CharField(max_length=16, default="")  # the DSN's Status, e.g. 5.1.1
    diagnostic = TextField(default="")  # what the far server said
    created_at = UTCDateTimeField(default=utcnow)


class AddressCounter(BaseModel):
    """How often something happened lately for a key (wrong passwords for a seat from an
    address, mail to an unproven address), counted from the start of a window."""

    key = CharField(max_length=400, unique=True)
    count = IntegerField(default=0)
    window_start = UTCDateTimeField(default=utcnow)
    last_at = UTCDateTimeField(default=utcnow)


class Confirmation(BaseModel):
    """Something waiting for an address to show it wants the mail: an observer's seat
    ("observe"), a new address for a seat ("address"), or a TAKEOVER of the seat from an
    address the judge never had an answer from ("takeover": the taker's password hash
    waits here until then). The token went to that address only; CONFIRM token from it
    completes the change."""

    token = CharField(max_length=64, unique=True)
    kind = CharField(max_length=16)
    seat = ForeignKeyField(Seat, on_delete="CASCADE")
    address = CharField(max_length=254)  # lower-cased
    created_at = UTCDateTimeField(default=utcnow)
    password_hash = CharField(max_length=255, default="")  # a takeover's; "" for the others


class JoinRequest(BaseModel):
    """A JOIN from an address that never answered the judge, checked and kept until that
    address answers its CONFIRM token (issue 52: forged JOINs put strangers in seats, and
    a game's results then went to them). It holds no seat and keeps no power."""

    token = CharField(max_length=64, unique=True)
    game = ForeignKeyField(Game, on_delete="CASCADE")
    address = CharField(max_length=254)  # lower-cased
    password_hash = CharField(max_length=255)
    power = CharField(max_length=32, default="")  # named under POWER_CHOICE, else ""
    name = CharField(max_length=64, default="")  # JOIN ... AS name, else ""
    created_at = UTCDateTimeField(default=utcnow)


OPENING_REASONS = ("resigned", "ejected", "dummy", "civil disorder")


class Opening(BaseModel):
    """A power that needs a player, announced on /openings and to the subscribers: its
    player resigned or was ejected, the master made it a dummy, or it fell into civil
    disorder. Closed (``closed_at``) when someone takes it over, its player is back, or it
    is out of the game; ``extended_sequence`` is the game's phase (its sequence) whose
    deadline a takeover of it moved, so that a phase is extended once."""

    game = ForeignKeyField(Game, backref="openings", on_delete="CASCADE", index=False)
    power = CharField(max_length=32)
    reason = CharField(max_length=16)
    phase = CharField(max_length=16, default="")  # the phase it opened in
    sequence = IntegerField(default=0)  # the game's sequence then
    opened_at = UTCDateTimeField(default=utcnow)
    closed_at = UTCDateTimeField(null=True)
    closed_why = CharField(max_length=16, default="")  # taken, returned, out, over
    extended_sequence = IntegerField(null=True)

    class Meta:
        constraints = (one_of("reason", OPENING_REASONS),)
        indexes = ((("game", "power", "closed_at"), False), (("closed_at",), False))


class OpeningsSubscriber(BaseModel):
    """An address that asked for the openings mail (OPENINGS ON). It gets none until it
    answers the token mailed to it (CONFIRM): ``confirmed_at`` is None until then."""

    address = CharField(max_length=254, unique=True)  # lower-cased
    token = CharField(max_length=64, default="")
    asked_at = UTCDateTimeField(default=utcnow)
    confirmed_at = UTCDateTimeField(null=True)


class SchemaVersion(BaseModel):
    """The schema migrations applied to this database (mailjudge/tools/migrations.py)."""

    version = IntegerField(primary_key=True)
    what = TextField()
    applied_at = UTCDateTimeField(default=utcnow)

    class Meta:
        table_name = "schema_version"


class MailboxCursor(BaseModel):
    """How far the IMAP poller has read one mailbox, so nothing is read twice."""

    mailbox = CharField(max_length=255, unique=True)  # e.g. "judge@imap.example.org/INBOX"
    uidvalidity = BigIntegerField()
    last_uid = BigIntegerField(default=0)
    updated_at = UTCDateTimeField(default=utcnow)


class OperatorAlert(BaseModel):
    """A problem the operator was told of (app/alerts.py, mailjudge/store/health.py), kept while
    it lasts: told once when it starts and once when it has been over for a while."""

    key = CharField(max_length=100, unique=True)  # health.Problem.key: relay, clock:GAME
    summary = TextField()
    started_at = UTCDateTimeField(default=utcnow)
    seen_at = UTCDateTimeField(default=utcnow)  # the last look that found it

    class Meta:
        table_name = "operator_alert"


ALL_MODELS: tuple[type[BaseModel], ...] = (
    Person,
    Game,
    Seat,
    PhaseRecord,
    BoardPicture,
    OrderLine,
    Press,
    DiaryEntry,
    Ballot,
    DeadlineExtension,
    StalemateQuestion,
    Proposal,
    InboundMessage,
    Outbox,
    MailboxCursor,
    Bounce,
    AddressCounter,
    Confirmation,
    JoinRequest,
    Opening,
    OpeningsSubscriber,
    RecordEntry,
    JudgeOutage,
    JudgeBeat,
    OperatorAlert,
    SchemaVersion,
)
