"""mailjudge: an email-driven Diplomacy judge."""

# The release: pyproject.toml's version says the same (tests/ops/test_packaging.py checks).
# Every release gets a new number, so that its wheel has a name of its own (an upgrade
# installs it over the last, a rollback installs the last one back) and status tells
# which judge runs. tests/data/releases/versions.toml lists the releases made; this number
# must be above all of them (tests/ops/test_packaging.py).
__version__ = "0.3.0"
