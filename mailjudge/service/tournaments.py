"""Tournaments: rounds of boards on one map and rules, run by a master.

- TOURNAMENT CREATE: a name, the master's password, the map, the rules flags every board
  gets, the scoring rule, the number of rounds, ANONYMOUS or not.
- TOURNAMENT JOIN: a player registers with a password (its hash is every board's seat
  password: no mail ever carries one) and, if they like, a name for the standings.
- TOURNAMENT ROUND: the master begins the next round. The players are dealt to boards of
  as many as the map has powers (those left over sit the round out, those who sat out
  least first); of many seeded shuffles the deal that makes the fewest pairs of people
  meet again is kept (none where it can be avoided), and each board's powers go to its
  players so that they repeat the powers they played before as little as possible
  (rotated). Each board is a game of its own, named TOURNAMENT-ROUND-BOARD, with the
  master as its master; it starts at once.
- Scoring, each finished board by the tournament's rule: WINNER_TAKES_ALL (a solo 1, a
  draw nothing), DRAW_SIZE (a solo 1, a draw 1/n to each member), SUM_OF_SQUARES (a solo
  100, else 100 times the power's centres squared over the sum of all centres squared),
  CENTRES (the power's supply centres at the end). A player's total is the sum over their
  boards; a board not finished yet counts nothing.
- Standings by mail (TOURNAMENT STANDINGS) and on the web (/tournaments/NAME); while an
  ANONYMOUS tournament runs its players are "player N", and their names show once its
  last round's boards are all over.
"""

from __future__ import annotations

import itertools
import random
import secrets
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from mailjudge.engine.catalogue import playable_powers
from mailjudge.engine.maps import load_map
from mailjudge.engine.rules import RuleSet
from mailjudge.game import guard
from mailjudge.game.errors import NotAllowed, NotFound, ServiceError
from mailjudge.game.scores import SUM_OF_SQUARES, members, scores
from mailjudge.game.state import current_position, game_map, get_game, person_for
from mailjudge.render.outgoing import Outgoing
from mailjudge.secrecy.passwords import hash_password, verify_password
from mailjudge.service import games, seats
from mailjudge.service.draws import survivors
from mailjudge.service.records import person_at
from mailjudge.store.models import GAME_NAME, Game, GameState, Person, utcnow
from mailjudge.store.tournament_models import Tournament, TournamentPlayer, TournamentSeat

SCORINGS = ("WINNER_TAKES_ALL", "DRAW_SIZE", "SUM_OF_SQUARES", "CENTRES")
SHUFFLES = 400  # deals tried per round: the one with the fewest repeat meetings is kept


@dataclass(frozen=True)
class Standing:
    place: int
    name: str
    total: Fraction
    boards: int


def _players(found: Tournament) -> list[TournamentPlayer]:
    """The registered players: those whose address answered the judge."""
    return list(TournamentPlayer.select().where(
        (TournamentPlayer.tournament == found) & TournamentPlayer.token.is_null()
    ))  # fmt: skip


def tournament(name: str) -> Tournament:
    found = Tournament.get_or_none(Tournament.name == name.lower())
    if found is None:
        raise NotFound(f"no tournament is called {name}; TOURNAMENT CREATE makes one")
    return found


def create(name: str, master: str, password: str, map_name: str, rules: str, scoring: str,
           rounds: int, anonymous: bool) -> Tournament:  # fmt: skip
    name = name.lower()
    if not GAME_NAME.fullmatch(name) or len(name) > 20 or "-" in name:
        raise ServiceError(f"{name!r} cannot be a tournament's name: 1 to 20 letters, digits "
                           "or '_' (its boards are named NAME-ROUND-BOARD)")  # fmt: skip
    if Tournament.get_or_none(Tournament.name == name) is not None:
        raise NotAllowed(f"a tournament is called {name} already; choose another name")
    if scoring not in SCORINGS:
        raise ServiceError(f"SCORING is one of {', '.join(SCORINGS)}, not {scoring!r}")
    if not 1 <= rounds <= 20:
        raise ServiceError("ROUNDS is a number from 1 to 20")
    load_map(map_name)  # an unknown map is refused here, with the maps' names
    RuleSet.parse(rules)
    person = person_for(master)
    return Tournament.create(name=name, master=person, password_hash=hash_password(password),
                             map_name=map_name, rules=rules, scoring=scoring, rounds=rounds,
                             anonymous=anonymous)  # fmt: skip


