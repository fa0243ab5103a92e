"""The replay step in ``python -m bot bench``: how long a viewer's click takes to its picture
with many finished games in the server (issue 28: p95 ≤ 300 ms with 10,000).

A SQLite database gets one seeded computer game of each kind, played to the end and
archived as the bot archives it (``Storage.save``), then copied until the server has
``games`` finished games. A step is what the viewer does for a click (bot/ui/replay.py),
in this process: the match and its log read by id (``Storage.get``, ``Storage.actions``),
the game replayed to the step (``bot.core.replaying``, its rounds found), the public view
named and drawn by the game's ``render_table``. *Cold* is a game nobody has opened since
the bot started (all of that); its *rounds* (for "jump to round": every move replayed and
some boards looked at) are worked out while its picture is drawn, so they are timed apart;
*warm* is the next click in an open viewer (the replay is kept: a move or a few, the view,
the picture). The render workers draw the same picture in the
bot, at nice 10, so a busy machine adds its queue to these figures.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from bot.core.engine import JSON
from bot.core.records import ACTIVE, OVER, Match, Seat
from bot.core.replaying import Replay, board
from bot.core.storage import Storage
from bot.games import GAMES, renderer
from bot.tools.simulate import simulate
from bot.ui.game import display_names, rename_players

TARGET_P95_MS = 300.0
GUILD = 1


async def _seed(storage: Storage, game: str, seed: int) -> Match:
    """One computer game of ``game`` played to the end and saved move by move."""
    played = simulate(game, GAMES[game].scenario.players, seed, images=False)
    names = played["players"]
    match = await storage.create_match(Match(
        id=0, guild_id=GUILD, channel_id=hash(game) % 10**9, game=game, status=ACTIVE,
        host_id=names[0], seats=[Seat(p, p.title()) for p in names],
        options=played["options"], seed=seed))
    engine = GAMES[game].engine
    state = engine.new(names, played["options"], seed)
    saves = []
    for version, entry in enumerate(played["actions"], start=2):
        player = entry["player"]
        action = {k: v for k, v in entry.items() if k != "player"}
        state, _events = engine.apply(state, player, action)
        match.state, match.version = state, version
        saves.append(storage.save(_copy(match), action=action, player=player))
    await asyncio.gather(*saves)  # one group commit for them all
    match.status = OVER
    await storage.save(_copy(match))
    return match


def _copy(match: Match) -> Match:
    return Match(**{**vars(match), "seats": list(match.seats)})


def _copies(connection: sqlite3.Connection, originals: list[int], games: int) -> list[int]:
    """The finished games ``originals``, copied (match row and archived log) until there are
    ``games`` in all: the server's history."""
    made = list(originals)
    for n in range(games - len(originals)):
        source = originals[n % len(originals)]
        cursor = connection.execute(
            "INSERT INTO matches (guild_id, channel_id, game, status, host_id, seats, options,"
            " seed, version, extra, created_at, updated_at) SELECT guild_id, channel_id, game,"
            " status, host_id, seats, options, seed, version, extra, created_at, updated_at"
            " FROM matches WHERE id=?", (source,))
        new = int(cursor.lastrowid or 0)
        connection.execute("INSERT INTO archive (match_id, actions, state, state_version)"
                           " SELECT ?, actions, state, state_version FROM archive"
                           " WHERE match_id=?", (new, source))
        made.append(new)
    return made


async def _step(storage: Storage, match_id: int, step: int | None,
                kept: dict[int, tuple[Match, Replay]],
                rng: random.Random) -> tuple[float, float, int]:
    """One viewer click: its time in ms (to the picture's bytes), the CPU time it took (ms)
    and the step shown (any step of the game when ``step`` is None)."""
    start, cpu = time.perf_counter(), time.process_time()
    if match_id in kept:
        match, replay = kept[match_id]
    else:
        found = await storage.get(match_id)
        assert found is not None and found.status == OVER
        match = found
        actions = await storage.actions(match_id)
        replay = Replay(GAMES[match.game].engine, match.player_ids, match.options, match.seed,
                        actions)
        kept[match_id] = (match, replay)
    index = rng.randint(0, replay.last) if step is None else min(step, replay.last)
    view = rename_players(board(replay.engine, replay.step(index)), display_names(match))
    png = renderer(match.game).render_table(view)
    assert png[:4] == b"\x89PNG"
    return (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000, index


def _rounds(replay: Replay) -> tuple[float, float]:
    """The first look's other work, done while the picture is drawn: the game's rounds (for
    "jump to round"), in ms and CPU ms."""
    start, cpu = time.perf_counter(), time.process_time()
    replay.rounds()
    return (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 2)


def _figures(timed: list[tuple[float, float]]) -> JSON:
    """Median and p95 of the times, and the p95 of their CPU time (what a busy machine does
    not change much)."""
    times = [t for t, _cpu in timed]
    return {"median_ms": round(statistics.median(times), 2), "p95_ms": _p95(times),
            "cpu_p95_ms": _p95([cpu for _t, cpu in timed]), "steps": len(times)}


async def replay_steps(games: int = 10_000, samples: int = 40, seed: int = 7) -> JSON:
    """Cold and warm replay steps with ``games`` finished games in the server."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="cityhall-replaybench-") as folder:
        storage = await Storage.open(Path(folder) / "bench.sqlite3")
        try:
            originals = [(await _seed(storage, game, seed)).id for game in GAMES]
            ids = await storage.write(lambda c: _copies(c, originals, games))
            for game in GAMES:  # warm each game's picture caches, as a running bot has them
                renderer(game).render_table(GAMES[game].engine.view(
                    GAMES[game].engine.new(
                        [f"p{i}" for i in range(GAMES[game].scenario.players)], {}, 1), None))
            cold: list[tuple[float, float]] = []
            rounds: list[tuple[float, float]] = []
            warm: list[tuple[float, float]] = []
            for _ in range(samples):
                kept: dict[int, tuple[Match, Replay]] = {}
                match_id = rng.choice(ids)
                took, cpu, index = await _step(storage, match_id, None, kept, rng)
                cold.append((took, cpu))
                rounds.append(_rounds(kept[match_id][1]))
                took, cpu, _index = await _step(storage, match_id, index + 1, kept, rng)
                warm.append((took, cpu))
        finally:
            await storage.close()
    return {"games": games, "target_p95_ms": TARGET_P95_MS, "cold": _figures(cold),
            "rounds": _figures(rounds), "warm": _figures(warm)}
