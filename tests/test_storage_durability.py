"""Saved means saved: concurrent matches never share a fate, a kill -9 loses no acknowledged
move, and a finished game is archived small but complete."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import signal
import sqlite3
import sys
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core.records import LOBBY, OVER, Match, Seat
from bot.core.runtime import Limits, Runtime
from bot.core.storage import (
    SCHEMA_V1,
    SCHEMA_VERSION,
    SQLITE,
    ChannelBusy,
    Job,
    Storage,
    StorageError,
    fetch_all,
    fetch_one,
)
from bot.games import GAMES
from bot.tools.replay import replay

from .runtime_support import BACKENDS, OpenRuntime, runtimes
from .test_storage import hold_the_writer

__all__ = ["runtimes"]  # the fixture, used by name

ROOT = Path(__file__).resolve().parent.parent
ANN, BOB = Seat("1", "Ann"), Seat("2", "Bob")
CITYSCAPE = GAMES["cityscape"].engine

# One host opens every game here; the per-member cap is not what these tests are about.
ONE_HOST_MANY_GAMES = Limits(matches_per_user=1000)


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[Runtime]:
    storage = await Storage.open(tmp_path / "db.sqlite3")
    try:
        yield Runtime(storage, GAMES, turn_seconds=3600, limits=ONE_HOST_MANY_GAMES)
    finally:
        await storage.close()


@pytest.fixture(params=BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's bot keeps its games: an SQLite file, or a fresh PostgreSQL database."""
    if request.param == "postgresql":
        return str(request.getfixturevalue("pg_server").create_database())
    return str(tmp_path / "db.sqlite3")


async def _saved(storage: Storage, match_id: int) -> tuple[int, list[int]]:
    """The version and the logged move numbers of a match as the database has them."""
    def read() -> Job[tuple[int, list[int]]]:
        row = yield fetch_one("SELECT version FROM matches WHERE id=?", (match_id,))
        rows = yield fetch_all("SELECT seq FROM actions WHERE match_id=? ORDER BY seq",
                               (match_id,))
        return row[0], [r[0] for r in rows]
    return await storage.run(read)


async def _started(runtime: Runtime, channel: int, *seats: Seat) -> Match:
    match = await runtime.open_lobby(10, channel, "cityscape", seats[0], {"rounds": 1})
    for seat in seats[1:]:
        await runtime.join(match.id, seat)
    return await runtime.start(match.id, seats[0].id)


async def _next_move(runtime: Runtime, match_id: int) -> tuple[str, dict[str, object]]:
    match = runtime.get(match_id)
    assert match is not None and match.state is not None
    player = CITYSCAPE.to_act(match.state)[0]
    return player, GAMES[CITYSCAPE.name].computer.normal(match.state, player)


def _on_disk(path: Path, match_id: int) -> tuple[int, list[int]]:
    with sqlite3.connect(path) as conn:
        version = conn.execute("SELECT version FROM matches WHERE id=?", (match_id,)).fetchone()[0]
        seqs = [r[0] for r in conn.execute(
            "SELECT seq FROM actions WHERE match_id=? ORDER BY seq", (match_id,))]
    return version, seqs


async def test_a_refused_new_game_cannot_roll_back_another_channels_move(
        runtime: Runtime, tmp_path: Path) -> None:
    """The bug this replaced: saves of different matches interleaved in one transaction, and
    a refused /new's rollback took another match's move with it after it was answered."""
    storage = runtime.storage
    match = await _started(runtime, 20, ANN, BOB)
    player, action = await _next_move(runtime, match.id)

    # Hold the writer inside a transaction, so that the move and the refused /new are
    # queued together and committed by the same transaction.
    held, release = await hold_the_writer(storage)
    commits = storage.commits
    move = asyncio.ensure_future(runtime.act(match.id, player, action))
    busy = Match(id=0, guild_id=10, channel_id=20, game="cityscape", status=LOBBY,
                 host_id="3", seats=[Seat("3", "Cy")], options={}, seed=1)
    refused = asyncio.ensure_future(storage.create_match(busy))
    for _ in range(100):
        await asyncio.sleep(0.01)  # let both reach the writer's queue
    release.set()
    await held
    outcome = await move
    with pytest.raises(ChannelBusy):
        await refused
    assert storage.commits == commits + 2  # the hold, then the move and the refusal together

    # What a fresh process would find: the answered move, with its action row.
    version, seqs = _on_disk(tmp_path / "db.sqlite3", match.id)
    assert version == outcome.match.version == 2
    assert seqs == [2]


