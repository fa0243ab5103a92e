"""A table that is a frame behind the game (its edit skipped under load, or failing): the
players' clicks on it are still answered sensibly, and a click on the table itself brings it
up to date through the click's own answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.games.bigcityz import ENGINE as BIGCITYZ
from fakediscord import FakeDiscord
from fakediscord.limits import Fault
from tests.harness import Member, button_id, by_id, cityhall_bot, settle
from tests.test_discord_bigcityz import open_game, play_turn, table_of
from tests.test_discord_cityscape import answer, text_of
from tests.test_discord_faults import _on_turn, building

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

TABLE_EDITS = r"/channels/\d+/messages/\d+$"
# A table edit through a click on it (bot/ui/tablehooks.py): refused as an expired token
# is, the bot goes to the channel at once.
THROUGH_CLICKS = r"/webhooks/\d+/[^/]+/messages/@original$"


async def _edit_refused(fake: FakeDiscord, refused: Fault, message_id: int | str) -> None:
    """Until the bot has tried to bring the table up to date and Discord has said no."""
    await fake.wait_until(lambda: any(f"/messages/{message_id}" in hit.path
                                      for hit in refused.hits),
                          timeout=10, what="the refused table edit")


def _versions(message: object) -> set[int]:
    ids = json.dumps(getattr(message, "components", []))
    return {int(v) for v in re.findall(r":v(\d+):", ids)}


async def test_a_height_button_on_a_table_behind_opens_the_picker_on_the_board_as_it_is(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    async with building(fake, tmp_path, ann, bob) as (bot, match_id, table, users):
        first = _on_turn(bot, match_id, users)
        version = bot.runtime.get(match_id).version  # type: ignore[union-attr]
        # Discord refuses every table edit from now on: the table stays on this board.
        refused = fake.fail("PATCH", TABLE_EDITS, 503, times=None)
        fake.fail("PATCH", THROUGH_CLICKS, 404, 10015, times=None)
        prefix = f"ch:cs:{match_id}:v{version}:"
        picker = (await answer(await fake.click(first, table,
                                                button_id(table, prefix=f"{prefix}h2")))).message
        built = await answer(await fake.click(first, picker, button_id(picker,
                                                                       prefix=f"{prefix}b2A1")))
        assert built.type == 7 and "A1" in text_of(built)
        await _edit_refused(fake, refused, table.id)
        assert _versions(fake.message(table.id)) == {version}  # the table is behind

        # The next builder clicks a height on the outdated table: the picker opens on the
        # board as it is now (with A1 built), and the build goes through.
        second = _on_turn(bot, match_id, users)
        assert second is not first
        opened = await answer(await fake.click(second, fake.message(table.id),
                                               button_id(table, prefix=f"{prefix}h3")))
        assert opened.ephemeral and "table was behind" in text_of(opened)
        now = bot.runtime.get(match_id)
        assert now is not None and now.version == version + 1
        assert _versions(opened.message) == {version + 1}
        lot = button_id(opened.message, prefix=f"ch:cs:{match_id}:v{version + 1}:b3B2")
        done = await answer(await fake.click(second, opened.message, lot))
        assert done.type == 7 and "B2" in text_of(done)
        assert bot.runtime.get(match_id).version == version + 2  # type: ignore[union-attr]


async def test_a_stale_click_on_the_table_brings_the_table_up_to_date_and_changes_nothing(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    users = by_id(ann, bob)
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match_id = await open_game(fake, bot, ann, [bob], 0)
        table = table_of(fake, bot, match_id)
        old = bot.runtime.get(match_id).version  # type: ignore[union-attr]
        refused = fake.fail("PATCH", TABLE_EDITS, 503, times=None)
        fake.fail("PATCH", THROUGH_CLICKS, 404, 10015, times=None)
        await play_turn(fake, bot, match_id, users)
        await _edit_refused(fake, refused, table.id)
        match = bot.runtime.get(match_id)
        assert match is not None and match.version > old
        assert _versions(fake.message(table.id)) == {old}  # the table is behind
        assert fake.message(table.id).content != bot.adapters["bigcityz"].table_content(match)
        before = (match.version, json.dumps(match.state))

        assert match.state is not None
        on_turn = users[BIGCITYZ.to_act(match.state)[0]]
        place = button_id(table, prefix=f"ch:bz:{match_id}:v{old}:")
        reply = await fake.click(on_turn, fake.message(table.id), place)
        first = await answer(reply)
        # The click's answer edits the table itself (type 7): everyone sees the board now.
        assert first.type == 7
        shown = fake.message(table.id)
        assert shown.content == bot.adapters["bigcityz"].table_content(match)
        assert _versions(shown) <= {match.version}
        assert fake.message(table.id).attachments  # with its picture
        # The clicker is told, privately, that nothing was changed.
        notes = await fake.wait_until(
            lambda: [m for m in reply.followup_messages if m.ephemeral], timeout=10,
            what="the private note to the clicker")
        assert notes and "Nothing was changed" in notes[0].content
        assert "table now shows the current board" in notes[0].content
        after = bot.runtime.get(match_id)
        assert after is not None and (after.version, json.dumps(after.state)) == before

        # Discord accepts edits again: a refresh finds the table already showing this board
        # and sends nothing.
        fake.faults.clear()
        patches = len([r for r in fake.requests
                       if r.method == "PATCH" and r.path.endswith(f"/messages/{table.id}")])
        await bot.tables.refresh(match_id)
        assert len([r for r in fake.requests if r.method == "PATCH"
                    and r.path.endswith(f"/messages/{table.id}")]) == patches
        await settle(bot, match_id)
