"""What must never leave the judge: the words that carry a password, their masking
in anything echoed or stored, and the salted hashes."""
