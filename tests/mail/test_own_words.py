"""The judge never reads its own words back (issue 31, point 1).

Property: for any mail the judge sent a player (an answer, results, a notice, a press
copy), a Reply that carries it in any client's form (tests/helpers/replyforms.py: mutt,
Thunderbird, Gmail web and Android, Apple Mail, iPhone, Outlook desktop, web and HTML,
"-----Original Message-----", a client that copies without any attribution, a Forward)
changes nothing but what the writer put above it. Each Reply goes through the judge's
SMTP listener, and each of the judge's mails carries order lines that would show if read.
"""

from __future__ import annotations

from email.message import EmailMessage

import pytest
from helpers.e2e import Harness, player, seated, set_up_game, text_of, wire
from helpers.replyforms import ALL_FORMS, UNQUOTED_FORMS, reply_mail

from mailjudge.game.state import get_game, orders_on_file
from mailjudge.inbound.html2text import html_to_text
from mailjudge.inbound.own_words import _agrees, cut_at_own_words, opening
from mailjudge.inbound.replies import reply_parts, unquoted_copy_at

BASE = ["A MAR H", "A PAR - BUR", "F BRE - MAO"]


def france(game: str) -> list[str]:
    return sorted(line.text for line in orders_on_file(get_game(game)).get("FRANCE", []))


def _to_france(h: Harness, subject_has: str) -> EmailMessage:
    def found() -> list[EmailMessage]:
        return [m.message for m in h.sink.mails
                if m.rcpt_tos == [player("FRANCE")] and subject_has in str(m.message["Subject"])]  # fmt: skip

    h.wait_until(found, what=f"a mail to France about {subject_has!r}")
    return found()[-1]


def judge_mails(h: Harness) -> dict[str, EmailMessage]:
    """One mail of each kind the judge sent France: results (of a game where every French
    unit held, so its order lines would change France's orders here), a notice, a press
    copy holding order lines, and the answer to France's orders."""
    set_up_game(h, "other")
    other = seated(h, "other")
    other.play_phase({"FRANCE": ["A PAR H", "A MAR H", "F BRE H"]})
    set_up_game(h, "own")
    table = seated(h, "own")
    england = table.signon("ENGLAND")
    table.say(table.players["ENGLAND"],
              f"{england}\nPRESS TO FRANCE\nMy plan for you:\nA PAR - PIC\nA MAR H\nENDPRESS")  # fmt: skip
    answer_id = h.send(player("FRANCE"), table.signon("FRANCE") + "\nORDERS\n" + "\n".join(BASE)
                       + "\nEND\n")  # fmt: skip
    return {
        "answer": h.reply(answer_id),
        "results": _to_france(h, "results S1901M"),
        "notice": _to_france(h, "started"),
        "press": _to_france(h, "press from"),
    }


