"""A private screen whose picture is slow to draw (hundreds of players clicking at once,
as after a restart) is answered at once with its words and menus; the picture follows as
an edit of that answer, and only onto the screen it was drawn for."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.app import CityhallBot
from bot.games.cities import ENGINE
from bot.tools.players import Players as LoadPlayers
from bot.tools.players import Recorder, Table
from bot.ui import later
from bot.ui.later import DRAWING
from fakediscord import FakeDiscord
from tests.harness import cityhall_bot, settle
from tests.test_discord_cities import (
    Players,
    _button,
    answer,
    computer_move,
    open_lobby,
    text_of,
)

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")


class SlowPictures:
    """Holds the first ``hold`` drawings of one renderer function until released."""

    def __init__(self, bot: CityhallBot, monkeypatch: pytest.MonkeyPatch, function: str,
                 hold: int = 1) -> None:
        self.release = asyncio.Event()
        self.held = 0
        real = bot.pictures.render

        async def render(game: str, name: str, *args: Any, **kwargs: Any) -> Any:
            if name == function and self.held < hold:
                self.held += 1
                await self.release.wait()
            return await real(game, name, *args, **kwargs)

        monkeypatch.setattr(bot.pictures, "render", render)


async def cities_game(fake: FakeDiscord, bot: CityhallBot) -> tuple[int, dict[str, Any]]:
    """A two-player Cities game past its starting tiles; returns its id and Ann."""
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    players = Players(fake, {str(ann["id"]): ann, str(bob["id"]): bob})
    await open_lobby(fake, ann, {"city": "New York City"}, [bob], 0)
    match = bot.runtime.in_channel(int(fake.channel_id))
    assert match is not None and match.state is not None
    while match.state["phase"] == "start_tiles":
        await players.move(bot, match.id)
        await settle(bot, match.id)
    assert ENGINE.to_act(match.state)
    return match.id, ann


async def test_a_slow_neighbourhood_picture_follows_the_answer(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "cityhall.sqlite3") as bot:
        match_id, ann = await cities_game(fake, bot)
        slow = SlowPictures(bot, monkeypatch, "render_neighbourhood")
        table = fake.message(bot.runtime.get(match_id).table_message_id)  # type: ignore[union-attr,arg-type]
        mine = await answer(await fake.click(ann, table, f"ch:ct:{match_id}:hood"))
        # answered before the picture exists: the words now, the picture promised
        assert mine.ephemeral and mine.type == 4
        assert "Your neighbourhood" in text_of(mine) and DRAWING in text_of(mine)
        assert not mine.files
        message = mine.message
        assert message is not None and not message.attachments

        slow.release.set()
        await fake.wait_until(lambda: bool(message.attachments), 5, "the late picture")
        assert [a.filename for a in message.attachments] == ["neighbourhood.png"]
        with message.attachment("neighbourhood.png").image() as picture:
            assert picture.format == "PNG"
        assert "Your neighbourhood" in message.content and DRAWING not in message.content


async def test_a_late_picture_does_not_land_on_a_newer_screen(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "cityhall.sqlite3") as bot:
        match_id, ann = await cities_game(fake, bot)
        slow = SlowPictures(bot, monkeypatch, "render_neighbourhood", hold=1)
        table = fake.message(bot.runtime.get(match_id).table_message_id)  # type: ignore[union-attr,arg-type]
        first = await answer(await fake.click(ann, table, f"ch:ct:{match_id}:hood"))
        assert DRAWING in text_of(first) and not first.files
        # Ann asks again before the first picture is drawn; this one is drawn at once
        second = await answer(await fake.click(ann, table, f"ch:ct:{match_id}:hood"))
        assert DRAWING not in text_of(second)
        assert [f.filename for f in second.files] == ["neighbourhood.png"]

        slow.release.set()
        await settle(bot, match_id)
        await asyncio.sleep(0.2)  # room for a late edit, were one (wrongly) coming
        assert first.message is not None and not first.message.attachments
        assert second.message is not None
        assert [a.filename for a in second.message.attachments] == ["neighbourhood.png"]


async def test_behind_a_queue_of_pictures_the_screen_does_not_wait_for_its_own(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Hundreds of players' pictures queued ahead (as after a restart): waiting for this
    # one cannot help, so the words and menus go out at once. The wait allowed is made a
    # minute here, so an answer held for it would miss the harness's 5 s.
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "cityhall.sqlite3") as bot:
        match_id, ann = await cities_game(fake, bot)
        monkeypatch.setattr(later, "PICTURE_WAIT_S", 60.0)
        monkeypatch.setattr(bot.pictures, "expected_wait", lambda priority: 61.0)
        slow = SlowPictures(bot, monkeypatch, "render_neighbourhood")
        table = fake.message(bot.runtime.get(match_id).table_message_id)  # type: ignore[union-attr,arg-type]
        mine = await answer(await fake.click(ann, table, f"ch:ct:{match_id}:hood"))
        assert "Your neighbourhood" in text_of(mine) and DRAWING in text_of(mine)
        message = mine.message
        assert message is not None
        slow.release.set()
        await fake.wait_until(lambda: bool(message.attachments), 5, "the late picture")
        assert [a.filename for a in message.attachments] == ["neighbourhood.png"]


async def test_start_is_answered_at_once_and_the_table_picture_follows(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The render workers are busy (here: the table's picture is held): pressing Start still
    # turns the lobby into the table at once, in words and buttons, well inside Discord's
    # 3 s; the picture is put in when drawn.
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "cityhall.sqlite3") as bot:
        ann = await fake.add_member("Ann")
        bob = await fake.add_member("Bob")
        slow = SlowPictures(bot, monkeypatch, "render_table")
        lobby = (await answer(await fake.slash(ann, fake.channel_id, "cities", ["new"],
                                               {"city": "New York City"}))).message
        assert lobby is not None
        await answer(await fake.click(bob, lobby, _button(lobby, "Join")))
        started = await answer(await fake.click(ann, lobby, _button(lobby, "Start")))
        assert started.type == 7 and not started.files
        assert "Cities" in text_of(started) and lobby.components  # the table's buttons
        assert not lobby.attachments
        slow.release.set()
        await fake.wait_until(lambda: bool(lobby.attachments), 5, "the table's picture")
        assert [a.filename for a in lobby.attachments] == ["table.png"]
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None
        await settle(bot, match.id)
        assert bot.tables.shown[match.id] == match.version


async def test_the_load_test_counts_a_move_told_in_words_as_no_refusal(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bot/tools/players.py: a move answered in words with its picture still to come (a
    Cities start tile chosen while the workers are busy, as after a restart) is a move
    accepted, not a click refused with a private word."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "cityhall.sqlite3") as bot:
        ann = await fake.add_member("Ann")
        bob = await fake.add_member("Bob")
        await open_lobby(fake, ann, {"city": "New York City"}, [bob], 0)
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None and match.state is not None
        assert match.state["phase"] == "start_tiles"
        slow = SlowPictures(bot, monkeypatch, "render_neighbourhood")
        player, _action, _legal, index = computer_move(match.state)
        user = ann if player == str(ann["id"]) else bob
        message = fake.message(match.table_message_id)  # type: ignore[arg-type]
        table = Table(guild_id=str(fake.guild_id), channel_id=str(fake.channel_id), host=ann,
                      guest=bob, game="cities", message=message, stage="playing")
        players = LoadPlayers(fake, Recorder())
        click = await players.send("restore", fake.click(
            user, message, f"ch:ct:{match.id}:v{match.version}:a{index}"), table)
        assert click is not None and click.ok and click.data is not None
        assert DRAWING in str(click.data.get("content")), click.data
        assert not click.refused
        slow.release.set()
