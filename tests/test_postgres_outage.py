"""A PostgreSQL server that restarts under a running bot (issue 26): a click meanwhile is
acknowledged in time and told the database is back in a moment; its move goes through when
the server is back, and nothing acknowledged is lost."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.ui.deferral import DATABASE_BACK_SOON
from fakediscord import FakeDiscord
from tests.harness import button_id, cityhall_bot
from tests.pg_support import PgServer, binaries

DEFERRED_UPDATE = 6


@pytest.fixture
async def own_server() -> Any:
    """A PostgreSQL server of this test's own, to stop and start (the session's is shared)."""
    package = binaries()
    if package is None:
        pytest.skip("the pgserver wheel is not installed (pip install -e '.[dev]')")
    server = PgServer(package)
    await asyncio.to_thread(server.start)
    try:
        yield server
    finally:
        await asyncio.to_thread(server.close)


@pytest.mark.timeout(90)
async def test_a_click_during_a_server_restart_is_answered_when_the_server_is_back(
        fake_discord: FakeDiscord, own_server: PgServer, tmp_path: Path) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    url = own_server.create_database()
    async with cityhall_bot(fake, tmp_path / "unused.sqlite3", database_url=url) as bot:
        lobby = (await (await fake.slash(ann, fake.channel_id, "cityscape", ["new"], {}))
                 .seen(timeout=5)).message
        assert lobby is not None
        await asyncio.to_thread(own_server.stop, crash=True)  # the server goes down
        click = await fake.click(bob, lobby, button_id(lobby, "Join"))
        acknowledged = await click.response(timeout=3)
        assert acknowledged.type == DEFERRED_UPDATE, acknowledged.data
        await fake.wait_until(lambda: any(
            (m.content or "") == DATABASE_BACK_SOON for m in fake.messages.values()), 3,
            "the player told the database is back in a moment")
        await asyncio.to_thread(own_server.start)  # and comes back
        await fake.wait_until(lambda: "Bob" in str(fake.message(lobby.id).embeds), 60,
                              "the join answered once the server is back")
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None and [s.name for s in match.seats] == ["Ann", "Bob"]
    assert not fake.failed_interactions
