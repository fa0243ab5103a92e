"""What a move's save costs on PostgreSQL (``Storage.save`` through ``PostgresBackend``).

    python scripts/pg_write_cost.py [--url postgresql://…] [--moves 2000] [--matches 16]

Without ``--url`` it runs a throwaway PostgreSQL 16 from the pgserver wheel, as the tests
do (tests/pg_support.py: fsync off, so the figures are round trips and server work, not
disk flushes). Two runs: one match saving ``--moves`` moves one after another (the latency
of one save: mean and median; the statements sent per save, each a round trip to the
server; the WAL the server wrote per save), then ``--matches`` matches saving at once (saves per second through the pool of
10 connections). Times are figures, not a test: compare runs of the same machine, at the
same load; the round trips do not depend on either.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg

from bot.core.records import ACTIVE, Match, Seat
from bot.core.storage import Storage

SENT = [0]


def _count_round_trips() -> None:
    """Count each statement asyncpg sends (after the first use of a statement, one round
    trip each: its prepared form is cached)."""
    for name in ("execute", "executemany", "fetch", "fetchrow", "fetchval"):
        original = getattr(asyncpg.connection.Connection, name)

        async def counted(self: asyncpg.Connection, *args: object, _original: object = original,
                          **kwargs: object) -> object:
            SENT[0] += 1
            return await _original(self, *args, **kwargs)  # type: ignore[operator]

        setattr(asyncpg.connection.Connection, name, counted)


def _match(channel: int) -> Match:
    return Match(id=0, guild_id=10, channel_id=channel, game="cityscape", status=ACTIVE,
                 host_id="1", seats=[Seat("1", "Ann"), Seat("cpu1", "Ada (computer)", True)],
                 options={"rounds": 2}, seed=1234)


async def _measure(url: str, moves: int, matches: int) -> None:
    storage = await Storage.open(url)
    try:
        one = await storage.create_match(_match(1))
        for _ in range(50):  # warm the pool and the statement caches
            one.version += 1
            await storage.save(one, action={"n": one.version}, player="1")
        admin = await asyncpg.connect(url)
        lsn = await admin.fetchval("SELECT pg_current_wal_lsn()")
        times = []
        sent = SENT[0]
        for _ in range(moves):
            one.version += 1
            one.state = {"built": one.version}
            began = time.perf_counter()
            await storage.save(one, action={"n": one.version}, player="1")
            times.append(time.perf_counter() - began)
        trips = (SENT[0] - sent) / moves
        wal = await admin.fetchval("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)", lsn)
        print(f"one match, {moves} saves in a row: mean {statistics.mean(times) * 1e3:.3f} ms,"
              f" median {statistics.median(times) * 1e3:.3f} ms, {trips:g} round trips each,"
              f" {float(wal) / moves:.0f} bytes of WAL each")
        await admin.close()

        many = [await storage.create_match(_match(100 + n)) for n in range(matches)]

        async def play(match: Match, count: int) -> None:
            for _ in range(count):
                match.version += 1
                match.state = {"built": match.version}
                await storage.save(match, action={"n": match.version}, player="1")

        began = time.perf_counter()
        await asyncio.gather(*(play(m, moves // matches) for m in many))
        took = time.perf_counter() - began
        total = moves // matches * matches
        print(f"{matches} matches at once, {total} saves: {total / took:.0f} saves/s")
    finally:
        await storage.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url")
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=16)
    args = parser.parse_args()
    _count_round_trips()
    if args.url:
        asyncio.run(_measure(args.url, args.moves, args.matches))
        return
    from tests.pg_support import PgServer, binaries

    package = binaries()
    if package is None:
        sys.exit("No --url and no pgserver wheel to run a server from.")
    server = PgServer(package)
    try:
        server.start()
        asyncio.run(_measure(server.create_database(), args.moves, args.matches))
    finally:
        server.close()


if __name__ == "__main__":
    main()
