"""One list says which commands carry a password and where (mailjudge/secrecy/secret_words.py), and
it is the commands' own: every command registered, shared or a variant's, is held to it,
and every reader goes by it: the echo, the stored copy of a mail, the press guard, the
tests' secrecy check. Before, three lists disagreed: a press holding ``SIGN ON power@game
pw`` went to all seven other players with the password (``SIGNON`` was refused), and the
master's RESET PASSWORD kept the new password in clear in the database."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest
from helpers.secrecy import Secrets
from unit.test_service_rules import EMAILS, game_with

import mailjudge.commands  # registers every command, the variants' too
import mailjudge.config.settings
from mailjudge.app import pipeline
from mailjudge.commands.arguments import Group, Token, parse
from mailjudge.commands.base import Block, Command, CommandError
from mailjudge.commands.press import checked_body
from mailjudge.commands.registry import COMMANDS, followers_of, secrets_of, words_after_name
from mailjudge.config.settings import Settings
from mailjudge.config.settings_files import load_settings
from mailjudge.game.state import get_game
from mailjudge.inbound import spool
from mailjudge.secrecy.masking import mask_mail, mask_text, password_command
from mailjudge.secrecy.passwords import verify_password
from mailjudge.secrecy.secret_words import SECRET_COMMANDS, SECRET_FOLLOWERS
from mailjudge.service.seats import seat_for_power
from mailjudge.store import db
from mailjudge.store.models import InboundMessage, Outbox, Press

JUDGE = "judge@example.org"
NOW = datetime(2026, 11, 21, tzinfo=UTC)


def every_command() -> Iterator[tuple[str, Command]]:
    """(name, command) for every name of every registered command, the variants' too."""
    for table in COMMANDS.values():
        yield from table.items()


def test_the_list_is_the_commands_specs_and_nothing_more() -> None:
    """Each name's place in the list is the one its command's spec declares; a name with
    no command declaring a password is not in it."""
    declared = {}
    for name, command in every_command():
        place = secrets_of(type(command))
        if place is not None:
            declared[name] = place
        assert SECRET_COMMANDS.get(name) == place, name
        assert dict(SECRET_FOLLOWERS.get(name, {})) == followers_of(type(command)), name
    assert declared == dict(SECRET_COMMANDS)
    assert {"SIGNON", "SIGN ON", "RESET PASSWORD", "ACCEPT", "RESIGN"} <= set(declared)


_serial = itertools.count()


def _filled(items: tuple[Token | Group, ...], secrets: list[str]) -> list[str]:
    """Words that fit the spec's items, every optional part written: a keyword as it
    stands, a value made up, a password a fresh secret (noted in ``secrets``)."""
    words: list[str] = []
    for item in items:
        if isinstance(item, Group):
            words += _filled(item.items, secrets)
        elif item.keyword:
            words.append(item.text)
        elif item.text in ("password", "newpassword"):
            secrets.append(f"Zq{next(_serial)}secret")
            words.append(secrets[-1])
        else:
            words.append(f"v{next(_serial)}" + ("@g1" if "@" in item.text else ""))
    return words


def written_forms(name: str, command: Command) -> Iterator[tuple[str, list[str]]]:
    """Each form of the command that carries a password, written out under ``name``
    (its spec, or its usage line, and its veteran forms), with its secrets."""
    forms = [command.arguments] if command.arguments is not None else []
    forms += [words_after_name(type(command), f) for f in (command.usage, *command.veteran_forms)]
    for form in {f for f in forms if f is not None}:
        secrets: list[str] = []
        words = _filled(parse(form).items, secrets)
        if secrets:
            yield " ".join([name, *words]), secrets


def spellings(name: str, line: str) -> list[str]:
    """The line as players write it: lower case, quoted, indented, the name followed by =
    or run together."""
    rest = line[len(name) :]
    return [line, line.lower(), f"> {line}", f"\t {line}", f"{name}={rest}",
            f"{name.replace(' ', '')}{rest}"]  # fmt: skip


def stored_copy(text: str) -> str:
    msg = EmailMessage()
    msg["From"] = "ann@example.org"
    msg["Subject"] = "commands"
    msg.set_content(text)
    return mask_mail(msg.as_bytes()).decode("utf-8", "replace")


@pytest.mark.parametrize(
    "name", sorted({name for name, c in every_command() if secrets_of(type(c)) is not None})
)
def test_every_command_s_password_is_masked_and_refused_in_press(name: str) -> None:
    """From the spec alone: the echo and the stored copy hide the password, in every
    spelling; a press or a post holding the line is refused; the secrecy check knows it."""
    commands = [c for n, c in every_command() if n == name]
    forms = [form for c in commands for form in written_forms(name, c)]
    assert forms, name
    for line, secrets in forms:
        for written in spellings(name, line):
            shown = [c.echo(Block(1, tuple(written.split()))) for c in commands]
            stored = stored_copy(f"Hello,\n{written}\nA PAR H\n")
            for secret in secrets:
                cased = secret.lower() if written.islower() else secret
                assert all(cased not in echo for echo in shown), (written, shown)
                assert cased not in stored and cased not in mask_text(written), written
            # SIGN ON and SIGNON are one name to the masking, as to the players.
            found = password_command(written)
            assert found is not None and found.replace(" ", "") == name.replace(" ", "")
            with pytest.raises(CommandError, match=f"holds a {found} line"):
                checked_body(Block(1, ("PRESS",), ("Hi all,", written, "see you")))
        reader = Secrets()
        reader.read(stored_copy_raw(f"{line}\n"))
        assert set(secrets) <= reader.passwords, line


