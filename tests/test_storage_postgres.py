"""What only the PostgreSQL backend has: a server that can be away, a database shared with
other programs, and a schema kept in a table instead of SQLite's header.

Everything both backends keep alike is tested on both in tests/test_storage.py.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import socket

import asyncpg
import pytest

from bot.core.records import ACTIVE, OVER, Match, Seat
from bot.core.storage import SCHEMA_VERSION, ResultRow, Storage, StorageError

from .pg_support import PgServer
from .runtime_support import said

GUILD = 10


def _match(channel: int, *, status: str = ACTIVE) -> Match:
    return Match(id=0, guild_id=GUILD, channel_id=channel, game="cityscape", status=status,
                 host_id="1", seats=[Seat("1", "Ann"), Seat("cpu1", "Ada (computer)", True)],
                 options={"rounds": 2}, seed=1234)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_server_that_cannot_be_reached_is_one_sentence_without_the_password() -> None:
    port = _closed_port()
    with pytest.raises(StorageError) as caught:
        await Storage.open(f"postgresql://cityhall:s3cret@127.0.0.1:{port}/cityhall")
    assert str(caught.value) == (
        f"Cannot reach the database server cityhall@127.0.0.1:{port}/cityhall: the connection "
        "was refused (is the server running, and on that port?).")


async def test_sqlite_only_work_is_refused_on_postgresql(pg_server: PgServer) -> None:
    """``Storage.write`` runs a function on an SQLite connection; on PostgreSQL it must
    refuse at once rather than hand it something else (code for both uses ``run``)."""
    storage = await Storage.open(pg_server.create_database())
    try:
        with pytest.raises(TypeError) as refused:
            await storage.write(lambda conn: None)
        assert str(refused.value) == "Storage.write takes SQLite work; use Storage.run"
    finally:
        await storage.close()


async def test_a_database_that_does_not_exist_is_named(pg_server: PgServer) -> None:
    with pytest.raises(StorageError, match=said(
            f"Cannot reach the database server postgres@127.0.0.1:{pg_server.port}/nowhere: "
            'database "nowhere" does not exist.')):
        await Storage.open(pg_server.url("nowhere"))


async def test_another_programs_database_is_refused_and_left_alone(pg_server: PgServer) -> None:
    url = pg_server.create_database()
    other = await asyncpg.connect(url)
    try:
        await other.execute("CREATE TABLE invoices (id INTEGER)")
        with pytest.raises(StorageError, match=said(
                f"Cannot open the database postgres@127.0.0.1:{pg_server.port}/"
                f"{url.rsplit('/', 1)[1]}: it is not a Cityhall database: it has the tables "
                "invoices but not actions, matches, results.")):
            await Storage.open(url)
        tables = {r[0] for r in await other.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema='public'")}
        assert tables == {"invoices"}
    finally:
        await other.close()


async def test_a_database_from_a_newer_cityhall_is_refused(pg_server: PgServer) -> None:
    url = pg_server.create_database()
    storage = await Storage.open(url)
    await storage.close()
    admin = await asyncpg.connect(url)
    try:
        await admin.execute("UPDATE cityhall_schema SET version=$1", SCHEMA_VERSION + 1)
    finally:
        await admin.close()
    with pytest.raises(StorageError, match=f"it was written by a newer Cityhall \\(schema "
                                           f"{SCHEMA_VERSION + 1}; this one knows up to "
                                           f"{SCHEMA_VERSION}\\)"):
        await Storage.open(url)


async def test_two_bots_starting_at_once_set_the_database_up_once(pg_server: PgServer,
                                                                   caplog: pytest.LogCaptureFixture
                                                                   ) -> None:
    url = pg_server.create_database()
    with caplog.at_level(logging.INFO, logger="bot.core.postgres"):
        first, second = await asyncio.gather(Storage.open(url), Storage.open(url))
    try:
        assert [r.getMessage() for r in caplog.records
                if r.getMessage().startswith("Setting up")] == [
            f"Setting up a new database at postgres@127.0.0.1:{pg_server.port}/"
            f"{url.rsplit('/', 1)[1]} (schema {SCHEMA_VERSION})."]
        made = await first.create_match(_match(20))
        assert await second.get(made.id) == made
    finally:
        await first.close()
        await second.close()


async def test_moves_in_flight_while_the_server_restarts_are_saved_once_each(
        pg_server: PgServer, caplog: pytest.LogCaptureFixture) -> None:
    """The server crashes under load and comes back: every move a player was told was
    saved is there, once, in order, and the moves in flight are saved when it is back."""
    storage = await Storage.open(pg_server.create_database())
    try:
        matches = [await storage.create_match(_match(100 + n)) for n in range(16)]
        saved: dict[int, list[int]] = {m.id: [] for m in matches}
        playing = True

        async def play(match: Match) -> None:
            while playing:
                match.version += 1
                match.state = {"built": match.version}
                await storage.save(match, action={"n": match.version}, player="1")
                saved[match.id].append(match.version)

        async def until(moves: int) -> None:
            while sum(map(len, saved.values())) < moves:
                await asyncio.sleep(0.01)

        with caplog.at_level(logging.WARNING, logger="bot.core.postgres"):
            players = [asyncio.create_task(play(m)) for m in matches]
            await until(200)
            await asyncio.to_thread(pg_server.stop, crash=True)
            # (answers the server sent before it went are still read for a moment)
            await asyncio.sleep(0.3)
            during = sum(map(len, saved.values()))
            await asyncio.sleep(0.5)
            assert sum(map(len, saved.values())) == during  # nobody is told "saved" meanwhile
            await asyncio.to_thread(pg_server.start)
            await until(during + 200)
            playing = False
            await asyncio.gather(*players)
        messages = [r.getMessage() for r in caplog.records]
        assert any(m.startswith("Lost the connection to the database server") for m in messages)
        assert any(" is back after " in m for m in messages)
        for match in matches:
            moves = [action["n"] for _player, action in await storage.actions(match.id)]
            assert moves == saved[match.id] == list(range(1, match.version + 1))
            again = await storage.get(match.id)
            assert again is not None and again.state == {"built": match.version}
        # a game finished after the restart is counted once
        last = matches[0]
        last.status, last.version = OVER, last.version + 1
        await storage.save(last, results=[ResultRow("1", "Ann", False, 9, True, {})])
        board = await storage.leaderboard(GUILD, "cityscape")
        assert [(r.player_id, r.games, r.wins) for r in board] == [("1", 1, 1)]
    finally:
        if pg_server.process is None:
            pg_server.start()
        await storage.close()


async def test_a_server_away_longer_than_the_wait_fails_the_move_in_a_sentence(
        pg_server: PgServer) -> None:
    storage = await Storage.open(pg_server.create_database())
    try:
        match = await storage.create_match(_match(30))
        storage._backend.retry_seconds = 0.3  # type: ignore[attr-defined]
        await asyncio.to_thread(pg_server.stop)
        match.version = 1
        with pytest.raises(StorageError, match=(
                rf"^Lost the database server postgres@127\.0\.0\.1:{pg_server.port}/\w+ and it "
                r"did not come back within 0\.3 s \(.*\); this was not saved\.$")):
            await storage.save(match, action={"n": 1}, player="1")
        await asyncio.to_thread(pg_server.start)
        # back: the next move lands, and the refused one was never half written
        await storage.save(match, action={"n": 1}, player="1")
        assert await storage.actions(match.id) == [("1", {"n": 1})]
    finally:
        if pg_server.process is None:
            pg_server.start()
        await storage.close()


@pytest.mark.parametrize("reached_the_server", [True, False])
async def test_a_commit_whose_answer_was_lost_is_neither_repeated_nor_lost(
        pg_server: PgServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        reached_the_server: bool) -> None:
    """The connection breaks while COMMIT is on its way: whether the server committed is
    asked once it answers again. Committed, the move is not written a second time (its
    number would be refused); not committed, it is written once."""
    storage = await Storage.open(pg_server.create_database())
    try:
        match = await storage.create_match(_match(40))
        cut, _ = _cut_the_first_commit(monkeypatch, reached_the_server=reached_the_server)
        await _save_through_the_cut(storage, match, cut, caplog, reached_the_server)
    finally:
        await storage.close()



async def _save_through_the_cut(storage: Storage, match: Match, cut: list[str],
                                caplog: pytest.LogCaptureFixture,
                                reached_the_server: bool) -> None:
    """Save the match's first move through a COMMIT that is cut off; it is on disk once,
    and the log says how the commit in doubt was settled."""
    match.version = 1
    with caplog.at_level(logging.INFO, logger="bot.core.postgres"):
        await storage.save(match, action={"n": 1}, player="1")
    assert cut == ["COMMIT"]
    assert await storage.actions(match.id) == [("1", {"n": 1})]
    outcome = "committed on the server." if reached_the_server else \
        "aborted on the server; running it again."
    assert f"A commit cut off by the lost connection was {outcome}" in [
        r.getMessage() for r in caplog.records]

def _cut_the_first_commit(monkeypatch: pytest.MonkeyPatch, *, reached_the_server: bool,
                          server_sees_it: bool = True) -> tuple[list[str], list[int]]:
    """The connection of the first COMMIT breaks while it is on its way: before the server
    got it, or after it committed (the answer is lost). With ``server_sees_it=False`` the
    cut is in the network and the server does not learn of it: its backend stays, idle in
    its transaction (its socket is kept open here: the second list holds it, to close)."""
    execute = asyncpg.connection.Connection.execute
    cut: list[str] = []
    kept: list[int] = []

    async def cut_off_commit(self: asyncpg.Connection, query: str, *args: object,
                             **kwargs: object) -> str:
        if query != "COMMIT" or cut:
            return await execute(self, query, *args, **kwargs)
        cut.append(query)
        if reached_the_server:
            await execute(self, query)
        if server_sees_it:
            self.terminate()  # the answer (or the COMMIT itself) is lost with the connection
        else:
            # the socket stays open (a copy of it), and nothing is said to the server
            kept.append(os.dup(self._transport.get_extra_info("socket").fileno()))
            self._transport.abort()
            await asyncio.sleep(0)  # asyncpg learns of it first, as from a real cut
        raise asyncpg.ConnectionDoesNotExistError(
            "connection was closed in the middle of operation")

    monkeypatch.setattr(asyncpg.connection.Connection, "execute", cut_off_commit)
    return cut, kept


def _reusing_the_transaction_id(monkeypatch: pytest.MonkeyPatch, xid: str) -> None:
    """Every transaction asked for its id is told ``xid``: as after a server crash that lost
    the WAL which had handed an id out, and gave the id again to a transaction that
    committed."""
    for name in ("execute", "fetch", "fetchrow", "fetchval"):
        original = getattr(asyncpg.connection.Connection, name)

        async def reusing(self: asyncpg.Connection, query: str, *args: object,
                          _original: object = original, **kwargs: object) -> object:
            query = query.replace("pg_current_xact_id()", f"'{xid}'::xid8")
            return await _original(self, query, *args, **kwargs)  # type: ignore[operator]

        monkeypatch.setattr(asyncpg.connection.Connection, name, reusing)


@pytest.mark.parametrize("reached_the_server", [True, False])
async def test_a_commit_in_doubt_is_judged_by_its_own_mark_not_a_reused_transaction_id(
        pg_server: PgServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        reached_the_server: bool) -> None:
    """A crash can make the server hand a lost transaction's id to another one that commits:
    asked about that id, it says "committed" for a move that was not saved. The move's own
    mark decides: lost, it is saved again (once); committed, it is not written twice."""
    url = pg_server.create_database()
    storage = await Storage.open(url)
    other = await asyncpg.connect(url)
    try:
        match = await storage.create_match(_match(50))
        async with other.transaction():
            xid = await other.fetchval("SELECT pg_current_xact_id()::text")  # takes an id
        assert await other.fetchval("SELECT pg_xact_status($1::text::xid8)", xid) == "committed"
        _reusing_the_transaction_id(monkeypatch, xid)
        cut, _ = _cut_the_first_commit(monkeypatch, reached_the_server=reached_the_server)
        match.version = 1
        with caplog.at_level(logging.INFO, logger="bot.core.postgres"):
            await storage.save(match, action={"n": 1}, player="1")
        assert cut == ["COMMIT"]
        assert await storage.actions(match.id) == [("1", {"n": 1})]
        again = await storage.get(match.id)
        assert again is not None and again.version == 1
        outcome = "committed on the server." if reached_the_server else \
            "aborted on the server; running it again."
        assert f"A commit cut off by the lost connection was {outcome}" in [
            r.getMessage() for r in caplog.records]
    finally:
        await other.close()
        await storage.close()


async def test_a_commit_cut_off_in_the_network_ends_the_transaction_left_on_the_server(
        pg_server: PgServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The network, not the server, failed: the old backend still holds the move's
    transaction (and its rows' locks) and would never learn that its client is gone. The
    move is saved once, without waiting for it, and it is ended."""
    url = pg_server.create_database()
    storage = await Storage.open(url)
    admin = await asyncpg.connect(url)
    kept: list[int] = []
    try:
        storage._backend.retry_seconds = 10  # type: ignore[attr-defined]
        match = await storage.create_match(_match(60))
        cut, kept = _cut_the_first_commit(monkeypatch, reached_the_server=False,
                                          server_sees_it=False)
        match.version = 1
        await storage.save(match, action={"n": 1}, player="1")
        assert cut == ["COMMIT"] and len(kept) == 1
        assert await storage.actions(match.id) == [("1", {"n": 1})]
        # the next move is not held up by the old transaction's locks either
        match.version = 2
        await storage.save(match, action={"n": 2}, player="1")
        assert await storage.actions(match.id) == [("1", {"n": 1}), ("1", {"n": 2})]
        assert await admin.fetchval("SELECT count(*) FROM pg_stat_activity"
                                    " WHERE state LIKE 'idle in transaction%'") == 0
    finally:
        for fd in kept:
            os.close(fd)
        await admin.close()
        await storage.close()