async def test_a_failed_commit_changes_nothing_in_memory(tmp_path: Path) -> None:
    """Another process holds the database: the move fails with a sentence-able error and the
    match in memory stays at what is on disk."""
    path = tmp_path / "db.sqlite3"
    storage = await Storage.open(path, busy_timeout=0.2)
    try:
        runtime = Runtime(storage, GAMES, turn_seconds=3600, limits=ONE_HOST_MANY_GAMES)
        match = await _started(runtime, 20, ANN, BOB)
        before = json.dumps(match.state)
        player, action = await _next_move(runtime, match.id)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                await runtime.act(match.id, player, action)
        finally:
            other.execute("ROLLBACK")
            other.close()
        current = runtime.get(match.id)
        assert current is not None and current.version == 1
        assert json.dumps(current.state) == before
        # and the same move goes through once the lock is gone
        outcome = await runtime.act(match.id, player, action)
        assert outcome.match.version == 2
    finally:
        await storage.close()


async def test_many_matches_saving_at_once_each_keep_every_move(database: str) -> None:
    storage = await Storage.open(database)
    try:
        await _many_matches_each_keep_every_move(Runtime(storage, GAMES, turn_seconds=3600, limits=ONE_HOST_MANY_GAMES))
    finally:
        await storage.close()


async def _many_matches_each_keep_every_move(runtime: Runtime) -> None:
    matches = [await _started(runtime, channel, ANN, BOB) for channel in range(30, 42)]

    async def play(match_id: int, moves: int) -> list[int]:
        versions = []
        for _ in range(moves):
            player, action = await _next_move(runtime, match_id)
            versions.append((await runtime.act(match_id, player, action)).match.version)
        return versions

    commits = runtime.storage.commits
    played = await asyncio.gather(*(play(m.id, 10) for m in matches))
    if runtime.storage.dialect is SQLITE:
        # group commit: far fewer transactions than moves
        assert runtime.storage.commits - commits < 12 * 10
    else:
        # PostgreSQL: a transaction per move (the server groups their flushes itself)
        assert runtime.storage.commits - commits == 12 * 10
    for match, versions in zip(matches, played, strict=True):
        assert versions == list(range(2, 12))
        assert await _saved(runtime.storage, match.id) == (11, list(range(2, 12)))


@pytest.mark.parametrize(("backend", "seed"), [
    ("sqlite", 1), ("sqlite", 2), ("sqlite", 3), ("postgresql", 1)])
