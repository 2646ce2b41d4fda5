"""Where the judge's shipped files live.

The map, the rules and the templates are kept at the top of the repository, in data/ and
templates/ (the required layout). A wheel carries them as the packages mailjudge.data and
mailjudge.templates (pyproject's package-dir), found through importlib.resources; a
checkout, or an editable install of one, reads the top-level folders themselves.
"""

from importlib import resources
from pathlib import Path

ROOT_DIR = Path(__file__).resolve().parents[2]  # mailjudge/config/paths.py -> the checkout


def _shipped(folder: str) -> Path:
    """mailjudge/<folder> inside an installed wheel, else the checkout's top-level one."""
    inside = Path(str(resources.files("mailjudge").joinpath(folder)))
    return inside if inside.is_dir() else ROOT_DIR / folder


DATA_DIR = _shipped("data")
TEMPLATES_DIR = _shipped("templates")
MAPS_DIR = DATA_DIR / "maps"
