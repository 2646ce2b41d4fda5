"""The rules flags: the shipped catalogue and how rule changes are applied."""

from pathlib import Path

import pytest

from mailjudge.engine.rules import (
    CatalogueError,
    RuleError,
    RuleSet,
    apply_change,
    catalogue,
    describe,
    known_rules,
    load_catalogue,
)

SEED_RULES = {
    "POWER_CHOICE": "",
    "MULTIPLE_POWERS_PER_PLAYER": "",
    "NO_OBSERVATIONS": "",
    "SOLITAIRE": "+NO_DEADLINE +CD_DUMMIES +ALWAYS_WAIT",
    "START_MASTER": "",
    "NO_PRESS": "-PUBLIC_PRESS",
    "PUBLIC_PRESS": "-NO_PRESS",
    "DONT_SKIP_PHASES": "",
    "IGNORE_ERRORS": "",
    "BUILD_ANY": "",
    "CIVIL_DISORDER": "+CD_DUMMIES",
    "CD_DUMMIES": "",
    "LATE_CHANGES": "",  # named by CIVIL_DISORDER's text: "unless the LATE_CHANGES rule"
    "NO_DEADLINE": "",
    "REAL_TIME": "!ALWAYS_WAIT",
    "ALWAYS_WAIT": "!REAL_TIME",
    "PROPOSE_DIAS": "!NO_DIAS",
    "NO_DIAS": "!PROPOSE_DIAS",
    "HOLD_WIN": "",
    "SHARED_VICTORY": "",
    "NO_CHECK": "",
    "DIFFERENT_ADJUDICATION": "",  # named by seed 001, never described
}

FORBIDDEN_PAIRS = [("REAL_TIME", "ALWAYS_WAIT"), ("PROPOSE_DIAS", "NO_DIAS")]


