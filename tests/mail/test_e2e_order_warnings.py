"""Warnings, never errors, by mail (issue 34, point 2): orders that do not fit together are
filed as sent, and the answer to the orders mail and STATUS say what does not fit. Played
through the judge's SMTP listener; the judge's mails are read as the sink received them."""

from __future__ import annotations

from helpers.e2e import Harness, player, seated, secret, set_up_game, text_of

from mailjudge.game.state import get_game, orders_on_file

MISMATCH = "A MAR S A PAR - BUR: A PAR is not ordered to move to BUR (it is ordered to PIC)"


def flat(text: str) -> str:
    """The mail's text with its lines joined: the judge refills long lines at 78."""
    return " ".join(text.split())


def test_a_mismatched_support_is_filed_and_warned_in_the_answer_and_in_status(
    harness: Harness,
) -> None:
    h = harness
    set_up_game(h, "warned")
    signon = f"SIGNON france@warned {secret('FRANCE')}"
    sent = h.send(player("FRANCE"), f"{signon}\nORDERS\nA PAR - PIC\nA MAR S A PAR - BUR\nEND\n")
    answer = h.reply(sent)
    assert answer["X-Mailjudge-Role"] == "player FRANCE"
    assert answer["Content-Transfer-Encoding"] != "base64"
    text = text_of(answer)
    assert all(len(line) <= 78 for line in text.splitlines())
    assert "ERROR" not in text and "not accepted" not in text
    words = flat(text)
    assert "ok: orders for FRANCE in S1901M: A PAR - PIC A MAR S A PAR - BUR" in words
    assert "warnings (these orders stand as filed; check they are what you meant):" in words
    assert f"- {MISMATCH}, so the support will not count" in words
    assert "- F BRE has no order: it will hold" in words
    # Filed as sent: a warning never refuses an order.
    filed = [line.text for line in orders_on_file(get_game("warned"))["FRANCE"]]
    assert filed == ["A PAR - PIC", "A MAR S A PAR - BUR"]

    status = flat(h.command(player("FRANCE"), f"{signon}\nSTATUS"))
    assert "FRANCE: A PAR - PIC (by france" in status
    assert f"- {MISMATCH}" in status and "- F BRE has no order: it will hold" in status

    # Another power's STATUS says nothing of France's orders or warnings.
    germany = h.command(player("GERMANY"), f"SIGNON germany@warned {secret('GERMANY')}\nSTATUS")
    assert "MAR" not in germany and "FRANCE" not in germany and "warnings (" in germany

    # The player mends the set with bare lines: the warnings go, in the answer and STATUS.
    mended = flat(h.command(player("FRANCE"), f"{signon}\nA PAR - BUR\nF BRE H"))
    assert "ok: orders for FRANCE in S1901M" in mended and "warnings" not in mended
    assert "warnings" not in h.command(player("FRANCE"), f"{signon}\nSTATUS")


def test_the_support_stands_as_filed_when_the_phase_is_played(harness: Harness) -> None:
    """The warned set is adjudicated as sent: the support of a move not made is void."""
    h = harness
    set_up_game(h, "played")
    table = seated(h, "played")
    holds = {
        power: [f"{u} H" for u in table.position().units_of(power)]
        for power in ("AUSTRIA", "ENGLAND", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
    }
    france = ["A PAR - PIC", "A MAR S A PAR - BUR", "F BRE H"]
    table.play_phase({**holds, "FRANCE": france})

    def to_france() -> list[str]:
        mails = table.results("S1901M")
        return [text_of(m.message) for m in mails if m.rcpt_tos == [player("FRANCE")]]

    h.wait_until(to_france, what="France's results")
    results = flat(to_france()[0])
    assert "FRANCE: A MAR S A PAR - BUR (*void*) A PAR - PIC F BRE H" in results
    assert "pic" in {u.province for u in table.position().units_of("FRANCE")}
