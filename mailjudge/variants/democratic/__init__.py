"""Democratic Diplomacy (seed 000): any number of citizens share each country.

A citizen belongs to a supply centre, and so to whichever country owns it: when a centre
changes hands after a Fall, its citizens change country with it, before adjustments. In
each phase the citizens of a country propose order sets and rank them; at the deadline the
ranked count (instant runoff, mailjudge/voting/) picks the country's orders, and a country
with no proposal or no ballot takes the civil-disorder defaults. At the start of each
movement phase the citizens' ranked ballots elect the country's diplomat, who alone writes
to other countries. Ballots are secret and counts are kept until the deadline; afterwards
only the stage-by-stage totals are published.
"""

from __future__ import annotations

import random
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from mailjudge.config.settings import current_settings
from mailjudge.engine.checker import check_order
from mailjudge.engine.orders import OrderError
from mailjudge.engine.reader import read_order
from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.outcomes import Processed, Readiness
from mailjudge.game.state import (
    current_position,
    game_map,
    has_rule,
    person_for,
    phase_of,
    powers_owing,
    public_name,
    unique_name,
)
from mailjudge.permissions.rows import ALLOW, DENY, Row, role
from mailjudge.permissions.vocabulary import Action, Role
from mailjudge.render import render
from mailjudge.render.outgoing import Outgoing, mail_to_seat
from mailjudge.render.results import results_lines
from mailjudge.secrecy.passwords import hash_password
from mailjudge.store.db import database_proxy
from mailjudge.store.models import (
    Ballot,
    Game,
    GameState,
    OrderLine,
    PhaseRecord,
    Proposal,
    Seat,
)
from mailjudge.variants.addresses import AddressHooks, ListThread, PressRoutes
from mailjudge.variants.base import Variant
from mailjudge.variants.democratic import digests, public
from mailjudge.variants.democratic.ballots import (
    STANDING,
    Groups,
    ballot_groups,
    cast_ballot,
    order_sets,
)
from mailjudge.variants.democratic.citizens import (
    CITIZEN_ROLES,
    addresses_read_once,
    centre_owners,
    centres_of,
    citizen_owners_before,
    citizens,
    country_of,
    home_centres,
)
from mailjudge.variants.democratic.country_lists import JUDGE, archive, list_mail, list_target, post
from mailjudge.variants.democratic.press import press_routes
from mailjudge.variants.democratic.proposal_reads import nominees, proposals
from mailjudge.variants.democratic.proposal_reads import (
    set_number as set_number,
)
from mailjudge.variants.democratic.tables import CountryList, ListPost
from mailjudge.variants.events import (
    AfterProcess,
    BeforeProcess,
    ClockTick,
    JoinedLate,
    PeopleEvent,
    PhaseEvent,
    Started,
)
from mailjudge.variants.people import PeopleHooks, Recruiting
from mailjudge.variants.phase import PhaseHooks
from mailjudge.variants.questions import Lines, Open, ProposeDraw, Refusal, Status
from mailjudge.variants.web import PublicSection, WebHooks
from mailjudge.voting import Count, count_grouped

CITIZEN_ROLE_SET = (Role.CITIZEN, Role.DIPLOMAT)


def _own_country(seat: Seat) -> str:
    if seat.role not in CITIZEN_ROLES:
        raise NotAllowed("only citizens take part in their country's votes")
    power = country_of(seat)
    if power is None:
        raise NotAllowed("your centre belongs to no country yet; wait for the game to start")
    return power


