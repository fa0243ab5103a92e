"""The database the bot keeps: where it goes, what it refuses, and what /stats reads.

Tests of what the bot keeps run on both backends (`storages`, parametrised): a real SQLite
file in a temporary folder, and a fresh database on the throwaway PostgreSQL server the
tests start (tests/pg_support.py). Tests of the SQLite file itself and of its writer
thread use `sqlite_storages`. The fixtures close what they opened.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.core.records import ACTIVE, ENDED, LOBBY, OVER, Match, Seat
from bot.core.storage import (
    INTEGRITY_ERRORS,
    SCHEMA_V1,
    ChannelBusy,
    Job,
    ResultRow,
    Storage,
    StorageError,
    execute,
    fetch_all,
)
from bot.core.storage.jobs import decode_log, encode_log

from .runtime_support import BACKENDS, said, storage_opener

OpenStorage = Callable[..., Awaitable[Storage]]
GUILD = 10


@pytest.fixture(params=BACKENDS)
async def storages(request: pytest.FixtureRequest,
                   tmp_path: Path) -> AsyncIterator[OpenStorage]:
    async with storage_opener(request.param, tmp_path, request) as open_one:
        yield open_one


@pytest.fixture
async def sqlite_storages(request: pytest.FixtureRequest,
                          tmp_path: Path) -> AsyncIterator[OpenStorage]:
    async with storage_opener("sqlite", tmp_path, request) as open_one:
        yield open_one


def _match(channel: int = 20, *, status: str = LOBBY, game: str = "cityscape",
           guild: int = GUILD) -> Match:
    return Match(id=0, guild_id=guild, channel_id=channel, game=game, status=status,
                 host_id="1", seats=[Seat("1", "Ann"), Seat("cpu1", "Ada (computer)", True)],
                 options={"rounds": 2}, seed=1234)


def _row(player: str, name: str, score: int, won: bool, *, cpu: bool = False,
         **extra: object) -> ResultRow:
    return ResultRow(player_id=player, name=name, cpu=cpu, score=score, won=won, extra=extra)


async def _finished(storage: Storage, rows: list[ResultRow], *, channel: int = 20,
                    game: str = "cityscape", guild: int = GUILD) -> Match:
    match = await storage.create_match(_match(channel, status=ACTIVE, game=game, guild=guild))
    match.status = OVER
    match.version = 1
    await storage.save(match, action={"type": "last"}, player=rows[0].player_id, results=rows)
    return match


# -- the file ---------------------------------------------------------------------------------


async def test_a_database_in_a_folder_that_does_not_exist_yet(
        tmp_path: Path, sqlite_storages: OpenStorage) -> None:
    path = tmp_path / "data" / "nested" / "cityhall.sqlite3"
    storage = await sqlite_storages(path)
    match = await storage.create_match(_match())
    assert path.is_file()
    assert (await storage.get(match.id)) is not None


async def test_an_in_memory_database_needs_no_folder(sqlite_storages: OpenStorage) -> None:
    storage = await sqlite_storages(":memory:")
    match = await storage.create_match(_match())
    assert match.id == 1 and not Path(":memory:").exists()


async def test_the_file_uses_a_write_ahead_log(tmp_path: Path, sqlite_storages: OpenStorage) -> None:
    # Readers (a backup, a second process) never block the bot's writes, and vice versa.
    await sqlite_storages()
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        # 8 KB pages: a page holds three archived games where a 4 KB page held one
        assert db.execute("PRAGMA page_size").fetchone()[0] == 8192


async def test_foreign_keys_are_enforced(storages: OpenStorage) -> None:
    # A move or a result for a match the database does not hold is refused, not kept as
    # an orphan that /stats would count.
    storage = await storages()
    ghost = _match()
    ghost.id = 999
    with pytest.raises(StorageError, match="match 999 is not in the database"):
        await storage.save(ghost, action={"type": "build"}, player="1")
    with pytest.raises(StorageError, match="match 999 is not in the database"):
        await storage.save(ghost, results=[_row("1", "Ann", 10, True)])
    # and below the storage's own check, the database itself refuses orphans
    for orphan in ("INSERT INTO actions VALUES (999, 2, '1', '{}', 0, 0)",
                   "INSERT INTO results VALUES (999, 1, 'cityscape', '1', 'Ann', 0, 1, 1,"
                   " '{}', 0)"):
        def insert(sql: str = orphan) -> Job[None]:
            yield execute(sql)

        with pytest.raises(INTEGRITY_ERRORS, match=r"(?i)foreign key"):
            await storage.run(insert)
    assert await storage.actions(999) == []
    assert await storage.leaderboard(GUILD, "cityscape") == []


# -- matches --------------------------------------------------------------------------------


async def test_a_match_reads_back_as_it_was_saved(tmp_path: Path, storages: OpenStorage) -> None:
    storage = await storages()
    match = await storage.create_match(_match())
    assert match.id == 1 and match.created_at > 0
    match.status = ACTIVE
    match.state = {"phase": "goals", "lots": {"A1": [1, 2]}}
    match.version = 3
    match.table_message_id = 555
    match.turn_started_at = 1234.5
    match.extra = {"note": "x"}
    await storage.save(match)
    # a second connection, as after a restart
    again = await storages(tmp_path / "db.sqlite3")
    seen = await again.get(match.id)
    assert seen == match
    assert seen is not None and seen.seats[1].cpu and not seen.seats[0].cpu
    assert await again.get(match.id + 1) is None


async def test_only_lobbies_and_running_games_come_back_after_a_restart(
        storages: OpenStorage) -> None:
    storage = await storages()
    ids = {}
    for channel, status in ((21, LOBBY), (22, ACTIVE), (23, OVER), (24, ENDED)):
        match = await storage.create_match(_match(channel))
        match.status = status
        await storage.save(match)
        ids[status] = match.id
    later = await storage.create_match(_match(25))
    assert [m.id for m in await storage.unfinished()] == [ids[LOBBY], ids[ACTIVE], later.id]


async def test_moves_are_logged_in_order(storages: OpenStorage) -> None:
    storage = await storages()
    match = await storage.create_match(_match(status=ACTIVE))
    for version, (player, lot) in enumerate((("cpu1", "B2"), ("1", "A1"), (None, "C3")), 2):
        match.version = version
        await storage.save(match, action={"lot": lot}, player=player, by_computer=player != "1")
    assert await storage.actions(match.id) == [("cpu1", {"lot": "B2"}), ("1", {"lot": "A1"}),
                                               (None, {"lot": "C3"})]
    # the same move number cannot be written twice
    with pytest.raises(INTEGRITY_ERRORS):
        await storage.save(match, action={"lot": "D4"}, player="1")


async def test_one_unfinished_match_per_channel(storages: OpenStorage) -> None:
    storage = await storages()
    first = await storage.create_match(_match(20))
    with pytest.raises(ChannelBusy):
        await storage.create_match(_match(20, game="bigcityz"))
    # the refusal leaves the connection usable: the next write in another channel lands
    other = await storage.create_match(_match(21))
    assert other.id > first.id  # (PostgreSQL's ids skip the refused one; SQLite's do not)
    assert [m.channel_id for m in await storage.unfinished()] == [20, 21]
    first.status = OVER
    await storage.save(first)
    again = await storage.create_match(_match(20))
    assert again.status == LOBBY


# -- what /stats reads ----------------------------------------------------------------------------


async def test_leaderboard_ranks_by_wins_then_best_then_games(storages: OpenStorage) -> None:
    storage = await storages()
    await _finished(storage, [_row("1", "Ann", 40, True), _row("2", "Bob", 30, False),
                              _row("3", "Cy", 90, False), _row("4", "Dee", 20, False)],
                    channel=31)
    await _finished(storage, [_row("2", "Bob", 50, True), _row("1", "Ann", 10, False),
                              _row("4", "Dee", 20, False)], channel=32)
    await _finished(storage, [_row("4", "Dee", 5, False)], channel=33)
    board = await storage.leaderboard(GUILD, "cityscape")
    assert [(r.player_id, r.name, r.games, r.wins, r.best) for r in board] == [
        ("2", "Bob", 2, 1, 50),  # one win, best 50
        ("1", "Ann", 2, 1, 40),  # one win, best 40
        ("3", "Cy", 1, 0, 90),   # no win, best 90
        ("4", "Dee", 3, 0, 20),  # no win, best 20
    ]
    assert [r.player_id for r in await storage.leaderboard(GUILD, "cityscape", limit=2)] == [
        "2", "1"]


async def test_leaderboard_ties_go_to_the_player_with_more_games(storages: OpenStorage) -> None:
    storage = await storages()
    await _finished(storage, [_row("1", "Ann", 10, False)], channel=41)
    await _finished(storage, [_row("2", "Bob", 10, False)], channel=42)
    await _finished(storage, [_row("2", "Bob", 3, False)], channel=43)
    board = await storage.leaderboard(GUILD, "cityscape")
    assert [(r.player_id, r.games) for r in board] == [("2", 2), ("1", 1)]


async def test_leaderboard_keeps_computers_other_servers_and_games_apart(
        storages: OpenStorage) -> None:
    storage = await storages()
    await _finished(storage, [_row("1", "Ann", 10, False), _row("cpu1", "Ada", 99, True, cpu=True)],
                    channel=51)
    await _finished(storage, [_row("2", "Bob", 50, True)], channel=52, guild=GUILD + 1)
    await _finished(storage, [_row("3", "Cy", 60, True)], channel=53, game="bigcityz")
    assert [r.player_id for r in await storage.leaderboard(GUILD, "cityscape")] == ["1"]
    assert [r.player_id for r in await storage.leaderboard(GUILD + 1, "cityscape")] == ["2"]
    assert [r.player_id for r in await storage.leaderboard(GUILD, "bigcityz")] == ["3"]


async def test_all_leaderboards_at_once_rank_each_game_on_its_own(storages: OpenStorage) -> None:
    """/stats reads every game's board in one go: each keeps its own order and limit."""
    storage = await storages()
    await _finished(storage, [_row("1", "Ann", 10, False), _row("2", "Bob", 30, True)],
                    channel=61)
    await _finished(storage, [_row("3", "Cy", 60, True), _row("1", "Ann", 70, False),
                              _row("4", "Dee", 5, False)], channel=62, game="bigcityz")
    await _finished(storage, [_row("5", "Eve", 80, True)], channel=63, guild=GUILD + 1,
                    game="bigcityz")
    boards = await storage.leaderboards(GUILD, ["bigcity", "bigcityz", "cityscape"], limit=2)
    assert {game: [r.player_id for r in rows] for game, rows in boards.items()} == {
        "bigcity": [], "bigcityz": ["3", "1"], "cityscape": ["2", "1"]}
    assert boards["bigcityz"][1].best == 70


