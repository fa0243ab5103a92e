"""The load test's world before the load: finished Cityscape games written for /stats
before the bot starts (``seed_finished_games``), then a match opened, joined and started
by clicks in every channel (``setup_matches``)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bot.tools.players import PREFIX, TURN, Cityscape, Table


async def seed_finished_games(db: str | Path, tables: list[Table], games: int) -> float:
    """Finished Cityscape games with results, written through bot.core.storage's public
    methods (create_match, save with results) before the bot starts: what /stats reads."""
    from bot.core.records import OVER, Match, Seat
    from bot.core.storage import ResultRow, Storage
    from bot.games.cityscape import ENGINE, GAME

    if games <= 0:
        return 0.0
    state = ENGINE.new(["a", "b"], {"rounds": 1}, 7)
    while ENGINE.result(state) is None:
        player = ENGINE.to_act(state)[0]
        state, _ = ENGINE.apply(state, player, GAME.computer.normal(state, player))
    guild = tables[0].guild_id
    people = [u for t in tables if t.guild_id == guild for u in (t.host, t.guest)][:50]
    channels = [t.channel_id for t in tables if t.guild_id == guild]
    began = time.monotonic()
    storage = await Storage.open(db)
    try:
        for i in range(games):
            a, b = people[i % len(people)], people[(i * 7 + 1) % len(people)]
            if a is b:
                b = people[(i + 1) % len(people)]
            match = Match(id=0, guild_id=int(guild), channel_id=int(channels[i % len(channels)]),
                          game="cityscape", status=OVER, host_id=a["id"],
                          seats=[Seat(a["id"], a["username"]), Seat(b["id"], b["username"])],
                          options={"rounds": 1}, seed=i + 1, state=state, version=51)
            await storage.create_match(match)
            score_a, score_b = 20 + i % 60, 10 + (i * 13) % 70
            await storage.save(match, results=[
                ResultRow(a["id"], a["username"], False, score_a, score_a >= score_b, {}),
                ResultRow(b["id"], b["username"], False, score_b, score_b >= score_a, {})])
    finally:
        await storage.close()
    return time.monotonic() - began


async def setup_matches(city: Cityscape, tables: list[Table], concurrency: int,
                        played: int) -> float:
    """Open, join and start a match in every channel, by slash command and clicks; in the
    first ``played`` channels (Cityscape) both players also choose their secret goals, so
    the load starts with building moves, which re-draw the table."""
    began = time.monotonic()
    gate = asyncio.Semaphore(concurrency)

    async def one(index: int, table: Table) -> None:
        async with gate:
            opening = time.monotonic() + 60
            while table.stage != "playing" and time.monotonic() < opening:
                if await city.step(table, "setup") is None:
                    await asyncio.sleep(0.05)  # the lobby or table is still being drawn
            prefix = PREFIX[table.game]
            if table.stage == "playing":
                await city.fake.wait_until(
                    lambda: (msg := city.table_message(table)) is not None and any(
                        str(c.get("custom_id", "")).startswith(prefix) for c in msg.iter_components()),
                    60, "a table after Start")
            if index >= played or table.game != "cityscape":
                return
            # Until the table shows a turn: each player's goals, then the redrawn table
            # (which can lag behind the clicks on a busy machine: its picture is drawn
            # after the bot has answered them).
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                msg = city.table_message(table)
                if msg is not None and TURN.search(msg.content):
                    break
                if not table.ready(time.monotonic()):  # looking at the table change
                    await asyncio.sleep(0.05)
                    continue
                if await city.step(table, "setup") is None:
                    await asyncio.sleep(0.05)

    await asyncio.gather(*(one(i, t) for i, t in enumerate(tables)))
    return time.monotonic() - began
