"""Time Cityscape's hard player on a fixed set of positions, in one process.

The positions come from normal-against-normal games with fixed seeds (2 and 4 players,
every goal choice and every build), so two runs of this script time the same decisions;
comparing them says what a change to hard cost or saved, apart from what an arena's
games (which change when hard's moves change) would mix in. Play-out counts only (no
clock cap), as ``arena --seconds 0``.

    .venv/bin/python scripts/cityscape_hard_bench.py [--seeds 3] [--every 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from bot.core.engine import JSON
from bot.core.levels import HARD, Budget, decide
from bot.games import GAMES
from bot.games.cityscape.levels import sample_positions


def positions(players: int, seeds: int, every: int) -> list[tuple[JSON, str]]:
    """Every ``every``-th decision of normal-against-normal games (goal choices always)."""
    return [found for seed in range(seeds)
            for found in sample_positions(players, 7000 + seed, every)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--every", type=int, default=3)
    args = parser.parse_args()
    computer = GAMES["cityscape"].computer
    budget = Budget(iterations=0, seconds=None)
    print(f"load average {os.getloadavg()[0]:.2f}")
    for players in (2, 4):
        times: dict[str, list[float]] = {"goals": [], "building": []}
        for state, player in positions(players, args.seeds, args.every):
            start = time.process_time()
            decide(computer, state, player, HARD, budget)
            times[state["phase"]].append(1000 * (time.process_time() - start))
        every = times["goals"] + times["building"]
        p95 = statistics.quantiles(every, n=20)[-1]
        print(f"{players} players: {len(every)} decisions, CPU ms p50 "
              f"{statistics.median(every):.0f} p95 {p95:.0f} max {max(every):.0f}; goals "
              f"p50 {statistics.median(times['goals']):.0f} max {max(times['goals']):.0f}; "
              f"builds p50 {statistics.median(times['building']):.0f} "
              f"max {max(times['building']):.0f}")


if __name__ == "__main__":
    main()
