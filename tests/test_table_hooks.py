"""A table is edited through the click on it, outside Discord's global limit (issue 25;
bot/ui/tablehooks.py): a click on the table that opens a private picker is answered by a
deferred update and the picker follows privately; the table's next edits go through that
click's webhook while its token is valid, and through the channel when Discord refuses."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.core.records import Match
from bot.games.cityscape import ENGINE, GAME
from bot.ui.pings import TOKEN_MARGIN
from bot.ui.tablehooks import CROWD_WAIT, TableHooks
from fakediscord import FakeDiscord
from tests.harness import button_id, cityhall_bot, settle
from tests.test_discord_cityscape import build
from tests.test_turn_pings import building

pytestmark = pytest.mark.usefixtures("backend")

DEFERRED_UPDATE = 6
CHANNEL_MESSAGE = 4


def table_edits(fake: FakeDiscord, table_id: str) -> list[str]:
    """How each accepted edit of the table message with a new picture went: "click" (the
    interaction webhook's @original) or "channel"."""
    found = []
    for record in fake.requests:
        if record.method != "PATCH" or record.status >= 400 or not record.files:
            continue
        if record.path.startswith("/webhooks/") and record.path.endswith("/@original"):
            found.append("click")
        elif record.path.startswith("/channels/") and record.path.endswith(f"/{table_id}"):
            found.append("channel")
    return found


def due_move(match: Match) -> tuple[str, dict[str, Any]]:
    """The player due in ``match`` and the move a computer player would make for them."""
    assert match.state is not None
    player = ENGINE.to_act(match.state)[0]
    return player, GAME.computer.normal(match.state, player)


async def _height_clicked(fake: FakeDiscord, bot: Any) -> tuple[
        Match, dict[str, Any], Any, str, dict[str, Any], Any]:
    """A building Cityscape game whose table no click carries, and the due player's click
    on the height button of the move a computer would make: (match, users, table message,
    player, that move, the click)."""
    match, users = await building(fake, bot)
    assert match.state is not None and match.table_message_id is not None
    table = fake.message(match.table_message_id)
    player, action = due_move(match)
    bot.tables.hooks.forget(match.id)
    prefix = f"ch:cs:{match.id}:v{match.version}:"
    click = await fake.click(users[player], table,
                             button_id(table, prefix=f"{prefix}h{action['height']}"))
    return match, users, table, player, action, click


@pytest.mark.usefixtures("no_crowds")
async def test_a_click_on_the_table_opens_its_picker_privately_and_carries_the_tables_edits(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        # No click carries this table (as after a restart, or a quiet quarter of an hour).
        # The height button: acknowledged as an update of the table (nothing changes on
        # it), the picker follows, seen by the player alone.
        match, users, table, player, action, click = await _height_clicked(fake, bot)
        prefix = f"ch:cs:{match.id}:v{match.version}:"
        assert (await click.response(timeout=5)).type == DEFERRED_UPDATE
        picker = (await click.seen(timeout=5)).message
        assert picker is not None and picker.ephemeral
        assert any(True for _ in picker.iter_components())

        before = len(table_edits(fake, table.id))
        version = match.version
        await (await fake.click(users[player], picker, button_id(
            picker, prefix=f"{prefix}b{action['height']}{action['lot']}"))).seen(timeout=5)
        await settle(bot, match.id)
        now = bot.runtime.get(match.id)
        assert now is not None and now.version == version + 1
        # The table shows the move, drawn anew, edited through the height button's click.
        assert f":v{now.version}:h" in str(fake.message(table.id).components)
        assert table_edits(fake, table.id)[before:] == ["click"]

        # That click carries the table's edits for ten minutes and more: the next player's
        # picker opens in one request, as a private answer, and their move is shown
        # through the first click still.
        assert now.state is not None
        player, action = due_move(now)
        prefix = f"ch:cs:{match.id}:v{now.version}:"
        click = await fake.click(users[player], fake.message(table.id),
                                 button_id(table, prefix=f"{prefix}h{action['height']}"))
        opened = await click.response(timeout=5)
        assert opened.type == CHANNEL_MESSAGE and opened.ephemeral
        assert opened.message is not None
        await (await fake.click(users[player], opened.message, button_id(
            opened.message, prefix=f"{prefix}b{action['height']}{action['lot']}"))
               ).seen(timeout=5)
        await settle(bot, match.id)
        assert now.version == version + 2
        assert table_edits(fake, table.id)[before:] == ["click", "click"]


@pytest.mark.usefixtures("no_crowds")
async def test_a_table_carried_by_a_click_does_not_wait_for_the_global_limit(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    # Discord leaves edits through a click's token out of the bot's global limit, so a busy
    # second of channel messages must not hold them back: at 100 clicks a second ~50 table
    # edits a second queued behind the 45 a second the bot keeps to, seconds behind.
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, users, table, player, action, click = await _height_clicked(fake, bot)
        prefix = f"ch:cs:{match.id}:v{match.version}:"
        picker = (await click.seen(timeout=5)).message
        assert picker is not None
        before = len(table_edits(fake, table.id))
        # The bot's own global window is booked for the next minute.
        for _ in range(60 * bot.tables.pacing.bot.limit):
            bot.tables.pacing.bot.reserve("global")
        await (await fake.click(users[player], picker, button_id(
            picker, prefix=f"{prefix}b{action['height']}{action['lot']}"))).seen(timeout=5)
        await settle(bot, match.id, timeout=10)  # not a minute
        assert table_edits(fake, table.id)[before:] == ["click"]


@pytest.mark.usefixtures("no_crowds")
async def test_when_discord_refuses_the_click_the_table_goes_through_the_channel(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, users = await building(fake, bot)
        assert match.state is not None and match.table_message_id is not None
        table_id = str(match.table_message_id)
        # The click's token no longer works (Discord forgets it after 15 minutes).
        refused = fake.fail("PATCH", r"^/webhooks/\d+/[^/]+/messages/@original$", 404, 10015,
                            times=None)
        before, version = len(table_edits(fake, table_id)), match.version
        player, action = due_move(match)
        await build(fake, bot, users[player], match.id, action["height"], action["lot"])
        await settle(bot, match.id)
        assert refused.hits
        assert table_edits(fake, table_id)[before:] == ["channel"]
        now = bot.runtime.get(match.id)
        assert now is not None and now.version == version + 1
        assert f":v{now.version}:h" in str(fake.message(table_id).components)
        assert not fake.failed_interactions


async def test_a_click_that_waited_in_a_crowd_is_answered_in_one_request(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """After a restart every table lacks a click to carry it, and the first clicks come as
    a crowd: one that waited its turn gets its picker in one request (not a deferred update
    and a follow-up, twice the work while the crowd waits)."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, users = await building(fake, bot)
        assert match.state is not None and match.table_message_id is not None
        bot.tables.hooks.forget(match.id)
        table = fake.message(match.table_message_id)
        player, action = due_move(match)
        parsers = bot._connection.parsers
        gate = parsers["INTERACTION_CREATE"]

        def crowded(data: Any) -> None:
            gate(data)
            time.sleep(CROWD_WAIT + 0.2)  # the loop is busy with the rest of the crowd

        parsers["INTERACTION_CREATE"] = crowded
        try:
            prefix = f"ch:cs:{match.id}:v{match.version}:"
            click = await fake.click(users[player], table,
                                     button_id(table, prefix=f"{prefix}h{action['height']}"))
            opened = await click.response(timeout=5)
        finally:
            parsers["INTERACTION_CREATE"] = gate
        assert opened.type == CHANNEL_MESSAGE and opened.ephemeral
        assert len(bot.tables.hooks) == 0


@pytest.mark.usefixtures("no_crowds")
async def test_start_carries_the_tables_first_edits(fake_discord: FakeDiscord,
                                                    tmp_path: Path) -> None:
    """Start turns the lobby into the table by updating it: that click carries the table's
    edits from then on, so no later click has to be answered in two requests for it (and a
    server's freshly started games do not queue their pictures under the global limit)."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, _users = await building(fake, bot)  # Start, then both players' goals
        edits = table_edits(fake, str(match.table_message_id))
        assert edits and set(edits) == {"click"}
        deferred = [ix for ix in fake.interactions.values()
                    if ix.callback is not None and ix.callback.type == DEFERRED_UPDATE]
        assert deferred == []


def test_runs_out_of_clicks_are_let_go_of() -> None:
    """A match that ends without another edit of its table leaves no click behind for
    long: the expired ones are dropped as new ones are noted."""
    hooks = TableHooks()
    hooks.carry(1, _Click(message_id=11, expires_in=TOKEN_MARGIN - 1))  # type: ignore[arg-type]
    assert len(hooks) == 0  # too close to its end to be used at all
    hooks.carry(1, _Click(message_id=11, expires_in=TOKEN_MARGIN + 0.2))  # type: ignore[arg-type]
    assert len(hooks) == 1
    time.sleep(0.3)  # match 1 ends; its click runs out
    hooks.carry(2, _Click(message_id=22, expires_in=900))  # type: ignore[arg-type]
    assert len(hooks) == 1 and hooks.get(2, 22) is not None


class _Click:
    """The parts of a discord.Interaction TableHooks reads: a click on a message answered
    by a deferred update, whose token runs out ``expires_in`` seconds from now."""

    def __init__(self, message_id: int, expires_in: float) -> None:
        self.message = SimpleNamespace(id=message_id)
        self.response = SimpleNamespace(
            type=discord.InteractionResponseType.deferred_message_update)
        self.expires_at = datetime.fromtimestamp(time.time() + expires_in, tz=UTC)
        self.followup = object()