async def test_saving_the_final_results_twice_counts_the_game_once(
        storages: OpenStorage) -> None:
    storage = await storages()
    match = await _finished(storage, [_row("1", "Ann", 10, True)])
    await storage.save(match, results=[_row("1", "Ann", 12, True)])
    board = await storage.leaderboard(GUILD, "cityscape")
    assert [(r.games, r.best) for r in board] == [(1, 12)]


async def test_extra_totals_add_up_each_players_numbers(storages: OpenStorage) -> None:
    storage = await storages()
    await _finished(storage, [_row("1", "Ann", 10, True, objections=2, objections_justified=1,
                                   placed=5, note="text", lucky=True),
                              _row("cpu1", "Ada", 9, False, cpu=True, objections=7)],
                    channel=61, game="bigcityz")
    await _finished(storage, [_row("1", "Ann", 10, True, objections=1, objections_justified=1),
                              _row("2", "Bob", 5, False)], channel=62, game="bigcityz")
    await _finished(storage, [_row("1", "Ann", 10, True, objections=50)], channel=63,
                    game="bigcityz", guild=GUILD + 1)
    totals = {r.player_id: r.extra for r in await storage.leaderboard(GUILD, "bigcityz")}
    # text and yes/no values are not numbers to add; computers and other servers stay out
    assert totals == {"1": {"objections": 3, "objections_justified": 2, "placed": 5},
                      "2": {}}
    assert await storage.leaderboard(GUILD, "cityscape") == []


