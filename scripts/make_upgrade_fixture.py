"""Write a small Cityhall database with games in every stage, as the code of today saves it.

    .venv/bin/python scripts/make_upgrade_fixture.py tests/fixtures/upgrade-schema2.sqlite3

`tests/test_upgrades.py` opens the committed file with the current code and plays every
game in it to the end: that is the proof that an admin who updates while games are running
keeps them. The committed file was written at schema 2 with state version 1 of every game
(commit f8ef796); run this script again from that commit (`git worktree add /tmp/old
f8ef796`) to rebuild it, or from a later commit to make a fixture of that version.

What is in it (guild 10): a Cityscape lobby waiting for players; running games of all four
games a few moves in, with humans and computer players (Big Cityz with its objection window
open, Cities with a player holding features still to place); one finished Cityscape and one
finished Big Cityz game (archived, on /stats); one Cityscape game ended early by its host.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.core.engine import JSON
from bot.core.records import Seat
from bot.core.runtime import Runtime
from bot.core.storage import Storage
from bot.games import GAMES

GUILD = 10
ANN, BOB, CY = Seat("101", "Ann"), Seat("102", "Bob"), Seat("103", "Cy")


class Clock:
    """Fixed time that moves only when told, so the file does not depend on the wall clock."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


async def _game(runtime: Runtime, channel: int, game: str, options: JSON, seats: list[Seat],
                computers: int, seed: int) -> int:
    match = await runtime.open_lobby(GUILD, channel, game, seats[0], options)
    # A fixed seed instead of the lobby's random one, so the file is the same on every run.
    match.seed = seed
    for seat in seats[1:]:
        await runtime.join(match.id, seat)
    for _ in range(computers):
        await runtime.add_computer(match.id, seats[0].id)
    await runtime.start(match.id, seats[0].id)
    await runtime.set_table_message(match.id, 900_000 + channel)
    return match.id


async def _play(runtime: Runtime, match_id: int, until: Callable[[JSON], bool],
                limit: int = 2000) -> None:
    """Everyone due moves as the computer player would (humans 'click' that move) until
    ``until(state)`` holds or the game ends."""
    for _ in range(limit):
        match = runtime.get(match_id)
        if match is None or match.state is None or until(match.state):
            return
        engine = runtime.engine(match)
        player = engine.to_act(match.state)[0]
        seat = match.seat(player)
        await runtime.act(match_id, player, GAMES[engine.name].computer.normal(match.state, player),
                          by_computer=bool(seat and seat.cpu))
    raise RuntimeError(f"match {match_id} did not get there in {limit} moves")


def _after(moves: int) -> Callable[[JSON], bool]:
    count = [0]

    def done(_state: JSON) -> bool:
        count[0] += 1
        return count[0] > moves
    return done


def _features_held_by_a_human(state: JSON) -> bool:
    pending = state["pending"]
    return pending is not None and pending["row"] == "features" \
        and pending["player"] in (ANN.id, BOB.id)


async def make(path: Path) -> None:
    runtime = Runtime(await Storage.open(path), GAMES, clock=Clock(), turn_seconds=180)
    try:
        # Finished games first: /stats has rows, and the archive holds their logs.
        done = await _game(runtime, 1, "cityscape", {"rounds": 1}, [ANN, BOB], 0, 11)
        await _play(runtime, done, lambda state: False)
        done = await _game(runtime, 2, "bigcityz", {"veto_seconds": 20}, [ANN, CY], 1, 12)
        await _play(runtime, done, lambda state: False)
        ended = await _game(runtime, 3, "cityscape", {"rounds": 1}, [BOB, CY], 0, 13)
        await _play(runtime, ended, _after(6))
        await runtime.end(ended, BOB.id, can_manage=False)

        # Running games, a few moves in.
        running = await _game(runtime, 21, "cityscape", {"rounds": 2}, [ANN, BOB], 1, 21)
        await _play(runtime, running, _after(8))
        running = await _game(runtime, 22, "bigcityz", {"veto_seconds": 30}, [ANN, BOB, CY],
                              1, 22)
        await _play(runtime, running, _after(5))
        # ... and on until a card is placed and the others may object.
        await _play(runtime, running, lambda state: state["phase"] == "veto")
        running = await _game(runtime, 23, "bigcity", {}, [ANN, BOB], 1, 23)
        await _play(runtime, running, _after(10))
        running = await _game(runtime, 24, "cities", {}, [ANN, BOB], 1, 24)
        await _play(runtime, running, _after(6))
        await _play(runtime, running, _features_held_by_a_human)

        # A lobby waiting for players.
        await runtime.open_lobby(GUILD, 25, "cityscape", CY, {"rounds": 1})
    finally:
        await runtime.storage.close()
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("VACUUM")  # as small as it can be: it is committed to the repository


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--force", action="store_true", help="replace an existing file")
    args = parser.parse_args()
    path: Path = args.file
    if path.exists():
        if not args.force:
            print(f"{path} already exists; add --force to replace it.")
            return 1
        path.unlink()
    asyncio.run(make(path))
    with contextlib.closing(sqlite3.connect(path)) as conn:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        rows = conn.execute("SELECT game, status FROM matches ORDER BY id").fetchall()
    print(f"Wrote {path} (schema {version}, {path.stat().st_size:,} bytes): "
          + ", ".join(f"{game} {status}" for game, status in rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
