"""What `mailjudge check-config` checks besides the settings: that the judge can do its
work with what is installed. A wheel that lost its map or templates, or a database folder
the service user cannot write, would otherwise show only when the first mail is shunted."""

from __future__ import annotations

import os
import re
from importlib import resources
from pathlib import Path

from mailjudge.config.paths import DATA_DIR, MAPS_DIR, TEMPLATES_DIR
from mailjudge.config.settings import Settings

_TEMPLATE_NAME = re.compile(r"[\"']((?:[a-z0-9_]+/)?[a-z0-9_]+\.(?:txt|html)\.j2)[\"']")


def templates_in_use() -> set[str]:
    """Every template the code renders, read from the installed sources themselves."""
    names: set[str] = set()
    root = Path(str(resources.files("mailjudge")))
    for source in root.rglob("*.py"):
        names.update(_TEMPLATE_NAME.findall(source.read_text(encoding="utf-8")))
    return names


def problems(settings: Settings) -> list[str]:
    """Each thing that would stop the judge answering mail, said so it can be fixed."""
    found: list[str] = []
    for needed in (MAPS_DIR / "standard.toml", DATA_DIR / "rules.toml"):
        if not needed.is_file():
            found.append(f"{needed} is missing: reinstall mailjudge (the wheel ships it)")
    missing = sorted(n for n in templates_in_use() if not (TEMPLATES_DIR / n).is_file())
    if missing:
        found.append(f"templates missing from {TEMPLATES_DIR}: {', '.join(missing)}")
    found += _database_problems(settings.database.url)
    found += dkim_problems(settings)
    return found


def dkim_problems(settings: Settings) -> list[str]:
    """A DKIM key that cannot sign: missing, unreadable, or not a private key dkimpy reads.
    It would otherwise show only when the first mail fails to go out."""
    from mailjudge.outbound.dkim_sign import DkimError, DkimSigner

    domain = settings.judge.address.rpartition("@")[2]
    try:
        signer = DkimSigner.from_settings(settings.dkim, domain)
        if signer is not None:
            signer.sign(b"From: judge@example.org\r\nSubject: check\r\n\r\ncheck\r\n")
    except DkimError as err:
        return [f"{err}: make one with openssl genrsa, or unset dkim.selector"]
    except Exception as err:  # dkimpy's errors about the key have no common base
        return [f"dkim.key_file {settings.dkim.key_file} does not parse as a private key "
                f"({' '.join(str(err).split()) or type(err).__name__}): give a PEM RSA or "
                "Ed25519 private key"]  # fmt: skip
    return []


def _database_problems(url: str) -> list[str]:
    scheme, _, rest = url.partition("://")
    if scheme != "sqlite" or rest in ("/:memory:", ":memory:"):
        return []
    path = Path(rest[1:] if rest.startswith("/") else rest)
    folder = path.parent.resolve()
    user = _user()
    if not folder.is_dir():
        return [f"the database folder {folder} does not exist: create it, writable by {user}"]
    if not os.access(folder, os.W_OK | os.X_OK):
        return [f"the database folder {folder} is not writable by {user} (SQLite writes its "
                "journal beside the file)"]  # fmt: skip
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return [f"the database {path.resolve()} is not readable and writable by {user}"]
    return []


def _user() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return "this user"
