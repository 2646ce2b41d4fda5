"""Every SQL statement the judge writes by hand, and nowhere else (tests/ops/test_layers.py
holds it): everything else is peewee's, and the schema's changes are migrations.py's.

- `session`: what a connection is set up with, and the statements of transactions
  (savepoints, SQLite's pragmas and checkpoints, the probe that a database answers);
- `mail`: the mail path's own reads and writes that peewee cannot build (PostgreSQL's
  claim of a game's next mails, the game locks, the claim holders, the bounce clearing);
- `side_files`: the listener's landing and the sender's record, small SQLite files;
- `tools`: the operator's tools and the benchmarks (backup, restore, status, the mark
  that a judge serves a database, scratch schemas).

Each is a named read or write: its caller says what it wants, never SQL.
"""
