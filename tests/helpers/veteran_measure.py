"""How this judge answers the lines njudge and DPjudge players and masters write: each
line of a corpus (tests/data/veterans.txt, tests/data/veterans_fresh.txt) is run after a
SIGNON in one running game, inside a transaction that is rolled back afterwards, so that
every line meets the same game; what it did is compared with what it means on njudge or
DPjudge, and the line is counted as

- same:       done as there (its effect checked on the stored game), or, for a line
              whose effect is "-", answered with the words it must hold, not as an error;
- answered:   not done, and nothing changed, but the answer names the form to write here
              (the line's words, or for a line with an effect, a command of this judge
              other than the bare pointer to HELP);
- unhelpful:  not done and nothing changed, and the answer names no such form (or the
              line was left alone as prose);
- different:  something was done that the line does not mean there (orders, press
              recipients, seats, ballots, the game, a phase other than the one meant);
- crash:      no answer (an exception the judge did not answer, or its "could not read"
              fault answer).

Columns of a corpus line, split by " | ": source (the document and section), who (a power
or MASTER), mail (the lines after the SIGNON; "\\n" separates them), words (what the
answer must hold), effect (what the line does there, checked here; "-": nothing this judge
keeps)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import mailjudge.commands  # noqa: F401  (registers the commands)
from helpers.joining import execute_confirming
from mailjudge.commands.registry import COMMANDS
from mailjudge.commands.run import execute, reply_text
from mailjudge.store.db import database_proxy
from mailjudge.store.models import Ballot, DiaryEntry, Game, OrderLine, Seat

DATA = Path(__file__).parents[1] / "data"
NOW = datetime.now(UTC).replace(microsecond=0)  # the judge keeps its own clock too
JUDGE = "judge@example.org"
GAME = "vets"
WINTER = "vetsw"  # a second game, at its Winter 1901 adjustments: France owes three builds
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
MASTER = "master@example.org"
KINDS = ("same", "answered", "unhelpful", "different", "crash")


def address(power: str) -> str:
    return f"{power.lower()}@players.example.org"


def password(power: str) -> str:
    return f"pw-{power.lower()}-7"


@dataclass(frozen=True)
class Line:
    source: str
    who: str
    mail: str
    words: str
    effect: str


def corpus(name: str) -> list[Line]:
    lines = []
    for raw in (DATA / name).read_text(encoding="utf-8").splitlines():
        if raw.startswith("#") or not raw.strip():
            continue
        source, who, mail, words, effect = (part.strip() for part in raw.split(" | "))
        lines.append(Line(source, who, mail.replace("\\n", "\n"), words, effect))
    return lines


def _seated(game: str) -> None:
    execute(f"CREATE {game} masterpw RULES POWER_CHOICE", MASTER, JUDGE, NOW)
    for power in POWERS:  # each JOIN's CONFIRM answered, as its player would (issue 52)
        execute_confirming(f"JOIN {game} {password(power)} {power}", address(power), JUDGE, NOW)


def _play(game: str, power: str, orders: list[str]) -> None:
    text = f"SIGNON {power.lower()}@{game} {password(power)}\n" + "\n".join(orders)
    execute(text, address(power), JUDGE, NOW)
    execute(f"SIGNON M{game} masterpw\nPROCESS!", MASTER, JUDGE, NOW)


def set_up() -> None:
    """The games the lines meet: seven players, four with orders on file; and a second
    game at its Winter 1901 adjustments, where France owes three builds."""
    _seated(WINTER)
    _play(WINTER, "FRANCE", ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"])
    _play(WINTER, "FRANCE", ["A BUR - BEL", "F MAO - POR", "A SPA H"])
    winter = Game.get(Game.name == WINTER)
    assert winter.phase == "W1901A", winter.phase
    # France waits, so that its builds are kept, not processed at once.
    execute(f"SIGNON france@{WINTER} {password('FRANCE')}\nSET WAIT", address("FRANCE"), JUDGE, NOW)
    _seated(GAME)
    diary = "DIARY\nDear diary, Germany is lying.\nENDDIARY"  # France's, for DIARY LIST and READ
    execute(f"{signon('FRANCE')}\n{diary}", address("FRANCE"), JUDGE, NOW)
    on_file = {"FRANCE": ["A PAR H", "A MAR H", "F BRE H"],
               "ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"],
               "GERMANY": ["A BER H", "A MUN H", "F KIE H"],
               "ITALY": ["A VEN H", "A ROM H", "F NAP H"]}  # fmt: skip
    for power, orders in on_file.items():
        execute(signon(power) + "\n" + "\n".join(orders), address(power), JUDGE, NOW)
    game = Game.get(Game.name == GAME)
    assert game.state == "active", game.state


def game_of(who: str) -> str:
    return WINTER if who.endswith("@winter") else GAME


def signon(who: str) -> str:
    if who == "NEW":
        return ""
    power, game = who.removesuffix("@winter"), game_of(who)
    if power == "MASTER":
        return f"SIGNON M{game} masterpw"
    return f"SIGNON {power.lower()}@{game} {password(power)}"


def sender_of(who: str) -> str:
    power = who.removesuffix("@winter")
    if power == "MASTER":
        return MASTER
    if power == "NEW":
        return "newcomer@example.org"
    return address(power)


def snapshot(name: str) -> dict[str, Any]:
    """What a line may change in the game ``name``, as plain data."""
    game = Game.get(Game.name == name)
    orders: dict[tuple[str, str], list[str]] = {}
    for o in OrderLine.select().where(OrderLine.game == game):
        orders.setdefault((str(o.phase), str(o.power)), []).append(str(o.text))
    orders = {k: sorted(v) for k, v in orders.items()}
    seats = {
        str(s.name): (
            s.wait,
            str(s.absence or ""),
            s.person_id,
            str(s.status),
            s.password_hash,
            s.dummy,
        )
        for s in Seat.select().where(Seat.game == game)
    }
    return {
        "orders": orders,
        "seats": seats,
        "ballots": sorted((b.voter_id, str(b.content)) for b in Ballot.select()),
        "game": (
            str(game.state),
            str(game.phase),
            game.deadline,
            str(game.rules),
            str(game.timing),
            bool(game.private),
            str(game.options),
        ),
        "games": Game.select().count(),
        "newest": str(Game.select().order_by(Game.id.desc()).get().rules),
        "diary": DiaryEntry.select().count(),
    }


def _press_to(ctx: Any) -> set[str] | None:
    """Who the mail's press went to (powers, MASTER), None when it sent none."""
    mails = [o for o in ctx.outgoing if o.kind == "press"]
    if not mails:
        return None
    by_address = {address(p): p for p in POWERS} | {MASTER: "MASTER"}
    return {by_address.get(a, a) for m in mails for a in [*m.to, *m.bcc]}