def join_citizen(
    game: Game, email: str, password: str, name: str | None = None, confirmed: bool = True
) -> Seat:
    """JOIN a Democratic game, forming or running. A late joiner goes to the home centre
    with the fewest citizens (the first such centre by name). Unless ``confirmed``, the
    seat is invited only: it is a citizen, and on its country's list, once the address
    answers its CONFIRM token (commands.joining.Join), so a forged JOIN never puts a
    stranger on a list. One invited seat an address: a second JOIN finds it again."""
    if game.state not in (GameState.FORMING, GameState.ACTIVE):
        raise NotAllowed(
            f"game {game.name} is {game.state}; citizens join forming or running games"
        )
    person = person_for(email)
    with database_proxy.atomic():
        if any(s.person_id == person.id for s in citizens(game)):
            raise NotAllowed(f"you are a citizen of {game.name} already")
        waiting = Seat.get_or_none(
            (Seat.game == game) & (Seat.person == person) & (Seat.role == "citizen")
            & (Seat.status == "invited")
        )  # fmt: skip
        if waiting is not None:
            return waiting  # one waiting seat an address: its token is sent again
        centre = None
        if game.state == GameState.ACTIVE:
            load = {c: 0 for c in home_centres(game)}
            for seat in citizens(game):
                if seat.centre in load:
                    load[seat.centre] += 1
            centre = min(load, key=lambda c: (load[c], c))
        return Seat.create(
            game=game,
            person=person,
            role="citizen",
            name=unique_name(game, name or person.email.split("@")[0]),
            public_name=public_name(name),
            centre=centre,
            password_hash=hash_password(password),
            status="active" if confirmed else "invited",
        )


def citizen_joined_notice(game: Game, seat: Seat) -> Outgoing | None:
    """One post on a country's list when a citizen joins it in a running game (seed 000, Setup
    Rule 2: "Add each citizen to their country's mailing list"): it hears of them once."""
    power = country_of(seat)
    if power is None:
        return None
    body = (
        f"{seat.name} joined the citizens of {power} ({(seat.centre or '').upper()}) "
        f"in {game.phase}.\n"
    )
    return list_mail(game, power, f"new citizen: {seat.name}", body)


def nominate(game: Game, seat: Seat, name: str, commentary: str = "") -> Proposal:
    """NOMINATE a citizen of one's own country (oneself included) for diplomat."""
    power = _own_country(seat)
    nominee = Seat.get_or_none((Seat.game == game) & (Seat.name == name.lower()))
    if nominee is None or nominee.role not in CITIZEN_ROLES or country_of(nominee) != power:
        raise ServiceError(
            f"{name!r} is not a citizen of {power}; nominate a citizen of your country"
        )
    existing = Proposal.get_or_none(
        (Proposal.game == game) & (Proposal.kind == "nomination") & (Proposal.power == power)
        & (Proposal.text == nominee.name) & (Proposal.state == "open")
    )  # fmt: skip
    if existing is not None:
        return existing
    return _new_proposal(game, "nomination", power, nominee.name, seat, commentary)


def _new_proposal(
    game: Game, kind: str, power: str, text: str, author: Seat, note: str = ""
) -> Proposal:
    return Proposal.create(
        game=game, phase=game.phase, kind=kind, number=Proposal.next_number(game),
        power=power, text=text + (f"\n\n{note.strip()}" if note.strip() else ""), author=author,
    )  # fmt: skip


def propose_orders(
    game: Game, seat: Seat, lines: list[str]
) -> tuple[Proposal, list[tuple[str, str]]]:
    """PROPOSAL ORDERS: an order set for one's country in this phase. Lines are checked as
    orders of that country; identical sets are one proposal."""
    power = _own_country(seat)
    gmap = game_map(game)
    pos = current_position(game)
    accepted: list[str] = []
    errors: list[tuple[str, str]] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            order = check_order(read_order(line, gmap, pos.phase.type), pos, power, gmap,
                                build_any=has_rule(game, "BUILD_ANY"))  # fmt: skip
            accepted.append(str(order))
        except OrderError as err:
            errors.append((line.strip(), f"{err.kind}: {err}"))
    if not accepted:
        raise ServiceError("the proposal has no valid order; write one order a line")
    text = "\n".join(sorted(set(accepted)))
    with database_proxy.atomic():
        same = Proposal.get_or_none(
            (Proposal.game == game) & (Proposal.phase == game.phase) & (Proposal.kind == "orders")
            & (Proposal.power == power) & (Proposal.text == text)
        )  # fmt: skip
        return same or _new_proposal(game, "orders", power, text, seat), errors