def register(
    name: str, address: str, password: str, shown: str = "", proven: bool = True
) -> TournamentPlayer:
    """Registers ``address``; from an address that never answered the judge the player
    waits for its CONFIRM (``player.token``), and a later JOIN from it sends a new token."""
    found = tournament(name)
    if found.round > 0:
        raise NotAllowed(f"tournament {found.name} has begun: players register before round 1")
    person = person_for(address)
    mine = (TournamentPlayer.tournament == found) & (TournamentPlayer.person == person)
    earlier = TournamentPlayer.get_or_none(mine)
    if earlier is not None and earlier.token is None:
        raise NotAllowed(f"you are registered for {found.name} already")
    if earlier is not None:  # it never answered: this JOIN's password and token stand
        earlier.delete_instance()
    number = TournamentPlayer.select().where(TournamentPlayer.tournament == found).count() + 1
    return TournamentPlayer.create(
        tournament=found, person=person, number=number, shown=shown,
        password_hash=hash_password(password),
        token=None if proven else secrets.token_hex(6),
    )  # fmt: skip


def confirm_registration(token: str, address: str) -> TournamentPlayer | None:
    """The registration waiting for ``token`` from ``address``, now done; None when no
    registration waits for it (the token is another command's)."""
    waiting = TournamentPlayer.get_or_none(TournamentPlayer.token == token)
    if waiting is None or waiting.person.email != address.lower():
        return None
    waiting.token = None
    waiting.save()
    guard.mark_proven(address, utcnow())  # as any answered token proves it
    return waiting


def registered_lines(player: TournamentPlayer) -> list[str]:
    return [f"you are registered for {player.tournament.name} as player {player.number}; "
            "you are mailed your board and power when a round begins"]  # fmt: skip


def _met(
    found: Tournament,
) -> tuple[Counter[frozenset[int]], dict[int, Counter[str]], Counter[int]]:
    """Who met whom so far, the powers each played, the rounds each played."""
    boards: dict[int, list[TournamentSeat]] = {}
    powers: dict[int, Counter[str]] = {}
    played: Counter[int] = Counter()
    for seat in TournamentSeat.select().where(TournamentSeat.tournament == found):
        boards.setdefault(int(seat.game_id), []).append(seat)
        powers.setdefault(int(seat.player_id), Counter()).update(seat.powers)
        played[int(seat.player_id)] += 1
    met: Counter[frozenset[int]] = Counter()
    for board in boards.values():
        for a, b in itertools.combinations(board, 2):
            met[frozenset((int(a.player_id), int(b.player_id)))] += 1
    return met, powers, played


def deal(players: list[int], size: int, met: Counter[frozenset[int]], played: Counter[int],
         rng: random.Random) -> list[list[int]]:  # fmt: skip
    """Boards of ``size`` players with the fewest repeat meetings of many shuffles; those
    who played most sit out when the players do not divide."""
    boards = len(players) // size
    if boards == 0:
        raise NotAllowed(f"a round needs at least {size} players")
    order = sorted(players, key=lambda p: (played[p], rng.random()))[: boards * size]
    best: list[list[int]] = []
    best_cost = -1
    for _ in range(SHUFFLES):
        rng.shuffle(order)
        tables = [order[i * size : (i + 1) * size] for i in range(boards)]
        cost = sum(met[frozenset(pair)] for t in tables for pair in itertools.combinations(t, 2))
        if best_cost < 0 or cost < best_cost:
            best, best_cost = [list(t) for t in tables], cost
        if cost == 0:
            break
    return best


def rotate(board: list[int], powers: list[str], played: dict[int, Counter[str]]) -> dict[int, str]:
    """Each player a power, repeating the powers they played before as little as possible."""
    best: tuple[int, ...] = ()
    best_cost = -1
    for perm in itertools.permutations(range(len(powers))):
        cost = sum(played.get(p, Counter())[powers[i]] for p, i in zip(board, perm, strict=True))
        if best_cost < 0 or cost < best_cost:
            best, best_cost = perm, cost
        if cost == 0:
            break
    return {p: powers[i] for p, i in zip(board, best, strict=True)}


