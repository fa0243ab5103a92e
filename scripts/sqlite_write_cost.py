"""What a move's save costs on SQLite, to compare two versions of Cityhall's storage.

    python scripts/sqlite_write_cost.py [--code DIR] [--moves 2000] [--matches 200] [--rounds 3]

``--code`` imports ``bot.core.storage`` from another checkout (``git worktree add --detach
DIR <commit>``), so the same measurement runs on the storage of before and after a change,
back to back on one machine. Two figures per round, in a new database file each time: one
match saving ``--moves`` moves one after another (the latency of one save: mean and
median), then ``--matches`` matches saving at once (saves per second, SQLite's group
commit at work). The file is on the same disk and synced as the bot syncs it
(``synchronous=FULL``), so figures depend on the disk: compare runs of one machine.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


async def _round(storage_cls: Any, records: Any, path: Path, moves: int,
                 matches: int) -> tuple[float, float, float]:
    def match(channel: int) -> Any:
        return records.Match(id=0, guild_id=10, channel_id=channel, game="cityscape",
                             status=records.ACTIVE, host_id="1",
                             seats=[records.Seat("1", "Ann"),
                                    records.Seat("cpu1", "Ada (computer)", True)],
                             options={"rounds": 2}, seed=1234)

    storage = await storage_cls.open(path)
    try:
        one = await storage.create_match(match(1))
        for _ in range(50):  # warm the statement caches
            one.version += 1
            await storage.save(one, action={"n": one.version}, player="1")
        times = []
        for _ in range(moves):
            one.version += 1
            one.state = {"built": one.version, "board": list(range(40))}
            began = time.perf_counter()
            await storage.save(one, action={"n": one.version}, player="1")
            times.append(time.perf_counter() - began)
        many = [await storage.create_match(match(100 + n)) for n in range(matches)]

        async def play(m: Any, count: int) -> None:
            for _ in range(count):
                m.version += 1
                m.state = {"built": m.version, "board": list(range(40))}
                await storage.save(m, action={"n": m.version}, player="1")

        per = max(1, moves // matches)
        began = time.perf_counter()
        await asyncio.gather(*(play(m, per) for m in many))
        rate = per * matches / (time.perf_counter() - began)
    finally:
        await storage.close()
    return statistics.mean(times) * 1e3, statistics.median(times) * 1e3, rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(args.code.resolve()))
    import bot.core.storage as storage_module
    from bot.core import records
    from bot.core.storage import Storage

    print(f"storage of {storage_module.__file__}")
    for n in range(args.rounds):
        with tempfile.TemporaryDirectory(dir=".") as work:
            mean, median, rate = asyncio.run(
                _round(Storage, records, Path(work) / "db.sqlite3", args.moves, args.matches))
        print(f"round {n + 1}: one match, {args.moves} saves in a row: mean {mean:.3f} ms, "
              f"median {median:.3f} ms; {args.matches} matches at once: {rate:.0f} saves/s")


if __name__ == "__main__":
    main()