def vote_orders(game: Game, seat: Seat, ranking: list[int]) -> None:
    """VOTE ORDERS 2 1 3: rank this phase's order sets of one's country, best first."""
    power = _own_country(seat)
    numbers = set(range(1, order_sets(game, power) + 1))
    unknown = [n for n in ranking if n not in numbers]
    if unknown or len(set(ranking)) != len(ranking) or not ranking:
        offered = ", ".join(map(str, sorted(numbers))) or "none yet"
        raise ServiceError(f"rank {power}'s order sets of this phase, each once: {offered}")
    with database_proxy.atomic():
        cast_ballot(game, seat, "orders", phase_of(game), power, ranking)


def vote_diplomat(game: Game, seat: Seat, names: list[str]) -> None:
    """VOTE DIPLOMAT alice bob: rank the nominees of one's country, best first."""
    power = _own_country(seat)
    offered = nominees(game, power)
    wanted = [n.lower() for n in names]
    if not wanted or any(n not in offered for n in wanted) or len(set(wanted)) != len(wanted):
        raise ServiceError(
            f"rank {power}'s nominees, each once: {', '.join(offered) or 'none yet'}"
        )
    with database_proxy.atomic():
        cast_ballot(game, seat, "diplomat", STANDING, power, wanted)


def abstain(game: Game, seat: Seat, kind: str) -> None:
    """ABSTAIN ORDERS / ABSTAIN DIPLOMAT: withdraw one's ballot (abstentions are not counted)."""
    _own_country(seat)
    phase = game.phase if kind == "orders" else STANDING
    Ballot.delete().where(
        (Ballot.voter == seat) & (Ballot.kind == kind) & (Ballot.phase == phase)
    ).execute()


def _count(
    game: Game, power: str, kind: str, options: list[Any], groups: Groups | None = None
) -> Count[Any]:
    if groups is None:
        groups = ballot_groups(game, kind, power).get(power, {})
    return count_grouped(groups, options, f"{game.name}:{game.phase}:{kind}:{power}")


def count_orders(game: Game, power: str, groups: Groups | None = None) -> Count[Any]:
    """Ballots rank set numbers (1, 2, ...), the country's own numbering. ``groups``:
    the country's ballots, when they were read already (``ballot_groups``)."""
    sets = list(range(1, len(proposals(game, power)) + 1))
    return _count(game, power, "orders", sets, groups)


def elect_diplomat(
    game: Game, power: str, groups: Groups | None = None
) -> tuple[Seat | None, Count[Any]]:
    """Count the diplomat ballots of ``power``'s citizens (``groups``, when they were
    read already); the winner speaks for it. The count is returned for publication."""
    result = _count(game, power, "diplomat", nominees(game, power), groups)
    centres = centres_of(game, power)
    Seat.update(role="citizen").where(
        (Seat.game == game) & (Seat.role == "diplomat") & Seat.centre.in_(centres)
        & (Seat.name != (result.winner or ""))
    ).execute()  # fmt: skip
    if result.winner is None:
        return None, result
    Seat.update(role="diplomat").where((Seat.game == game) & (Seat.name == result.winner)).execute()
    return Seat.get((Seat.game == game) & (Seat.name == result.winner)), result


