"""Skill ratings: each person's skill on one map in one press kind, updated when a game
ends, with OpenSkill's Plackett-Luce model (a well-kept library: the Weng-Lin Bayesian
rating for many players, teams and scores, rather than arithmetic of our own).

At a game's end (service/results.game_over_mails, which every ending sends) the game is
rated once: each power is a team of the people who hold it then, scored by the game's
SCORING rule (game/scores.py); OpenSkill's ``rate`` takes the teams' ratings on the game's
map and press kind and the scores, and gives each person their new mu and sigma. A new
person starts at the model's mu 25, sigma 25/3. The rating shown is the ordinal, mu - 3
sigma: a skill the player has with 99.7 % confidence, which a newcomer's wide sigma keeps
low.

Who is rated: the players holding a power at the end (a Double power's two players are one
team, each updated by the team's result); a Democratic power's citizens together (a
citizen holds no orders of their own, and shares the country's result); Diplonomic's
contestants (teammates assist and are not rated); Survive's outcasts with their power's
score. Dummies and vacant powers are no team; a game with fewer than two teams is not
rated. A ROLLBACK of a finished game does not undo its rating (it was rated once, at its
first ending). Press kind: "no press" where a player may not broadcast (NO_PRESS, or
Gunboat), else "press".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from mailjudge.game.options import option_text
from mailjudge.game.scores import scores
from mailjudge.game.state import current_position, game_map, has_rule
from mailjudge.permissions.actors import Actor
from mailjudge.permissions.policy import check
from mailjudge.permissions.vocabulary import Action
from mailjudge.render.outgoing import seat_country
from mailjudge.service.draws import survivors
from mailjudge.store.models import Game, GameState, Person, Seat, utcnow
from mailjudge.store.stats_models import RatedGame, Rating

MODEL = PlackettLuce()
FORMULA = (
    "RATING mails you your skill ratings, one a map and press kind (press, no press). They",
    "are OpenSkill's Plackett-Luce model (Weng and Lin's Bayesian rating, 2011): each player",
    "has a mean skill mu (25 to start) and an uncertainty sigma (25/3 to start). When a game",
    "ends, each power is a team of the people holding it, scored by the game's SCORING",
    "option: DRAW_SIZE (a solo 1 to the winner; a draw 1/n to each of its n members) or",
    "SUM_OF_SQUARES (a solo 1 to the winner; else centres squared over the sum of all",
    "powers' centres squared). The teams' mu move by how their places differ from what",
    "their ratings foretold, and each sigma shrinks. The rating shown is mu - 3 sigma.",
    "A Double power's two players are one team, a Democratic power's citizens too;",
    "Diplonomic's teammates are not rated. SET RECORD PUBLIC AS name also shows your",
    "ratings on the web's /ratings ladder, under that name.",
)


@dataclass(frozen=True)
class Shown:
    map_name: str
    press: str
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def press_kind(game: Game) -> str:
    """ "no press" when a player may not broadcast (NO_PRESS, Gunboat's own rows), else
    "press": the permission table answers, so no variant needs naming."""
    if has_rule(game, "NO_PRESS"):
        return "no press"
    seat = Seat.get_or_none((Seat.game == game) & (Seat.role == "player"))
    if seat is None:
        return "press"
    # Asked of the game as it was in play: once over, the table refuses everything.
    in_play = Game(**{**game.__data__, "state": GameState.ACTIVE})
    actor = Actor(address="", game=in_play, seat=seat)
    return "press" if check(actor, Action.PRESS_BROADCAST).allowed else "no press"


def teams(game: Game) -> dict[str, list[int]]:
    """Each power's team at the end: the ids of the people holding it (each person once)."""
    seats = Seat.select().where(
        # A player's seat, or a seat placed on a centre (a Democratic citizen, its diplomat
        # too): both play a power; the other seats (observers, teammates) assist.
        (Seat.game == game) & ((Seat.role == "player") | Seat.centre.is_null(False))
        & Seat.person.is_null(False)
        & (Seat.status == "active")
    )  # fmt: skip
    found: dict[str, list[int]] = {}
    placed: set[int] = set()
    for seat in seats.order_by(Seat.id):
        country = seat_country(seat)  # a Democratic citizen: the owner of their centre
        # A person is rated once a game: with the first power they hold (one seat may
        # hold two, as Lytton's solo does), never on two teams at once.
        for power in seat.powers or ([country] if country else []):
            if seat.person_id not in placed:
                found.setdefault(power, []).append(int(seat.person_id))
                placed.add(int(seat.person_id))
    return found


def _rating(person: int, game: Game, press: str) -> Rating:
    row = Rating.get_or_none((Rating.person == person) & (Rating.map_name == game.map_name)
                             & (Rating.press == press))  # fmt: skip
    if row is None:
        fresh = MODEL.rating()
        row = Rating(person=person, map_name=game.map_name, press=press, mu=fresh.mu,
                     sigma=fresh.sigma, games=0)  # fmt: skip
    return row


def rate_game(game: Game) -> bool:
    """Take a finished game's result into its players' ratings, once; whether it did."""
    if RatedGame.get_or_none(RatedGame.game == game) is not None:
        return False
    rule = option_text(game, "SCORING")
    RatedGame.create(game=game, scoring=rule)
    by_power = teams(game)
    if len(by_power) < 2:
        return False
    powers = list(game_map(game).power_names)
    centres = current_position(game).centre_counts()
    score = scores(game.outcome, rule, centres, powers, survivors(game))
    press = press_kind(game)
    order = sorted(by_power)
    rows = [[_rating(p, game, press) for p in by_power[power]] for power in order]
    teams_in = [[MODEL.rating(mu=r.mu, sigma=r.sigma) for r in team] for team in rows]
    rated = MODEL.rate(teams_in, scores=[float(score[p]) for p in order])
    for team, new in zip(rows, rated, strict=True):
        for row, after in zip(team, new, strict=True):
            row.mu, row.sigma, row.games, row.updated_at = (
                after.mu,
                after.sigma,
                row.games + 1,
                utcnow(),
            )
            row.save()
    return True


def ratings_of(person: Person | None) -> list[Shown]:
    if person is None:
        return []
    rows = Rating.select().where(Rating.person == person).order_by(Rating.map_name, Rating.press)
    return [Shown(r.map_name, r.press, r.mu, r.sigma, r.games) for r in rows]


def ladder() -> dict[tuple[str, str], list[tuple[str, Shown]]]:
    """The public ladder: for each map and press kind, those who made their record public
    (by its name), best ordinal first."""
    rows: Any = Rating.select(Rating, Person).join(Person).where(Person.record_public)
    found: dict[tuple[str, str], list[tuple[str, Shown]]] = {}
    for r in rows:
        shown = Shown(r.map_name, r.press, r.mu, r.sigma, r.games)
        found.setdefault((r.map_name, r.press), []).append((str(r.person.record_name), shown))
    for entries in found.values():
        entries.sort(key=lambda item: -item[1].ordinal)
    return dict(sorted(found.items()))
