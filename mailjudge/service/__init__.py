"""What players and masters do to a game, above the variants: creating and joining games,
orders, press, draws, processing and the clock. It calls the variants' protocols and builds on
game/.

No mail in here: the command layer calls these functions and turns their results and
refusals into replies. Every function that changes something runs in one transaction.
"""
