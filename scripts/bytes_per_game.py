"""Database bytes per finished game, for every game: ``python scripts/bytes_per_game.py``.

Plays ``--games`` seeded games of each kind to the end through the runtime, exactly as the
bot stores them: 2-5 seats (people with Discord-sized ids, and one computer seat in three
games, moved by the runtime's computer player), each click saved as a click saves it, the
table message noted, the results and ratings written in the game's last transaction and
the game archived. Each kind gets a fresh database (two games first, so the tables' first
pages are made), and the growth per finished game is printed: SQLite's pages in use
(page_count - freelist_count, WAL folded by a checkpoint, as the load test's growth phase
counts), and what each table and index adds (SQLite's dbstat: the bytes its pages use,
so they add up to a little less than the pages, which are never quite full). ``--postgres`` measures
the same games on a throwaway PostgreSQL server (pgserver) by each relation's size.

Used for docs/storage-size.md (and the load test's growth figure beside it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.core.records import Seat
from bot.core.runtime import Runtime
from bot.core.storage import Storage, jobs, store
from bot.games import GAMES

WARM = 2  # games played before measuring: the first pages of every table and index


class Clock:
    """The time the storage sees (``bot.core.storage`` reads ``time.time()`` when it saves a
    move): a person's move comes 3-45 seconds after the previous one and a computer's 1-3
    seconds after, as at a real table, where played here as fast as the machine goes (the
    times of the moves are part of what is stored, and their spacing changes its size)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0
        self.rng = random.Random(7)

    def time(self) -> float:
        return self.now

    def advance(self, computer: bool) -> None:
        self.now += self.rng.uniform(1, 3) if computer else self.rng.uniform(3, 45)


CLOCK = Clock()
# The server's members who play: each game seats some of them (their totals and ratings are
# a row per member, not per game).
MEMBERS = [str(random.Random(number).randrange(10**17, 10**19)) for number in range(40)]


def _seats(game: str, number: int) -> tuple[int, bool]:
    """(seats, one of them a computer) of game ``number``: 2-5 seats in turn, within what
    the game takes, and a computer seat in every third game."""
    engine = GAMES[game].engine
    seats = min(max(2 + number % 4, engine.min_players), engine.max_players)
    return seats, number % 3 == 2


async def play(runtime: Runtime, game: str, number: int, guild: int) -> None:
    """One game of ``game`` from lobby to its end, as players and the bot make it."""
    record = GAMES[game]
    engine, computer = record.engine, record.computer
    rng = random.Random(number)
    seats, with_cpu = _seats(game, number)
    people = rng.sample(MEMBERS, seats - int(with_cpu))
    channel = 10**18 + number
    lobby = await runtime.open_lobby(guild, channel, game, Seat(people[0], "Host player"), {})
    for index, pid in enumerate(people[1:], 2):
        await runtime.join(lobby.id, Seat(pid, f"Player number {index}"))
    if with_cpu:
        await runtime.add_computer(lobby.id, people[0])
    await runtime.start(lobby.id, people[0])
    await runtime.set_table_message(lobby.id, channel + 7)
    while (match := runtime.get(lobby.id)) is not None:
        assert match.state is not None
        CLOCK.advance(computer=True)
        if await runtime.step_computer(lobby.id) is not None:
            continue
        match = runtime.get(lobby.id)
        if match is None:
            break
        assert match.state is not None
        CLOCK.advance(computer=False)
        player = next(p for p in engine.to_act(match.state)
                      if (seat := match.seat(p)) is not None and not seat.cpu)
        await runtime.act(lobby.id, player, computer.normal(match.state, player),
                          expected_version=match.version)
        if match.version % 5 == 0:
            await runtime.storage.mark_shown(lobby.id, match.version)


def _sqlite_sizes(path: str) -> tuple[int, dict[str, int]]:
    """(bytes of pages in use, bytes per table or index) after folding the WAL."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        used = (conn.execute("PRAGMA page_count").fetchone()[0]
                - conn.execute("PRAGMA freelist_count").fetchone()[0])
        # each table's and index's bytes in use (its pages less their unused space)
        parts = dict(conn.execute("SELECT name, SUM(pgsize - unused) FROM dbstat"
                                  " GROUP BY name"))
    finally:
        conn.close()
    return used * size, parts


def _pg(url: str) -> Callable[[Storage], Any]:
    async def sizes(_storage: Storage) -> tuple[int, dict[str, int]]:
        """Each table's and index's size (its TOAST included) after VACUUM FULL: the rows
        as they would be packed, without the dead versions of updated and deleted rows
        (a running state rewritten at every move, the moves deleted once archived), whose
        space PostgreSQL's autovacuum gives to the next rows rather than back."""
        import asyncpg

        conn = await asyncpg.connect(url)
        try:
            await conn.execute("VACUUM FULL")
            rows = await conn.fetch(
                "SELECT c.relname AS name, pg_relation_size(c.oid) + COALESCE("
                "pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0) AS bytes"
                " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i')")
        finally:
            await conn.close()
        parts = {str(r["name"]): int(r["bytes"]) for r in rows}
        return sum(parts.values()), parts

    return sizes


