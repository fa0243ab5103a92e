"""``python -m bot bench``: how fast pictures and clicks are, measured, not guessed.

For each game: render + PNG encode time (median and 95th percentile) and size of the table
picture at the start, middle and end of a seeded computer game; then, through the Discord
test harness (a real discord.py client against the fake Discord server on 127.0.0.1, the
fake on its own thread and event loop, its request validation off), the time from an injected click to the interaction
response, and how long the bot's event loop was blocked meanwhile: the longest single
callback in CPU time of the loop's thread (renders run in worker threads, so they never
count), and the wall-clock stall, which also includes waiting for the GIL while the
in-process fake handles requests.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from bot.core.engine import JSON
from bot.games import GAMES, renderer

TARGETS = {"image_p95_ms": 25.0, "image_max_bytes": 300_000, "click_p95_ms": 60.0,
           "loop_block_ms": 25.0}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _timed(fn: Callable[[], Any], repeats: int) -> tuple[list[float], Any]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return times, result


def game_states(game: str, seed: int = 7) -> dict[str, JSON]:
    """Public views at the start, middle and end of one seeded computer game."""
    engine, computer = GAMES[game].engine, GAMES[game].computer
    players = ["ann", "bob", "cy", "dee", "eve", "fay"][: GAMES[game].scenario.players]
    state = engine.new(players, {}, seed)
    states = [state]
    while engine.result(state) is None:
        player = engine.to_act(state)[0]
        state, _ = engine.apply(state, player, computer.normal(state, player))
        states.append(state)
    # the middle of the game is the busiest board: half-way through the last round
    middle = states[len(states) - 1 - len(states) // (2 * max(1, len(players)))]
    return {"start": engine.view(states[0], None), "middle": engine.view(middle, None),
            "end": engine.view(states[-1], None)}


def bench_images(game: str, repeats: int) -> dict[str, JSON]:
    draw = renderer(game)
    out: dict[str, JSON] = {}
    for stage, view in game_states(game).items():
        draw.render_table(view)  # warm caches: a running bot has them warm too
        times, png = _timed(lambda v=view: draw.render_table(v), repeats)  # type: ignore[misc]
        out[stage] = {"median_ms": round(statistics.median(times), 2),
                      "p95_ms": round(percentile(times, 0.95), 2), "bytes": len(png)}
    return out


def bench_clicks(game: str, clicks: int) -> JSON | None:
    """Click to interaction response through the Discord harness (fakediscord)."""
    try:  # the fake Discord is in the repository's fakediscord/, run from its folder
        from bot.tools.clickbench import click_benchmark
    except ImportError:
        return None
    result: JSON | None = asyncio.run(click_benchmark(game, clicks))
    return result


def bench_replay(quick: bool) -> JSON:
    """A replay viewer's step to its picture with 10,000 finished games in the server
    (``bot/tools/replaybench.py``; 200 games and 4 steps when quick: the suite runs it)."""
    from bot.tools.replaybench import replay_steps

    result: JSON = asyncio.run(replay_steps(200 if quick else 10_000, 4 if quick else 40))
    return result


def bench_records(quick: bool) -> JSON:
    """/profile's and /history's reads and answers, and the profile's picture, with 10,000
    finished games in the server (``bot/tools/recordsbench.py``; 200 games when quick)."""
    from bot.tools.recordsbench import records_timings

    result: JSON = asyncio.run(records_timings(200 if quick else 10_000, 4 if quick else 40))
    return result


def main(*, as_json: bool = False, quick: bool = False) -> int:
    repeats = 8 if quick else 40
    clicks = 10 if quick else 40
    report: JSON = {"targets": TARGETS, "machine": {"cpus": _cpus(), "python": sys.version.split()[0]},
                    "games": {}}
    for game in GAMES:
        entry: JSON = {"images": bench_images(game, repeats)}
        entry["click"] = bench_clicks(game, clicks)
        report["games"][game] = entry
    report["replay"] = bench_replay(quick)
    report["records"] = bench_records(quick)
    if as_json:
        print(json.dumps(report))
    else:
        print(_table(report))
    return 0


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _table(report: JSON) -> str:
    lines = [f"Cityhall benchmark ({report['machine']['cpus']} CPUs, Python "
             f"{report['machine']['python']})", ""]
    for game, entry in report["games"].items():
        lines.append(f"{game}")
        for stage, figures in entry["images"].items():
            lines.append(f"  image {stage:<6}  median {figures['median_ms']:6.2f} ms   "
                         f"p95 {figures['p95_ms']:6.2f} ms   {figures['bytes'] / 1000:6.1f} KB")
        click = entry.get("click")
        if click:
            lines.append(f"  click -> response  median {click['median_ms']:6.2f} ms   "
                         f"p95 {click['p95_ms']:6.2f} ms   ({click['clicks']} clicks)")
            lines.append(f"  longest event-loop block by the bot {click['loop_block_ms']:.2f} ms "
                         f"(CPU time of one callback; wall-clock stall incl. the in-process "
                         f"fake server: {click['loop_stall_wall_ms']:.2f} ms)")
        else:
            lines.append("  click -> response  (harness not available)")
        lines.append("")
    replay = report.get("replay")
    if replay:
        for kind, words in (("cold", "a game not opened since the start"),
                            ("rounds", "its rounds, found meanwhile"),
                            ("warm", "the next step in an open viewer")):
            figures = replay[kind]
            lines.append(f"replay step -> picture, {words}: median {figures['median_ms']:6.2f} ms"
                         f"   p95 {figures['p95_ms']:6.2f} ms (CPU {figures['cpu_p95_ms']:.2f} ms)"
                         f"   ({figures['steps']} steps, "
                         f"{replay['games']:,} finished games in the server)")
        lines.append("")
    if report.get("records"):
        from bot.tools.recordsbench import table

        lines += [*table(report["records"]), ""]
    t = report["targets"]
    lines.append(f"Targets: image p95 <= {t['image_p95_ms']:g} ms and <= "
                 f"{t['image_max_bytes'] // 1000} KB; click p95 <= {t['click_p95_ms']:g} ms; "
                 f"no event-loop stall over {t['loop_block_ms']:g} ms from a render; replay "
                 f"step p95 <= {report['replay']['target_p95_ms']:g} ms.")
    return "\n".join(lines)
