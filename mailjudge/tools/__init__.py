"""The operator's tools: the command line, status and health, backups, the serve
supervisor, the generated reference."""