async def test_a_number_a_player_had_not_counted_before_starts_from_zero(
        storages: OpenStorage) -> None:
    storage = await storages()
    await _finished(storage, [_row("1", "Ann", 10, True, placed=4)], channel=71,
                    game="bigcityz")
    await _finished(storage, [_row("1", "Ann", 8, False, placed=3, objections=2)], channel=72,
                    game="bigcityz")
    board = await storage.leaderboard(GUILD, "bigcityz")
    assert [r.extra for r in board] == [{"placed": 7, "objections": 2}]


async def test_results_written_again_keep_the_win_and_the_numbers(storages: OpenStorage) -> None:
    storage = await storages()
    await _finished(storage, [_row("1", "Ann", 30, True, placed=4)], channel=73)
    match = await _finished(storage, [_row("1", "Ann", 10, True, placed=5),
                                      _row("2", "Bob", 12, False)], channel=74)
    await storage.save(match, results=[_row("1", "Ann", 11, True, placed=6),
                                       _row("2", "Bob", 12, False)])
    board = await storage.leaderboard(GUILD, "cityscape")
    assert [(r.player_id, r.games, r.wins, r.best, r.extra) for r in board] == [
        ("1", 2, 2, 30, {"placed": 10}), ("2", 1, 0, 12, {})]


