"""Running the real Cityhall bot against FakeDiscord, for the tests (the parts the
benchmark shares are in bot/tools/fakebot.py)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TypeVar

from bot.app import CityhallBot
from bot.config import Settings
from bot.core.records import Match
from bot.tools.fakebot import Member, bot_settings, button_id, settle
from bot.tools.fakebot import Users as Users
from bot.tools.fakebot import by_id as by_id
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage
from fakediscord.runner import running_bot
from tests import databases

T = TypeVar("T")

# Whole games through Discord keep Discord's rate limits (the bot paces its edits and waits
# out 429s), with every window this much shorter: at Discord's own windows a table edit per
# move would be a second of waiting, and at a tenth half of a game's test was still waiting.
WHOLE_GAME_WINDOWS = 0.03


def settings_for(fake: FakeDiscord, db_path: Path, **overrides: Any) -> Settings:
    # On PostgreSQL (tests/databases.py) the path names the test's database on the server.
    target = databases.target(db_path)
    url = target if isinstance(target, str) and target != str(db_path) else None
    return bot_settings(fake, db_path, **{"database_url": url, **overrides})


@contextlib.asynccontextmanager
async def cityhall_bot(fake: FakeDiscord, db_path: Path, **overrides: Any) -> AsyncIterator[CityhallBot]:
    bot = CityhallBot(settings_for(fake, db_path, **overrides), guild_ready_timeout=0.05)
    async with running_bot(fake, bot):
        yield bot


async def answer(ix: Any) -> Any:
    """The bot's answer to an interaction as the player sees it, waited for: after a
    deferred update (a private answer to a click on a table goes out so, bot/ui/tablehooks.py)
    the follow-up or edit that came next."""
    return await ix.seen(timeout=5)


def text_of(callback: Any) -> str:
    return str((callback.data or {}).get("content", ""))


def ids(message: FakeMessage) -> list[str]:
    """The custom ids of every component on ``message``."""
    return [str(c.get("custom_id")) for c in message.iter_components() if c.get("custom_id")]


def finished_buttons(message: FakeMessage) -> list[str]:
    """What a finished table's buttons do, by their custom ids: ``["replay", "rematch"]``
    for a game played to its end (bot/ui/finished.py), never a move."""
    return [str(c.get("custom_id", "")).split(":")[1] for c in message.iter_components()
            if c.get("type") == 2]


async def members(fake: FakeDiscord, *names: str) -> list[Member]:
    """Members of the fake's guild with these names, added in this order (ids ascend)."""
    return [await fake.add_member(name) for name in names]


async def new_lobby(fake: FakeDiscord, host: Member, game: str,
                    options: dict[str, Any] | None = None) -> FakeMessage:
    """``host`` types /<game> new in the fake's channel: the lobby message."""
    lobby = (await answer(await fake.slash(host, fake.channel_id, game, ["new"],
                                           options))).message
    assert lobby is not None
    return lobby


async def started_table(fake: FakeDiscord, bot: CityhallBot, game: str, host: Member, *,
                        joiners: tuple[Member, ...] = (), computers: int = 0,
                        options: dict[str, Any] | None = None) -> tuple[Match, FakeMessage]:
    """``host`` opens a /<game> lobby, ``joiners`` click Join, the host adds ``computers``
    computer players and clicks Start: the running match (not settled) and its lobby
    message, which has become the table."""
    lobby = await new_lobby(fake, host, game, options)
    for user in joiners:
        await answer(await fake.click(user, lobby, button_id(lobby, "Join")))
    for _ in range(computers):
        await answer(await fake.click(host, lobby, button_id(lobby, "Add computer")))
    await answer(await fake.click(host, lobby, button_id(lobby, "Start")))
    match = bot.runtime.in_channel(int(fake.channel_id))
    assert match is not None and match.state is not None
    return match, lobby


async def cityscape_building(fake: FakeDiscord, bot: CityhallBot, ann: dict[str, Any],
                             bob: dict[str, Any], options: dict[str, Any] | None = None) -> Match:
    """Ann opens a Cityscape table, Bob joins, Ann starts, both sides' goals are chosen:
    the match, settled, with its first block to build."""
    match, _ = await started_table(fake, bot, "cityscape", ann, joiners=(bob,), options=options)
    assert match.state is not None
    for side, owner in match.state["sides"].items():
        await bot.after_move(await bot.runtime.act(
            match.id, owner, {"type": "set_goals", "side": side, "codes": [2, 3, 5, 6]}))
    await settle(bot, match.id)
    return match


async def has_picture(fake: FakeDiscord, message: FakeMessage, filename: str,
                      timeout: float = 10.0) -> bool:
    """Whether ``message`` carries the picture ``filename``, waiting for it: a private screen
    goes out without its picture when drawing takes over 0.4 s (bot/ui/later.py, a busy
    machine) and the picture follows by an edit. Fails after ``timeout``."""
    await fake.wait_until(lambda: any(a.filename == filename for a in message.attachments),
                          timeout=timeout, what=f"{filename} on message {message.id}")
    return True