async def test_kill_9_under_load_loses_no_acknowledged_move(
        tmp_path: Path, request: pytest.FixtureRequest, backend: str, seed: int) -> None:
    """200 matches moving at once and /new refusals in busy channels; the process is killed
    at a random moment. Every move it acknowledged is on disk, in order, exactly once; the
    only move that may be on disk without an acknowledgement is the one in flight."""
    path = str(tmp_path / "db.sqlite3") if backend == "sqlite" else \
        request.getfixturevalue("pg_server").create_database()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.durability_child", str(path), str(seed), cwd=str(ROOT),
        stdout=asyncio.subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.stdout is not None
    assert (await asyncio.wait_for(process.stdout.readline(), 30)).strip() == b"started"
    # The kill comes at a random moment once the child has both acknowledged moves and
    # refused a /new, however slowly a busy machine lets it get there (PostgreSQL: each move
    # a transaction of its own through a pool of 10 connections, so the first refusals come
    # later than with SQLite's group commit).
    before: list[str] = []

    async def until_both_seen() -> None:
        assert process.stdout is not None
        while not (any(x.startswith("ack ") for x in before) and "refused" in before):
            line = await process.stdout.readline()
            if not line:
                return
            before.append(line.decode().strip())

    try:
        await asyncio.wait_for(until_both_seen(), 45)
    except TimeoutError:
        pytest.fail(f"in 45 s the child did not both acknowledge a move and refuse a /new: "
                    f"{before[-3:]}")
    await asyncio.sleep(random.Random(seed).uniform(0.05, 0.9))
    process.send_signal(signal.SIGKILL)
    rest = before + (await process.stdout.read()).decode().splitlines()
    await process.wait()
    acked: dict[int, int] = {}
    refusals = 0
    created: list[int] = []
    for line in rest:
        if line.startswith("ack "):
            _, number, seen = line.split()
            acked[int(number)] = max(acked.get(int(number), 1), int(seen))
        elif line == "refused":
            refusals += 1
        elif line.startswith("CREATED "):
            created.append(int(line.split()[1]))
    assert acked and refusals, "the child did too little before the kill to prove anything"
    storage = await Storage.open(path)  # what the next process finds
    try:
        for channel in created:  # a lobby got in only where the game had finished
            def statuses_in(channel: int = channel) -> Job[list[str]]:
                rows = yield fetch_all("SELECT status FROM matches WHERE channel_id=?"
                                       " ORDER BY id", (channel,))
                return [r[0] for r in rows]
            statuses = await storage.run(statuses_in)
            assert statuses[0] == OVER and statuses[1:] == [LOBBY], statuses
        for match_id, version in acked.items():
            saved = await storage.get(match_id)
            assert saved is not None
            on_disk, seqs = await _saved(storage, match_id)
            assert on_disk == saved.version
            assert on_disk in (version, version + 1), (match_id, version, on_disk)
            if saved.status != OVER:
                assert seqs == list(range(2, on_disk + 1))
            logged = await storage.actions(match_id)
            assert len(logged) == on_disk - 1
            # the log replays to the saved state
            spec = {"game": "cityscape", "players": [s.id for s in saved.seats],
                    "seed": saved.seed, "options": saved.options,
                    "actions": [{"player": p, **a} for p, a in logged]}
            replayed = replay(spec)
            assert not replayed["rejected"]
            assert saved.state is not None
            assert replayed["state"] == CITYSCAPE.view(saved.state, None)
    finally:
        await storage.close()


async def test_a_finished_game_is_archived_small_and_still_replays(runtime: Runtime,
                                                                   tmp_path: Path) -> None:
    match = await _started(runtime, 50, ANN, BOB)
    log: list[tuple[str, dict[str, object]]] = []
    while runtime.get(match.id) is not None:
        player, action = await _next_move(runtime, match.id)
        log.append((player, action))
        await runtime.act(match.id, player, action)
    path = tmp_path / "db.sqlite3"
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM actions WHERE match_id=?",
                            (match.id,)).fetchone()[0] == 0
        state_column, = conn.execute("SELECT state FROM matches WHERE id=?",
                                     (match.id,)).fetchone()
        archived, state = conn.execute("SELECT length(actions), state FROM archive"
                                       " WHERE match_id=?", (match.id,)).fetchone()
    assert state_column is None
    # The moves alone, compressed (the last state is what they replay to: not kept).
    assert state is None and archived < 1500
    assert await runtime.storage.actions(match.id) == log
    final = await runtime.storage.get(match.id)
    assert final is not None and final.status == OVER and final.state is not None
    assert final.state["phase"] == "over"
    # After a restart the final board is the moves replayed: the same board.
    storage = await Storage.open(path)
    try:
        restarted = Runtime(storage, GAMES, turn_seconds=3600)
        assert (await storage.get(match.id)).state is None  # type: ignore[union-attr]
        replayed = await restarted.fetch(match.id)
        assert replayed is not None and replayed.state == final.state
    finally:
        await storage.close()
    # /stats reads the totals kept when the game ended
    board = await runtime.storage.leaderboard(10, "cityscape")
    assert sorted(r.name for r in board) == ["Ann", "Bob"]
    assert all(r.games == 1 for r in board) and sum(r.wins for r in board) >= 1


