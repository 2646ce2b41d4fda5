"""The judge's settings: the TOML file, its documentation, the log set-up, the
paths of package data."""
