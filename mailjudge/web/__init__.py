"""The public web site: every public game's board, phases, press and feed, read-only."""
