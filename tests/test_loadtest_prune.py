"""The load test prunes its fake Discord every second (bot/tools/players.prune_fake) so a
long run measures the bot, not the fake's memory; but a click that updated a table stays
usable for its token's 15 minutes, as on Discord: the bot edits that table through it
(bot/ui/tablehooks.py), and a fake that forgot it after a minute made the bot send every
such edit twice, the second under the global limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.tools.players import prune_fake
from fakediscord import FakeDiscord
from tests.harness import button_id, cityhall_bot, settle
from tests.test_table_hooks import _height_clicked, table_edits

pytestmark = pytest.mark.usefixtures("backend")


@pytest.mark.usefixtures("no_crowds")
async def test_a_pruned_fake_still_takes_a_table_edit_through_a_click_two_minutes_old(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, users, table, player, action, click = await _height_clicked(fake, bot)
        picker = (await click.seen(timeout=5)).message
        assert picker is not None and picker.ephemeral
        for ix in fake.interactions.values():
            ix.created -= 120.0  # two minutes ago: past the load test's one-minute prune
        prune_fake(fake, keep={picker.id})
        # Kept, slimmed: the clicks that updated a public message (the lobby's, the
        # table's height button); nothing else.
        kept = sorted(ix.label.split(":")[-1].rstrip("'") for ix in fake.interactions.values())
        assert kept == sorted(["join", "start", f"h{action['height']}"])
        assert all(ix.payload == {} for ix in fake.interactions.values())

        prefix = f"ch:cs:{match.id}:v{match.version}:"
        await (await fake.click(users[player], picker, button_id(
            picker, prefix=f"{prefix}b{action['height']}{action['lot']}"))).seen(timeout=5)
        await settle(bot, match.id)
        # The move is shown through the height button's click, as Discord would take it.
        assert table_edits(fake, table.id) == ["click"]

        # Past its token's 15 minutes the click is forgotten like any other.
        for ix in fake.interactions.values():
            ix.created -= 15 * 60
        prune_fake(fake, keep=set())
        assert not fake.interactions
        assert picker.id not in fake.messages