async def test_the_commit_marks_stay_as_many_as_the_connections(pg_server: PgServer) -> None:
    """Each write marks a row of its own slot; slots are reused, so the table holds about as
    many rows as the pool has connections, and a start removes the rows of slots nobody
    has written for a day."""
    url = pg_server.create_database()
    storage = await Storage.open(url)
    admin = await asyncpg.connect(url)
    try:
        matches = [await storage.create_match(_match(200 + n)) for n in range(16)]

        async def play(match: Match) -> None:
            for _ in range(20):
                match.version += 1
                await storage.save(match, action={"n": match.version}, player="1")

        await asyncio.gather(*map(play, matches))
        assert 1 <= await admin.fetchval("SELECT count(*) FROM cityhall_commits") <= 10
        await admin.execute("INSERT INTO cityhall_commits (slot, token, at)"
                            " VALUES (1, 1, now() - interval '25 hours')")
        await storage.close()
        storage = await Storage.open(url)
        slots = {r[0] for r in await admin.fetch("SELECT slot FROM cityhall_commits")}
        assert 1 not in slots and 1 <= len(slots) <= 10
    finally:
        await admin.close()
        await storage.close()


@pytest.mark.parametrize("reached_the_server", [True, False])
async def test_a_commit_cut_off_by_a_server_crash_is_settled_by_its_mark_after_recovery(
        pg_server: PgServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        reached_the_server: bool) -> None:
    """The server crashes while a move's COMMIT is on its way (before it got it, or just
    after it committed) and replays its WAL on restart: the move is there once."""
    storage = await Storage.open(pg_server.create_database())
    try:
        match = await storage.create_match(_match(70))
        execute = asyncpg.connection.Connection.execute
        cut: list[str] = []

        async def crash_at_commit(self: asyncpg.Connection, query: str, *args: object,
                                  **kwargs: object) -> str:
            if query != "COMMIT" or cut:
                return await execute(self, query, *args, **kwargs)
            cut.append(query)
            if reached_the_server:
                await execute(self, query)
            await asyncio.to_thread(pg_server.stop, crash=True)
            await asyncio.to_thread(pg_server.start)
            raise asyncpg.ConnectionDoesNotExistError(
                "connection was closed in the middle of operation")

        monkeypatch.setattr(asyncpg.connection.Connection, "execute", crash_at_commit)
        await _save_through_the_cut(storage, match, cut, caplog, reached_the_server)
    finally:
        if pg_server.process is None:
            pg_server.start()
        await storage.close()


def test_a_start_waits_only_for_a_server_that_is_not_there_yet() -> None:
    """At start the bot waits (DATABASE_WAIT_SECONDS) for a PostgreSQL server that is down
    or still starting, wherever in the chain of causes that shows, and not for one that
    refused it: a wrong password or a missing database will not mend itself."""
    from bot.core.storage.postgres import server_unreachable

    def caused_by(*chain: BaseException) -> BaseException:
        for outer, inner in itertools.pairwise(chain):
            outer.__cause__ = inner
        return chain[0]

    refused = asyncpg.InvalidPasswordError("password authentication failed")
    assert server_unreachable(caused_by(StorageError("x"), ConnectionRefusedError(111, "no")))
    assert server_unreachable(caused_by(StorageError("x"), RuntimeError("y"),
                                        asyncpg.CannotConnectNowError("starting up")))
    assert not server_unreachable(caused_by(StorageError("x"), refused))
    assert not server_unreachable(StorageError("x"))
    assert not server_unreachable(None)