def write_catalogue(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    return path


# -- the shipped catalogue -----------------------------------------------------------


# Rules that belong to one variant, beside the seed's twenty.
VARIANT_RULES = {
    "DOUBLE_LYTTON": "double",
    "DOUBLE_SHOW_PARTNER": "double",
    "NO_TEAMMATE_WINS": "diplonomic",
}


# Rules of this judge's own, for every variant (issue 35: the stand-in; issue 55: its
# caretaker mode).
JUDGE_RULES = {"STANDIN": "", "STANDIN_CARETAKER": "+STANDIN"}
# Fog of war (issue 57), for the standard game and Gunboat.
FOG_VARIANTS = frozenset({"standard", "gunboat"})


def test_catalogue_holds_exactly_the_seed_rules_and_the_variant_rules() -> None:
    assert known_rules() == sorted([*SEED_RULES, *VARIANT_RULES, *JUDGE_RULES, "FOG"])


def test_fog_is_for_the_standard_game_and_gunboat() -> None:
    assert catalogue().get("FOG").variants == FOG_VARIANTS
    assert apply_change(RuleSet(), "+FOG", variant="gunboat") == {"FOG"}
    with pytest.raises(RuleError, match="gunboat"):
        apply_change(RuleSet(), "+FOG", variant="democratic")


@pytest.mark.parametrize("name", sorted(JUDGE_RULES))
def test_judge_rules_are_described_and_fit_every_variant(name: str) -> None:
    rule = catalogue().get(name)
    assert len(rule.summary) > 10 and len(rule.description) > 40
    assert rule.implications == JUDGE_RULES[name] and rule.variants is None


@pytest.mark.parametrize(("name", "variant"), sorted(VARIANT_RULES.items()))
def test_a_variant_rule_is_refused_in_other_variants(name: str, variant: str) -> None:
    assert apply_change(RuleSet(), f"+{name}", variant=variant) == {name}
    with pytest.raises(RuleError, match=variant):
        apply_change(RuleSet(), f"+{name}", variant="standard")


@pytest.mark.parametrize("name", sorted(SEED_RULES))
def test_rule_has_summary_description_and_seed_implications(name: str) -> None:
    rule = catalogue().get(name)
    assert len(rule.summary) > 10
    assert len(rule.description) > 40
    assert rule.implications == SEED_RULES[name]
    assert rule.variants is None


@pytest.mark.parametrize("name", sorted(SEED_RULES))
def test_describe_shows_name_implications_and_text(name: str) -> None:
    text = describe(name.lower())
    first_line = text.splitlines()[0]
    assert first_line.startswith(name)
    if SEED_RULES[name]:
        assert f"({SEED_RULES[name]})" in first_line
    rule = catalogue().get(name)
    assert rule.summary in text
    assert " ".join(text.split()).endswith(rule.description)


def test_describe_unknown_rule_lists_the_known_ones() -> None:
    with pytest.raises(RuleError, match="There is no rule called NOPE") as info:
        describe("nope")
    for name in SEED_RULES:
        assert name in str(info.value)


# -- implications ----------------------------------------------------------------------


def test_solitaire_brings_in_its_three_rules() -> None:
    assert apply_change(RuleSet(), "+SOLITAIRE") == {
        "SOLITAIRE",
        "NO_DEADLINE",
        "CD_DUMMIES",
        "ALWAYS_WAIT",
    }


def test_civil_disorder_brings_in_cd_dummies() -> None:
    assert apply_change(RuleSet(), "CIVIL_DISORDER") == {"CIVIL_DISORDER", "CD_DUMMIES"}


def test_no_press_takes_away_public_press() -> None:
    assert apply_change({"PUBLIC_PRESS", "HOLD_WIN"}, "+NO_PRESS") == {"NO_PRESS", "HOLD_WIN"}


def test_public_press_takes_away_no_press() -> None:
    assert apply_change({"NO_PRESS"}, "+PUBLIC_PRESS") == {"PUBLIC_PRESS"}


def test_rules_without_implications_add_only_themselves() -> None:
    for name, implications in SEED_RULES.items():
        if not implications:
            assert apply_change(RuleSet(), [name]) == {name}


def test_asking_for_both_press_rules_at_once_is_refused() -> None:
    with pytest.raises(RuleError, match=r"NO_PRESS takes away PUBLIC_PRESS.*only one"):
        apply_change(RuleSet(), "+NO_PRESS +PUBLIC_PRESS")


def test_implied_rule_cannot_be_dropped_while_its_source_is_set() -> None:
    with pytest.raises(RuleError) as info:
        apply_change({"CIVIL_DISORDER", "CD_DUMMIES"}, "-CD_DUMMIES")
    message = str(info.value)
    assert "CD_DUMMIES cannot be dropped while CIVIL_DISORDER is set" in message
    assert "-CIVIL_DISORDER -CD_DUMMIES" in message


def test_dropping_source_and_implied_rule_together_works() -> None:
    before = apply_change(RuleSet(), "+CIVIL_DISORDER +HOLD_WIN")
    assert apply_change(before, "-CD_DUMMIES -CIVIL_DISORDER") == {"HOLD_WIN"}


def test_dropping_a_rule_keeps_what_it_brought_in() -> None:
    # The implied rules were set as rules of their own; the master drops them by name.
    after = apply_change(apply_change(RuleSet(), "+SOLITAIRE"), "-SOLITAIRE")
    assert after == {"NO_DEADLINE", "CD_DUMMIES", "ALWAYS_WAIT"}


def test_implied_rule_dropped_in_the_same_change_is_refused() -> None:
    with pytest.raises(RuleError, match=r"ALWAYS_WAIT \(brought in by SOLITAIRE\)"):
        apply_change(RuleSet(), "+SOLITAIRE -ALWAYS_WAIT")


# -- forbidden combinations ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"), FORBIDDEN_PAIRS + [(b, a) for a, b in FORBIDDEN_PAIRS]
)
def test_forbidden_combination_is_refused_naming_both_and_why(first: str, second: str) -> None:
    with pytest.raises(RuleError) as info:
        apply_change({second}, f"+{first}")
    message = str(info.value)
    assert message.startswith(f"{first} may not be combined with {second}")
    # The why: what each rule does, and how to write the change instead.
    assert catalogue().get(first).summary in message
    assert catalogue().get(second).summary in message
    assert f"-{second} +{first}" in message


@pytest.mark.parametrize(("first", "second"), FORBIDDEN_PAIRS)
def test_forbidden_pair_asked_for_together_is_refused(first: str, second: str) -> None:
    with pytest.raises(RuleError, match=r"may not be combined.*Ask for only one"):
        apply_change(RuleSet(), [first, second])


@pytest.mark.parametrize(("first", "second"), FORBIDDEN_PAIRS)
def test_forbidden_pair_can_be_swapped_in_one_change(first: str, second: str) -> None:
    assert apply_change({first}, f"-{first} +{second}") == {second}


def test_conflict_reached_through_an_implication_names_the_chain() -> None:
    with pytest.raises(RuleError) as info:
        apply_change({"REAL_TIME"}, "+SOLITAIRE")
    message = str(info.value)
    assert message.startswith(
        "ALWAYS_WAIT (brought in by SOLITAIRE) may not be combined with REAL_TIME"
    )
    assert "-REAL_TIME +SOLITAIRE" in message


# -- what users write ------------------------------------------------------------------


def test_unknown_rule_is_refused_with_the_list_of_known_rules() -> None:
    with pytest.raises(RuleError) as info:
        apply_change(RuleSet(), "+NOPRESS")
    message = str(info.value)
    assert "There is no rule called NOPRESS" in message
    assert "Did you mean NO_PRESS?" in message
    assert ", ".join(known_rules()) in message


def test_change_is_case_insensitive_and_accepts_commas() -> None:
    assert apply_change(RuleSet(), "+no_press, power_choice") == {"NO_PRESS", "POWER_CHOICE"}