def stored_copy_raw(text: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = "ann@example.org"
    msg.set_content(text)
    return msg.as_bytes()


def test_a_create_s_privacy_password_line_is_masked_too() -> None:
    """DPjudge's PRIVATE password under CREATE (SOLITAIRE's privacy password): kept out of
    the stored copy and the echo, as CREATE's followers say; PRIVATE alone is no secret."""
    stored = stored_copy("CREATE g1 Zqmaster\nMAP standard\nPRIVATE Zqprivacy\nPRIVATE\n")
    assert "Zqmaster" not in stored and "Zqprivacy" not in stored
    assert "MAP standard" in stored and "\nPRIVATE\n" in stored
    assert mask_text("PRIVATE Zqprivacy", after="CREATE") == "PRIVATE ****"
    assert mask_text("PRIVATE talks, not public") == "PRIVATE talks, not public"  # no CREATE


def test_words_that_only_begin_like_a_command_pass_a_press() -> None:
    """The old guard refused a press line starting JOIN (JOINED forces?), and let SIGN ON
    by. The list reads whole names."""
    body = ("JOINED forces?", "Signonly Tuesday", "Created a plan", "RESET the board")
    assert checked_body(Block(1, ("PRESS",), body)) == "\n".join(body) + "\n"


# --- by mail: the three defects --------------------------------------------------------


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch) -> Settings:
    found = load_settings(None, {"MAILJUDGE_JUDGE_ADDRESS": JUDGE})
    monkeypatch.setattr(mailjudge.config.settings, "_CURRENT", found)
    return found


def by_mail(settings: Settings, sender: str, text: str) -> InboundMessage:
    """One mail through the spool and the pipeline, as the judge takes it in."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = JUDGE
    msg["Subject"] = "commands"
    msg["Message-ID"] = f"<m{next(_serial)}@example.org>"
    msg.set_content(text)
    row, _ = spool.store(msg.as_bytes(), sender, [JUDGE], "smtp")
    spool.process_pending(lambda stored: pipeline.handle(stored, settings))
    done = InboundMessage.get_by_id(row.id)
    assert done.state == "done", done.error
    return done


def answer_to(row: InboundMessage) -> str:
    (answer,) = Outbox.select().where(Outbox.inbound == row.id)
    return str(answer.draft or answer.raw)


def france(game_name: str) -> tuple[str, str]:
    """France's address and password in a game of game_with."""
    email = seat_for_power(get_game(game_name), "FRANCE").person.email
    return email, f"pw{EMAILS.index(email)}"


@pytest.mark.parametrize("written", ["SIGN ON", "SIGNON", "sign on", "SignOn", "SIGNON="])
def test_a_press_holding_a_signon_is_never_sent(
    any_db: str, settings: Settings, written: str
) -> None:
    """Each spelling of SIGNON inside a press: refused with the reason, no press kept, no
    mail to any other player, and the password nowhere in what goes out."""
    game_with("", "g")
    email, password = france("g")
    row = by_mail(settings, email, f"SIGNON france@g {password}\nPRESS TO ALL\nHello all.\n"
                                   f"{written} france@g {password}\nENDPRESS\n")  # fmt: skip
    assert Press.select().count() == 0
    mails = list(Outbox.select())
    assert [m.inbound_id for m in mails] == [row.id]  # the answer alone
    answer = answer_to(row)
    assert "line: it would show a password to others, so nothing was sent" in answer
    assert password not in answer


def test_reset_password_keeps_no_new_password_in_clear(
    any_db: str, settings: Settings, tmp_path: Path
) -> None:
    """The master's RESET PASSWORD: the new password works, the echo hides it, and neither
    the stored mail nor (on SQLite) any file of the database holds it once the mail is
    done and the WAL emptied."""
    game_with("", "g")
    new = "Zq-fresh-4711"
    row = by_mail(settings, "gm@example.org", f"SIGNON Mg gm-pw\nRESET PASSWORD FRANCE {new}\n")
    answer = answer_to(row)
    assert "new password set for france" in answer and new not in answer
    assert new.encode() not in bytes(InboundMessage.get_by_id(row.id).raw)
    seat = seat_for_power(get_game("g"), "FRANCE")
    assert verify_password(new, seat.password_hash)
    if any_db.startswith("sqlite"):
        db.checkpoint_if_due(min_interval=0)  # the worker's step when idle, done by now
        files = [p for p in tmp_path.iterdir() if p.name.startswith("judge.db")]
        assert files and not [p.name for p in files if new.encode() in p.read_bytes()]
