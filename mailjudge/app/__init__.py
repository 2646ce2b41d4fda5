"""The judge process: it wires mail in, the commands and the game service together
(pipeline.py: one stored mail handled; runner.py: the listener, the workers, the clock
and the sender). It sits above every other package, and nothing below imports it."""
