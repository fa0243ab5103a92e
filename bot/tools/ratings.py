"""``python -m bot ratings --rebuild``: every rating computed again from the stored results.

Replays every finished game's results through the rating rules (bot/core/ratings.py) in the
order the games finished, per server, game and season, in one transaction, rewrites the
ratings and rating changes, and says whether the stored ones matched. docs/ratings.md.
"""

from __future__ import annotations

import asyncio
import os

from bot.core.storage import Storage, StorageError


def database_target(database: str | None) -> str:
    """The database a tool opens: ``--database`` (a file or a postgresql:// URL), else
    DATABASE_URL, else DATABASE_PATH, as ``python -m bot run`` reads them."""
    from bot.config import database_path, database_path_from_env, database_url

    if database:
        return database if "://" in database else database_path(database)
    path = database_path_from_env()  # also reads .env
    return database_url(os.environ.get("DATABASE_URL")) or path


async def rebuild(target: str) -> dict[str, int]:
    storage = await Storage.open(target)
    try:
        return await storage.rebuild_ratings()
    finally:
        await storage.close()


def report(counts: dict[str, int]) -> str:
    games = f"{counts['games']:,} finished game{'s' if counts['games'] != 1 else ''}"
    if not counts["ratings"] and not counts["changes"]:
        return f"Rated {games} again: the stored ratings matched."
    return (f"Rated {games} again: {counts['ratings']:,} rating(s) and {counts['changes']:,} "
            f"rating change(s) differed from the stored ones; they were rewritten.")


def main(*, database: str | None = None) -> int:
    from bot.config import ConfigError

    try:
        target = database_target(database)
        counts = asyncio.run(rebuild(target))
    except (ConfigError, StorageError) as exc:
        print(f"Cannot rebuild the ratings: {exc}")
        return 1
    print(report(counts))
    return 0
