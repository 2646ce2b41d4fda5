"""The judge process: it wires mail in, the commands and the game service together
(pipeline.py: one stored mail handed to the handler of its kind in handlers.py, whose
answer replies.py builds; runner.py: the listener, the workers, the clock and the sender).
It sits above every other package, and nothing below imports it."""