def test_a_reply_in_any_client_form_reads_only_what_its_writer_wrote(harness: Harness) -> None:
    h = harness
    mails = judge_mails(h)
    table = seated(h, "own")
    assert france("own") == sorted(BASE)
    tried = 0
    for kind, judge_mail in mails.items():
        judge_text = text_of(judge_mail)
        for form in ALL_FORMS:
            tried += 1
            new = "A MAR - SPA" if tried % 2 else "A MAR - BUR"
            writer = f"{table.signon('FRANCE')}\n{new}\nThanks, see you next turn."
            reply = reply_mail(form, writer, judge_text, str(judge_mail["Subject"]),
                               player("FRANCE"), f"<{kind}-{form}@players.test>",
                               str(judge_mail["Message-ID"]))  # fmt: skip
            h.deliver(player("FRANCE"), wire(reply))
            answer = text_of(h.reply(f"<{kind}-{form}@players.test>"))
            expected = sorted([new, "A PAR - BUR", "F BRE - MAO"])
            assert france("own") == expected, (kind, form, answer)
            if form.endswith("forward"):
                assert "never a forwarded mail" in " ".join(answer.split()), (kind, form, answer)
                assert answer.count("ERROR") == 1, (kind, form, answer)
            else:
                assert "ERROR" not in answer, (kind, form, answer)
    assert tried == len(mails) * len(ALL_FORMS)
    # Outlook replying to the results' HTML part keeps that HTML as it is below its block.
    results = mails["results"]
    html_part = results.get_body(preferencelist=("html",))
    assert html_part is not None
    writer = f"<div>{table.signon('FRANCE')}<br>A MAR H<br>Thanks!</div>"
    block = ('<hr><div id="divRplyFwdMsg"><b>From:</b> mailjudge &lt;judge@example.test&gt;'
             "<br><b>Sent:</b> Monday, November 23, 2026 11:43 PM<br><b>Subject:</b> "
             f"{results['Subject']}</div>")  # fmt: skip
    reply = EmailMessage()
    reply["From"], reply["To"] = player("FRANCE"), "judge@example.test"
    reply["Subject"], reply["Message-ID"] = "RE: results", "<outlook-html-results@players.test>"
    reply["In-Reply-To"] = str(results["Message-ID"])
    reply.set_content(f"<html><body>{writer}{block}{html_part.get_content()}</body></html>",
                      subtype="html")  # fmt: skip
    h.deliver(player("FRANCE"), wire(reply))
    answer = text_of(h.reply("<outlook-html-results@players.test>"))
    assert "ERROR" not in answer, answer
    assert france("own") == sorted(["A MAR H", "A PAR - BUR", "F BRE - MAO"]), answer
    # A mail that names no mail answered (no In-Reply-To: pasted by hand, an odd client)
    # holding a copy of the judge's latest answer: the judge's recent mail to the writer
    # is looked at, since the copy names the judge's address.
    latest = h.reply(h.send(player("FRANCE"), f"{table.signon('FRANCE')}\nSTATUS"))
    writer = f"{table.signon('FRANCE')}\nA MAR - SPA"
    reply = reply_mail("unknown-unquoted", writer, text_of(latest), "x", player("FRANCE"),
                       "<no-reference@players.test>", None)  # fmt: skip
    h.deliver(player("FRANCE"), wire(reply))
    answer = text_of(h.reply("<no-reference@players.test>"))
    assert "ERROR" not in answer, answer
    assert france("own") == sorted(["A MAR - SPA", "A PAR - BUR", "F BRE - MAO"]), answer


def test_a_writer_who_sends_the_judges_words_as_new_orders_is_read() -> None:
    """The cut needs the opening of a mail the judge sent: order lines alone, even the
    very orders an answer listed, are the writer's own."""
    answer = "> SIGNON france@own ****\nok: signed on\n\n> ORDERS\nok: orders:\n    A MAR H\n"
    mine = "SIGNON france@own secret\nORDERS\nA MAR H\nEND\n"
    assert cut_at_own_words(mine, [answer]) is None
    assert cut_at_own_words(f"{mine}\n{answer}", [answer]) == mine.rstrip("\n")


def test_the_opening_ignores_spacing_case_and_the_signature() -> None:
    assert opening("Results of X:\n\n  A  PAR H\n-- \njudge") == ("results", "of", "x:", "a",
                                                                  "par", "h")  # fmt: skip


@pytest.mark.parametrize("rewrapped", [False, True])
def test_a_copy_rewrapped_by_the_client_is_still_the_judges(rewrapped: bool) -> None:
    sent = "Results of own, S1901M:\n\nFRANCE:\n    A MAR H\n    A PAR - BUR\n"
    copy = " ".join(sent.split()) if rewrapped else sent
    assert cut_at_own_words(f"A MAR - SPA\n\n{copy}", [sent]) == "A MAR - SPA"


def test_after_a_header_block_nothing_is_read_even_lines_that_begin_with_a_quote() -> None:
    """Outlook's copy of an answer begins with the answer's echo ('>' lines): the header
    block above it still ends what the writer wrote (issue 31: "Thanks, see you next
    turn." put six old orders back)."""
    for header in ("From: mailjudge <judge@example.test>\nSent: Monday\nTo: f@p.test\n"
                   "Subject: Re: commands",
                   "Von: mailjudge <judge@example.test>\nGesendet: Montag\nAn: f@p.test\n"
                   "Betreff: Re: commands"):  # fmt: skip
        text = f"Thanks, see you next turn.\n\n{header}\n\n> SIGNON f@g ****\nok\n  A TRI H\n"
        assert reply_parts(text) == ("Thanks, see you next turn.\n", False)


def test_a_wrapped_attribution_still_lets_answers_between_quoted_lines_count() -> None:
    text = ("My answers below.\n\nOn Mon, Nov 23, 2026 at 11:43 PM mailjudge <\n"
            "judge@example.test> wrote:\n> A MAR H\nA MAR - SPA\n> A PAR - BUR\n")  # fmt: skip
    kept, forwarded = reply_parts(text)
    assert "A MAR - SPA" in kept and "wrote:" not in kept and not forwarded


