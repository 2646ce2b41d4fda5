"""The one-word games of CREATE: a word people use for a start names its map and, where
players expect it, Gunboat (anonymous, no press), as on vDiplomacy, where the two- and
three-player starts are mostly played gunboat. ``CREATE game password evt`` is
``CREATE game password VARIANT gunboat MAP standard_england_turkey``; VARIANT, MAP or RULES
written after the word change what it chose."""

from __future__ import annotations

from typing import NamedTuple


class Preset(NamedTuple):
    variant: str
    map_name: str
    rules: str = ""


_GUNBOAT_STARTS = {
    ("england_turkey", "evt"): "standard_england_turkey",
    ("germany_russia", "gvr"): "standard_germany_russia",
    ("frankland_juggernaut", "fvj"): "standard_frankland_juggernaut",
    ("italy_england_russia", "ier"): "standard_italy_england_russia",
    ("france_germany_austria", "fga"): "standard_france_germany_austria",
    ("france_austria", "fva"): "standard_france_austria",
    ("germany_italy", "gvi"): "standard_germany_italy",
}
PRESETS: dict[str, Preset] = {
    word: Preset("gunboat", map_name)
    for words, map_name in _GUNBOAT_STARTS.items()
    for word in words
}
PRESETS["build_anywhere"] = Preset("standard", "standard_build_anywhere")
# Fog of war, as vDiplomacy plays it: anonymous, no press, each power seeing only its part.
PRESETS["fog"] = PRESETS["fog_of_war"] = Preset("gunboat", "standard", "FOG")


def expand(words: list[str]) -> list[str]:
    """CREATE's words after the password with a leading preset word spelled out; the words
    after it follow, so that a VARIANT or MAP there has the last word, and the preset's
    rules join those of a RULES there."""
    if not words or words[0].lower() not in PRESETS:
        return words
    preset = PRESETS[words[0].lower()]
    later = list(words[1:])
    extra = preset.rules.split()
    upper = [w.upper() for w in later]
    if extra and "RULES" in upper:
        at = upper.index("RULES") + 1
        later[at:at] = extra
    elif extra:
        later += ["RULES", *extra]
    return ["VARIANT", preset.variant, "MAP", preset.map_name, *later]


def help_lines() -> list[str]:
    """HELP MAPS's lines on the one-word games."""
    lines = ["One word creates a start as players expect it (CREATE game password WORD):"]
    for word, preset in PRESETS.items():
        rules = f" RULES {preset.rules}" if preset.rules else ""
        lines.append(f"  {word}: VARIANT {preset.variant} MAP {preset.map_name}{rules}")
    return lines
