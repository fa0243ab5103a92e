"""A bot-like process for the kill -9 durability test: many matches moving at once.

``python -m tests.durability_child DB SEED`` opens the runtime on DB, starts Cityscape
matches in many channels and plays random legal moves in all of them concurrently, mixed with
/new attempts in busy channels that the database refuses. After each move's ``act``
returns (the point where a player would be answered) it prints ``ack <match> <version>``;
the parent kills it at a random moment and checks the file.
"""

from __future__ import annotations

import asyncio
import random
import sys

from bot.core.records import LOBBY, Match, Seat
from bot.core.runtime import Runtime
from bot.core.storage import ChannelBusy, Storage
from bot.games import GAMES

MATCHES = 200  # channels playing at once, as in the load test


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def play(runtime: Runtime, match_id: int, rng: random.Random) -> None:
    engine, computer = GAMES["cityscape"].engine, GAMES["cityscape"].computer
    while (match := runtime.get(match_id)) is not None and match.state is not None:
        player = engine.to_act(match.state)[0]
        # a random legal move: cheap, so the disk, not the computer player, sets the pace
        # (goals come from the computer player: legal() only describes their shape)
        action = (computer.normal(match.state, player) if match.state["phase"] == "goals"
                  else rng.choice(engine.legal(match.state, player)).action)
        outcome = await runtime.act(match_id, player, action)
        say(f"ack {match_id} {outcome.match.version}")
        await asyncio.sleep(rng.random() * 0.002)


async def refuse(runtime: Runtime, rng: random.Random) -> None:
    """/new in channels that already have a game: the unique index says no, every time."""
    storage = runtime.storage
    while channels := [m.channel_id for m in runtime.unfinished()]:
        busy = Match(id=0, guild_id=1, channel_id=rng.choice(channels), game="cityscape",
                     status=LOBBY, host_id="9", seats=[Seat("9", "Zed")], options={}, seed=1)
        try:
            await storage.create_match(busy)
        except ChannelBusy:
            say("refused")
        else:
            # only right after that channel's game ended (the test checks it did)
            say(f"CREATED {busy.channel_id}")
        await asyncio.sleep(rng.random() * 0.003)


async def main(path: str, seed: int) -> None:
    rng = random.Random(seed)
    storage = await Storage.open(path)
    runtime = Runtime(storage, GAMES, turn_seconds=3600)
    ids = []
    for channel in range(100, 100 + MATCHES):
        lobby = await runtime.open_lobby(channel // 100, channel, "cityscape",
                                         Seat(f"h{channel}", "Host"),
                                         {"rounds": 3})
        await runtime.add_computer(lobby.id, lobby.host_id)
        await runtime.start(lobby.id, lobby.host_id)
        ids.append(lobby.id)
    say("started")
    await asyncio.gather(*(play(runtime, i, random.Random(rng.random())) for i in ids),
                         refuse(runtime, random.Random(rng.random())))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
