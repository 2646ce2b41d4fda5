"""The Diplonomic rules text and every amendment form a proposal may use (pure code)."""

from __future__ import annotations

import pytest

from mailjudge.variants.diplonomic.amendments import (
    AmendmentError,
    SettingChange,
    TextAmendment,
    apply_text,
    parse_amendments,
)
from mailjudge.variants.diplonomic.rulebook import RulebookError, parse_rules, render_rules

# Our own short rules, numbered with a gap as the seed's are.
TEXT = """\
1. The game is played on the standard map.

2. If a player fails to order, eir units hold.
A second line of rule 2.

   A second paragraph of rule 2, listing:
   1. first point
   2. second point

5. As part of eir Fall orders, each player
adjusts eir units.
"""


def test_the_text_is_read_rule_by_rule_and_written_back() -> None:
    rules = parse_rules(TEXT)
    assert list(rules) == [1, 2, 5]  # the numbered list inside rule 2 stays in rule 2
    assert rules[2].endswith("2. second point")
    assert parse_rules(render_rules(rules)) == rules


def test_a_text_without_numbered_rules_is_refused() -> None:
    with pytest.raises(RulebookError, match=r"numbered rule like '1\. text'"):
        parse_rules("Rules of our game\n1. x")
    with pytest.raises(RulebookError, match="no rule"):
        parse_rules("   \n")


def amend(proposal: str) -> dict[int, str]:
    rules = apply_text(parse_rules(TEXT), parse_amendments(proposal))
    assert rules is not None
    return rules


def test_amend_append_adds_a_paragraph() -> None:
    rules = amend("AMEND RULE 1 APPEND {\n  A contestant CAN name a teammate.\n}")
    assert (
        rules[1] == "The game is played on the standard map.\n\nA contestant CAN name a teammate."
    )


def test_amend_replace_changes_every_occurrence_across_line_breaks_and_quote_styles() -> None:
    rules = amend(
        'Amend rule 5 replace “As part of eir Fall orders, each player” with "As part of its Fall orders, each country"'
    )
    assert rules[5] == "As part of its Fall orders, each country\nadjusts eir units."
    both = amend('AMEND RULE 2 REPLACE "rule 2" WITH "this rule"')
    assert both[2].count("this rule") == 2 and "rule 2" not in both[2]


def test_replace_rule_add_rule_and_repeal_rule() -> None:
    rules = amend("REPLACE RULE 1 WITH {Any map.}\nADD RULE 3 {Press is free.}\nREPEAL RULE 5")
    assert rules == {1: "Any map.", 2: parse_rules(TEXT)[2], 3: "Press is free."}
    assert render_rules(rules).startswith("1. Any map.\n\n2. If a player")


def test_game_setting_changes_are_read() -> None:
    found = parse_amendments("SET RULE +NO_PRESS\nSET VICTORY 16\nSET TIMING MOVE 2D AT 12:00 UTC")
    assert found == [
        SettingChange("rule", "+NO_PRESS"),
        SettingChange("victory", "16"),
        SettingChange("timing", "MOVE 2D RETREAT 1D ADJUST 1D AT 12:00 UTC WARN 1D"),
    ]
    assert apply_text(parse_rules(TEXT), found) is None  # nothing in the text changes


@pytest.mark.parametrize(
    ("proposal", "why"),
    [
        (
            'AMEND RULE 2 REPLACE "a robot" WITH "a human"',
            "amendment 1 cannot apply: rule 2 does not contain 'a robot'",
        ),
        (
            "REPEAL RULE 9",
            "amendment 1 cannot apply: there is no rule 9 .the rules are numbered 1, 2, 5.",
        ),
        ("ADD RULE 2 {again}", "rule 2 exists already"),
        ("REPLACE RULE 7 WITH {x}", "there is no rule 7"),
        (
            "ADD RULE 3 {fine}\nAMEND RULE 8 APPEND {no}",
            "amendment 2 cannot apply: there is no rule 8",
        ),
    ],
)
def test_an_amendment_that_cannot_apply_fails_the_whole_proposal(proposal: str, why: str) -> None:
    with pytest.raises(AmendmentError, match=why):
        apply_text(parse_rules(TEXT), parse_amendments(proposal))


@pytest.mark.parametrize(
    ("proposal", "why"),
    [
        ("Let us all be friends", "line 1: 'Let us all be friends' is not an amendment"),
        ("ADD RULE 3 no braces", "needs its text in braces"),
        ("ADD RULE 3 {never closed", "no '}' closes"),
        ('AMEND RULE 2 REPLACE "a" BY "b"', 'write REPLACE "old" WITH "new"'),
        ("SET VICTORY many", "SET VICTORY and a number"),
        ("SET TIMING MOVE soon", "not a length"),
        ("", "the proposal is empty"),
    ],
)
def test_a_proposal_that_cannot_be_read_says_how_to_write_it(proposal: str, why: str) -> None:
    with pytest.raises(AmendmentError, match=why):
        parse_amendments(proposal)


def test_braced_text_may_hold_braces_and_span_lines() -> None:
    (found,) = parse_amendments("ADD RULE 9 {\n    Orders {in braces} count.\n    Second line.\n}")
    assert found == TextAmendment("add", 9, "Orders {in braces} count.\nSecond line.")
