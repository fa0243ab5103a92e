"""A long arena run in chunks of whole deals, each chunk's report kept in its own JSON file,
so a run stopped (a time box, a reboot) goes on where it was, and the chunks sum to the run.

    python scripts/arena_chunks.py cityscape --players 2 --games 400 --seed 1000 \\
        --chunk 40 --out arena/
    python scripts/arena_chunks.py cityscape --players 2 --games 400 --seed 1000 \\
        --chunk 40 --out arena/ --sum

Chunk k plays games [k * chunk, (k + 1) * chunk) of ``arena GAME --seed SEED --games GAMES``:
the same deals and seat rotations (``--seconds 0``: the same moves whatever the load). The
chunk size must be a whole number of deals (a multiple of the players).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    a = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return ((c - a) / d, (c + a) / d)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("game")
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--chunk", type=int, default=40)
    ap.add_argument("--levels", default="hard,normal")
    ap.add_argument("--out", type=Path, default=Path("arena"))
    ap.add_argument("--sum", action="store_true", help="only add up the chunks there are")
    args = ap.parse_args()
    if args.chunk % args.players or args.games % args.players:
        ap.error("--chunk and --games must be whole deals (multiples of --players)")
    args.out.mkdir(parents=True, exist_ok=True)
    deals = args.chunk // args.players
    names = []
    for first in range(0, args.games, args.chunk):
        games = min(args.chunk, args.games - first)
        seed = args.seed + first // args.players
        path = args.out / f"{args.game}-{args.players}p-{args.seed}-{first:04d}.json"
        names.append(path)
        if args.sum or path.exists():
            continue
        report = subprocess.run(
            [sys.executable, "-m", "bot", "arena", args.game, "--players", str(args.players),
             "--levels", args.levels, "--games", str(games), "--seed", str(seed),
             "--seconds", "0", "--json"], check=True, capture_output=True, text=True).stdout
        path.write_text(report)
        print(f"{path}: games {first}-{first + games - 1} (deals from seed {seed}, {deals} a "
              "chunk)", flush=True)
    totals: dict[str, dict[str, float]] = {}
    for path in names:
        if not path.exists():
            continue
        for level, s in json.loads(path.read_text())["levels"].items():
            t = totals.setdefault(level, {"seats": 0, "wins": 0.0, "score": 0.0})
            t["seats"] += s["seat_games"]
            t["wins"] += s["wins"]
            t["score"] += s["mean_score"] * s["seat_games"]
    done = sum(1 for p in names if p.exists())
    print(f"{args.game}, {args.players} players: {done} of {len(names)} chunks")
    for level, t in totals.items():
        low, high = wilson(t["wins"], int(t["seats"]))
        print(f"  {level}: {int(t['seats'])} seat-games, wins {100 * t['wins'] / t['seats']:.1f} % "
              f"({100 * low:.1f}-{100 * high:.1f} %), mean score {t['score'] / t['seats']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