def stage_lines(result: Count[Any], label: Any) -> list[str]:
    """The published count, once the deadline has passed: each stage's totals, who left
    the count after it, and how every tie was settled; never a ballot."""
    lines = [f"ballots counted: {result.ballots}"]
    for n, stage in enumerate(result.stages, 1):
        totals = ", ".join(f"{label(option)}: {votes}" for option, votes in stage.items())
        lines.append(f"stage {n}: {totals}")
        for tie in (tie for tie in result.ties if tie.stage == n):
            names = [label(option) for option in tie.tied]
            tied = ", ".join(names[:-1]) + " and " + names[-1]
            if tie.draw is not None:
                chosen = label(tie.draw.chosen)
                how = (f"by a draw: sha256 of {tie.draw.text!r} is {tie.draw.digest}; as a "
                       f"number, modulo {len(names)}, it picks {chosen}")  # fmt: skip
            else:
                how = "by stage " + ", then stage ".join(str(s) for s, _ in tie.looked_back)
            lines.append(f"    tie for {tie.kind} between {tied}: settled {how}")
        if n <= len(result.eliminated) and n < len(result.stages):
            lines.append(f"    eliminated: {label(result.eliminated[n - 1])}")
    if result.winner is not None:
        lines.append(f"chosen: {label(result.winner)}")
    return lines


class DemocraticPeople(PeopleHooks):
    has_players = False
    recruits = True  # a newcomer becomes a citizen (JOIN), never a country's player

    def join(self, game: Game, email: str, password: str, name: str | None) -> Seat | None:
        return join_citizen(game, email, password, name)

    def refusal(self, question: Refusal) -> str | None:
        match question:
            case Open(game, power):
                # A country is its citizens' (seed 000): nobody takes it over, and a country
                # with no citizen yet gets them by JOIN (a late citizen goes to the home
                # centre with the fewest).
                return (
                    f"{power.upper()} in {game.name} is played by its citizens, who vote its "
                    f"orders: nobody takes a Democratic country over; JOIN {game.name} "
                    "password makes you a citizen"
                )
            case ProposeDraw():
                # Seed 000: "This variant allows an unlimited number of players to play,
                # until the end. Everyone wins." Its votes choose diplomats and orders only:
                # citizens do not vote for draws or concessions; the master may still
                # DECLARE DRAW.
                return (
                    'a Democratic game is played to the end (seed 000: "Everyone wins"): '
                    "citizens vote for diplomats and orders, not for draws; the master may "
                    "DECLARE DRAW"
                )
        return None

    def recruiting(self, game: Game) -> Recruiting | None:
        if game.state != GameState.ACTIVE:
            return None
        return Recruiting(
            "a citizen, who votes on a country's orders", f"JOIN {game.name} password"
        )

    def on(self, event: PeopleEvent) -> list[Outgoing]:
        if not isinstance(event, JoinedLate):
            return []
        notice = citizen_joined_notice(event.game, event.seat)
        return [notice] if notice is not None else []

    def lines(self, question: Lines) -> list[str] | None:
        if not isinstance(question, Status) or question.seat.role not in CITIZEN_ROLES:
            return None
        from mailjudge.variants.democratic.status import citizen_status  # it imports this

        return citizen_status(question.game, question.seat)

    def speaks_for(self, seat: Seat) -> list[str]:
        country = country_of(seat) if seat.role in CITIZEN_ROLES else None
        return [country] if country else list(seat.powers)


class DemocraticAddresses(AddressHooks):
    def list_at(self, address: str, judge: str) -> tuple[Game, str] | None:
        return list_target(address, judge)

    def post_to_list(
        self, game: Game, power: str, text: str, subject: str, sender: str, thread: ListThread
    ) -> tuple[Seat, Outgoing]:
        return post(game, power, text, subject, sender, thread)

    def list_mail(
        self, game: Game, power: str, subject: str, body: str, author: str
    ) -> Outgoing | None:
        return list_mail(game, power, subject, body, author)

    def press_routes(
        self, game: Game, sender: Seat, recipients: list[str], cc_list: bool
    ) -> PressRoutes:
        return press_routes(game, sender, recipients, cc_list)


class DemocraticWeb(WebHooks):
    def public_sections(self, game: Game) -> list[PublicSection]:
        return public.sections(game)