def test_change_as_a_list_of_names() -> None:
    assert apply_change({"HOLD_WIN"}, ["BUILD_ANY", "-HOLD_WIN"]) == {"BUILD_ANY"}


def test_malformed_change_says_how_to_write_it() -> None:
    with pytest.raises(RuleError, match=r"'!REAL_TIME' is not a rule change; write \+NAME"):
        apply_change(RuleSet(), "!REAL_TIME")


def test_same_rule_added_and_dropped_is_refused() -> None:
    with pytest.raises(RuleError, match=r"HOLD_WIN is both set \(\+HOLD_WIN\) and dropped"):
        apply_change(RuleSet(), "+HOLD_WIN -HOLD_WIN")


def test_setting_a_rule_twice_or_dropping_an_absent_one_changes_nothing() -> None:
    assert apply_change({"HOLD_WIN"}, "+HOLD_WIN -BUILD_ANY") == {"HOLD_WIN"}


def test_rule_error_is_a_value_error() -> None:
    assert issubclass(RuleError, ValueError)


def test_ruleset_text_round_trip() -> None:
    rules = apply_change(RuleSet(), "+SOLITAIRE +NO_PRESS")
    assert str(rules) == "ALWAYS_WAIT CD_DUMMIES NO_DEADLINE NO_PRESS SOLITAIRE"
    assert RuleSet.parse(str(rules)) == rules
    assert RuleSet.parse("") == RuleSet()
    assert eval(repr(rules)) == rules


# -- catalogues written as data only -----------------------------------------------------

CHAIN = """
[A]
group = "g"
summary = "a"
description = "rule a"
implies = ["+B"]

[B]
group = "g"
summary = "b"
description = "rule b"
implies = ["+C"]

[C]
group = "g"
summary = "c"
description = "rule c"

[D]
group = "g"
summary = "d"
description = "rule d"
implies = ["!C"]

[LYTTON]
group = "g"
summary = "lytton"
description = "only in double games"
variants = ["Double"]
"""


def test_implications_are_followed_transitively(tmp_path: Path) -> None:
    rules = load_catalogue(write_catalogue(tmp_path, CHAIN))
    assert rules.apply(RuleSet(), "+A") == {"A", "B", "C"}


def test_one_sided_ban_works_both_ways_and_names_the_chain(tmp_path: Path) -> None:
    rules = load_catalogue(write_catalogue(tmp_path, CHAIN))
    with pytest.raises(RuleError, match=r"^C \(brought in by A via B\) may not be combined with D"):
        rules.apply({"D"}, "+A")
    with pytest.raises(RuleError, match=r"^D may not be combined with C"):
        rules.apply({"C"}, "+D")


def test_variant_only_rule(tmp_path: Path) -> None:
    rules = load_catalogue(write_catalogue(tmp_path, CHAIN))
    assert rules.apply(RuleSet(), "+LYTTON", variant="double") == {"LYTTON"}
    with pytest.raises(RuleError, match=r"LYTTON is only for the double variant.*standard"):
        rules.apply(RuleSet(), "+LYTTON", variant="standard")
    assert "Only for the variants: double." in rules.describe("LYTTON")


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        (
            '[A]\ngroup="g"\nsummary="a"\ndescription="d"\nimplies=["+MISSING"]\n',
            "unknown rule MISSING",
        ),
        ('[A]\ngroup="g"\nsummary="a"\ndescription="d"\nimplies=["A"]\n', r"is not \+NAME"),
        ('[A]\ngroup="g"\nsummary="a"\n', "needs a non-empty description"),
        ('[A]\ngroup="g"\nsummary="a"\ndescription="d"\ncolour="red"\n', "unknown keys: colour"),
        ('[a]\ngroup="g"\nsummary="a"\ndescription="d"\n', "upper-case rule name"),
        (
            '[A]\ngroup="g"\nsummary="a"\ndescription="d"\nimplies=["+B"]\n'
            '[B]\ngroup="g"\nsummary="b"\ndescription="d"\nimplies=["!A"]\n',
            "cannot be set on its own",
        ),
        ("[A\n", "rules.toml"),
    ],
)
def test_broken_catalogue_is_reported_with_file_and_fault(
    tmp_path: Path, text: str, fault: str
) -> None:
    path = write_catalogue(tmp_path, text)
    with pytest.raises(CatalogueError, match=fault) as info:
        load_catalogue(path)
    assert str(path) in str(info.value)


def test_unknown_stored_rule_is_kept_without_judging_it() -> None:
    assert apply_change({"RETIRED_RULE"}, "+HOLD_WIN") == {"RETIRED_RULE", "HOLD_WIN"}


def test_asking_for_a_flag_nobody_defined_is_a_bug_not_false() -> None:
    """A misspelt flag would otherwise read as 'off' for ever."""
    rules = RuleSet.parse("NO_PRESS")
    assert rules.has("NO_PRESS") and not rules.has("PUBLIC_PRESS")
    with pytest.raises(KeyError, match="NO_PRES"):
        rules.has("NO_PRES")
