"""``python -m bot forget USER_ID``: delete a member's data on their request.

Removes their results, /stats totals, ratings and rating changes, their /notify choice and
every other value naming them, and anonymises their seat in every stored game (the match's
seats, its archived moves and any final state kept, a running game's state and moves): their id
becomes a number no Discord account has ("0", or "1"... where "0" is taken at that table)
and their name "Forgotten player". Refused, changing nothing, while they sit in an
unfinished game: it is named, to be ended first (/moderate end or /game end). Other
players' ratings are not recomputed (``ratings --rebuild`` does, without the forgotten
games' results). docs/ratings.md.
"""

from __future__ import annotations

import asyncio

from bot.core.storage import Forgotten, Storage, StorageError
from bot.tools.ratings import database_target


async def forget(target: str, user_id: str) -> Forgotten:
    storage = await Storage.open(target)
    try:
        return await storage.forget(user_id)
    finally:
        await storage.close()


def report(user_id: str, done: Forgotten) -> str:
    if done.unfinished:
        games = "; ".join(f"{game} game {match} in server {guild}, channel {channel}"
                          for match, guild, channel, game in done.unfinished)
        return (f"Nothing was changed: {user_id} sits in {len(done.unfinished)} unfinished "
                f"game(s): {games}. End them first (/moderate end in the channel), then run "
                f"this again.")
    rows = ", ".join(f"{table} {count:,}" for table, count in sorted(done.rows.items())
                     if count)
    return (f"Forgot {user_id}: rows deleted or anonymised by table: {rows or 'none'}. "
            f"Other players' ratings were not recomputed; `python -m bot ratings --rebuild` "
            f"recomputes them without this member's results.")


def main(user_id: str, *, database: str | None = None) -> int:
    from bot.config import ConfigError

    if not (user_id.isascii() and user_id.isdigit()):
        print(f"A Discord user id is a number, not {user_id!r}; nothing was changed.")
        return 2
    try:
        done = asyncio.run(forget(database_target(database), user_id))
    except (ConfigError, StorageError) as exc:
        print(f"Cannot forget {user_id}: {exc}")
        return 1
    print(report(user_id, done))
    return 1 if done.unfinished else 0
