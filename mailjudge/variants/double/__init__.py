"""Double Diplomacy (seed 004): seven players, each holding two powers,
each power shared by two players in a ring (E+T, T+G, G+I, I+R, R+F, F+A, A+E).

Each player sends orders for both their powers; the two sets for a power are kept apart
(OrderLine.submitted_by) and synchronised just before adjudication (double_sync). A power
at 14 centres after a Fall is a joint win for its two players. Under DOUBLE_LYTTON a
player's two powers together at 21 centres after a Fall are a solo, which outranks a joint
win; equal solos vote YES/NO on a joint win, and a NO starts a tie-break that only they
can win and in which no draw is taken.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mailjudge.engine.catalogue import playable_powers
from mailjudge.engine.checker import parse_order
from mailjudge.engine.orders import Order, OrderError
from mailjudge.engine.reader import read_order
from mailjudge.engine.readings import Readings
from mailjudge.engine.state import ADJUSTMENT, RETREAT, Phase, Position
from mailjudge.game import openings
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.outcomes import Processed, Readiness
from mailjudge.game.state import (
    current_position,
    finish_game,
    game_map,
    has_rule,
    missing_orders,
    orders_on_file,
    phase_of,
    require_active,
)
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.store.models import Ballot, Game, OrderLine, Seat
from mailjudge.variants.base import Variant
from mailjudge.variants.double import public
from mailjudge.variants.double.sync import PartnerOrders, Synced, sync_adjustments, sync_units
from mailjudge.variants.events import AfterProcess, BeforeProcess, PhaseEvent, Started
from mailjudge.variants.people import PeopleHooks
from mailjudge.variants.phase import PhaseHooks
from mailjudge.variants.questions import Lines, PlayOn, ProposeDraw, Refusal, Unordered
from mailjudge.variants.web import PublicSection, WebHooks

if TYPE_CHECKING:
    from mailjudge.engine.maps import GameMap
    from mailjudge.engine.phases import PhaseOutcome

RING = (
    ("ENGLAND", "TURKEY"),
    ("TURKEY", "GERMANY"),
    ("GERMANY", "ITALY"),
    ("ITALY", "RUSSIA"),
    ("RUSSIA", "FRANCE"),
    ("FRANCE", "AUSTRIA"),
    ("AUSTRIA", "ENGLAND"),
)
JOINT_WIN_CENTRES = 14  # of the standard map's 34; other maps in proportion
SOLO_CENTRES = 21  # a player's two powers together, under DOUBLE_LYTTON
STANDARD_CENTRES = 34


def ring_of(gmap: GameMap) -> tuple[tuple[str, str], ...]:
    """The ring of a map's powers: the seed's on the standard seven; on another map its
    powers in alphabetical order, each with the next and the last with the first, so that
    every power has two players and every player two powers."""
    if {p for pair in RING for p in pair} == set(gmap.power_names):
        return RING
    names = gmap.power_names
    return tuple((names[i], names[(i + 1) % len(names)]) for i in range(len(names)))


def ring_refusal(gmap: GameMap) -> str | None:
    """Why the map has no ring for Double: fewer than three powers (two powers would be
    held by both players alike), a power with no home centre, or a power the map leaves
    to nobody."""
    if len(gmap.power_names) < 3:
        return (
            f"Double needs a ring of three powers or more, each shared by two players, and "
            f"{gmap.name} has {len(gmap.power_names)}"
        )
    if playable_powers(gmap) != gmap.power_names:
        return "in Double every power is shared by two players, and this map leaves some to nobody"
    bare = [p for p, info in gmap.powers.items() if not info.homes]
    if bare:
        return (
            "in Double every power of the ring has a home centre; "
            f"{', '.join(sorted(bare))} {'has' if len(bare) == 1 else 'have'} none"
        )
    return None


def solo_centres(centres: int) -> int:
    """Lytton's solo, two powers together: 21 of 34 on the standard map."""
    return -(-centres * SOLO_CENTRES // STANDARD_CENTRES)


OVERRIDE_YEARS = 2  # one OVERRIDE per player in each such span of game years


def _solo_of(game: Game) -> int:
    return solo_centres(len(game_map(game).centres))


def seat_name(pair: tuple[str, str]) -> str:
    return f"{pair[0].lower()}-{pair[1].lower()}"


def ring_seats(game: Game) -> list[Seat]:
    return list(
        Seat.select().where((Seat.game == game) & (Seat.role == "player")).order_by(Seat.name)
    )


def partners(game: Game, power: str) -> list[Seat]:
    """The two seats that share ``power``."""
    return [s for s in ring_seats(game) if power in s.powers]


def _lytton(game: Game) -> bool:
    return has_rule(game, "DOUBLE_LYTTON")


def _first_year(game: Game) -> int:
    return Phase.parse(game_map(game).first_phase).year


def _year_span(game: Game, phase: str) -> int:
    """Which span of OVERRIDE_YEARS game years, counted from the map's first year."""
    return (Phase.parse(phase).year - _first_year(game)) // OVERRIDE_YEARS


def override(game: Game, seat: Seat, power: str, line: str) -> str:
    """OVERRIDE power order (DOUBLE_LYTTON): this order of the player's stands against the
    partner's. One per player in each span of two game years (1901-02, 1903-04, ...);
    sending another in the same phase replaces it, OVERRIDE power NONE takes it back."""
    require_active(game)
    if not _lytton(game):
        raise NotAllowed("OVERRIDE belongs to the Lytton rules (DOUBLE_LYTTON); this game has not")
    power = power.upper()
    if seat.role != "player" or power not in seat.powers:
        raise NotAllowed(f"you do not share {power}; you hold {seat.powers}")
    mine = (Ballot.voter == seat) & (Ballot.kind == "override")
    if line.strip().upper() == "NONE":
        Ballot.delete().where(mine & (Ballot.phase == game.phase)).execute()
        return f"no OVERRIDE for {power} in {game.phase}"
    used = [
        b.phase for b in Ballot.select().where(mine & (Ballot.phase != game.phase))
        if _year_span(game, b.phase) == _year_span(game, phase_of(game))
    ]  # fmt: skip
    if used:
        first = _first_year(game) + _year_span(game, phase_of(game)) * OVERRIDE_YEARS
        raise NotAllowed(
            f"you used your OVERRIDE for {first}-{first + 1} in {used[0]}; the next one is "
            f"yours from {first + OVERRIDE_YEARS}"
        )
    try:
        order = parse_order(line, current_position(game), power, game_map(game))
    except OrderError as err:
        raise ServiceError(f"{err.kind}: {err}; write OVERRIDE {power} A PAR - BUR") from None
    # A second OVERRIDE in a phase replaces the first, and says so (issue 39, point 12).
    this_phase = mine & (Ballot.phase == game.phase)
    earlier = [b.content["order"] for b in Ballot.select().where(this_phase)]
    Ballot.delete().where(this_phase).execute()
    Ballot.create(game=game, phase=game.phase, kind="override", subject=power, voter=seat,
                  content={"order": str(order)})  # fmt: skip
    replaced = f"; it replaces your earlier OVERRIDE {earlier[0]}" if earlier else ""
    return f"OVERRIDE for {power} in {game.phase}: {order}{replaced}"


def _partner_orders(
    game: Game, seat: Seat, power: str, lines: list[OrderLine], pos: Position
) -> PartnerOrders:
    """One player's valid orders for the power; orders the judge cannot accept now count
    as no order (Lytton: the partner's valid order then stands)."""
    gmap = game_map(game)
    build_any = has_rule(game, "BUILD_ANY")
    valid: list[Order] = []
    for line in lines:
        try:
            valid.append(parse_order(line.text, pos, power, gmap, build_any=build_any))
        except OrderError:
            continue
    by_unit = {o.unit.province: o for o in valid if hasattr(o, "unit")}  # type: ignore[union-attr]
    overriding = None
    ballot = Ballot.get_or_none(
        (Ballot.voter == seat) & (Ballot.kind == "override") & (Ballot.phase == game.phase)
        & (Ballot.subject == power)
    )  # fmt: skip
    if ballot is not None:
        order = parse_order(ballot.content["order"], pos, power, gmap, build_any=build_any)
        overriding = order.unit.province  # type: ignore[union-attr]
        by_unit[overriding] = order
    return PartnerOrders(seat.name, by_unit, overriding, tuple(valid))


def synchronise(game: Game, pos: Position, power: str, lines: list[OrderLine]) -> Synced | None:
    """The power's orders for adjudication from its two players' sets; None when only
    orders from no partner are on file (the master's, or restored after a ROLLBACK): they
    stand as they are. Once a partner sends orders beside them, those orders are each
    partner's starting set, which the partner's own orders replace unit by unit, and the
    two sets are synchronised as always (seed 004: each power's orders are the two
    players' orders, synchronised)."""
    seats = partners(game, power)
    ids = {s.id for s in seats}
    if len(seats) != 2:
        return None
    base = [x for x in lines if x.submitted_by_id not in ids]
    own = {s.id: [x for x in lines if x.submitted_by_id == s.id] for s in seats}
    if base and not any(own.values()):
        return None
    a, b = (
        _partner_orders(game, s, power, _laid_over(game, pos, base, own[s.id]), pos) for s in seats
    )
    # A seat nobody holds (vacant, or a dummy) does not veto its partner's orders.
    if seats[0].person_id is None or seats[0].dummy:
        a = PartnerOrders(a.player, b.orders, None, b.adjustments)
    if seats[1].person_id is None or seats[1].dummy:
        b = PartnerOrders(b.player, a.orders, None, a.adjustments)
    lytton = _lytton(game)
    ptype = pos.phase.type
    if ptype == ADJUSTMENT:
        return sync_adjustments(a, b, lytton)
    if ptype == RETREAT:
        units = [d.unit for _, d in sorted(pos.dislodged.items()) if d.unit.power == power]
        return sync_units(a, b, units, lytton, retreat=True)
    units = [u for _, u in sorted(pos.units.items()) if u.power == power]
    return sync_units(a, b, units, lytton)


def _laid_over(
    game: Game, pos: Position, base: list[OrderLine], mine: list[OrderLine]
) -> list[OrderLine]:
    """A partner's set: their own orders, and the orders on file from no partner (restored
    by a ROLLBACK, or the master's) for the units they did not order. In an adjustment
    phase a partner's own orders, if any, are their whole set."""
    if not base:
        return mine
    if pos.phase.type == ADJUSTMENT:
        return mine or base
    gmap = game_map(game)

    def unit(line: OrderLine) -> str | None:
        try:
            syntax = read_order(line.text, gmap, pos.phase.type)
        except OrderError:
            return None
        return syntax.loc[0] if syntax.loc is not None else None

    ordered = {unit(line) for line in mine} - {None}
    return mine + [line for line in base if unit(line) not in ordered]


def unordered_note(game: Game, phase_type: str) -> str:
    """What a unit a player has not ordered comes to when the two sets are synchronised
    (sync.py), said in that player's ready block in place of a default order line: a
    default sent back would be the player's order against the partner's."""
    if _lytton(game):
        fate = "your partner's order stands for it (Lytton's rule 1)"
    elif phase_type == ADJUSTMENT:
        fate = "builds your partner orders are waived, removals left to the rule"
    elif phase_type == RETREAT:
        fate = "it is disbanded"
    else:
        fate = "it holds, unless your partner orders a support, which stands"
    return f"(no order of yours on file: {fate}; write one on a line of its own to order it)"


def deal_ring(game: Game, rng: random.Random) -> None:
    """The standard start dealt one power each; deal the ring's pairs instead."""
    seats = ring_seats(game)
    people = [s for s in seats if s.person_id is not None]
    for seat in seats:
        if seat.person_id is None:
            seat.delete_instance()
    rng.shuffle(people)
    for slot, pair in enumerate(ring_of(game_map(game))):
        if slot < len(people):
            seat = people[slot]
            seat.powers, seat.name = " ".join(pair), seat_name(pair)
            seat.save()
        else:
            Seat.create(game=game, role="player", name=seat_name(pair),
                        powers=" ".join(pair), dummy=True)  # fmt: skip


class DoublePeople(PeopleHooks):
    orders_per_player = True

    def refusal(self, question: Refusal) -> str | None:
        match question:
            case PlayOn(gmap):
                return ring_refusal(gmap)
            case ProposeDraw(game) if (game.variant_state or {}).get("tiebreak"):
                return "the game is in a tie-break: no draw is proposed or taken until it ends"
        return None

    def lines(self, question: Lines) -> list[str] | None:
        if not isinstance(question, Unordered):
            return None
        return [unordered_note(question.game, question.phase_type)]

    def takeover_seat(self, game: Game, name: str) -> Seat | None:
        """Two seats hold each power. By the seat's name (rome-carthage) that seat; by a
        power's name the seat of the two that is open: the vacant one, else one all of
        whose powers are open (its player missed a deadline), never the partner who still
        plays; with neither, the first, which the takeover then refuses."""
        seats = ring_seats(game)
        named = [s for s in seats if s.name == name.lower()]
        if named:
            return named[0]
        holding = [s for s in seats if name.upper() in s.powers]
        vacant = [s for s in holding if s.person_id is None]
        abandoned = [
            s for s in holding if all(openings.open_row(game, p) is not None for p in s.powers)
        ]
        return next(iter(vacant + abandoned + holding), None)


class DoublePhase(PhaseHooks):
    def victory_count(self, centres: int) -> int | None:
        return -(-centres * JOINT_WIN_CENTRES // STANDARD_CENTRES)

    def on(self, event: PhaseEvent) -> list[Outgoing]:
        match event:
            case Started(game, rng):
                deal_ring(game, rng)
            case BeforeProcess(game):
                return self._synchronise(game)
            case AfterProcess(game, done):
                return self._offer_joint_win(game, done)
        return []

    def late(
        self, game: Game, pos: Position, powers: list[str], on_file: dict[str, list[OrderLine]],
        read: Readings | None = None,
    ) -> list[str]:  # fmt: skip
        """Each player owes orders for both powers: 'ENGLAND (austria-england)'. Orders on
        file from anyone else (the master, or restored by a ROLLBACK) stand for the power.
        Called on every order mail: the seats are read once, and no line's sender is."""
        seats = ring_seats(game)
        ids = {s.id for s in seats}
        late = []
        for power in powers:
            lines = on_file.get(power, [])
            if any(line.submitted_by_id not in ids for line in lines):
                continue
            for seat in seats:
                if power not in seat.powers or seat.person_id is None or seat.dummy:
                    continue
                mine = [line.text for line in lines if line.submitted_by_id == seat.id]
                if missing_orders(game, pos, power, mine, read):
                    late.append(f"{power} ({seat.name})")
        return late

    def ready(self, game: Game, now: datetime, standard: Readiness) -> Readiness:
        """Under Lytton a late player's partner stands in at the deadline: the game goes
        on once every power has one player's orders."""
        if standard.ready or not _lytton(game) or game.deadline is None or now < game.deadline:
            return standard
        late_players = Counter(w.split()[0] for w in standard.waiting_for)
        if all(n < 2 for n in late_players.values()):
            return Readiness(True, "the deadline has passed: partners stand in for the late")
        return standard

    def _synchronise(self, game: Game) -> list[Outgoing]:
        """Synchronise every shared power's orders; tell each pair what was out of sync."""
        mails = self._settle_joint_vote(game)
        pos = current_position(game)
        for power, lines in orders_on_file(game).items():
            synced = synchronise(game, pos, power, lines)
            if synced is None:
                continue
            OrderLine.delete().where(
                (OrderLine.game == game) & (OrderLine.phase == game.phase)
                & (OrderLine.power == power)
            ).execute()  # fmt: skip
            for n, order in enumerate(synced.orders):
                OrderLine.create(game=game, phase=game.phase, power=power, line=n, text=str(order))
            if synced.mismatches:
                body = render("double/double_sync.txt.j2", game=game, power=power,
                              mismatches=synced.mismatches)  # fmt: skip
                for seat in partners(game, power):
                    if seat.person is not None:
                        subject = f"{power}'s orders out of sync in {game.phase}"
                        mails.append(mail_to_seat(seat, subject, body, "notice"))
        return mails

    def keep(self, game: Game) -> dict[str, Any]:
        """The OVERRIDEs used so far (one per player each two game years) and Lytton's
        joint-win vote or tie-break: a ROLLBACK puts them back as they were."""
        state = game.variant_state or {}
        return {
            "overrides": [
                {"phase": b.phase, "power": b.subject, "voter": b.voter_id, "order": b.content}
                for b in Ballot.select().where((Ballot.game == game) & (Ballot.kind == "override"))
            ],
            "state": {k: state[k] for k in ("joint_vote", "tiebreak") if k in state},
        }

    def restore(self, game: Game, kept: dict[str, Any]) -> None:
        if not kept:
            return
        Ballot.delete().where((Ballot.game == game) & (Ballot.kind == "override")).execute()
        for b in kept["overrides"]:
            Ballot.create(game=game, phase=b["phase"], kind="override", subject=b["power"],
                          voter=b["voter"], content=b["order"])  # fmt: skip
        state = {k: v for k, v in (game.variant_state or {}).items()
                 if k not in ("joint_vote", "tiebreak")}  # fmt: skip
        _save_state(game, {**state, **kept["state"]})

    def _offer_joint_win(self, game: Game, done: Processed) -> list[Outgoing]:
        vote = (game.variant_state or {}).get("joint_vote")
        if not vote or vote.get("opened") != done.phase:
            return []
        body = render("double/double_joint_vote.txt.j2", game=game, vote=vote, solo=_solo_of(game))
        return [
            mail_to_seat(s, "a joint win is offered: VOTE YES or VOTE NO", body, "notice")
            for s in ring_seats(game)
            if s.name in vote["players"] and s.person is not None
        ]

    def ending(self, game: Game, outcome: PhaseOutcome) -> str | None:
        after_fall = outcome.after.phase.season == "F" and outcome.next.phase.season != "F"
        if not after_fall:
            return None
        counts = outcome.next.centre_counts()
        state = dict(game.variant_state or {})
        if _lytton(game):
            solo = self._solo(game, counts, state, outcome)
            if solo is not None or state.get("tiebreak") or state.get("joint_vote"):
                return solo or None
        at_fourteen = sorted(p for p, n in counts.items() if n >= game.victory_count)
        if not at_fourteen:
            return None
        best = max(counts[p] for p in at_fourteen)
        top = [p for p in at_fourteen if counts[p] == best]
        if len(top) != 1:
            return None  # two powers level at the top: nobody has won yet
        names = " and ".join(s.name for s in partners(game, top[0]))
        return f"JOINT WIN {top[0]} ({names})"

    def _solo(
        self, game: Game, counts: dict[str, int], state: dict[str, Any], outcome: PhaseOutcome
    ) -> str | None:
        """A player's two powers at 21 together; equal best solos get a joint-win vote."""
        combined = {
            s.name: sum(counts.get(p, 0) for p in s.powers)
            for s in ring_seats(game) if s.person_id is not None
        }  # fmt: skip
        if state.get("tiebreak"):
            combined = {n: c for n, c in combined.items() if n in state["tiebreak"]}
        over = {n: c for n, c in combined.items() if c >= _solo_of(game)}
        if not over:
            return None
        best = max(over.values())
        top = sorted(n for n, c in over.items() if c == best)
        if len(top) == 1:
            return f"SOLO {top[0]} with {best} centres"
        if not state.get("tiebreak"):
            state["joint_vote"] = {
                "players": top,
                "centres": best,
                "opened": str(outcome.after.phase),
            }
            game.variant_state = state
            Game.update(variant_state=state).where(Game.id == game.id).execute()
        return None

    def _settle_joint_vote(self, game: Game) -> list[Outgoing]:
        """At the next processing a joint-win vote not carried (a YES from every player)
        turns into a tie-break: silence counts as NO."""
        state = dict(game.variant_state or {})
        vote = state.get("joint_vote")
        if not vote:
            return []
        _start_tiebreak(game, state, vote["players"])
        return tiebreak_notices(game)

    def pending_outcome(self, game: Game) -> str | None:
        """Seed 004 (Lytton): equal solos are offered a joint win, and a NO starts the
        tie-break; until either ends the game, nobody has won."""
        state = game.variant_state or {}
        vote = state.get("joint_vote")
        if vote:
            who = " and ".join(vote["players"])
            return (
                f"Nobody has won yet: {who} reached {vote['centres']} centres each and are"
                " offered a joint win; they vote YES or NO (a NO starts a tie-break)."
            )
        if state.get("tiebreak"):
            who = " and ".join(state["tiebreak"])
            return (
                f"Nobody has won yet: the tie-break between {who} goes on until one of them"
                f" leads with {_solo_of(game)} or more centres after a Fall."
            )
        return None


class DoubleWeb(WebHooks):
    def public_sections(self, game: Game) -> list[PublicSection]:
        return public.sections(game, ring_seats(game))


class Double(Variant):
    name = "double"
    commands_module = "mailjudge.variants.double.commands"
    phase = DoublePhase()
    people = DoublePeople()
    web = DoubleWeb()


def joint_vote_open(game: Game) -> bool:
    return bool((game.variant_state or {}).get("joint_vote"))


def vote_joint(game: Game, seat: Seat, yes: bool) -> str | None:
    """VOTE YES / VOTE NO on the joint win offered to equal solos. Every YES ends the game
    as their joint win; a NO starts the tie-break at once. Returns the outcome if it ends."""
    state = dict(game.variant_state or {})
    vote = state.get("joint_vote")
    if not vote or seat.name not in vote["players"]:
        raise NotAllowed("only the players offered a joint win vote on it")
    if not yes:
        _start_tiebreak(game, state, vote["players"])
        return None
    vote.setdefault("yes", [])
    if seat.name not in vote["yes"]:
        vote["yes"].append(seat.name)
    if sorted(vote["yes"]) != sorted(vote["players"]):
        _save_state(game, state)
        return None
    del state["joint_vote"]
    _save_state(game, state)
    outcome = "JOINT WIN " + " ".join(vote["players"])
    finish_game(game, outcome)
    return outcome


def _start_tiebreak(game: Game, state: dict[str, Any], players: list[str]) -> None:
    state.pop("joint_vote", None)
    state["tiebreak"] = sorted(players)
    _save_state(game, state)


def _save_state(game: Game, state: dict[str, Any]) -> None:
    game.variant_state = state
    Game.update(variant_state=state).where(Game.id == game.id).execute()


def tiebreak_notices(game: Game) -> list[Outgoing]:
    """Everyone in the game is told that a tie-break has begun, and between whom."""
    who = " and ".join((game.variant_state or {}).get("tiebreak", []))
    body = render("double/double_tiebreak.txt.j2", game=game, players=who, solo=_solo_of(game))
    return [
        mail_to_seat(seat, "a tie-break begins", body, "notice")
        for seat in Seat.select().where(Seat.game == game)
        if seat.person is not None
    ]