class DemocraticPhase(PhaseHooks):
    def on(self, event: PhaseEvent) -> list[Outgoing]:
        match event:
            case Started(game, rng):
                return self._start(game, rng)
            case ClockTick(game, now):
                # The country lists' digests that are due (`judge.digest_hours`).
                return digests.due(game, now, current_settings().judge.digest_hours)
            case BeforeProcess(game):
                return self._count_orders(game)
            case AfterProcess(game, done, now):
                return self._after(game, done, now)
        return []

    def _start(self, game: Game, rng: random.Random) -> list[Outgoing]:
        centres = home_centres(game)
        people = [
            int(seat_id)
            for seat_id in Seat.select(Seat.id)
            .where((Seat.game == game) & Seat.role.in_(CITIZEN_ROLES))
            .order_by(Seat.id)
            .scalars()
        ]
        rng.shuffle(centres)
        rng.shuffle(people)
        for k, centre in enumerate(centres):  # round robin: every len(centres)-th citizen
            ids = people[k :: len(centres)]
            for start in range(0, len(ids), 500):
                Seat.update(centre=centre).where(Seat.id.in_(ids[start : start + 500])).execute()
        mails = [
            m for c in sorted(centres) for m in self._placed_centre(game, c, "you are a citizen")
        ]
        return mails + self._elect_all(game)

    def _placed_centre(self, game: Game, centre: str, why: str) -> list[Outgoing]:
        """A mail to each citizen of a centre, To them: their country and what they may do."""
        members = Seat.select().where(
            (Seat.game == game) & (Seat.centre == centre) & Seat.role.in_(CITIZEN_ROLES)
            & Seat.person.is_null(False)
        )  # fmt: skip
        power = centre_owners(game).get(centre)
        body = render(
            "democratic/citizen_placed.txt.j2", game=game, power=power, centre=centre, why=why
        )
        subject = f"{why} of {power} ({centre.upper()})"
        mails = []
        for seat in members:
            seat.game = game  # one game for all, not a query per citizen
            mails.append(mail_to_seat(seat, subject, body, "notice"))
        return mails

    def _placed(self, seat: Seat, why: str) -> Outgoing:
        power = country_of(seat)
        body = render(
            "democratic/citizen_placed.txt.j2",
            game=seat.game,
            power=power,
            centre=seat.centre,
            why=why,
        )
        return mail_to_seat(
            seat, f"{why} of {power} ({(seat.centre or '').upper()})", body, "notice"
        )

    def _elect_all(self, game: Game) -> list[Outgoing]:
        powers = game_map(game).power_names
        ballots = ballot_groups(game, "diplomat")
        elected = {p: elect_diplomat(game, p, ballots.get(p, {})) for p in powers}
        names = {p: (seat.name if seat else None) for p, (seat, _) in elected.items()}
        mails = []
        for power, (_, count) in elected.items():
            # Each country reads the others' diplomats and its own election's count.
            body = render("democratic/diplomats.txt.j2", game=game, diplomats=names, power=power,
                          stages=stage_lines(count, str) if count.stages else [])  # fmt: skip
            mails.append(list_mail(game, power, "the diplomats", body))
        return [m for m in mails if m is not None]

    def ready(self, game: Game, now: datetime, standard: Readiness) -> Readiness:
        if has_rule(game, "NO_DEADLINE") or game.deadline is None:
            return Readiness(False, "the citizens vote until the master processes")
        if now >= game.deadline:
            return Readiness(True, "the deadline has passed: the votes are counted")
        return Readiness(False, "the citizens vote until the deadline")

    def processing(self, game: Game) -> AbstractContextManager[object]:
        """The citizens' addresses are read once for all the list mails of a phase (the
        counts, the diplomats, the digests): nothing in processing adds, moves or
        removes a citizen (those of a captured centre change country, not centre)."""
        return addresses_read_once()

    def _count_orders(self, game: Game) -> list[Outgoing]:
        """The winning order set of each country becomes its orders; the counts are
        published to the country's citizens (totals only)."""
        mails: list[Outgoing] = []
        ballots = ballot_groups(game, "orders")
        for power in powers_owing(game, current_position(game), frozenset()):
            result = count_orders(game, power, ballots.get(power, {}))
            here = (OrderLine.game == game) & (OrderLine.phase == game.phase)
            OrderLine.delete().where(here & (OrderLine.power == power)).execute()
            chosen = None
            if result.winner is not None:
                chosen = proposals(game, power)[int(result.winner) - 1]
                for n, text in enumerate(chosen.text.split("\n")):
                    OrderLine.create(game=game, phase=game.phase, power=power, line=n, text=text)
            body = render(
                "democratic/orders_count.txt.j2", game=game, power=power, chosen=chosen,
                chosen_number=result.winner, stages=stage_lines(result, lambda n: f"set {n}"),
            )  # fmt: skip
            mail = list_mail(game, power, f"{power}'s orders for {game.phase}", body)
            if mail is not None:
                mails.append(mail)
        return mails

    def _after(self, game: Game, done: Processed, now: datetime) -> list[Outgoing]:
        """Citizens of captured centres change country (at the end of a Fall turn: after
        its retreats); a new movement phase elects."""
        old_owners = citizen_owners_before(game, done.phase)
        new_owners = centre_owners(game)
        taken = [c for c, owner in new_owners.items() if old_owners.get(c) != owner]
        movers: list[Seat] = []
        if taken:
            movers = list(
                Seat.select().where(
                    (Seat.game == game) & Seat.role.in_(CITIZEN_ROLES) & Seat.centre.in_(taken)
                )
            )
        if movers:
            # Their standing ballots were for the old country: they no longer count.
            ids = [s.id for s in movers]
            Ballot.delete().where(Ballot.voter.in_(ids) & (Ballot.kind == "diplomat")).execute()
            Seat.update(role="citizen").where(Seat.id.in_(ids)).execute()
        mails = [
            self._placed(seat, "your centre was taken: you are now a citizen")
            for seat in movers
            if seat.person
        ]
        if game.state == GameState.ACTIVE and (game.phase or "").endswith("M"):
            mails += self._elect_all(game)
        return mails + self._digests(game, done, now)

    def _digests(self, game: Game, done: Processed, now: datetime) -> list[Outgoing]:
        """The phase's public results go to every list, then each list's digest."""
        text = "\n".join(results_lines(done.results, done.outcome, None, game.map_name)) + "\n"
        for power in sorted(
            {*centre_owners(game).values(), *_record_owners(game, done.phase).values()}
        ):
            archive(game, power, JUDGE, f"results of {done.phase}", text)
        return digests.for_game(game, now)