# -- finished games ---------------------------------------------------------------------------


async def _played_to_the_end(storage: Storage) -> Match:
    match = await storage.create_match(_match(status=ACTIVE))
    for version, (player, lot) in enumerate((("1", "A1"), ("cpu1", "B2"), ("1", "C3")), 2):
        match.version = version
        match.state = {"phase": "play", "built": version - 1}
        await storage.save(match, action={"lot": lot}, player=player)
    match.version = 5
    match.status = OVER
    match.state = {"phase": "over", "built": 4}
    await storage.save(match, action={"lot": "D4"}, player="cpu1",
                       results=[_row("1", "Ann", 3, True)])
    return match


MOVES = [("1", {"lot": "A1"}), ("cpu1", {"lot": "B2"}), ("1", {"lot": "C3"}),
         ("cpu1", {"lot": "D4"})]


async def test_a_finished_game_keeps_its_moves_and_final_board(
        tmp_path: Path, storages: OpenStorage) -> None:
    storage = await storages()
    match = await _played_to_the_end(storage)
    again = await storages(tmp_path / "db.sqlite3")
    assert await again.actions(match.id) == MOVES
    final = await again.get(match.id)
    assert final is not None and final.state == {"phase": "over", "built": 4}
    assert await again.unfinished() == []


async def test_a_finished_game_saved_again_keeps_its_moves_and_final_board(
        tmp_path: Path, storages: OpenStorage) -> None:
    # The table message of a finished game can change afterwards (re-posted, say); saving
    # that must not lose the archived log or the final board.
    storage = await storages()
    match = await _played_to_the_end(storage)
    match.table_message_id = 777
    await storage.save(match)
    without_state = await storage.get(match.id)
    assert without_state is not None
    without_state.state = None  # "leave the board as it is"
    without_state.table_message_id = 778
    await storage.save(without_state)
    again = await storages(tmp_path / "db.sqlite3")
    assert await again.actions(match.id) == MOVES
    final = await again.get(match.id)
    assert final is not None and final.table_message_id == 778
    assert final.state == {"phase": "over", "built": 4}


async def test_the_database_remembers_which_board_the_table_message_shows(
        tmp_path: Path, storages: OpenStorage) -> None:
    # After a restart only tables that are behind are drawn again; the mark never goes back
    # (a slow edit of an older board finishing late must not make a table look stale).
    storage = await storages()
    match = await storage.create_match(_match(status=ACTIVE))
    fresh = await storage.get(match.id)
    assert fresh is not None and fresh.table_version is None
    await storage.mark_shown(match.id, 5)
    await storage.mark_shown(match.id, 3)
    again = await storages(tmp_path / "db.sqlite3")
    assert [m.table_version for m in await again.unfinished()] == [5]
    await again.mark_shown(match.id, 6)
    seen = await again.get(match.id)
    assert seen is not None and seen.table_version == 6


