"""Mail in and out: parsing, replies, the spool, the outbox, and games played by mail."""
