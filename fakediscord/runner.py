"""Run a discord.py client against a FakeDiscord for the duration of a block."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TypeVar

import discord

from bot.core.discord_api import reset_api_base, use_api_base

from .server import FakeDiscord

ClientT = TypeVar("ClientT", bound=discord.Client)


@contextlib.asynccontextmanager
async def running_bot(
    fake: FakeDiscord,
    bot: ClientT,
    *,
    token: str | None = None,
    ready_timeout: float = 5.0,
    close_timeout: float = 5.0,
) -> AsyncIterator[ClientT]:
    """Run ``bot`` against ``fake`` for the duration of the block.

    The bot must call ``bot.core.discord_api.gateway_from_api(self)`` in its setup_hook,
    and should be built with ``guild_ready_timeout=0.05`` (discord.py otherwise waits 2 s
    after the last GUILD_CREATE before on_ready).
    """
    use_api_base(fake.api_base)
    task = asyncio.create_task(bot.start(token or fake.token), name="fakediscord-bot")
    try:
        await fake.wait_until(lambda: bot.is_ready() or task.done(), ready_timeout, "the bot's on_ready")
        if task.done():
            task.result()  # re-raises the startup failure (bad token, crash in setup_hook, ...)
            raise AssertionError("bot.start() returned before the bot became ready")
        yield bot
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(bot.close(), close_timeout)
        if not task.done():
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(task, close_timeout)
        reset_api_base()
