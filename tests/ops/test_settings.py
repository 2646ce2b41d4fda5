"""Settings: defaults, the TOML file, MAILJUDGE_* overrides, clear errors, complete docs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from mailjudge.config.settings import Settings, SettingsError
from mailjudge.config.settings_docs import describe_settings, settings_docs, settings_markdown
from mailjudge.config.settings_files import SETTINGS, load_settings, value_of

# The settings every judge has (address, database, SMTP, IMAP, outbound), whatever else is added.
REQUIRED_DEFAULTS = {
    "judge.address": "judge@localhost",
    "judge.timezone": "UTC",
    "database.url": "sqlite:///mailjudge.db",
    "smtp.host": "127.0.0.1",
    "smtp.port": 8025,
    "smtp.lmtp_port": 0,
    "imap.host": None,
    "imap.user": None,
    "imap.password": None,
    "outbound.host": "127.0.0.1",
    "outbound.port": 25,
    "outbound.starttls": False,
    "outbound.user": None,
    "outbound.password": None,
    "inbound.max_bytes": 262144,
    "inbound.max_lines": 500,
}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "judge.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_follow_the_spec() -> None:
    settings = load_settings(None, {})
    table = {s.name: value_of(settings, s) for s in SETTINGS}
    for name, default in REQUIRED_DEFAULTS.items():
        assert table[name] == default, name
    assert {"imap.port", "imap.mailbox", "imap.ssl"} <= table.keys()
    assert not settings.imap.enabled
    assert settings.judge.domain == "localhost"
    assert settings == Settings()


def test_every_default_passes_its_own_checks(tmp_path: Path) -> None:
    """Writing the defaults out and reading them back changes nothing."""
    path = write(tmp_path, describe_settings(Settings(), show_secrets=True))
    assert load_settings(path, {}) == Settings()


def test_file_sets_values(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[judge]
address = "judge@example.org"
timezone = "Europe/London"
[imap]
host = "imap.example.org"
user = "judge"
ssl = false
port = 143
[outbound]
starttls = true
""",
    )
    settings = load_settings(path, {})
    assert settings.judge.address == "judge@example.org"
    assert settings.judge.domain == "example.org"
    assert settings.judge.timezone == "Europe/London"
    assert settings.imap.enabled and settings.imap.host == "imap.example.org"
    assert (settings.imap.port, settings.imap.ssl, settings.imap.user) == (143, False, "judge")
    assert settings.outbound.starttls is True
    assert settings.outbound.port == 25  # untouched keys keep their defaults


def test_environment_overrides_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[smtp]\nport = 2525\n[imap]\nhost = "imap.example.org"\n')
    env = {
        "MAILJUDGE_SMTP_PORT": "2626",
        "MAILJUDGE_SMTP_LMTP_PORT": "2424",
        "MAILJUDGE_OUTBOUND_STARTTLS": "yes",
        "MAILJUDGE_IMAP_HOST": "",  # empty unsets an optional value
        "MAILJUDGE_DATABASE_URL": "postgresql://judge@db:5432/judge",
        "MAILJUDGE_REQUIRE_DOVECOT": "1",  # not a setting: other tools share the prefix
        "HOME": "/root",
    }
    settings = load_settings(path, env)
    assert settings.smtp.port == 2626
    assert settings.smtp.lmtp_port == 2424
    assert settings.outbound.starttls is True
    assert settings.imap.host is None and not settings.imap.enabled
    assert settings.database.url == "postgresql://judge@db:5432/judge"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true", True),
        ("On", True),
        ("1", True),
        ("no", False),
        ("OFF", False),
        ("0", False),
    ],
)
def test_environment_booleans(text: str, expected: bool) -> None:
    assert load_settings(None, {"MAILJUDGE_IMAP_SSL": text}).imap.ssl is expected


@pytest.mark.parametrize(
    ("toml", "fragments"),
    [
        ("[smtp]\nprot = 25\n", ["smtp", "unknown key 'prot'", "did you mean 'port'", "lmtp_port"]),
        ("[smpt]\nport = 25\n", ["unknown section 'smpt'", "did you mean 'smtp'"]),
        ('[smtp]\nport = "25"\n', ["smtp.port", "expected a whole number", "'25'"]),
        ("[smtp]\nport = 70000\n", ["smtp.port", "70000", "maximum 65535"]),
        ("[outbound]\nstarttls = 1\n", ["outbound.starttls", "expected true or false"]),
        ('[imap]\nafter_read = "move"\n', ["imap.after_read", "'move'", "seen, delete"]),
        ('[judge]\ntimezone = "Mars/Olympus"\n', ["judge.timezone", "IANA time zone"]),
        ('[judge]\naddress = "judge"\n', ["judge.address", "judge@example.org"]),
        ('[database]\nurl = "mysql://x/y"\n', ["database.url", "sqlite:///"]),
        ("smtp = 1\n", ["smtp must be a table"]),
        ("[smtp\nport = 1\n", ["not valid TOML"]),
    ],
)
def test_bad_file_says_what_and_what_is_allowed(
    tmp_path: Path, toml: str, fragments: list[str]
) -> None:
    path = write(tmp_path, toml)
    with pytest.raises(SettingsError) as caught:
        load_settings(path, {})
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


@pytest.mark.parametrize(
    ("env", "fragments"),
    [
        ({"MAILJUDGE_SMTP_PORT": "smtp"}, ["MAILJUDGE_SMTP_PORT", "smtp.port", "whole number"]),
        ({"MAILJUDGE_IMAP_SSL": "maybe"}, ["MAILJUDGE_IMAP_SSL", "yes/no"]),
        ({"MAILJUDGE_INBOUND_MAX_LINES": "0"}, ["inbound.max_lines", "minimum 1"]),
        ({"MAILJUDGE_SMTP_HOST": ""}, ["smtp.host", "expected text"]),
    ],
)
def test_bad_environment_value(env: dict[str, str], fragments: list[str]) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(None, env)
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_all_problems_are_reported_at_once(tmp_path: Path) -> None:
    path = write(tmp_path, "[smtp]\nport = -1\nbogus = 2\n")
    with pytest.raises(SettingsError) as caught:
        load_settings(path, {"MAILJUDGE_OUTBOUND_PORT": "x"})
    assert len(str(caught.value).splitlines()) == 3


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"cannot read settings file .*nowhere\.toml"):
        load_settings(tmp_path / "nowhere.toml", {})


def test_docs_list_every_key_with_its_variable() -> None:
    docs, markdown = settings_docs(), settings_markdown()
    for setting in SETTINGS:
        assert f"  {setting.key} = " in docs, setting.name
        assert setting.env in docs and setting.env in markdown
        assert f"`{setting.name}`" in markdown
        assert setting.help.split()[0] in docs
    sections = {field.name for field in dataclasses.fields(Settings)}
    assert {s.section for s in SETTINGS} == sections
    for section in sections:
        assert f"[{section}]" in docs


def test_every_setting_is_documented_and_typed() -> None:
    for setting in SETTINGS:
        assert setting.help.strip().endswith("."), setting.name
        assert setting.optional or isinstance(setting.default, setting.type), setting.name


def test_description_masks_secrets() -> None:
    settings = load_settings(
        None,
        {
            "MAILJUDGE_IMAP_PASSWORD": "hunter2",
            "MAILJUDGE_DATABASE_URL": "postgresql://judge:s3cret@db/judge",
        },
    )
    shown = describe_settings(settings)
    assert "hunter2" not in shown and "s3cret" not in shown
    assert "postgresql://judge:********@db/judge" in shown
    assert "hunter2" in describe_settings(settings, show_secrets=True)