def _command_names() -> list[str]:
    names = {n for table in COMMANDS.values() for n in table} - {"HELP"}
    return sorted(names, key=len, reverse=True)


def names_a_form(text: str) -> bool:
    """Whether an answer names a command of this judge to write (beyond HELP)."""
    for name in _command_names():
        if re.search(rf"(?<![A-Z]){re.escape(name)}(?![A-Za-z])", text):
            return True
    return False


@dataclass
class Verdict:
    line: Line
    kind: str
    why: str
    reply: str


def _changed(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    found = set()
    for key in before:
        if key in ("orders", "seats"):
            for k in set(before[key]) | set(after[key]):
                if before[key].get(k) != after[key].get(k):
                    found.add(f"{key}:{k}")
        elif before[key] != after[key]:
            found.add(key)
    return found


def _powers_in(word: str) -> set[str]:
    """The powers (and MASTER) named by initials after ALL-: ``ALL-FM``."""
    initials = {p[0]: p for p in POWERS} | {"M": "MASTER"}
    return {initials[c] for c in word.upper() if c in initials}


def _effects_check(line: Line, before: dict[str, Any], after: dict[str, Any],
                   press: set[str] | None, changed: set[str]) -> tuple[bool, set[str]]:  # fmt: skip
    """A line's effects (several joined by "+"): all done, and the changes they account for."""
    done, accounted = True, set()
    for effect in line.effect.split("+"):
        one = Line(line.source, line.who, line.mail, line.words, effect)
        ok, theirs = _effect_check(one, before, after, press, changed)
        done, accounted = done and ok, accounted | theirs
    return done, accounted


def _effect_check(line: Line, before: dict[str, Any], after: dict[str, Any],
                  press: set[str] | None, changed: set[str]) -> tuple[bool, set[str]]:  # fmt: skip
    """Whether the line's effect was done, and the changes it accounts for."""
    who, effect = line.who.removesuffix("@winter"), line.effect
    current = str(after["game"][1])
    seat = who.lower()
    mine_now = after["orders"].get((current, who), [])
    if effect.startswith("press:"):
        wanted = effect.split(":", 1)[1]
        if press is None:
            return False, set()
        if wanted.startswith("ALL"):
            left_out = _powers_in(wanted[4:]) if wanted.startswith("ALL-") else set()
            players = set(POWERS) - {who} - left_out
            master_ok = "MASTER" not in left_out
            return players <= press <= players | ({"MASTER"} if master_ok else set()), set()
        return press == set(wanted.split()), set()
    if effect.startswith("order:"):
        wanted = effect.split(":", 1)[1]
        power, _, texts = wanted.rpartition("=")
        power = power or who
        have = after["orders"].get((current, power), [])
        wanted_lines = sorted(texts.split(";"))
        # With nothing on file before, exactly these; else these among the others.
        if before["orders"].get((current, power)):
            done = set(wanted_lines) <= set(have)
        else:
            done = wanted_lines == have
        return done, {f"orders:{(current, power)!r}"}
    if effect == "cleared":
        return not mine_now, {f"orders:{(current, who)!r}"}
    if effect == "rejected":
        return sorted(before["orders"].get((current, who), [])) == sorted(mine_now), set()
    if effect.startswith("future"):
        phase = effect.split(":", 1)[1] if ":" in effect else None
        mine = {k for k in changed if k.startswith("orders:") and f"'{who}')" in k}
        future = {k for k in mine if f"('{current}'," not in k}
        if phase is not None:
            future = {k for k in future if f"('{phase}'," in k}
        return bool(future) and mine == future, mine
    seat_key = f"seats:{seat}"
    if effect in ("wait", "nowait"):
        return after["seats"][seat][0] == (effect == "wait"), {seat_key}
    if effect in ("absence", "noabsence"):
        return bool(after["seats"][seat][1]) == (effect == "absence"), {seat_key}
    if effect == "password":
        return before["seats"][seat][4] != after["seats"][seat][4], {seat_key}
    if effect.startswith("reset:"):
        power = effect.split(":")[1].lower()
        return before["seats"][power][4] != after["seats"][power][4], {f"seats:{power}"}
    if effect in ("draw", "concede"):
        return "ballots" in changed, {"ballots"}
    if effect == "nodraw":
        return True, {"ballots"}
    if effect in ("paused", "resumed"):
        state = after["game"][0]
        return state == ("paused" if effect == "paused" else "active"), {"game"}
    if effect == "ejected":
        return after["seats"]["turkey"][2] is None, {"seats:turkey"}
    if effect == "resigned":
        return after["seats"][seat][2] is None, {seat_key}
    if effect == "diary":
        return after["diary"] == before["diary"] + 1, {"diary"}
    if effect == "undiary":
        return after["diary"] == before["diary"] - 1, {"diary"}
    if effect == "deadline":
        return before["game"][2] != after["game"][2], {"game"}
    if effect.startswith("rule:"):
        rule = effect.split(":", 1)[1]
        has = rule[1:] in after["game"][3].split()
        return has == rule.startswith("+"), {"game"}
    if effect in ("private", "public"):
        return after["game"][5] == (effect == "private"), {"game"}
    if effect == "dummy":
        return bool(after["seats"]["turkey"][5]), {"seats:turkey"}
    if effect.startswith("created"):  # created:NO_PRESS,POWER_CHOICE: with those rules
        wanted = set(filter(None, effect.partition(":")[2].split(",")))
        made = after["games"] == before["games"] + 1
        return made and wanted <= set(after["newest"].split()), {"games", "newest"}
    raise AssertionError(f"unknown effect {effect!r}")


def judge_line(line: Line) -> Verdict:
    """Run one line in a transaction rolled back afterwards, and say what it came to."""
    name = game_of(line.who)
    text = f"{signon(line.who)}\n{line.mail}".lstrip("\n")
    with database_proxy.atomic() as txn:
        before = snapshot(name)
        try:
            ctx = execute(text, sender_of(line.who), JUDGE, NOW)
        except Exception as err:  # a crash is what is counted here
            txn.rollback()
            return Verdict(line, "crash", repr(err), "")
        reply = reply_text(ctx)
        after = snapshot(name)
        press = _press_to(ctx)
        txn.rollback()
    signed = line.who != "NEW"
    answers = ctx.answers[1:] if signed else ctx.answers  # the SIGNON's own answer aside
    # What the judge said, without the lines it echoed (an echo holds the line's words).
    flat = " ".join(" ".join(" ".join(a.lines) for a in ctx.answers).split())
    body = " ".join(" ".join(" ".join(a.lines) for a in answers).split())
    done_words, _, form_words = line.words.partition(" || ")
    if signed and (not ctx.answers or not ctx.answers[0].ok):
        return Verdict(line, "crash", "the SIGNON failed", reply)
    if "could not read these lines" in flat:
        return Verdict(line, "crash", "the judge's fault answer", reply)
    changed = _changed(before, after)
    refused = any(not a.ok for a in answers) or not answers
    left_alone = "not orders or commands" in flat
    if line.effect == "-":
        if changed or press is not None:
            return Verdict(line, "different", f"changed {sorted(changed)} press {press}", reply)
        if done_words in flat and not left_alone:
            return Verdict(line, "answered" if refused else "same", "", reply)
        return Verdict(line, "unhelpful", f"lacks {done_words!r}", reply)
    done, accounted = _effects_check(line, before, after, press, changed)
    if press is not None and "press:" not in line.effect:
        return Verdict(line, "different", f"press went to {sorted(press)}", reply)
    if "press:" in line.effect and press is not None and not done:
        return Verdict(line, "different", f"press went to {sorted(press)}", reply)
    if changed - accounted or (not done and changed):
        return Verdict(line, "different", f"changed {sorted(changed)}", reply)
    if done:
        why = "" if done_words in flat else f"done, but the answer lacks {done_words!r}"
        return Verdict(line, "same", why, reply)
    pointed = form_words in flat if form_words else names_a_form(body)
    if refused and not left_alone and pointed:
        return Verdict(line, "answered", "", reply)
    return Verdict(line, "unhelpful", "not done, and no form named", reply)


def measure(name: str) -> tuple[Counter[str], list[Verdict]]:
    verdicts = [judge_line(line) for line in corpus(name)]
    return Counter(v.kind for v in verdicts), verdicts


def summary(name: str, counts: Counter[str]) -> str:
    total = sum(counts.values())
    return f"{name}: {total} lines: " + ", ".join(f"{counts[k]} {k}" for k in KINDS)
