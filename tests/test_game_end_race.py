"""/game end while the table is still being redrawn: the table ends up saying the game was
ended early, not showing the board the redraw had started on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.games.cityscape import ENGINE, GAME
from fakediscord import FakeDiscord
from tests.harness import cityhall_bot, settle
from tests.test_discord_cityscape import against_a_computer, answer, build, set_goals

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_game_end_right_after_a_computer_move_wins_over_the_redraw(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match = await against_a_computer(fake, bot, ann)
        await settle(bot, match.id)
        assert match.state is not None and match.table_message_id is not None
        ann_id = str(ann["id"])
        mine = [s for s, o in match.state["sides"].items() if o == ann_id]
        table = fake.message(match.table_message_id)
        await set_goals(fake, ann, table, match.id, [(s, [1, 2, 3, 4]) for s in mine])
        await settle(bot, match.id)
        assert ENGINE.to_act(match.state) == [ann_id]

        # Pictures take a while (a busy host): the computer's move is still being drawn
        # when the host ends the game.
        drawing = bot.render_table

        async def slow(*args: Any, **kwargs: Any) -> bytes:
            await asyncio.sleep(1.0)
            return await drawing(*args, **kwargs)

        bot.render_table = slow  # type: ignore[method-assign]
        version = match.version
        action = GAME.computer.normal(match.state, ann_id)
        await build(fake, bot, ann, match.id, action["height"], action["lot"])
        await fake.wait_until(lambda: match.version >= version + 2 or None, 10.0,
                              "the computer's move")
        ended = await answer(await fake.slash(ann, fake.channel_id, "game", ["end"]))
        assert "ended by" in str((ended.data or {}).get("content"))
        await bot.driver.idle(match.id)  # the computer's table redraw has finished
        # The last word on the table is the end (the end path may still be finishing).
        await fake.wait_until(lambda: "ended early" in table.content or None, 10.0,
                              f"'ended early' on the table, which says {table.content!r}")
        assert not table.components
