"""A full disk: one sentence to each player whose move was refused, one warning a minute in
the log, no traceback, nothing half saved (bot/core/diskfull.py; issue 26: it reached
players as the generic apology, with two tracebacks per refused click)."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.core import diskfull
from bot.core.diskfull import DiskFullNotes, is_disk_full
from fakediscord import FakeDiscord
from tests.harness import button_id, cityhall_bot, settle
from tests.test_discord_cityscape import against_a_computer, answer, select_id, text_of


def _full_database_error(tmp_path: Path) -> sqlite3.Error:
    """The error SQLite really gives when it cannot grow the file."""
    conn = sqlite3.connect(tmp_path / "small.sqlite3")
    try:
        conn.execute("CREATE TABLE t (x BLOB)")
        conn.execute("PRAGMA max_page_count = 3")
        with pytest.raises(sqlite3.Error) as full:
            for _ in range(10):
                conn.execute("INSERT INTO t VALUES (zeroblob(4000))")
        return full.value
    finally:
        conn.close()


def test_a_full_disk_is_told_apart_from_other_failures(tmp_path: Path) -> None:
    full = _full_database_error(tmp_path)
    assert is_disk_full(full)
    assert is_disk_full(asyncpg.exceptions.DiskFullError("could not extend file"))
    assert is_disk_full(OSError(28, "No space left on device"))
    # As discord.py hands it to the error handler: wrapped, the cause kept.
    try:
        try:
            raise full
        except sqlite3.Error as exc:
            raise RuntimeError("the command failed") from exc
    except RuntimeError as wrapped:
        assert is_disk_full(wrapped)
    assert not is_disk_full(sqlite3.OperationalError("database is locked"))
    assert not is_disk_full(OSError(13, "Permission denied"))
    assert not is_disk_full(ValueError("a bug"))
    assert not is_disk_full(None)


def test_the_log_gets_one_warning_a_minute_counting_the_refusals(
        caplog: pytest.LogCaptureFixture) -> None:
    now = [1000.0]
    notes = DiskFullNotes(clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="bot.core.diskfull"):
        for second in range(0, 130, 10):  # a refusal every 10 s for two minutes
            now[0] = 1000.0 + second
            notes.note(f"refusal at {second} s")
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 3  # at 0 s, 60 s and 120 s
    assert "1 write(s) refused" in warnings[0] and "6 write(s) refused" in warnings[1]
    assert "refusal at 120 s" in warnings[2]
    assert all(r.exc_info is None for r in caplog.records)


async def test_players_hear_their_moves_were_not_saved_and_the_log_stays_short(
        backend: str, fake_discord: FakeDiscord, tmp_path: Path,
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write the database is given fails as a full disk fails it (on SQLite its own
    SQLITE_FULL error, taken from a database that really ran out of pages; on PostgreSQL
    asyncpg's DiskFullError), until the admin frees space."""
    fake = fake_discord
    monkeypatch.setattr(diskfull, "NOTES", DiskFullNotes())
    full: BaseException = _full_database_error(tmp_path) if backend == "sqlite" else \
        asyncpg.exceptions.DiskFullError("could not extend file: No space left on device")
    players = [await fake.add_member(name) for name in ("Ann", "Bob", "Cy")]
    channels = [fake.channel_id] + [str((await fake.add_channel(f"c{n}"))["id"])
                                    for n in range(2)]
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        database = bot.storage._backend
        writes = database.run

        def disk_full(make: Any) -> Any:
            async def refused() -> Any:
                raise full
            return refused()

        monkeypatch.setattr(database, "run", disk_full)
        caplog.clear()
        with caplog.at_level(logging.INFO):
            for player, channel in zip(players, channels, strict=True):
                reply = await (await fake.slash(player, channel, "cityscape", ["new"], {})
                               ).seen(timeout=5)
                assert reply.ephemeral
                assert (reply.data or {}).get("content") == diskfull.SENTENCE
        assert bot.runtime.unfinished() == []  # nothing half made
        problems = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(problems) == 1 and "disk holding the database is full" in \
            problems[0].getMessage(), [r.getMessage() for r in problems]
        assert "3 write(s)" not in problems[0].getMessage()  # the first refusal says so
        assert not any(r.exc_info for r in caplog.records)

        monkeypatch.setattr(database, "run", writes)  # the admin freed some space
        reply = await (await fake.slash(players[0], channels[0], "cityscape", ["new"], {})
                       ).seen(timeout=5)
        assert not reply.ephemeral and reply.message is not None
        assert len(bot.runtime.unfinished()) == 1


async def test_a_game_click_and_a_lobby_click_on_a_full_disk_get_the_sentence(
        backend: str, fake_discord: FakeDiscord, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Clicks take the same way as commands: a goal confirmed in a running game and a Join
    in a lobby, each refused by the full disk, get the sentence and change nothing."""
    fake = fake_discord
    monkeypatch.setattr(diskfull, "NOTES", DiskFullNotes())
    full: BaseException = _full_database_error(tmp_path) if backend == "sqlite" else \
        asyncpg.exceptions.DiskFullError("could not extend file: No space left on device")
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    second = str((await fake.add_channel("second"))["id"])
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match = await against_a_computer(fake, bot, ann)
        await settle(bot, match.id)  # the computer has chosen its goals: only Ann is due
        lobby = (await answer(await fake.slash(ann, second, "cityscape", ["new"], {}))).message
        assert lobby is not None and match.table_message_id is not None
        table = fake.message(match.table_message_id)
        picker = (await answer(await fake.click(ann, table, button_id(table, "My goals")))).message
        assert picker is not None
        prefix = f"ch:cs:{match.id}:r1:s"
        side = select_id(picker, prefix)[len(prefix)]
        for line in range(4):  # a goal code on each of the side's four lines
            chosen = select_id(picker, f"{prefix}{side}{line}")
            picker = (await answer(await fake.select(ann, picker, chosen, ["1"]))).message \
                or picker
        version = bot.runtime.get(match.id).version  # type: ignore[union-attr]

        def disk_full(make: Any) -> Any:
            async def refused() -> Any:
                raise full
            return refused()

        monkeypatch.setattr(bot.storage._backend, "run", disk_full)
        confirm = button_id(picker, prefix=f"ch:cs:{match.id}:r1:g")
        refused = await answer(await fake.click(ann, picker, confirm))
        assert refused.ephemeral and text_of(refused) == diskfull.SENTENCE
        refused = await answer(await fake.click(bob, lobby, button_id(lobby, "Join")))
        assert refused.ephemeral and text_of(refused) == diskfull.SENTENCE
        assert bot.runtime.get(match.id).version == version  # type: ignore[union-attr]
        waiting = bot.runtime.in_channel(int(second))
        assert waiting is not None and [s.name for s in waiting.seats] == ["Ann"]
