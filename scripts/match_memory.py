"""What an unfinished match costs the bot process: memory, restore time, and the CPU of
a click's lookups, at 1,000 and at 10,000 matches (issue 25, item 6; docs/many-matches.md).

    python scripts/match_memory.py build --matches 10000 --db /tmp/mm10k.sqlite
    python scripts/match_memory.py measure --db /tmp/mm10k.sqlite [--tracemalloc]
    python scripts/match_memory.py compare            # builds what is missing, then both

``build`` writes unfinished matches of all four games through the real ``Storage``: 2-5
seats (some of them computer players), mid-game states reached by playing easy computer
moves, one match a channel, ten servers, one in twenty a lobby. ``measure`` copies the
file and, in a fresh process, restores it as the bot does at start (``Runtime.load``,
then a ``Driver`` kick for every active match and the turn-reminder plan of each), and
reports the time to ready, the process's RSS then, where the memory went (tracemalloc),
the CPU of a click's lookups (``in_channel``, the room check of ``/new``, the match and
its state, its deadline), the RSS once every match has been clicked, and the CPU of a
move (``Runtime.act``). CPU figures are ``time.process_time``: less noisy than wall time on
a shared machine; run the two sizes back to back and say the load beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

from bot.core.levels import Budget, decide
from bot.core.records import ACTIVE, LOBBY, Match, Seat
from bot.core.storage import Storage
from bot.games import GAMES

GUILDS = 10
TEMPLATES = 12  # distinct mid-game states per game (and seat count), reused with new ids


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


# -- build ------------------------------------------------------------------------------


def _templates(rng: random.Random) -> list[tuple[str, list[str], dict[str, Any], dict[str, Any],
                                                 int]]:
    """(game, player ids, options, a mid-game state, moves played) to copy from."""
    budget = Budget(50, 0.01)
    made = []
    for name, game in GAMES.items():
        engine = game.engine
        most = min(5, engine.max_players)
        for k in range(TEMPLATES):
            count = engine.min_players + k % (most - engine.min_players + 1)
            players = [str(10**17 + 1000 * k + i) for i in range(count)]
            options = dict(game.scenario.options)
            seed = rng.randrange(1, 2**31)
            state = engine.new(players, options, seed)
            moves = rng.randrange(4, 60)
            played = 0
            snapshot = (state, 0)
            while played < moves and engine.result(state) is None:
                due = engine.to_act(state)
                if not due:
                    break
                action = decide(game.computer, state, due[0], "easy", budget)
                state, _events = engine.apply(state, due[0], action)
                played += 1
                if engine.result(state) is None and engine.to_act(state):
                    snapshot = (state, played)
            made.append((name, players, options, snapshot[0], snapshot[1]))
    return made


async def build(db: Path, matches: int, seed: int = 25, with_due: bool = True) -> None:
    rng = random.Random(seed)
    began = time.monotonic()
    templates = _templates(rng)
    print(f"{len(templates)} mid-game states made in {time.monotonic() - began:.1f} s")
    storage = await Storage.open(db)
    now = time.time()
    due = None
    if with_due:
        from bot.core.runtime import Runtime

        runtime = Runtime(storage, GAMES)
        if hasattr(runtime, "_who_is_due"):
            due = lambda match: list(runtime._who_is_due(match))  # noqa: E731
    try:
        async def one(i: int) -> None:
            name, players, options, state, moves = templates[i % len(templates)]
            engine = GAMES[name].engine
            cpu = i % 4 == 3  # one match in four has a computer player in the last seat
            seats = [Seat(p, f"Player {p[-4:]}", cpu=cpu and j == len(players) - 1)
                     for j, p in enumerate(players)]
            lobby = i % 20 == 19
            match = Match(id=0, guild_id=1000 + i % GUILDS, channel_id=10**6 + i, game=name,
                          status=LOBBY, host_id=players[0], seats=seats[:1] if lobby else seats,
                          options=options, seed=rng.randrange(1, 2**31))
            await storage.create_match(match)
            if lobby:
                return
            match.status = ACTIVE
            match.state = state
            match.state_version = engine.state_version
            match.version = moves + 1
            match.table_message_id = 10**9 + i
            match.table_version = match.version
            # Turns began up to ten minutes ago: some are due at the restart.
            match.turn_started_at = now - rng.uniform(0, 600)
            match.extra = {"turn_seconds": 180.0}
            if due is not None:
                # What the runtime saves with every move since issue 25: who is due.
                match.extra["due"] = due(match)
            await storage.save(match)
            await storage.mark_shown(match.id, match.version)

        for start in range(0, matches, 500):
            await asyncio.gather(*(one(i) for i in range(start, min(matches, start + 500))))
    finally:
        await storage.close()
    print(f"{matches} unfinished matches written to {db} in {time.monotonic() - began:.1f} s "
          f"({db.stat().st_size / 2**20:.1f} MB)")


# -- measure ----------------------------------------------------------------------------


def _cpu_per(calls: int, work: Any) -> float:
    """Microseconds of process CPU per call of ``work(i)``."""
    began = time.process_time()
    for i in range(calls):
        work(i)
    return (time.process_time() - began) / calls * 1e6


async def measure(db: Path, trace: bool, clicks: int, moves: int) -> dict[str, Any]:
    from bot.core.driver import Driver
    from bot.core.outcomes import Refusal
    from bot.core.runtime import Runtime

    report: dict[str, Any] = {}
    gc.collect()
    report["rss_before_mb"] = round(rss_mb(), 1)
    if trace:
        tracemalloc.start(1)
    wall, cpu = time.perf_counter(), time.process_time()
    storage = await Storage.open(db)
    runtime = Runtime(storage, GAMES, turn_seconds=180)
    restored = await runtime.load()
    report["load_s"] = round(time.perf_counter() - wall, 3)
    # What the bot does next with them (bot/app.py setup_hook): a driver kick for every
    # active match, and each one's reminder plan (its deadline).
    delay = 3600.0  # computer players due wait: nothing moves while this measures

    async def told(_outcome: Any) -> None:
        return None

    driver = Driver(runtime, told, cpu_delay=delay)
    shown = {}
    planned = 0
    for match in restored:
        if match.table_version is not None:
            shown[match.id] = match.table_version
        if match.status == ACTIVE and runtime.deadline(match) is not None:
            planned += 1  # the turn reminder's plan reads the deadline
    if hasattr(driver, "restore"):
        driver.restore(restored)
    else:  # before issue 25: a kick (a task) for every active match
        for match in restored:
            if match.status == ACTIVE:
                driver.kick(match.id)
    for _turn in range(3):
        await asyncio.sleep(0)
    report["ready_s"] = round(time.perf_counter() - wall, 3)
    report["ready_cpu_s"] = round(time.process_time() - cpu, 3)
    report["matches"] = len(restored)
    report["timers"] = len(driver.timers)
    report["driver_tasks"] = len(driver._tasks)
    gc.collect()
    report["rss_ready_mb"] = round(rss_mb(), 1)
    report["kb_per_match_ready"] = round((report["rss_ready_mb"] - report["rss_before_mb"])
                                         * 1024 / max(1, len(restored)), 1)
    if trace:
        snapshot = tracemalloc.take_snapshot()
        tracemalloc.stop()
        top = snapshot.statistics("lineno")[:12]
        total = sum(s.size for s in snapshot.statistics("filename"))
        report["traced_kb_per_match"] = round(total / 1024 / max(1, len(restored)), 2)
        report["top"] = [f"{s.size / 1024 / max(1, len(restored)):.2f} KB/match "
                         f"{s.traceback[0].filename.rpartition('/main/')[2]}:"
                         f"{s.traceback[0].lineno}" for s in top]
        del snapshot, top  # its traces would count as memory the clicks below took
        gc.collect()

    # A click's lookups, on matches nobody touched yet (their first click after the restart).
    rng = random.Random(7)
    active = [m for m in restored if m.status == ACTIVE]
    picks = [rng.choice(active) for _ in range(clicks)]
    ids = [m.id for m in picks]
    channels = [m.channel_id for m in picks]
    report["cpu_us_in_channel"] = round(_cpu_per(clicks, lambda i: runtime.in_channel(
        channels[i])), 1)

    def room(i: int) -> None:
        with contextlib.suppress(Refusal):
            runtime._check_room(picks[i].guild_id, channels[i], Seat("9", "Nine"))

    report["cpu_us_room_check"] = round(_cpu_per(clicks, room), 1)
    engines = {name: game.engine for name, game in GAMES.items()}

    def first_click(i: int) -> None:
        match = runtime.get(ids[i])
        assert match is not None and match.state is not None
        engines[match.game].to_act(match.state)
        runtime.deadline(match)

    report["cpu_us_first_click"] = round(_cpu_per(clicks, first_click), 1)
    report["cpu_us_click_again"] = round(_cpu_per(clicks, first_click), 1)
    # Every match clicked once, as in the hour after a restart.
    every = [m.id for m in active]
    report["cpu_us_click_every_match"] = round(_cpu_per(
        len(every), lambda i: _touch(runtime, engines, every[i])), 1)
    gc.collect()
    report["rss_all_clicked_mb"] = round(rss_mb(), 1)
    states = getattr(runtime, "states", None)
    if states is not None:
        report["decoded_states_kept"] = len(states)
        report["states_decoded"] = states.decoded

    # Moves: the player due plays the easy computer's move through Runtime.act (saved).
    budget = Budget(50, 0.01)
    cpu = time.process_time()
    done = 0
    for match in active[:moves]:
        current = runtime.get(match.id)
        if current is None or current.state is None:
            continue
        due = engines[current.game].to_act(current.state)
        if not due:
            continue
        action = decide(GAMES[current.game].computer, current.state, due[0], "easy", budget)
        await runtime.act(match.id, due[0], action)
        done += 1
    report["cpu_ms_per_move"] = round((time.process_time() - cpu) / max(1, done) * 1e3, 2)
    await driver.close()
    await storage.close()
    return report


def _touch(runtime: Any, engines: dict[str, Any], match_id: int) -> None:
    match = runtime.get(match_id)
    assert match is not None and match.state is not None
    engines[match.game].to_act(match.state)
    runtime.deadline(match)


def measure_in_child(db: Path, trace: bool, clicks: int, moves: int) -> dict[str, Any]:
    """``measure`` in a fresh process, on a copy of ``db`` (moves change it)."""
    with tempfile.TemporaryDirectory() as work:
        copy = Path(work) / db.name
        shutil.copy(db, copy)
        out = subprocess.run(
            [sys.executable, __file__, "measure", "--db", str(copy), "--json",
             "--clicks", str(clicks), "--moves", str(moves)] + (["--tracemalloc"] if trace else []),
            check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("--matches", type=int, default=10_000)
    b.add_argument("--db", type=Path, required=True)
    b.add_argument("--without-due", action="store_true",
                   help="as saved before issue 25: who is due is not saved with a match")
    m = sub.add_parser("measure")
    m.add_argument("--db", type=Path, required=True)
    m.add_argument("--tracemalloc", action="store_true")
    m.add_argument("--json", action="store_true", help="one line of JSON (for compare)")
    m.add_argument("--clicks", type=int, default=2000)
    m.add_argument("--moves", type=int, default=300)
    c = sub.add_parser("compare")
    c.add_argument("--sizes", default="1000,10000")
    c.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    c.add_argument("--tracemalloc", action="store_true")
    args = parser.parse_args()
    if args.command == "build":
        if args.db.exists():
            raise SystemExit(f"{args.db} exists; build writes a new file")
        asyncio.run(build(args.db, args.matches, with_due=not args.without_due))
    elif args.command == "measure":
        if not args.json:
            # measure in place only when asked for JSON by compare (it changes the file)
            print(json.dumps(measure_in_child(args.db, args.tracemalloc, args.clicks,
                                              args.moves), indent=1))
            return
        print(json.dumps(asyncio.run(measure(args.db, args.tracemalloc, args.clicks,
                                             args.moves))))
    else:
        load = os.getloadavg()[0]
        for size in (int(s) for s in args.sizes.split(",")):
            db = args.dir / f"match_memory_{size}.sqlite"
            if not db.exists():
                asyncio.run(build(db, size))
            result = measure_in_child(db, args.tracemalloc, 2000, 300)
            print(f"{size} matches (load {load:.1f}): {json.dumps(result, indent=1)}")


if __name__ == "__main__":
    main()
