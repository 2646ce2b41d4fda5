"""Every mail's text comes from a Jinja template in templates/, named by its purpose."""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from mailjudge.config.paths import TEMPLATES_DIR
from mailjudge.render.mail_html import text_as_html


@cache
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES_DIR),
        undefined=StrictUndefined,  # a missing value is a bug, not an empty line in a mail
        autoescape=select_autoescape(
            enabled_extensions=("html", "html.j2", "atom.j2"), default_for_string=False
        ),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # The templates are the installed judge's own: a template is read once per process,
        # not looked at on disk again before every mail (a stat a render; restart to change).
        auto_reload=False,
    )
    env.filters["mail_lines"] = text_as_html  # a mail's text in its HTML part
    return env


def render(name: str, **context: Any) -> str:
    return environment().get_template(name).render(**context)
