"""A game as stored, below the variants: its state, schedule and outcomes, in plain
functions over the database. Nothing here knows a variant; the variants build on it, and
service/ above them does what players and masters ask."""
