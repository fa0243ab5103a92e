"""A click or command still running when the bot is told to stop, failing because of the
stop (the database closing under it), is answered like the clicks that arrive after the
stop: "Cityhall is restarting — try again in a moment.", not "Something went wrong"."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from bot.app import RESTARTING
from bot.core.storage import StorageError
from fakediscord import FakeDiscord
from tests.harness import Member, button_id, cityhall_bot

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")


async def test_a_click_failing_while_the_bot_stops_says_try_again(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        lobby = (await (await fake.slash(ann, fake.channel_id, "cityscape", ["new"], {}))
                 .seen(timeout=5)).message
        assert lobby is not None

        async def stopped_meanwhile(*args: Any, **kwargs: Any) -> Any:
            bot.draining = True  # SIGTERM while this click was being handled
            raise StorageError("The database is closed.")

        bot.runtime.join = stopped_meanwhile  # type: ignore[method-assign]
        answer = await (await fake.click(bob, lobby, button_id(lobby, "Join"))).seen(timeout=5)
        assert answer.ephemeral and (answer.data or {}).get("content") == RESTARTING

        bot.draining = False  # (back in business for the next check)
        bot.runtime.end = stopped_meanwhile  # type: ignore[method-assign]
        answer = await (await fake.slash(ann, fake.channel_id, "game", ["end"])).seen(timeout=5)
        assert answer.ephemeral and (answer.data or {}).get("content") == RESTARTING

        # Not stopping: a failure is still owned up to as ours.
        bot.draining = False
        async def broken(*args: Any, **kwargs: Any) -> Any:
            raise StorageError("disk I/O error")

        bot.runtime.join = broken  # type: ignore[method-assign]
        answer = await (await fake.click(bob, lobby, button_id(lobby, "Join"))).seen(timeout=5)
        assert "Something went wrong" in str((answer.data or {}).get("content"))


async def test_a_click_arriving_as_the_bot_stops_gets_its_answer_whole(
        fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture, ann: Member,
        bob: Member) -> None:
    """The stop began with nothing in flight; a click comes in while the database is
    closing. Its "try again" answer lands whole before the connection to Discord closes
    (issue 26: in 1 of 8 stops it was cut off, with an ERROR and a traceback)."""
    fake = fake_discord
    clicks: list[Any] = []
    turned_away: list[int] = []

    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        lobby = (await (await fake.slash(ann, fake.channel_id, "cityscape", ["new"], {}))
                 .seen(timeout=5)).message
        assert lobby is not None
        closing, answering = bot.storage.close, bot._turn_away

        async def answer_over_a_slow_network(interaction: Any) -> None:
            turned_away.append(interaction.id)
            await asyncio.sleep(0.3)  # the network's latency before the answer is sent
            await answering(interaction)

        async def close_as_a_click_comes_in() -> None:
            clicks.append(await fake.click(bob, lobby, button_id(lobby, "Join")))
            await fake.wait_until(lambda: bool(turned_away), 5, "the click to be turned away")
            await closing()

        bot._turn_away = answer_over_a_slow_network  # type: ignore[method-assign]
        bot.storage.close = close_as_a_click_comes_in  # type: ignore[method-assign]
        await asyncio.wait_for(bot.close(), 10)
        answer = await clicks[0].seen(timeout=5)
    assert answer.ephemeral and (answer.data or {}).get("content") == RESTARTING
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
