"""Press: who may write to whom under the game's rules, and the archive.

Delivery is the mail layer's job; this module decides and records. Under NO_PRESS press goes
only to and from the master; under PUBLIC_PRESS only broadcasts and press to the master are
allowed. Observers write only to the master. GREY hides the sender from the recipients.
"""

from __future__ import annotations

from dataclasses import dataclass

from mailjudge.game.errors import NotAllowed, ServiceError
from mailjudge.game.state import game_map, players
from mailjudge.permissions.actors import Actor
from mailjudge.permissions.policy import check
from mailjudge.permissions.vocabulary import Action
from mailjudge.store.models import Game, Press, Seat
from mailjudge.variants import variant_of

MASTER = "MASTER"


@dataclass
class PressNote:
    press: Press
    recipients: list[str]  # powers, and MASTER


def resolve_recipients(game: Game, words: list[str]) -> list[str]:
    """``FRANCE ENGLAND``, initials ``F E`` (or run together, ``FE``), ``M`` for the master,
    ``ALL``, ``ALL BUT x y`` (the master too unless named among them: njudge's ``ALL BUT
    FM``). In ALL BUT, njudge's ``O`` (the observers) is let pass: observers never get
    press here."""
    gmap = game_map(game)
    by_initial = {p.initial.upper(): p.name for p in gmap.powers.values()}
    live = [p for s in players(game) for p in s.powers]

    def one(word: str) -> str:
        w = word.upper().strip(",")
        if w in ("M", "MASTER"):
            return MASTER
        if w in gmap.powers:
            return w
        if w in by_initial:
            return by_initial[w]
        if w in ("O", "OBSERVER", "OBSERVERS"):
            raise ServiceError(
                "observers get no press here (only results); nothing was sent: write the "
                "powers the press is for, or BROADCAST for every player"
            )
        raise ServiceError(
            f"{word!r} is not a power, an initial or M (the master); "
            f"powers here: {', '.join(gmap.power_names)}"
        )

    def expand(word: str) -> list[str]:
        """njudge runs initials together: EF is England and France, GM Germany and the
        master."""
        w = word.upper().strip(",")
        if w in gmap.powers or w in ("MASTER", "ALL", "BUT") or len(w) < 2:
            return [word]
        if all(c in by_initial or c in "MO" for c in w) and len(set(w)) == len(w):
            return list(w)
        return [word]

    words = [part for word in words for part in expand(word)]

    upper = [w.upper() for w in words]
    if upper[:1] == ["ALL"]:
        if len(upper) > 1 and upper[1] != "BUT":
            raise ServiceError("write PRESS TO ALL or PRESS TO ALL BUT FRANCE ...")
        left_out = [w for w in words[2:] if w.upper().strip(",") not in ("O", "OBSERVERS")]
        excluded = {one(w) for w in left_out}
        everyone = [*sorted({p for p in live if p not in excluded}), MASTER]
        return [r for r in everyone if r not in excluded]
    return sorted({one(w) for w in words})


def send_press(
    game: Game, sender: Seat, recipients: list[str], body: str, grey: bool = False
) -> PressNote:
    """Check and record one press message; ``recipients`` as resolve_recipients gives."""
    everyone = sorted({p for s in players(game) for p in s.powers})
    broadcast = bool(everyone) and set(everyone) <= set(recipients)
    others = [r for r in recipients if r != MASTER]
    kind = (
        Action.PRESS_BROADCAST if broadcast else Action.PRESS_PRIVATE if others
        else Action.PRESS_MASTER
    )  # fmt: skip
    speaks_for = variant_of(game).people.speaks_for(sender)
    if not sender.powers and speaks_for and others == speaks_for:
        kind = Action.PRESS_COUNTRY  # a seat of a country it holds no power of (a citizen)
    decision = check(Actor("", game, sender), kind)
    if not decision:
        raise NotAllowed(decision.reason)
    if not recipients:
        raise ServiceError("say who the press is for: PRESS TO FRANCE, PRESS TO ALL, PRESS TO M")
    press = Press.create(
        game=game,
        phase=game.phase,
        sender=sender,
        recipients=" ".join(recipients),
        broadcast=broadcast,
        grey=grey,
        body=body,
    )
    return PressNote(press, recipients)
