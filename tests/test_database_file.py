"""The SQLite file under the bot (bot/core/dbfile.py; issue 26): damaged pages found at
start, a deleted or replaced file noticed at start and while running."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from pathlib import Path

import pytest

from bot.core import dbfile
from bot.core.records import LOBBY, Match, Seat
from bot.core.storage import DatabaseLost, Storage, StorageError
from fakediscord import FakeDiscord
from tests.harness import Member, button_id, cityhall_bot, new_lobby
from tests.test_start_failures import _cityhall_db, _refused_at_start, _run


def _lobby(channel: int) -> Match:
    return Match(id=0, guild_id=1, channel_id=channel, game="cityscape", status=LOBBY,
                 host_id="1", seats=[Seat("1", "Ann")], options={}, seed=channel)


def test_a_damaged_page_in_the_middle_is_one_sentence_and_exit_74(tmp_path: Path) -> None:
    db = tmp_path / "cityhall.sqlite3"
    asyncio.run(_cityhall_db(db, 60))
    data = db.read_bytes()
    page_size = int.from_bytes(data[16:18], "big")
    # A bad sector halfway, on a page of the tables' structure holding rows (a b-tree page
    # with cells: SQLite keeps no checksums, so damage to a long value's overflow page or to
    # an empty table's free space cannot be seen at start); the file's header is fine.
    pages = range(len(data) // page_size // 2, len(data) // page_size)
    middle = next(p for p in pages if data[p * page_size] in (0x02, 0x05, 0x0A, 0x0D)
                  and int.from_bytes(data[p * page_size + 3:p * page_size + 5], "big") > 0)
    with open(db, "r+b") as file:
        file.seek(middle * page_size + 8)
        file.write(b"\xff" * 200)
    line = _refused_at_start(_run(db), db, "damaged")
    assert "restore the latest backup" in line or "malformed" in line


async def test_a_new_empty_file_where_games_were_kept_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "cityhall.sqlite3"
    storage = await Storage.open(db)
    await storage.create_match(_lobby(10))
    await storage.close()
    beside = dbfile.id_file(str(db))
    kept = beside.read_text().strip()
    assert len(kept) == 32
    for name in (db.name, f"{db.name}-wal", f"{db.name}-shm"):
        (tmp_path / name).unlink(missing_ok=True)  # someone deleted the database
    with pytest.raises(StorageError) as refused:
        await Storage.open(db)
    said = str(refused.value)
    assert said.startswith(f"Cannot open the database {db}: it is a new, empty database, but "
                           f"cityhall.sqlite3.id beside it says Cityhall's games were kept "
                           f"here (database {kept})")
    assert f"to start afresh on purpose, delete {beside}" in said
    # Told to start afresh: a new database with a new id.
    db.unlink(missing_ok=True)
    beside.unlink()
    storage = await Storage.open(db)
    await storage.close()
    assert beside.read_text().strip() not in ("", kept)


async def test_a_restored_backup_opens_and_an_old_database_gets_its_id(tmp_path: Path) -> None:
    db = tmp_path / "cityhall.sqlite3"
    storage = await Storage.open(db)
    await storage.create_match(_lobby(10))
    await storage.close()
    shutil.copy(db, tmp_path / "backup.sqlite3")
    kept = dbfile.id_file(str(db)).read_text()
    os.replace(tmp_path / "backup.sqlite3", db)  # the admin restores a backup
    storage = await Storage.open(db)
    assert [m.channel_id for m in await storage.unfinished()] == [10]
    await storage.close()
    assert dbfile.id_file(str(db)).read_text() == kept
    # A database from before ids (no .id beside it) is given one and keeps its games.
    dbfile.id_file(str(db)).unlink()
    storage = await Storage.open(db)
    assert len(await storage.unfinished()) == 1
    await storage.close()
    assert dbfile.id_file(str(db)).read_text() == kept


@pytest.mark.parametrize("how", ["deleted", "replaced"])
async def test_a_file_deleted_or_replaced_while_running_takes_no_more_writes(
        tmp_path: Path, how: str, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "cityhall.sqlite3"
    storage = await Storage.open(db)
    try:
        await storage.create_match(_lobby(10))
        if how == "deleted":
            db.unlink()
        else:
            other = await Storage.open(tmp_path / "other.sqlite3")
            await other.close()
            os.replace(tmp_path / "other.sqlite3", db)  # another database moved over it
        with caplog.at_level(logging.ERROR, logger="bot.core.storage"):
            for channel in (11, 12, 13):
                with pytest.raises(DatabaseLost) as lost:
                    await storage.create_match(_lobby(channel))
                assert str(lost.value) == dbfile.LOST
        errors = [r.getMessage() for r in caplog.records]
        assert len(errors) == 1, errors  # said once
        # the admin's one line: which file, what it means, what to do
        assert errors[0] == (f"The database file {db} was deleted or replaced while "
                             "Cityhall was running: no more moves are saved (they would go "
                             "into the old file, which is gone). Put the file back or restore "
                             "a backup, then restart Cityhall.")
    finally:
        await storage.close()


async def test_a_player_is_told_their_move_was_not_saved_when_the_file_is_gone(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    async with cityhall_bot(fake, db) as bot:
        lobby = await new_lobby(fake, ann, "cityscape", {})
        db.unlink()
        refused = await (await fake.click(bob, lobby, button_id(lobby, "Join"))
                         ).seen(timeout=5)
        assert refused.ephemeral and (refused.data or {}).get("content") == dbfile.LOST
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None and [s.name for s in match.seats] == ["Ann"]
