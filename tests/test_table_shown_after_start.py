"""A table shown by the click that started its game is saved as shown (issue 25): after a
restart only tables that may really be behind are drawn again. Before, every game nobody
had moved in since Start looked behind, and a restart of a server with 1,000 games re-drew
and re-sent ~800 tables (15-20 ms of a render worker and a channel request each)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakediscord import FakeDiscord
from tests.harness import cityhall_bot, members, settle, started_table

pytestmark = pytest.mark.usefixtures("backend")


async def test_a_table_started_and_not_moved_since_is_not_redrawn_after_a_restart(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    async with cityhall_bot(fake, db) as bot:
        ann, bob = await members(fake, "Ann", "Bob")
        match, table = await started_table(fake, bot, "cityscape", ann, joiners=(bob,))
        await settle(bot, match.id)
        assert any(a.filename for a in fake.message(table.id).attachments)  # its picture
        version = match.version

    async with cityhall_bot(fake, db) as bot:
        saved = await bot.storage.get(match.id)
        assert saved is not None and saved.table_version == version
        edits = len(fake.requests)
        await settle(bot, match.id)
        assert bot._restore_task is None  # nothing looked behind
        assert not [r for r in fake.requests[edits:]
                    if r.method == "PATCH" and r.path.endswith(f"/{table.id}")]
