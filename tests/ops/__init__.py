"""The operator's side: the database, restarts and kills, migrations, backups, deploy files, the tools."""
