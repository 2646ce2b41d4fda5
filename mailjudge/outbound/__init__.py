"""Mail out: building messages, the outbox they wait in, and the SMTP sender."""
