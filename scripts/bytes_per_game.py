"""Database bytes per finished game: ``python scripts/bytes_per_game.py GAME [N]``.

Plays N two-player games of GAME to the end through the runtime (computer moves for both
seats) into a fresh SQLite file and prints the file's growth per game after a checkpoint,
and the average archived (compressed) action log and state. Used for docs/performance.md's figure
beside the load test's own.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
import tempfile

from bot.core.records import Seat
from bot.core.runtime import Runtime
from bot.core.storage import Storage
from bot.games import GAMES


async def measure(game: str, games: int) -> None:
    engine, computer = GAMES[game].engine, GAMES[game].computer
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "bytes.sqlite3")
        storage = await Storage.open(path)
        runtime = Runtime(storage, GAMES, turn_seconds=3600)

        async def play(channel: int) -> None:
            lobby = await runtime.open_lobby(1 + channel // 50, channel, game,
                                             Seat(f"h{channel}", "Host"), {})
            await runtime.join(lobby.id, Seat(f"j{channel}", "Guest"))
            await runtime.start(lobby.id, lobby.host_id)
            while (match := runtime.get(lobby.id)) is not None:
                assert match.state is not None
                player = engine.to_act(match.state)[0]
                await runtime.act(lobby.id, player, computer.normal(match.state, player))

        await play(0)  # the first game creates the tables' first pages
        sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)")
        before = os.path.getsize(path)
        for channel in range(1, games + 1):
            await play(channel)
        sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)")
        after = os.path.getsize(path)
        log, state = sqlite3.connect(path).execute(
            "SELECT AVG(LENGTH(actions)), AVG(LENGTH(state)) FROM archive").fetchone()
        await storage.close()
    print(f"{game}: {(after - before) / games:.0f} bytes per finished game over {games} "
          f"games (archived log {log:.0f} B, final state {state:.0f} B)")


if __name__ == "__main__":
    asyncio.run(measure(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 50))
