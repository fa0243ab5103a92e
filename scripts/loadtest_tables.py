"""CPU per table picture over the tables a load test really drew.

    python scripts/loadtest_tables.py DATABASE [--profile] [--caches]

Replays every match with moves in a load test's SQLite database (``python -m bot
loadtest --workdir DIR`` keeps ``DIR/cityhall.sqlite3``) from its stored actions, keeps each
public board that differs from the one before, interleaves the matches move by move as a
busy server's moves reach a render worker, and draws every board with the game's
``render_table`` in this one process: the first tenth warms the caches, the rest is timed
(CPU). Boards of random players' games, later in the game and more varied than the
computer players' games ``compare_pictures.py`` plays, are what the caches and the drawing
meet in the load test, so this is the offline figure to compare code changes by
(docs/pictures-cost.md). ``--profile`` prints cProfile's top functions; ``--caches`` what
each render cache kept and hit.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import itertools
import json
import pstats
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.core.replaying import steps
from bot.core.storage.store import _match
from bot.games import GAMES

JSON = Any


def boards(database: Path) -> list[tuple[str, JSON]]:
    """``(game, public board)`` for every changed board of every match with moves,
    interleaved move by move."""
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    rows = db.execute("SELECT m.*, s.state AS st, s.state_version AS sv FROM matches m "
                      "LEFT JOIN match_states s ON s.match_id = m.id").fetchall()
    matches = []
    for row in rows:
        match = _match(row, row["st"], row["sv"])
        actions = [(a["player"], json.loads(a["action"])) for a in db.execute(
            "SELECT player, action FROM actions WHERE match_id=? ORDER BY seq", (match.id,))]
        if not actions or match.game not in GAMES:
            continue
        engine = GAMES[match.game].engine
        shown: list[tuple[str, JSON]] = []
        for step in steps(engine, match.player_ids, match.options, match.seed, actions):
            if step.error is None:
                board = engine.view(step.state, None)
                if not shown or shown[-1][1] != board:
                    shown.append((match.game, board))
        matches.append(shown)
    db.close()
    return [b for group in itertools.zip_longest(*matches) for b in group if b is not None]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("database", type=Path)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--caches", action="store_true")
    args = parser.parse_args(argv)
    order = boards(args.database)
    draw = {game: importlib.import_module(f"bot.games.{game}.render").render_table
            for game in {game for game, _board in order}}
    warm = len(order) // 10
    for game, board in order[:warm]:
        draw[game](board)
    cpu: dict[str, float] = dict.fromkeys(draw, 0.0)
    count: Counter[str] = Counter()
    profile = cProfile.Profile() if args.profile else None
    for game, board in order[warm:]:
        if profile is not None:
            profile.enable()
        started = time.process_time()
        draw[game](board)
        cpu[game] += time.process_time() - started
        if profile is not None:
            profile.disable()
        count[game] += 1
    total = sum(count.values())
    print(f"{total} tables timed (after {warm} to warm the caches), CPU ms per table: "
          f"all {1000 * sum(cpu.values()) / max(1, total):.2f}  " + "  ".join(
              f"{game} {1000 * cpu[game] / count[game]:.2f}" for game in sorted(count)))
    if profile is not None:
        stats = pstats.Stats(profile).sort_stats("tottime")
        stats.print_stats(30)
        stats.print_callers("convert|isal_zlib|ImagingCore.*paste")
    if args.caches:
        from bot.render import cache
        print(cache.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