async def test_stats_show_the_top_ten(storages: OpenStorage) -> None:
    storage = await storages()
    for n in range(12):
        await _finished(storage, [_row(str(100 + n), f"P{n}", n, False)], channel=80 + n)
    board = await storage.leaderboard(GUILD, "cityscape")
    assert [r.best for r in board] == list(range(11, 1, -1))


async def test_the_log_on_disk_says_which_moves_the_computer_made(
        tmp_path: Path, storages: OpenStorage) -> None:
    storage = await storages()
    match = await storage.create_match(_match(status=ACTIVE))
    match.version = 2
    await storage.save(match, action={"lot": "A1"}, player="1")
    match.version = 3
    await storage.save(match, action={"lot": "B2"}, player="cpu1", by_computer=True)

    def logged() -> Job[list[tuple[int, str, int]]]:
        rows = yield fetch_all("SELECT seq, player, by_computer FROM actions ORDER BY seq")
        return [tuple(row) for row in rows]

    assert await storage.run(logged) == [(2, "1", 0), (3, "cpu1", 1)]


async def test_a_closed_database_refuses_writes_in_a_sentence(storages: OpenStorage) -> None:
    # Shutting down: a move arriving after the database closed is refused, not left waiting
    # for an answer that never comes.
    storage = await storages()
    await storage.close()
    with pytest.raises(StorageError, match=said("The database is closed.")):
        await storage.create_match(_match())
    await storage.close()  # closing twice is harmless (the fixture closes it again too)


async def test_a_write_its_own_savepoint_cannot_undo_fails_and_the_next_write_lands(
        sqlite_storages: OpenStorage, caplog: pytest.LogCaptureFixture) -> None:
    # The fallback for a batch that cannot be committed (a disk error, say): everything in
    # it is undone, the log says why, and the writer goes on with the next batch.
    storage = await sqlite_storages()
    match = await storage.create_match(_match())

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE matches SET status='ended' WHERE id=?", (match.id,))
        conn.execute("RELEASE job")  # out from under the writer's own savepoint
        raise RuntimeError("broken job")

    with pytest.raises(sqlite3.OperationalError, match="no such savepoint"):
        await storage.write(broken)
    assert [r.getMessage() for r in caplog.records if r.name == "bot.core.storage"] == [
        "database write failed: no such savepoint: job"]
    later = await storage.create_match(_match(21))
    assert [(m.id, m.status) for m in await storage.unfinished()] == [
        (match.id, LOBBY), (later.id, LOBBY)]


async def hold_the_writer(storage: Storage) -> tuple[asyncio.Task[None], threading.Event]:
    """A write that keeps the writer busy until the returned event is set."""
    running, release = threading.Event(), threading.Event()

    def hold(conn: sqlite3.Connection) -> None:
        running.set()
        release.wait(10)

    task = asyncio.create_task(storage.write(hold))
    await asyncio.to_thread(running.wait, 10)
    return task, release


async def _queued(storage: Storage, count: int) -> None:
    """Until ``count`` jobs wait behind the held one (the writer's queue is private)."""
    while storage._writer._queue.qsize() < count:
        await asyncio.sleep(0.01)


async def test_moves_queued_together_share_commits_of_at_most_256(
        tmp_path: Path, sqlite_storages: OpenStorage) -> None:
    # Group commit: one fsync for many moves, but no transaction grows without bound.
    storage = await sqlite_storages()
    assert storage.commits == 0  # opening (and creating the tables) is not counted
    held, release = await hold_the_writer(storage)

    def mark(n: int) -> Callable[[sqlite3.Connection], None]:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO matches (guild_id, channel_id, game, status, host_id,"
                         " seats, options, seed, created_at, updated_at) VALUES"
                         " (1, ?, 'cityscape', 'over', '1', '[]', '{}', 1, 0, 0)", (n,))
        return work

    queued = [asyncio.create_task(storage.write(mark(n))) for n in range(257)]
    await _queued(storage, 257)
    release.set()
    await asyncio.gather(held, *queued)
    assert storage.commits == 3  # the held write, then 256, then 1
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 257


