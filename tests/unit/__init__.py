"""The rules, the engine, the commands and the service, without a mail server."""
