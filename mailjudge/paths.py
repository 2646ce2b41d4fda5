"""Where the judge's shipped files live.

data/ and templates/ sit at the top of the repository, beside the package, so every
module finds them through here instead of guessing relative to its own file.
"""

from pathlib import Path

ROOT_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT_DIR / "data"
TEMPLATES_DIR = ROOT_DIR / "templates"
MAPS_DIR = DATA_DIR / "maps"
