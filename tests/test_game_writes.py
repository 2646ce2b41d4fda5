"""Every way the judge writes a game row moves Game.writes_built: a mail of orders alone
reuses the game SIGNON read only while it has not moved (commands/run.py)."""

from __future__ import annotations

from mailjudge import migrations
from mailjudge.models import Game, Person


def test_each_kind_of_game_write_is_counted_and_reads_are_not(any_db: str) -> None:
    migrations.upgrade()
    master = Person.create(email="gm@example.org")
    seen = [Game.writes_built]

    def moved() -> bool:
        seen.append(Game.writes_built)
        return seen[-1] > seen[-2]

    game = Game.create(name="one", master=master)
    assert moved()
    game.phase = "S1901M"
    game.save()
    assert moved()
    Game.update(private=True).where(Game.id == game.id).execute()
    assert moved()
    Game.bulk_update([game], fields=[Game.phase])
    assert moved()
    Game.insert_many([{"name": "two", "master": master.id}]).execute()
    assert moved()
    Game.delete().where(Game.name == "two").execute()
    assert moved()
    game.delete_instance()
    assert moved()
    assert Game.select().count() == 0 and not moved()