class Democratic(Variant):
    name = "democratic"
    tables = (
        CountryList,
        ListPost,
    )
    roles = CITIZEN_ROLES  # a citizen, and the diplomat a country's citizens elect
    seat_fields = ("centre",)  # the supply centre a citizen is placed on
    commands_module = "mailjudge.variants.democratic.commands"
    permission_rows = (
        Row(Action.ORDERS, role(*CITIZEN_ROLE_SET), DENY,
            "in a Democratic game the country's orders are chosen by PROPOSAL ORDERS and"
            " VOTE ORDERS"),
        Row(Action.PRESS_COUNTRY, role(*CITIZEN_ROLE_SET), ALLOW,
            "citizens write to their own country"),
        Row(Action.PRESS_BROADCAST, role(Role.CITIZEN), DENY,
            "only the diplomat speaks for the country to all"),
        Row(Action.VOTE, role(*CITIZEN_ROLE_SET), ALLOW, "citizens vote for their country"),
        Row(Action.STATUS, role(*CITIZEN_ROLE_SET), ALLOW,
            "citizens see their country's diplomat, nominees and order sets, and their own"
            " ballots"),
    )  # fmt: skip
    phase = DemocraticPhase()
    people = DemocraticPeople()
    addresses = DemocraticAddresses()
    web = DemocraticWeb()


def _record_owners(game: Game, phase: str) -> dict[str, str]:
    record = PhaseRecord.get_or_none((PhaseRecord.game == game) & (PhaseRecord.phase == phase))
    return dict((record.position or {}).get("sc_owners") or {}) if record else {}
