"""The packages of the wheel: every package under mailjudge/, found, and data/ and templates/
as mailjudge.data and mailjudge.templates (pyproject.toml's package-dir maps them). The rest
of the build's settings are in pyproject.toml."""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["mailjudge", "mailjudge.*"]),
        "mailjudge.data",
        "mailjudge.templates",
    ]
)
