"""Issue 53, points 1 to 3, by mail: the ready-to-send block filled in where each client
puts the copy of the judge's mail, a block of another phase, a partial block, and a SIGNON
line right above the attribution.

Each Reply is written as its client writes it (tests/helpers/replyforms.py: Outlook desktop, web,
iOS and Android, in English, German and French; Samsung Email in three languages; Yahoo
on the web and on Android; mutt, Thunderbird, Gmail, Apple Mail, iPhone, and Gmail's and
Outlook's HTML) and goes through the judge's SMTP listener to a real judge, whose outbox
holds the mail answered (three of them also through a real Postfix configured with
deploy/postfix/ to the judge's LMTP port). Before round four the unquoted forms filed nothing from a block
filled in below the header block and answered "ok: not orders or commands"."""

from __future__ import annotations

import smtplib
from email.message import EmailMessage

import pytest
from helpers.e2e import (
    Harness,
    last_mail_to,
    player,
    ready_block_lines,
    seated,
    secret,
    set_up_game,
    text_of,
    wire,
)
from helpers.postfix import Postfix
from helpers.replyforms import ALL_FORMS, UNQUOTED_FORMS, quoted, reply_mail
from ops.test_deploy_postfix import postfix_in_front, postfix_settings  # noqa: F401 (fixtures)

from mailjudge.demo import mailroom
from mailjudge.demo.sink import LOOPBACK
from mailjudge.game.state import get_game, orders_on_file
from mailjudge.render.ready_block import PASSWORD_PLACEHOLDER

# Forms a block cannot be filled in: a Forward is never read.
FORMS = [form for form in ALL_FORMS if not form.endswith("forward")]


def flat(text: str) -> str:
    return " ".join(text.split())


def orders(game: str, power: str = "FRANCE") -> list[str]:
    return sorted(line.text for line in orders_on_file(get_game(game)).get(power, []))


def edited(mail: EmailMessage, power: str, changes: dict[str, str], password: str) -> str:
    """The text of the judge's ``mail`` with its block filled in: ``password`` in place
    of the placeholder, and the order lines in ``changes`` replaced."""
    lines = text_of(mail).split("\n")
    block = ready_block_lines(text_of(mail))
    start = lines.index(block[0])
    for at in range(start, start + len(block)):
        if lines[at] == block[0]:
            lines[at] = lines[at].replace(PASSWORD_PLACEHOLDER, password)
        lines[at] = changes.get(lines[at], lines[at])
    return "\n".join(lines)


def send(
    h: mailroom.Harness, form: str, mail: EmailMessage, writer: str, copy: str, tag: str
) -> str:
    """A Reply in ``form`` to the judge's ``mail``, its copy ``copy``; the answer."""
    message_id = f"<{tag}-{form}@players.test>"
    to = str(mail["To"])
    reply = reply_mail(form, writer, copy, str(mail["Subject"]), to, message_id,
                       str(mail["Message-ID"]))  # fmt: skip
    h.deliver(to, wire(reply))
    return text_of(h.reply(message_id))


def test_a_block_filled_in_where_each_client_puts_it_is_filed(harness: Harness) -> None:
    h = harness
    set_up_game(h, "copy")
    started = last_mail_to(h, player("FRANCE"), "the game has started")
    targets = ["A PAR - BUR", "A PAR - PIC", "A PAR - GAS", "A PAR - BRE"]
    for n, form in enumerate(FORMS):
        new = targets[n % len(targets)]
        copy = edited(started, "FRANCE", {"A PAR H": new}, secret("FRANCE"))
        answer = send(h, form, started, "Here are my orders.", copy, "filled")
        assert "ERROR" not in answer and secret("FRANCE") not in answer, (form, answer)
        assert orders("copy") == sorted(["A MAR H", new, "F BRE H"]), (form, answer)
        assert "orders for FRANCE in S1901M" in answer, (form, answer)
    # A Reply that only says thanks, the copy as the judge wrote it: nothing is filed,
    # nothing refused, nothing said of the block.
    before = orders("copy")
    for form in FORMS:
        answer = send(h, form, started, "Thanks, will do.", text_of(started), "thanks")
        assert orders("copy") == before and "ERROR" not in answer, (form, answer)
        assert "block" not in answer, (form, answer)


