"""A click whose answer waits for the database is acknowledged within Discord's 3 s and
answered when the write lands (bot/ui/deferral.py; issue 26: with the SQLite file locked
for 8 s, every click failed although every move was saved)."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.tools.players import Players, Recorder
from bot.ui.deferral import DEFER_AFTER
from fakediscord import FakeDiscord
from tests import databases
from tests.harness import Member, button_id, cityhall_bot, cityscape_building, new_lobby

DEFERRED_UPDATE = 6
UPDATE_MESSAGE = 7

pytestmark = pytest.mark.usefixtures("backend")


class _WritesLocked:
    """Another program holds the database's write lock until ``release``: on SQLite the
    file's, on PostgreSQL the matches table's (reads go on, as they do on SQLite)."""

    def __init__(self, db: Path) -> None:
        self.target = databases.target(db)
        self.sqlite: sqlite3.Connection | None = None
        self.pg: asyncpg.Connection | None = None

    async def take(self) -> None:
        if isinstance(self.target, str):
            self.pg = await asyncpg.connect(self.target)
            await self.pg.execute("BEGIN; LOCK TABLE matches IN EXCLUSIVE MODE")
        else:
            self.sqlite = sqlite3.connect(self.target, isolation_level=None)
            self.sqlite.execute("BEGIN IMMEDIATE")

    async def release(self) -> None:
        if self.pg is not None:
            await self.pg.close()
        if self.sqlite is not None:
            self.sqlite.close()


def _text(message: Any) -> str:
    return f"{message.content} {message.embeds}"


async def test_a_lobby_click_waiting_for_a_locked_database_is_acknowledged_then_answered(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    async with cityhall_bot(fake, db) as bot:
        lobby = await new_lobby(fake, ann, "cityscape", {})
        other = _WritesLocked(db)
        await other.take()
        try:
            began = time.monotonic()
            click = await fake.click(bob, lobby, button_id(lobby, "Join"))
            acknowledged = await click.response(timeout=3)
            waited = time.monotonic() - began
            assert acknowledged.type == DEFERRED_UPDATE, acknowledged.data
            assert waited >= DEFER_AFTER  # not before the answer was seen to be slow
            match = bot.runtime.in_channel(int(fake.channel_id))
            assert match is not None and [s.name for s in match.seats] == ["Ann"]
        finally:
            await other.release()  # the other program lets go
        # The real answer: the lobby message, edited to show Bob seated.
        await fake.wait_until(lambda: "Bob" in _text(fake.message(lobby.id)), 12,
                              "the lobby to show Bob")
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None and [s.name for s in match.seats] == ["Ann", "Bob"]
    assert not fake.failed_interactions


async def test_a_move_waiting_for_a_locked_database_is_acknowledged_then_answered(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    async with cityhall_bot(fake, db) as bot:
        match = await cityscape_building(fake, bot, ann, bob)
        table = fake.message(str(match.table_message_id))
        opened = await (await fake.click(ann, table, _height_button(table, 3))
                        ).seen(timeout=5)
        screen = opened.message
        assert screen is not None
        lot = _lot_button(screen, "B2")
        other = _WritesLocked(db)
        await other.take()
        try:
            click = await fake.click(ann, screen, lot)
            acknowledged = await click.response(timeout=3)
            assert acknowledged.type == DEFERRED_UPDATE, acknowledged.data
        finally:
            await other.release()
        # The private screen is edited with the move's result once it is saved.
        await fake.wait_until(lambda: "B2" in _text(fake.message(screen.id))
                              and "high" in _text(fake.message(screen.id)), 12,
                              "the build's answer")
        saved = await bot.runtime.fetch(match.id)
        assert saved is not None and saved.state is not None
        assert saved.state["lots"]["B2"] == [3]
    assert not fake.failed_interactions


def _height_button(message: Any, height: int) -> str:
    return next(str(c["custom_id"]) for c in message.iter_components()
                if str(c.get("custom_id", "")).endswith(f":h{height}"))


def _lot_button(message: Any, lot: str) -> str:
    return next(str(c["custom_id"]) for c in message.iter_components()
                if str(c.get("custom_id", "")).endswith(f"b3{lot}"))


HELD_S = 1.4  # how long the loop is held around a click in the two tests below
CLOCKS_DISAGREE_S = 0.05  # the wall clock against the monotonic one over that time, at most


async def join_held(fake: FakeDiscord, tmp_path: Path, ann: Member, bob: Member, *,
                    before_reading: bool) -> None:
    """Bob joins Ann's lobby while the database is locked (so his click is slow) and the
    loop is held ``HELD_S`` around his click: before the bot reads it (it waits in the
    gateway's buffer) or right after (it waits for its turn to be routed). His click must
    be acknowledged ``DEFER_AFTER`` after Discord made it: counted from later, the
    acknowledgement would come at HELD_S + DEFER_AFTER, past Discord's limit."""
    db = tmp_path / "db.sqlite3"
    async with cityhall_bot(fake, db) as bot:
        lobby = await new_lobby(fake, ann, "cityscape", {})
        parsers = bot._connection.parsers
        gate = parsers["INTERACTION_CREATE"]

        def held(data: Any) -> None:
            if before_reading:
                time.sleep(HELD_S)  # the loop was busy while the click sat in the buffer
            gate(data)
            if not before_reading:
                time.sleep(HELD_S)  # the loop is busy with the rest of the crowd

        other = _WritesLocked(db)
        await other.take()
        try:
            parsers["INTERACTION_CREATE"] = held
            began = time.monotonic()
            click = await fake.click(bob, lobby, button_id(lobby, "Join"))
            acknowledged = await click.response(timeout=5)
            waited = time.monotonic() - began
            parsers["INTERACTION_CREATE"] = gate
            assert acknowledged.type == DEFERRED_UPDATE, acknowledged.data
            # The bot reads the click's age on the wall clock (Discord's, by the click's
            # id), this test times on the monotonic one: a VM whose wall clock ran 0.5 %
            # fast made the age ~7 ms too old over the held 1.4 s (2 Dec), hence the
            # CLOCKS_DISAGREE_S below the 2 s.
            assert DEFER_AFTER - CLOCKS_DISAGREE_S <= waited < HELD_S + DEFER_AFTER - 0.2, waited
        finally:
            parsers["INTERACTION_CREATE"] = gate
            await other.release()
        await fake.wait_until(lambda: "Bob" in _text(fake.message(lobby.id)), 12,
                              "the lobby to show Bob")
    assert not fake.failed_interactions


async def test_a_click_that_waited_in_a_crowd_is_acknowledged_counting_its_wait(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    """Discord's 3 s run from the click, not from when its handler starts: a click that
    waited for its turn after it arrived (as when a crowd of clicks is read in one go)."""
    await join_held(fake_discord, tmp_path, ann, bob, before_reading=False)


async def test_a_click_held_before_it_reached_the_bot_is_acknowledged_by_discords_clock(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    """A click can wait before the bot sees it at all: the gateway's messages are read one
    at a time, and behind a busy loop they wait in the socket's buffer. Discord's 3 s run
    from when it made the click (its id says when)."""
    await join_held(fake_discord, tmp_path, ann, bob, before_reading=True)


async def test_the_load_test_times_a_deferred_click_to_its_real_answer(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    """The load test (bot/tools/players.py) must not count an acknowledgement as the answer:
    a click deferred for being slow is timed to the edit that answers it."""
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    async with cityhall_bot(fake, db):
        lobby = await new_lobby(fake, ann, "cityscape", {})
        other = _WritesLocked(db)
        await other.take()
        players = Players(fake, Recorder())

        async def release_later() -> None:
            await asyncio.sleep(2.5)
            await other.release()

        releasing = asyncio.ensure_future(release_later())
        try:
            click = await players.send("join", fake.click(bob, lobby, button_id(lobby, "Join")))
        finally:
            await releasing
        assert click is not None and click.deferred
        assert click.latency_ms is not None and click.latency_ms >= 2500  # after the release
        assert "Bob" in _text(fake.message(lobby.id))
    assert not fake.failed_interactions