async def measure(game: str, games: int, target: str, folder: str,
                  sizes: Callable[[Storage], Any]) -> tuple[float, dict[str, float], float]:
    """Bytes per finished game, per table, and the archived bytes per game."""
    storage = await Storage.open(target)
    runtime = Runtime(storage, GAMES, turn_seconds=3600)
    guild = 10**17 + 1
    for number in range(WARM):
        await play(runtime, game, 1000 + number, guild)
    await storage.close()  # every write committed (SQLite: the WAL folded into the file)
    storage = await Storage.open(target)
    runtime = Runtime(storage, GAMES, turn_seconds=3600)
    before, parts_before = await sizes(storage)
    for number in range(games):
        await play(runtime, game, number, guild)
    await storage.close()
    storage = await Storage.open(target)
    after, parts_after = await sizes(storage)
    backend: Any = storage._backend
    row = await backend.fetch_one(
        "SELECT AVG(LENGTH(actions)) AS log, AVG(COALESCE(LENGTH(state), 0)) AS state"
        " FROM archive")
    archived = float(row["log"] or 0) + float(row["state"] or 0)
    await storage.close()
    parts = {name: (parts_after.get(name, 0) - parts_before.get(name, 0)) / games
             for name in parts_after.keys() | parts_before.keys()}
    return (after - before) / games, parts, archived


def _sqlite(folder: str, game: str) -> tuple[str, Callable[[Storage], Any]]:
    path = os.path.join(folder, f"{game}.sqlite3")

    async def sizes(_storage: Storage) -> tuple[int, dict[str, int]]:
        return _sqlite_sizes(path)

    return path, sizes


def report(figures: Mapping[str, tuple[float, dict[str, float], float]], games: int,
           where: str) -> None:
    print(f"{where}: bytes per finished game over {games} games of each kind "
          "(2-5 seats of 40 members, a computer in one game in three)\n")
    names = sorted({n for _, parts, _ in figures.values() for n in parts
                    if any(abs(f[1].get(n, 0)) >= 1 for f in figures.values())})
    kinds = list(figures)
    print(f"| {'':28} | " + " | ".join(f"{k:>9}" for k in kinds) + " |")
    print(f"|{'-' * 30}|" + "|".join("-" * 11 for _ in kinds) + "|")
    label = "**total (pages in use)**" if where == "SQLite" else "**total (VACUUM FULL)**"
    print(f"| {label:28} | "
          + " | ".join(f"{figures[k][0]:>9.0f}" for k in kinds) + " |")
    for name in names:
        print(f"| {name:28} | " + " | ".join(f"{figures[k][1].get(name, 0):>9.0f}"
                                             for k in kinds) + " |")
    print(f"| {'(archive blob bytes, avg)':28} | "
          + " | ".join(f"{figures[k][2]:>9.0f}" for k in kinds) + " |")
    mean = sum(f[0] for f in figures.values()) / len(figures)
    print(f"\naverage over the kinds: {mean:.0f} bytes per finished game")


async def main() -> None:
    for module in (store, jobs):
        module.time = CLOCK  # type: ignore[attr-defined]
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=30, help="games of each kind measured")
    parser.add_argument("--kinds", nargs="*", default=sorted(GAMES), help="which games")
    parser.add_argument("--postgres", action="store_true",
                        help="measure on a throwaway PostgreSQL server instead of SQLite")
    args = parser.parse_args()
    figures: dict[str, tuple[float, dict[str, float], float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        server = None
        if args.postgres:
            from bot.tools.pgserver import PgServer, binaries
            package = binaries()
            if package is None:
                raise SystemExit("the pgserver wheel is not installed")
            server = PgServer(package)
            server.start()
        try:
            for game in args.kinds:
                if server is not None:
                    target: str = server.create_database(f"bytes_{game}")
                    figures[game] = await measure(game, args.games, target, folder,
                                                  _pg(target))
                else:
                    path, sizes = _sqlite(folder, game)
                    figures[game] = await measure(game, args.games, path, folder, sizes)
        finally:
            if server is not None:
                server.close()
    report(figures, args.games, "PostgreSQL" if args.postgres else "SQLite")


if __name__ == "__main__":
    asyncio.run(main())
