"""Play seeded Cities games of hard against normal; write every move and time hard's searches.

Each deal (seed) is played once per seat rotation, hard in one seat and normal in the
others, with play-out counts only (no clock cap, as ``arena --seconds 0``), so a run is
deterministic: two runs on the same code write byte-identical traces. Comparing the trace
of a change with the one before it shows whether the change altered any decision; the CPU
times of hard's searched moves (its takes) show what it cost or saved.

    nice -n 19 .venv/bin/python scripts/cities_hard_trace.py --players 4 --seeds 2000 2001 \\
        --trace /tmp/trace.jsonl --times /tmp/times.json
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

from bot.core.engine import JSON
from bot.core.levels import HARD, NORMAL, Budget, decide
from bot.games import GAMES

NAMES = ("ann", "bob", "cy", "dee")


def play(players: int, seed: int, hard_seat: int, trace: list[str], times: list[float]) -> None:
    """One game, hard in ``hard_seat``: its moves appended to ``trace`` (JSON lines), the
    CPU milliseconds of hard's searched moves to ``times``."""
    engine, computer = GAMES["cities"].engine, GAMES["cities"].computer
    names = list(NAMES[:players])
    state = engine.new(names, {}, seed)
    budget = Budget(iterations=0, seconds=None)
    hard = names[hard_seat]
    while engine.result(state) is None:
        player = engine.to_act(state)[0]
        level = HARD if player == hard else NORMAL
        searched = level == HARD and state["phase"] == "play" and state["pending"] is None
        start = time.process_time()
        action = decide(computer, state, player, level, budget)
        if searched:
            times.append(1000 * (time.process_time() - start))
        trace.append(json.dumps({"seed": seed, "hard": hard, "player": player, "level": level,
                                 "action": action}, sort_keys=True))
        state, _ = engine.apply(state, player, action)
    result = engine.result(state)
    assert result is not None
    trace.append(json.dumps({"seed": seed, "hard": hard, "scores": result.scores}, sort_keys=True))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seeds", type=int, nargs="+", default=[2000, 2001, 2002])
    parser.add_argument("--trace", required=True, help="JSON lines, one per move")
    parser.add_argument("--times", help="JSON list of hard's searched-move CPU ms")
    args = parser.parse_args()
    trace: list[str] = []
    times: list[float] = []
    for seed in args.seeds:
        for seat in range(args.players):
            play(args.players, seed, seat, trace, times)
    with open(args.trace, "w", encoding="utf-8") as out:
        out.write("\n".join(trace) + "\n")
    if args.times:
        with open(args.times, "w", encoding="utf-8") as out:
            json.dump(times, out)
    summary: JSON = {
        "players": args.players, "games": len(args.seeds) * args.players, "moves": len(trace),
        "searched": len(times), "cpu_ms_p50": round(statistics.median(times), 1),
        "p95": round(percentile(times, 0.95), 1), "p99": round(percentile(times, 0.99), 1),
        "max": round(max(times), 1),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
