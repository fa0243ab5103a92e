"""/profile and /history in ``python -m bot bench``: their reads and what they build, with
many finished games in one server (issue 28: p95 ≤ 50 ms each with 10,000; the profile's
picture drawn off the event loop).

An SQLite database gets ``games`` finished games of 2-5 players (200 members, a computer in
half of them) in one server, written straight as rows: results, the matches they belong
to, rating changes and ratings. One member sits in 40 % of the games (about 4,000 with
10,000: the heaviest profile a server has); the others in some 150 each.

Timed in this process, on the database's own connections as the bot reads them:

- *profile*: ``records.profile`` (a member's totals per game, ratings, chart points and last
  games) and the answer built from it (the picture's data and its alt text), for a typical
  member and for the heaviest; *its picture* apart, as a render worker draws it;
- *history*: ``records.history`` and the embed and components of the page: the first page,
  the next one, one 100 pages deep, one game's, one member's.
"""

from __future__ import annotations

import json
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot.core.engine import JSON
from bot.core.storage import Storage, records
from bot.games import GAMES
from bot.render.profile import render_profile
from bot.ui.history import listing
from bot.ui.profile import alt_text, picture_data

TARGET_P95_MS = 50.0
GUILD = 1
HEAVY = "1"  # the member in 40 % of the games
MEMBERS = 200


def _seed(conn: sqlite3.Connection, games: int, seed: int) -> None:
    rng = random.Random(seed)
    names = list(GAMES)
    start = 1.7e9
    ratings: dict[tuple[str, str], tuple[int, int]] = {}
    members = [str(1000 + i) for i in range(MEMBERS)]
    for i in range(games):
        game = names[i % len(names)]
        people = rng.sample(members, rng.randint(2, 4))
        if rng.random() < 0.4:
            people[0] = HEAVY
        seats: list[dict[str, Any]] = [{"id": p, "name": f"Member {p}", "cpu": False}
                                       for p in people]
        if rng.random() < 0.5:
            seats.append({"id": "cpu1", "name": "Ada (computer)", "cpu": True,
                          "level": "hard"})
        at = start + i * 300.0
        match_id = conn.execute(
            "INSERT INTO matches (guild_id, channel_id, game, status, host_id, seats, options,"
            " seed, version, extra, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (GUILD, 7, game, "over", people[0], json.dumps(seats), "{}", i,
             rng.randint(20, 200), "{}", at - 900, at)).lastrowid
        scores = {s["id"]: rng.randint(10, 120) for s in seats}
        best = max(scores.values())
        for s in seats:
            pid, score = str(s["id"]), scores[str(s["id"])]
            conn.execute("INSERT INTO results (match_id, guild_id, game, player_id, name, cpu,"
                         " score, won, extra, finished_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                         (match_id, GUILD, game, pid, s["name"], int(s["cpu"]), score,
                          int(score == best), "{}", at))
            key = (game, "cpu:hard" if s["cpu"] else pid)
            before, rated = ratings.get(key, (1000, 0))
            after = before + rng.randint(-30, 30)
            ratings[key] = (after, rated + 1)
            place = 1 + sum(1 for v in scores.values() if v > score)
            conn.execute("INSERT OR IGNORE INTO rating_changes (match_id, player_id, guild_id,"
                         " game, season, place, mu, sigma, rating, before, finished_at)"
                         " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                         (match_id, key[1], GUILD, game, 1, place, 25.0, 8.0, after, before,
                          at))
    for (game, pid), (rating, rated) in ratings.items():
        conn.execute("INSERT INTO ratings (guild_id, game, season, player_id, name, cpu, mu,"
                     " sigma, rating, games, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                     (GUILD, game, 1, pid, f"Member {pid}", int(pid.startswith("cpu")), 25.0,
                      8.0, rating, rated, start))


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 2)


async def _timed(work: Callable[[], Awaitable[Any]], samples: int) -> JSON:
    await work()  # the first read warms SQLite's page cache, as a running bot has it
    times, cpus = [], []
    for _ in range(samples):
        start, cpu = time.perf_counter(), time.process_time()
        await work()
        times.append((time.perf_counter() - start) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return {"median_ms": round(statistics.median(times), 2), "p95_ms": _p95(times),
            "cpu_p95_ms": _p95(cpus), "samples": samples}


async def records_timings(games: int = 10_000, samples: int = 40, seed: int = 7) -> JSON:
    """/profile's and /history's reads and answers with ``games`` finished games."""
    with tempfile.TemporaryDirectory(prefix="cityhall-recordsbench-") as folder:
        storage = await Storage.open(Path(folder) / "bench.sqlite3")
        try:
            await storage.write(lambda conn: _seed(conn, games, seed))
            typical = str(1000 + MEMBERS // 2)

            async def profile(member: str) -> Any:
                found = await records.profile(storage, GUILD, member)
                assert found is not None
                data = picture_data(found, "Member", single=False)
                alt_text(found, "Member", single=False)
                return data

            drawn = await profile(HEAVY)
            first = await records.history(storage, GUILD)

            async def page(**where: Any) -> None:
                got = await records.history(storage, GUILD, **where)
                assert got.entries
                listing(got, owner=1, game=where.get("game"), member=where.get("player_id"))

            out: JSON = {"games": games, "target_p95_ms": TARGET_P95_MS}
            out["profile_typical"] = await _timed(lambda: profile(typical), samples)
            out["profile_heaviest"] = await _timed(lambda: profile(HEAVY), samples)

            async def picture() -> None:
                render_profile(drawn)

            out["profile_picture"] = await _timed(picture, max(4, samples // 4))
            deep = min(100, max(0, games // records.PAGE_SIZE - 2))
            out["history_first"] = await _timed(lambda: page(), samples)
            out["history_next"] = await _timed(lambda: page(page=1, anchor=first.anchor),
                                               samples)
            out["history_deep"] = await _timed(lambda: page(page=deep, anchor=first.anchor),
                                               samples)
            out["history_deep"]["page"] = deep + 1
            out["history_game"] = await _timed(lambda: page(game=list(GAMES)[-1]), samples)
            out["history_member"] = await _timed(lambda: page(player_id=typical), samples)
        finally:
            await storage.close()
    return out


LINES = (("profile_typical", "/profile, a member of ~150 games (reads and answer)"),
         ("profile_heaviest", "/profile, the member of 40 % of the games"),
         ("profile_picture", "/profile's picture (drawn by a render worker)"),
         ("history_first", "/history, the first page"),
         ("history_next", "/history, the next page"),
         ("history_deep", "/history, a page deep in the list"),
         ("history_game", "/history, one game's"),
         ("history_member", "/history, one member's"))


def table(report: JSON) -> list[str]:
    lines = []
    for key, words in LINES:
        figures = report[key]
        where = f", page {figures['page']}" if "page" in figures else ""
        lines.append(f"{words}{where}: median {figures['median_ms']:6.2f} ms   p95 "
                     f"{figures['p95_ms']:6.2f} ms (CPU {figures['cpu_p95_ms']:.2f} ms)")
    lines.append(f"  ({report['games']:,} finished games in the server; target p95 <= "
                 f"{report['target_p95_ms']:g} ms)")
    return lines