def test_a_forward_is_told_apart_from_a_reply() -> None:
    forward = ("FYI\n\n---------- Forwarded message ---------\nFrom: Francois <f@p.test>\n"
               "Date: Mon, Nov 23, 2026 at 11:43 PM\nSubject: orders\nTo: <judge@example.test>"
               "\n\nORDERS\nA PAR H\nEND\n")  # fmt: skip
    assert reply_parts(forward) == ("FYI\n", True)


@pytest.mark.parametrize("form", [f for f in UNQUOTED_FORMS if f != "unknown-unquoted"])
def test_each_unquoted_form_ends_the_writers_text_at_its_copy(form: str) -> None:
    """Issue 53: Outlook (desktop, web, iOS, Android; German, French), Samsung Email
    (English, German, French) and Yahoo copy the mail unquoted: the reader stops at their
    header block or attribution, the phone client's own line ("Get Outlook for iOS", read
    before as njudge's GET) left out too, and says where the copy begins."""
    copy = "Results of own, S1901M:\n\nSIGNON france@own YOUR-PASSWORD\nORDERS FRANCE\nEND\n"
    mail = reply_mail(form, "SIGNON france@own pw\nA PAR - BUR", copy, "[own] results",
                      "france@players.test", "<x@players.test>", "<y@example.test>")  # fmt: skip
    body = mail.get_body(preferencelist=("html", "plain") if form == "yahoo-web" else ("plain",))
    assert body is not None
    text = body.get_content()
    if form == "yahoo-web":
        text = html_to_text(text)
    kept, forwarded = reply_parts(text)
    assert (
        kept.split() == ["SIGNON", "france@own", "pw", "A", "PAR", "-", "BUR"] and not forwarded
    ), kept
    at = unquoted_copy_at(text)
    assert at is not None and "Results of own" in text.replace("\r\n", "\n")[at:], form


@pytest.mark.parametrize(
    "attribution",
    ["On Mon, Nov 23, 2026 at 11:43:24PM +0000, judge@example.test wrote:",
     "On 11/23/26 23:43, mailjudge wrote:",
     "Am 23.11.26 um 23:43 schrieb mailjudge:",
     "On Mon, Nov 23, 2026 at 11:43 PM mailjudge <judge@example.test> wrote:"],
)  # fmt: skip
def test_a_signon_line_right_above_an_attribution_is_the_writers(attribution: str) -> None:
    text = f"SIGNON france@own pw\n{attribution}\n> Results\nA PAR - BUR\n"
    assert reply_parts(text) == ("SIGNON france@own pw\n> Results\nA PAR - BUR\n", False)


def test_a_copy_run_on_after_yahoos_attribution_is_cut_inside_the_line() -> None:
    sent = "Game own has started (S1901M).\n\nYou play FRANCE. Sign on with: SIGNON " \
           "france@own yourpassword\nFirst deadline: Thu 2026-12-10 20:02 UTC\n"  # fmt: skip
    body = ("A PAR - BUR\n\nSent from Yahoo Mail on Android \n \n  On Mon, Nov 23, 2026 at "
            f"11:43 PM, mailjudge<judge@example.test> wrote:   {sent}")  # fmt: skip
    cut = cut_at_own_words(body, [sent])
    assert cut is not None and cut.endswith("wrote:") and "Game own" not in cut
    assert reply_parts(cut) == ("A PAR - BUR\n", False)
    # A short mail's few words inside a writer's sentence are no copy.
    assert cut_at_own_words("I said ok: signed on as france here", ["ok: signed on as"]) is None


@pytest.mark.parametrize(
    ("said", "agrees"),
    [("Yes, confirm.", True), ("Confirmed", True), ("OK", True), ("Oui", True),
     ("Bestätigt.", True), ("What is this about?", False), ("Yes? Who is this?", False),
     ("Please do not confirm", False), ("This is not ok", False), ("I didn't ask", False),
     ("Thanks", False)],
)  # fmt: skip
def test_only_a_plain_yes_confirms_by_reply(said: str, agrees: bool) -> None:
    """Issue 53 point 4: a Reply that says yes to a mail asking for CONFIRM confirms; a
    question, a no, or anything else does not (the answer says how to confirm)."""
    assert _agrees(said) is agrees
