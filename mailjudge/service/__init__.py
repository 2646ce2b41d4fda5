"""The game service: everything a game is and does, in plain functions over the database.

No mail in here: the command layer calls these functions and turns their results and
refusals into replies. Every function that changes something runs in one transaction.
"""