async def test_closing_with_moves_still_queued_saves_every_one(
        tmp_path: Path, sqlite_storages: OpenStorage) -> None:
    storage = await sqlite_storages()
    match = await storage.create_match(_match(status=ACTIVE))
    held, release = await hold_the_writer(storage)
    saves = []
    for version in range(2, 6):
        match.version = version
        saves.append(asyncio.create_task(storage.save(match, action={"n": version}, player="1")))
        await _queued(storage, version - 1)
    closing = asyncio.create_task(storage.close())
    await _queued(storage, 5)  # the close waits behind the four moves
    release.set()
    await asyncio.gather(held, *saves, closing)
    again = await sqlite_storages(tmp_path / "db.sqlite3")
    assert await again.actions(match.id) == [("1", {"n": n}) for n in range(2, 6)]


async def test_a_clean_shutdown_leaves_the_write_ahead_log_empty(
        tmp_path: Path, sqlite_storages: OpenStorage) -> None:
    # Even with another program reading the file (an admin's sqlite3 shell, a backup), the
    # moves are folded into the database file when the bot stops: copying that one file
    # copies every game.
    path = tmp_path / "db.sqlite3"
    storage = await sqlite_storages()
    match = await storage.create_match(_match(status=ACTIVE))
    match.version = 2
    await storage.save(match, action={"lot": "A1"}, player="1")
    with sqlite3.connect(path) as admin:
        admin.execute("SELECT COUNT(*) FROM matches").fetchone()
        await storage.close()
        assert path.with_name("db.sqlite3-wal").stat().st_size == 0


async def test_a_folder_that_cannot_be_made_is_named_with_the_cause(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    path = tmp_path / "notes.txt" / "data" / "cityhall.sqlite3"
    with pytest.raises(StorageError, match=said(
            f"Cannot create the folder for the database {path}: Not a directory.")):
        await Storage.open(path)


async def test_a_database_that_cannot_be_upgraded_is_refused_with_the_cause_and_left_alone(
        tmp_path: Path) -> None:
    # Someone added the column by hand: the upgrade fails half way and is undone whole.
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA_V1)
        conn.execute("ALTER TABLE matches ADD COLUMN table_version INTEGER")
    # Each numbered step is its own transaction: step 1 holds, step 2 is undone whole.
    with pytest.raises(StorageError, match=said(
            f"Cannot open the database {path}: upgrading it from schema 1 to 2 failed "
            "(duplicate column name: table_version); it was left at schema 1.")):
        await Storage.open(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "match_states" not in tables and "archive" not in tables


def test_an_archived_log_keeps_every_move_its_player_and_computer_mark_and_its_time() -> None:
    # A timer's own move (no player), a computer's, a gap in the sequence (a save without a
    # move between), times kept to the second; and a log archived before (a plain list)
    # reads as it was written.
    entries: list[list[Any]] = [
        [2, "111111111111111111", {"type": "build", "lot": "A1"}, 0, 1800000000.4],
        [3, None, {"type": "timeout"}, 1, 1800000030.6],
        [5, "cpu1", {"type": "pass"}, 1, 1800000031.2],
        [6, "111111111111111111", {"type": "pass", "n": [1, 2]}, 0, 1800000100.0]]
    assert decode_log(encode_log(entries)) == [
        [2, "111111111111111111", {"type": "build", "lot": "A1"}, 0, 1800000000],
        [3, None, {"type": "timeout"}, 1, 1800000031],
        [5, "cpu1", {"type": "pass"}, 1, 1800000031],
        [6, "111111111111111111", {"type": "pass", "n": [1, 2]}, 0, 1800000100]]
    assert decode_log(encode_log([])) == []
    old = zlib.compress(json.dumps(entries).encode())
    assert decode_log(old) == entries
