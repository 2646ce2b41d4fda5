"""The rules of the game, pure: maps, positions, orders read and checked, adjudication,
retreats and adjustments; no database, mail or templates."""