def begin_round(name: str, password: str) -> list[tuple[Game, list[Outgoing]]]:
    """The master's TOURNAMENT ROUND: the next round's boards, created and started."""
    found = tournament(name)
    if not verify_password(password, str(found.password_hash)):
        raise NotAllowed(f"that is not the password of tournament {found.name}")
    if found.round >= found.rounds:
        raise NotAllowed(f"tournament {found.name} has played its {found.rounds} rounds")
    if found.round and not round_over(found):
        raise NotAllowed(f"round {found.round} of {found.name} still has boards in play")
    gmap = load_map(found.map_name)
    powers = list(playable_powers(gmap))
    met, played_powers, played = _met(found)
    players = {int(p.id): p for p in _players(found)}
    rng = random.Random(f"{found.name}:{found.round + 1}")
    found.round += 1
    found.save()
    made = []
    for n, board in enumerate(deal(sorted(players), len(powers), met, played, rng), 1):
        dealt = rotate(board, powers, played_powers)
        rules = f"{found.rules} START_MASTER POWER_CHOICE".strip()
        board_name = f"{found.name}-{found.round}-{n}"
        game = games.create_game(board_name, found.master.email, password,
                                 map_name=found.map_name, rules=rules)  # fmt: skip
        for player, power in dealt.items():
            tp = players[player]
            seats.join(game, tp.person.email, "", power=power, password_hash=tp.password_hash)
            TournamentSeat.create(tournament=found, round=found.round, game=game,
                                  player=tp, powers=power)  # fmt: skip
        mails = games.start_game(get_game(game.name), rng)
        made.append((get_game(game.name), mails))
    return made


def round_over(found: Tournament) -> bool:
    boards = {s.game_id for s in TournamentSeat.select().where(
        (TournamentSeat.tournament == found) & (TournamentSeat.round == found.round))}  # fmt: skip
    return all(Game.get_by_id(g).state == GameState.FINISHED for g in boards)


def ended(found: Tournament) -> bool:
    return found.round >= found.rounds and round_over(found)


def board_score(game: Game, power: str, rule: str) -> Fraction:
    """What ``power`` scored on a finished board by ``rule`` (see the module's docstring)."""
    pos = current_position(game)
    centres = pos.centre_counts()
    names = list(game_map(game).power_names)
    if rule == "CENTRES":
        return Fraction(centres.get(power, 0))
    if rule == "WINNER_TAKES_ALL":
        kind, won = members(game.outcome, names, survivors(game))
        return Fraction(int(kind == "solo" and power in won))
    score = scores(game.outcome, rule, centres, names, survivors(game))[power]
    return score * 100 if rule == SUM_OF_SQUARES else score


def standings(name: str, rule: str | None = None) -> list[Standing]:
    """The players by total, best first, by the tournament's rule (or ``rule``)."""
    found = tournament(name)
    rule = rule or str(found.scoring)
    totals: dict[int, Fraction] = {int(p.id): Fraction(0) for p in _players(found)}
    boards: Counter[int] = Counter()
    for seat in TournamentSeat.select().where(TournamentSeat.tournament == found):
        game = Game.get_by_id(seat.game_id)
        if game.state != GameState.FINISHED:
            continue
        totals[int(seat.player_id)] += sum(board_score(game, p, rule) for p in seat.powers)
        boards[int(seat.player_id)] += 1
    hidden = bool(found.anonymous) and not ended(found)
    players = {int(p.id): p for p in _players(found)}
    ranked = sorted(totals.items(), key=lambda item: (-item[1], players[item[0]].number))
    return [Standing(place, _name(players[pid], hidden), total, boards[pid])
            for place, (pid, total) in enumerate(ranked, 1)]  # fmt: skip


def _name(player: TournamentPlayer, hidden: bool) -> str:
    if hidden or not player.shown:
        return f"player {player.number}"
    return str(player.shown)


def player_of(name: str, address: str) -> TournamentPlayer | None:
    person: Person | None = person_at(address)
    if person is None:
        return None
    return TournamentPlayer.get_or_none((TournamentPlayer.tournament == tournament(name))
                                        & (TournamentPlayer.person == person))  # fmt: skip