async def test_a_finished_games_final_board_is_its_moves_replayed_on_either_database(
        backend: str, runtimes: OpenRuntime) -> None:
    # Another process (or this one after a restart) has no final state at hand: the table
    # of a finished game is drawn from its moves replayed, and it is the same board.
    runtime = await runtimes()
    match = await _started(runtime, 51, ANN, BOB)
    while runtime.get(match.id) is not None:
        await runtime.act(match.id, *await _next_move(runtime, match.id))
    finished = await runtime.storage.get(match.id)
    assert finished is not None and finished.status == OVER and finished.state is not None
    other = await runtimes()
    stored = await other.storage.get(match.id)
    assert stored is not None and stored.state is None  # the archive kept only the moves
    replayed = await other.fetch(match.id)
    assert replayed is not None and replayed.state == finished.state
    assert CITYSCAPE.result(replayed.state) is not None


async def test_an_older_database_is_upgraded_with_its_stats_and_games(tmp_path: Path) -> None:
    """A database written before schema 2: totals are built from its results and its finished
    games are archived, so /stats and replay keep working after the upgrade."""
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA_V1)
        conn.execute("INSERT INTO matches (id, guild_id, channel_id, game, status, host_id,"
                     " seats, options, seed, state, version, extra, created_at, updated_at)"
                     " VALUES (1, 10, 20, 'cityscape', 'over', '1', '[]', '{}', 5, '{\"a\":1}',"
                     " 3, '{}', 0, 0)")
        for seq in (2, 3):
            conn.execute("INSERT INTO actions VALUES (1, ?, '1', '{\"type\":\"x\"}', 0, 0)",
                         (seq,))
        for player, won, score in (("1", 1, 40), ("2", 0, 30)):
            conn.execute("INSERT INTO results VALUES (1, 10, 'cityscape', ?, ?, 0, ?, ?,"
                         " '{\"objections\": 2}', 0)", (player, f"P{player}", score, won))
    storage = await Storage.open(path)
    try:
        board = await storage.leaderboard(10, "cityscape")
        assert [(r.name, r.games, r.wins, r.best, r.extra) for r in board] == [
            ("P1", 1, 1, 40, {"objections": 2}), ("P2", 1, 0, 30, {"objections": 2})]
        assert await storage.actions(1) == [("1", {"type": "x"}), ("1", {"type": "x"})]
        old = await storage.get(1)
        assert old is not None and old.state == {"a": 1}
        # the finished game was folded into its compressed archive row
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0] == 0
            assert conn.execute("SELECT match_id FROM archive").fetchall() == [(1,)]
    finally:
        await storage.close()


