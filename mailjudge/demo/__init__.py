"""`mailjudge demo`: scripted players, a loopback judge and a mail sink play a game by mail
(the end-to-end tests use them too)."""
