"""A fake Discord (REST API v10 + gateway) for end-to-end tests of discord.py bots.

See ``FakeDiscord`` for the API and ``pytest_plugin`` for fixtures. Typical test::

    async def test_start(fake_discord: FakeDiscord) -> None:
        async with running_bot(fake_discord, make_bot(guild_ready_timeout=0.05)):
            alice = await fake_discord.add_member("alice")
            ix = await fake_discord.slash(alice, fake_discord.channel_id, "game", "start")
            msg = (await ix.response(timeout=2)).message
            click = await fake_discord.click(alice, msg, find_button(msg, label="Join")["custom_id"])
            assert (await click.response(timeout=2)).type == 7
            assert msg.attachment("board.png").image().size == (800, 600)
"""

from __future__ import annotations

from .components import buttons, find_button, find_component
from .interactions import FakeDiscordError, FakeInteraction
from .models import (
    FakeAttachment,
    FakeGuild,
    FakeMessage,
    InteractionCallback,
    RecordedError,
    RecordedRequest,
    UploadedFile,
)
from .server import FakeDiscord
from .spec import load_spec

__all__ = [
    "FakeAttachment",
    "FakeDiscord",
    "FakeDiscordError",
    "FakeGuild",
    "FakeInteraction",
    "FakeMessage",
    "InteractionCallback",
    "RecordedError",
    "RecordedRequest",
    "UploadedFile",
    "buttons",
    "find_button",
    "find_component",
    "load_spec",
]