async def test_every_game_of_a_schema_1_database_comes_through_the_upgrade(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Two finished games, an abandoned one, a running game and a lobby, as the first
    Cityhall wrote them (schema 1's tables, no schema number yet): after the upgrade /stats counts the people (not the computer) with
    their latest names, replays show each game's moves in order, and the running game and the
    lobby carry on."""
    path = tmp_path / "old.sqlite3"
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.executescript(SCHEMA_V1)
        for match_id, status, state in ((1, "over", '{"a":1}'), (2, "over", '{"a":2}'),
                                        (3, "abandoned", None), (4, "active", '{"b":4}'),
                                        (5, "lobby", None)):
            conn.execute("INSERT INTO matches (id, guild_id, channel_id, game, status, host_id,"
                         " seats, options, seed, state, version, extra, created_at, updated_at)"
                         " VALUES (?, 10, ?, 'cityscape', ?, '1', '[]', '{}', 5, ?, 3, '{}', 0,"
                         " 0)", (match_id, 20 + match_id, status, state))
        # Stored out of order: the log is read back by its sequence number.
        for match_id, seq in ((1, 3), (1, 2), (4, 2), (2, 2)):
            conn.execute("INSERT INTO actions VALUES (?, ?, '1', ?, ?, 0)",
                         (match_id, seq, json.dumps({"move": seq}), int(seq == 3)))
        # Game 2 was finished later but written first: the totals take the later names.
        for match_id, player, name, cpu, won, score, at in (
                (2, "1", "Ann B", 0, 0, 25, 9), (2, "2", "Bob B", 0, 1, 50, 9),
                (1, "1", "Ann", 0, 1, 40, 5), (1, "2", "Bob", 0, 0, 30, 5),
                (1, "cpu1", "Ada (computer)", 1, 0, 90, 5)):
            conn.execute("INSERT INTO results VALUES (?, 10, 'cityscape', ?, ?, ?, ?, ?,"
                         " '{\"objections\": 2}', ?)", (match_id, player, name, cpu, score, won, at))
    caplog.set_level(logging.INFO, logger="bot.core.storage")
    storage = await Storage.open(path)
    try:
        board = await storage.leaderboard(10, "cityscape")
        assert [(r.name, r.games, r.wins, r.best, r.extra) for r in board] == [
            ("Bob B", 2, 1, 50, {"objections": 4}), ("Ann B", 2, 1, 40, {"objections": 4})]
        assert await storage.actions(1) == [("1", {"move": 2}), ("1", {"move": 3})]
        assert await storage.actions(2) == [("1", {"move": 2})]
        assert await storage.actions(3) == []
        assert [(m.id, m.status, m.state) for m in await storage.unfinished()] == [
            (4, "active", {"b": 4}), (5, "lobby", None)]
        assert await storage.actions(4) == [("1", {"move": 2})]
        finished = [await storage.get(i) for i in (1, 2, 3)]
        assert [(m.status, m.state) for m in finished if m is not None] == [
            ("over", {"a": 1}), ("over", {"a": 2}), ("abandoned", None)]
    finally:
        await storage.close()
    with contextlib.closing(sqlite3.connect(path)) as conn:
        # Each state is kept once, beside its match; finished games are one archive row each,
        # and the computer's moves stay marked as its own.
        assert conn.execute("SELECT COUNT(*) FROM matches WHERE state IS NOT NULL"
                            ).fetchone()[0] == 0
        assert conn.execute("SELECT match_id, state FROM match_states").fetchall() == [
            (4, '{"b":4}')]
        assert conn.execute("SELECT match_id, seq FROM actions").fetchall() == [(4, 2)]
        archive = conn.execute("SELECT match_id, actions, state FROM archive ORDER BY match_id"
                               ).fetchall()
    assert [(i, json.loads(zlib.decompress(log)),
             None if state is None else zlib.decompress(state).decode())
            for i, log, state in archive] == [
        (1, [[2, "1", {"move": 2}, 0, 0], [3, "1", {"move": 3}, 1, 0]], '{"a":1}'),
        (2, [[2, "1", {"move": 2}, 0, 0]], '{"a":2}'),
        (3, [], None)]
    copy = tmp_path / f"old.sqlite3.before-v{SCHEMA_VERSION}.sqlite3"
    assert [r.getMessage() for r in caplog.records if r.name == "bot.core.storage"] == [
        f"Upgrading the database {path} from schema 0 to {SCHEMA_VERSION}; a copy of it as it "
        f"was is at {copy} (to go back: stop the bot, put that copy in its place, and run the "
        "previous Cityhall).",
        "Upgrading the database from schema 0 to 1: matches, their moves and results.",
        "Upgrading the database from schema 1 to 2: states kept beside their matches, "
        "finished games archived, and per-player totals for /stats.",
        "Upgrading the database from schema 2 to 3: a table for the bot's own values, and the "
        "state version of every saved game.",
        "Upgrading the database from schema 3 to 4: ratings per server, game and season (every "
        "finished game rated in the order it finished), and indexes for the history of a "
        "server's games.",
        "Upgrading the database from schema 4 to 5: smaller finished games: an index no read "
        "used is dropped.",
    ]


async def test_a_database_from_a_newer_cityhall_is_refused_in_a_sentence(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version=99")
    with pytest.raises(StorageError, match=r"new\.sqlite3.*newer Cityhall"):
        await Storage.open(path)
