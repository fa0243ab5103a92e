"""Memory and overhead of drawing pictures in the render pool (bot/render/pool.py).

    python scripts/render_pool_report.py [--workers 2] [--pictures 200] [--passes 2]

Plays seeded computer games of every game (several matches each, with their own player
names, as a running bot would have), then has the pool draw ``--pictures`` pictures of
each game (tables, event pictures, previews, finals) in an interleaved order, ``--passes``
times. After each pass: VmRSS of this process and of every worker, and, where
``bot.render.cache`` exists, what each cache holds in one worker. Then the per-picture
overhead of the pool against a direct call in this process.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import itertools
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.core.engine import JSON
from bot.games import GAMES, render_pool
from bot.render.pool import Priority, rss_kib

Job = tuple[str, str, tuple[Any, ...]]
MATCHES = {"bigcity": [(2, 1), (3, 2), (4, 3), (5, 4), (3, 5)],
           "bigcityz": [(2, 1), (4, 2), (6, 3), (3, 4)],
           "cities": [(2, 1), (3, 2), (4, 3), (2, 4)],
           "cityscape": [(2, 1), (3, 2), (4, 3), (2, 4)]}


def _names(seed: int, players: int) -> list[str]:
    first = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]
    return [f"{first[i]} {seed}{i}x" for i in range(players)]


def _extras_jobs(game: str, state: JSON, events: list[JSON], player: str) -> list[Job]:
    engine = GAMES[game].engine
    view = engine.view(state, None)
    jobs: list[Job] = []
    if game == "bigcity" and state.get("phase") == "play" and state.get("step") in (
            "start", "main"):
        actions = [a.action for a in engine.legal(state, player)
                   if a.action["type"] in ("build", "special")]
        sites = list(dict.fromkeys(tuple(a["properties"]) for a in actions))[:12]
        letters = "ABCDEFGHIJKL"
        if sites:
            choices = [{"label": letters[i], "properties": list(s)} for i, s in enumerate(sites)]
            jobs.append((game, "render_preview", (engine.view(state, player), choices)))
    if game == "cities":
        jobs.append((game, "render_neighbourhood", (view, player)))
    if game == "bigcityz" and any(e.get("type") == "reveal" for e in events):
        jobs.append((game, "render_reveal", (view,)))
    if game == "cityscape":
        for event in events:
            if "round" in event and event.get("type") in ("round_scored", "scoring"):
                jobs.append((game, "render_scoring", (view, event["round"])))
    return jobs


def match_jobs(game: str, players: int, seed: int) -> list[Job]:
    engine, computer = GAMES[game].engine, GAMES[game].computer
    state = engine.new(_names(seed, players), {}, seed)
    jobs: list[Job] = [(game, "render_table", (engine.view(state, None),))]
    while engine.result(state) is None:
        player = engine.to_act(state)[0]
        state, events = engine.apply(state, player, computer.normal(state, player))
        view = engine.view(state, None)
        jobs.append((game, "render_table", (view,)))
        if events:
            jobs.append((game, "render_extras", (view, events)))
        jobs.extend(_extras_jobs(game, state, events, engine.to_act(state)[0]
                                 if engine.to_act(state) else player))
    jobs.append((game, "render_final", (engine.view(state, None),)))
    return jobs


def workload(game: str, pictures: int) -> list[Job]:
    """``pictures`` jobs taken in turn from several matches, as concurrent games would."""
    matches = [match_jobs(game, players, seed) for players, seed in MATCHES[game]]
    interleaved = [job for group in itertools.zip_longest(*matches) for job in group if job]
    return interleaved[:pictures]



async def memory(jobs: dict[str, list[Job]], workers: int, passes: int) -> None:
    modules = {}
    if importlib.util.find_spec("bot.render.cache") is not None:
        modules["cachestats"] = "bot.render.cache"
    pool = render_pool(workers, modules=modules, max_jobs=None)
    await pool.start()
    print(f"started: parent {rss_kib(_pid()) / 1024:.1f} MB, workers "
          + ", ".join(f"{rss_kib(p) / 1024:.1f}" for p in pool.pids()) + " MB")
    try:
        for number in range(1, passes + 1):
            start = time.perf_counter()
            for game in GAMES:
                await asyncio.gather(*(pool.render(g, f, *a) for g, f, a in jobs[game]))
            took = time.perf_counter() - start
            busy = [rss_kib(p) / 1024 for p in pool.pids()]
            await asyncio.sleep(1)  # idle workers give freed memory back (pool.IDLE_TRIM)
            worker_rss = [rss_kib(p) / 1024 for p in pool.pids()]
            print(f"pass {number}: {sum(len(j) for j in jobs.values())} pictures in {took:.1f} s;"
                  f" parent {rss_kib(_pid()) / 1024:.1f} MB, workers "
                  + ", ".join(f"{r:.1f}" for r in busy) + " MB right after, "
                  + ", ".join(f"{r:.1f}" for r in worker_rss) + " MB idle")
        if modules:
            for _ in pool.pids():
                print(await pool.render("cachestats", "report"))
    finally:
        await pool.close()


async def overhead(jobs: dict[str, list[Job]], repeats: int) -> None:
    """Round trip minus the time the renderer ran in the worker, one job at a time."""
    pool = render_pool(1, max_jobs=None)
    await pool.start()
    try:
        print("per picture (1 worker, sequential): renderer in worker, round trip, overhead; "
              "parent CPU; pickled view; PNG")
        for game in GAMES:
            picks = [j for j in jobs[game] if j[1] == "render_table"][::25][:6]
            for g, f, a in picks:
                await pool.render(g, f, *a)  # warm, as a running bot's worker is
            inner0, n = pool.stats.worker_seconds, 0
            wall0, cpu0 = time.perf_counter(), time.process_time()
            for _ in range(repeats):
                for g, f, a in picks:
                    await pool.render(g, f, *a, priority=Priority.INTERACTIVE)
                    n += 1
            wall = (time.perf_counter() - wall0) * 1000 / n
            cpu = (time.process_time() - cpu0) * 1000 / n
            inner = (pool.stats.worker_seconds - inner0) * 1000 / n
            view_kb = statistics.median(len(pickle.dumps(a, pickle.HIGHEST_PROTOCOL))
                                        for _g, _f, a in picks) / 1000
            pngs = [await pool.render(g, f, *a) for g, f, a in picks]
            png_kb = statistics.median(len(png) for png in pngs) / 1000
            print(f"  {game:<10} {inner:6.2f} ms  {wall:6.2f} ms  +{wall - inner:.2f} ms;"
                  f"  {cpu:.2f} ms;  {view_kb:.1f} KB;  {png_kb:.1f} KB")
    finally:
        await pool.close()


def _pid() -> int:
    import os

    return os.getpid()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pictures", type=int, default=200)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--skip-overhead", action="store_true")
    args = parser.parse_args()
    jobs = {game: workload(game, args.pictures) for game in GAMES}
    kinds: dict[str, int] = {}
    for game_jobs in jobs.values():
        for _g, f, _a in game_jobs:
            kinds[f] = kinds.get(f, 0) + 1
    print("workload:", ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    asyncio.run(memory(jobs, args.workers, args.passes))
    if not args.skip_overhead:
        asyncio.run(overhead(jobs, args.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