def test_a_block_left_with_the_placeholder_is_answered_with_the_password(
    harness: Harness,
) -> None:
    """The orders edited, the password not written in: nothing filed, and the answer
    names YOUR-PASSWORD (before: small talk, "ok: not orders or commands"). No wrong
    password is counted against the seat, nor its player told of one."""
    h = harness
    set_up_game(h, "ph")
    started = last_mail_to(h, player("FRANCE"), "the game has started")
    copy = edited(started, "FRANCE", {"A PAR H": "A PAR - BUR"}, PASSWORD_PLACEHOLDER)
    for form in ("mutt", "outlook-desktop", "samsung", "yahoo-android"):
        answer = flat(send(h, form, started, "Here you are.", copy, "placeholder"))
        assert "YOUR-PASSWORD stands for your password" in answer, (form, answer)
        assert "not done: the SIGNON above failed" in answer, (form, answer)
        assert orders("ph") == [], form
    # Copied above the quote as it stands: the same answer.
    block = "\n".join(ready_block_lines(copy))
    answer = flat(send(h, "gmail", started, block, text_of(started), "above"))
    assert "YOUR-PASSWORD stands for your password" in answer and orders("ph") == []
    assert not [m for m in h.sink.mails if "wrong password" in m.subject]


def test_a_block_of_another_phase_is_refused_and_the_orders_stand(harness_any_db: Harness) -> None:
    """A Reply to the spring mail, its block edited, once the game is in the fall: the
    block names its phase, so it is refused with that reason, in the quote, in an
    unquoted copy or copied above it, and the orders on file stand (before: they were
    replaced by the block's one good line)."""
    h = harness_any_db
    set_up_game(h, "stale")
    table = seated(h, "stale")
    spring = last_mail_to(h, player("FRANCE"), "the game has started")
    table.play_phase({"FRANCE": ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"]})
    fall = ["A BUR - MUN", "A SPA - POR", "F MAO - NAF"]
    table.send_orders("FRANCE", ["ORDERS", *fall, "END"])
    assert orders("stale") == sorted(fall)
    copy = edited(spring, "FRANCE", {"A PAR H": "A PAR - PIC"}, secret("FRANCE"))
    for form in ("mutt", "outlook-desktop", "samsung-fr", "yahoo-web"):
        answer = flat(send(h, form, spring, "My orders.", copy, "stale"))
        assert "this block is for Spring 1901 movement (S1901M), and stale is now in Fall " \
               "1901 movement (F1901M): nothing was filed" in answer, (form, answer)  # fmt: skip
        assert orders("stale") == sorted(fall), form
    answer = flat(send(h, "gmail", spring, "\n".join(ready_block_lines(copy)),
                       text_of(spring), "stale-above"))  # fmt: skip
    assert "this block is for Spring 1901 movement (S1901M)" in answer
    assert orders("stale") == sorted(fall)


def test_a_partial_block_replaces_only_the_orders_of_the_units_it_names(
    harness_any_db: Harness,
) -> None:
    """A block edited down to one line leaves the other units' orders on file, and says
    so; CLEAR before it drops them, as the player asks."""
    h = harness_any_db
    set_up_game(h, "part")
    table = seated(h, "part")
    table.send_orders("FRANCE", ["ORDERS", "A PAR - BUR", "A MAR - SPA", "F BRE - MAO", "END"])
    signon = table.signon("FRANCE")
    answer = flat(h.command(player("FRANCE"), f"{signon}\nORDERS FRANCE S1901M\nA PAR - PIC\nEND"))
    assert (
        "kept on file, as the block does not name their units: A MAR - SPA, F BRE - MAO" in answer
    )
    assert orders("part") == ["A MAR - SPA", "A PAR - PIC", "F BRE - MAO"]
    h.command(player("FRANCE"), f"{signon}\nCLEAR\nORDERS FRANCE\nA PAR - GAS\nEND")
    assert orders("part") == ["A PAR - GAS"]


# mutt's, Thunderbird's, Gmail's and Gmail for Android's (tests/helpers/replyforms.py).
ATTRIBUTIONS = (
    "On Mon, Nov 23, 2026 at 11:43:24PM +0000, judge@example.test wrote:",
    "On 11/23/26 23:43, mailjudge wrote:",
    "On Mon, Nov 23, 2026 at 11:43 PM mailjudge <judge@example.test> wrote:",
    "On Mon, 23 Nov 2026, 23:43 mailjudge, <judge@example.test> wrote:",
)


def test_a_signon_right_above_the_attribution_is_the_writers(harness: Harness) -> None:
    """mutt, Thunderbird and Gmail, their SIGNON line with no blank line before "On ...
    wrote:" and the writer's answers between the quoted lines: the SIGNON counts (before:
    taken as the first half of a wrapped attribution, so "SIGNON first", and for press
    "nothing was sent")."""
    h = harness
    set_up_game(h, "above")
    table = seated(h, "above")
    started = last_mail_to(h, player("FRANCE"), "the game has started")
    for n, attribution in enumerate(ATTRIBUTIONS):
        new = ["A PAR - BUR", "A PAR - PIC", "A PAR - GAS", "A PAR - BRE"][n]
        text = f"{table.signon('FRANCE')}\n{attribution}\n{quoted(text_of(started))}\n{new}\n"
        mail = h.mail(player("FRANCE"), text, subject=f"Re: {started['Subject']}",
                      message_id=f"<above-{n}@players.test>",
                      in_reply_to=str(started["Message-ID"]))  # fmt: skip
        h.deliver(player("FRANCE"), wire(mail))
        answer = text_of(h.reply(f"<above-{n}@players.test>"))
        assert "SIGNON first" not in answer and "ERROR" not in answer, (attribution, answer)
        assert new in orders("above"), (attribution, answer)
    # A Reply to press, answered below the quote.
    table.say(table.players["ENGLAND"],
              f"{table.signon('ENGLAND')}\nPRESS TO FRANCE\nShall we?\nENDPRESS")  # fmt: skip
    press = last_mail_to(h, player("FRANCE"), "press from ENGLAND")
    text = (f"{table.signon('FRANCE')}\nOn Mon, Nov 23, 2026 at 11:43:24PM +0000, "
            f"{press['From']} wrote:\n> Shall we?\n\nYes, let us.\n")  # fmt: skip
    mail = h.mail(player("FRANCE"), text, subject=f"Re: {press['Subject']}",
                  to=str(press["Reply-To"]), message_id="<above-press@players.test>",
                  in_reply_to=str(press["Message-ID"]))  # fmt: skip
    h.deliver(player("FRANCE"), wire(mail))
    answer = flat(text_of(h.reply("<above-press@players.test>")))
    assert "press sent to ENGLAND" in answer, answer
    back = last_mail_to(h, player("ENGLAND"), "press from FRANCE")
    assert "Yes, let us." in text_of(back) and "Shall we?" not in text_of(back)


def test_the_unquoted_forms_are_the_ones_the_issue_names() -> None:
    assert {"outlook-desktop", "outlook-web", "outlook-mobile", "samsung", "yahoo-web",
            "yahoo-android"} <= set(UNQUOTED_FORMS)  # fmt: skip


def test_a_block_filled_in_below_the_copy_goes_through_postfix(
    request: pytest.FixtureRequest,
) -> None:
    """The same Replies through a real Postfix (deploy/postfix/) to the judge's LMTP port:
    Outlook for iOS, Samsung Email in French and Yahoo on the web (its text and HTML
    parts, quoted-printable), each with the block filled in below the copy."""
    postfix: Postfix
    h: mailroom.Harness
    postfix, h = request.getfixturevalue("postfix_in_front")  # tests/ops/test_deploy_postfix.py

    def through_postfix(sender: str, raw: bytes) -> None:
        with smtplib.SMTP(LOOPBACK, postfix.port, timeout=10) as client:
            client.sendmail(sender, [h.address], raw)

    h.deliver = through_postfix
    seated(h, "pf").sign_on()
    started = last_mail_to(h, player("FRANCE"), "the game has started")
    for form, new in (("outlook-mobile", "A PAR - BUR"), ("samsung-fr", "A PAR - PIC"),
                      ("yahoo-web", "A PAR - GAS")):  # fmt: skip
        copy = edited(started, "FRANCE", {"A PAR H": new}, secret("FRANCE"))
        try:
            answer = send(h, form, started, "Voici mes ordres.", copy, "postfix")
        except TimeoutError as err:
            raise AssertionError(f"no answer; Postfix's log:\n{postfix.log()}") from err
        assert "ERROR" not in answer, (form, answer)
        assert orders("pf") == sorted(["A MAR H", new, "F BRE H"]), (form, answer)


def test_a_block_the_judge_cannot_place_is_said_to_be_unread(harness: Harness) -> None:
    """A block filled in (a password typed) in the copy of a mail the judge cannot find
    (too old for the outbox, or not its own): nothing is filed from it, and the answer
    says so and why (before: "ok: not orders or commands")."""
    h = harness
    set_up_game(h, "gone")
    started = last_mail_to(h, player("FRANCE"), "the game has started")
    copy = edited(started, "FRANCE", {"A PAR H": "A PAR - BUR"}, secret("FRANCE"))
    reply = reply_mail("outlook-desktop", "Here are my orders.", copy, str(started["Subject"]),
                       player("FRANCE"), "<gone@players.test>", "<pruned@example.test>")  # fmt: skip
    h.deliver(player("FRANCE"), wire(reply))
    answer = flat(text_of(h.reply("<gone@players.test>")))
    assert "(the ORDERS block in the copy of the judge's mail) ERROR: nothing was filed from " \
           "it" in answer, answer  # fmt: skip
    assert orders("gone") == [] and secret("FRANCE") not in answer
