"""How many requests each game's moves cost under Discord's global limit.

Plays one whole game of each game through the fake Discord (two people and a computer
player, by clicks, as tests/whole_games.py plays them) and counts every request the bot
made meanwhile, by method and route, against the game's engine actions. Interaction
answers (``/interactions/.../callback``) and their follow-ups (``/webhooks/...``) are
counted apart: Discord does not hold them to the bot's global limit of 50 a second.

    python scripts/requests_per_move.py [game ...]

Under the mixed load test the bot's requests run at that limit, and a table's new picture
waits its turn behind them (docs/performance.md): this says where the requests come from.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fakediscord import FakeDiscord
from tests.harness import cityhall_bot
from tests.whole_games import PLAY, open_game

OPTIONS = {"cities": {"city": "New York City"}}
UNLIMITED = ("/interactions/", "/webhooks/")


def route(path: str) -> str:
    path = re.sub(r"\d{5,}", "N", path)
    path = re.sub(r"/interactions/N/[^/]+/", "/interactions/N/T/", path)
    return re.sub(r"/webhooks/N/[^/?]+", "/webhooks/N/T", path)


async def one_game(game: str) -> tuple[int, Counter[tuple[str, str]]]:
    async with FakeDiscord() as fake:
        with tempfile.TemporaryDirectory() as tmp:
            async with cityhall_bot(fake, Path(tmp) / "cityhall.sqlite3") as bot:
                members = [await fake.add_member(name) for name in ("Ann", "Bob")]
                users = {str(m["id"]): m for m in members}
                match_id = await open_game(fake, bot, game, members[0], members[1:], 1,
                                           OPTIONS.get(game, {}), 5)
                fake.requests.clear()
                await PLAY[game](fake, bot, match_id, users, lambda: None)
                await asyncio.sleep(1.0)  # the last table edit and ping
                counted = Counter((r.method, route(r.path)) for r in fake.requests)
                return len(await bot.storage.actions(match_id)), counted


def main(games: list[str]) -> None:
    for game in games:
        actions, counted = asyncio.run(one_game(game))
        limited = sum(n for (_m, path), n in counted.items()
                      if not any(part in path for part in UNLIMITED))
        print(f"{game}: {actions} engine actions, {limited} requests under the global "
              f"limit, {limited / max(actions, 1):.2f} an action")
        for (method, path), n in counted.most_common():
            print(f"  {n:5d}  {method:6s} {path}")


if __name__ == "__main__":
    main(sys.argv[1:] or list(PLAY))
