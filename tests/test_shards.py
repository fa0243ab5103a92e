"""Shards in several processes: the settings that choose them, the matches each process
restores (only its servers'), and the lease that keeps two processes off the same shard."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.config import ConfigError, Settings
from bot.core.lease import FileLease, LeaseError, PostgresLease, acquire
from bot.core.records import ACTIVE, LOBBY, OVER, Match, Seat
from bot.core.runtime import Runtime
from bot.core.shards import Shards
from bot.games import GAMES

from .pg_support import PgServer
from .runtime_support import BACKENDS, storage_opener

URL = "postgresql://cityhall@127.0.0.1:5432/cityhall"


def settings(**env: str) -> Settings:
    return Settings.from_env({"DATABASE_URL": URL, **env}, dotenv=False)


def test_without_shard_settings_one_process_owns_everything() -> None:
    assert settings().shards is None


def test_some_shards_of_an_sqlite_file_are_refused() -> None:
    with pytest.raises(ConfigError) as refused:
        settings(DATABASE_URL="", SHARD_COUNT="2", SHARD_IDS="0")
    assert str(refused.value) == (
        "SHARD_IDS names only some of the shards; the others need other processes, and "
        "several processes need PostgreSQL (DATABASE_URL).")
    # All of them in one process is fine (one process, shards of its own).
    assert settings(DATABASE_URL="", SHARD_COUNT="2").shards == Shards(2, (0, 1))


def test_shard_settings_name_this_processes_shards() -> None:
    chosen = settings(SHARD_COUNT="4", SHARD_IDS="3, 1").shards
    assert chosen == Shards(4, (1, 3))
    assert chosen.label() == "shards 1, 3 of 4"
    assert settings(SHARD_COUNT="2").shards == Shards(2, (0, 1))


@pytest.mark.parametrize(("env", "sentence"), [
    ({"SHARD_IDS": "0"}, "SHARD_IDS needs SHARD_COUNT, the number of shards in all processes "
                         "together (e.g. SHARD_COUNT=4 SHARD_IDS=0,1)."),
    ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be a whole number, at least 1, not '0'."),
    ({"SHARD_COUNT": "four"}, "SHARD_COUNT must be a whole number, at least 1, not 'four'."),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "0;1"},
     "SHARD_IDS must be shard numbers separated by commas (e.g. 0,1), not '0;1'."),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "1,4"},
     "SHARD_IDS has shard 4, but with SHARD_COUNT=4 the shards are 0 to 3."),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "1,1"}, "SHARD_IDS names a shard twice: '1,1'."),
])
def test_bad_shard_settings_are_refused_in_a_sentence(env: dict[str, str],
                                                      sentence: str) -> None:
    with pytest.raises(ConfigError) as refused:
        settings(**env)
    assert str(refused.value) == sentence


def guild_on(shard: int, count: int, n: int = 0) -> int:
    """A server id that Discord puts on ``shard`` of ``count``."""
    return ((n * count + shard) << 22) | 12345


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_process_restores_only_its_shards_unfinished_matches(
        backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    async with storage_opener(backend, tmp_path, request) as open_one:
        storage = await open_one()
        made: dict[int, list[int]] = {}
        channel = 100
        for shard in range(4):
            for n, status in enumerate((LOBBY, ACTIVE, OVER)):
                channel += 1
                match = await storage.create_match(Match(
                    id=0, guild_id=guild_on(shard, 4, n), channel_id=channel,
                    game="cityscape", status=status, host_id="1", seats=[Seat("1", "Ann")],
                    options={}, seed=1))
                if status != OVER:
                    made.setdefault(shard, []).append(match.id)
        mine = await storage.unfinished(Shards.of(4, [1, 3]))
        assert sorted(m.id for m in mine) == sorted(made[1] + made[3])
        everything = await storage.unfinished()
        assert len(everything) == 8
        assert len(await storage.unfinished(Shards.of(4, range(4)))) == 8
        # The runtime of a process owning shards 1 and 3 brings back exactly those: every
        # timer and computer move it drives is in its own servers.
        runtime = Runtime(storage, GAMES, shards=Shards.of(4, [1, 3]))
        restored = await runtime.load()
        assert sorted(m.id for m in restored) == sorted(made[1] + made[3])
        assert sorted(m.id for m in runtime.unfinished()) == sorted(made[1] + made[3])


async def test_a_second_process_on_one_sqlite_file_is_refused(tmp_path: Path) -> None:
    database = str(tmp_path / "cityhall.sqlite3")
    first = await acquire(database, None, wait=0)
    assert isinstance(first, FileLease)
    try:
        with pytest.raises(LeaseError) as refused:
            await acquire(database, None, wait=0.3)
        assert str(refused.value) == (
            f"Another Cityhall process is using the database {database} (it holds "
            f"{database}.lock); two processes on one SQLite file would both drive every "
            f"game. Stop the other one, or run several processes over PostgreSQL "
            f"(DATABASE_URL) with SHARD_COUNT and SHARD_IDS.")
    finally:
        await first.close()
    # Let go (the process ended): the next one starts.
    again = await acquire(database, None, wait=0)
    await again.close()


async def test_an_owned_shard_is_refused_after_a_bounded_wait_and_naming_it(
        pg_server: PgServer) -> None:
    url = pg_server.create_database()
    first = await acquire(url, Shards.of(4, [0, 1]), wait=0)
    try:
        # Other shards are free.
        other = await acquire(url, Shards.of(4, [2, 3]), wait=0)
        await other.close()
        with pytest.raises(LeaseError) as refused:
            await acquire(url, Shards.of(4, [1, 2]), wait=0.6)
        text = str(refused.value)
        assert text.startswith("Waited 0.6 s for shards another process owns: shard 1 of 4 "
                               "is held by cityhall lease "), text
        assert text.endswith("Two processes must never drive the same shard; start this one "
                             "with other SHARD_IDS, or stop the other first."), text
        assert "shard 2" not in text
        with pytest.raises(LeaseError) as refused:
            await acquire(url, Shards.of(2, [1]), wait=0)
        assert "runs with SHARD_COUNT=4, this one with 2" in str(refused.value)
    finally:
        await first.close()
    # The owner stopped: its shards are free for its replacement (shard 2 was let go too).
    replacement = await acquire(url, Shards.of(4, [1, 2]), wait=0)
    await replacement.close()


async def _cut_lease_connections(url: str, pid: int | None = None) -> None:
    admin = await asyncpg.connect(url)
    try:
        await admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                            " WHERE application_name LIKE $1",
                            "cityhall lease%" if pid is None else f"cityhall lease % pid {pid}")
    finally:
        await admin.close()


async def test_a_lease_whose_connection_ended_is_taken_back(pg_server: PgServer) -> None:
    """A server restart or a network blip ends the lease connection and drops its locks;
    nobody else took them meanwhile, so the process takes them back and goes on (issue 26:
    it exited 75 at once)."""
    url = pg_server.create_database()
    lease = await acquire(url, Shards.of(2, [0]), wait=0)
    assert isinstance(lease, PostgresLease)
    try:
        await _cut_lease_connections(url)
        deadline = asyncio.get_running_loop().time() + 15
        while lease.regained == 0 and not lease.lost.is_set():
            assert asyncio.get_running_loop().time() < deadline, "not taken back in time"
            await asyncio.sleep(0.05)
        assert not lease.lost.is_set()
        # Held again: another process asking for shard 0 is refused.
        with pytest.raises(LeaseError, match="shard 0 of 2 is held by cityhall lease"):
            await acquire(url, Shards.of(2, [0]), wait=0)
    finally:
        await lease.close()


async def test_a_lease_another_process_took_meanwhile_is_lost(
        pg_server: PgServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the connection was down, another process took the shard: this one must stop
    driving its games (``lost``, and the bot exits 75)."""
    from bot.core import lease as lease_module

    url = pg_server.create_database()
    lease = await acquire(url, Shards.of(2, [0]), wait=0)
    assert isinstance(lease, PostgresLease)
    taken: list[Any] = []
    connect = PostgresLease._connect

    async def slow_reconnect(url_: str) -> Any:
        # The replacement gets in first while this process reconnects.
        if not taken:
            taken.append(None)  # (the replacement's own connection goes straight through)
            taken[0] = await acquire(url, Shards.of(2, [0]), wait=5)
        return await connect(url_)

    monkeypatch.setattr(lease_module.PostgresLease, "_connect", staticmethod(slow_reconnect))
    try:
        await _cut_lease_connections(url)
        await asyncio.wait_for(lease.lost.wait(), 15)
        assert "shard 0 of 2 is held by cityhall lease" in lease.why_lost
    finally:
        await lease.close()
        for other in taken:
            if other is not None:
                await other.close()


async def test_a_restart_takes_back_only_its_own_servers_pings(
        backend: str, tmp_path: Path, request: pytest.FixtureRequest,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Pings.restore with shards 1 and 3 of 4: it keeps the pings of its unfinished matches,
    clears (record and message) those of its matches that ended, and leaves every other
    process's alone, also when a record saved before 30 Nov does not name its server."""
    from types import SimpleNamespace

    from bot.ui import pings as pings_module
    from bot.ui.pings import KEY, TurnPings, _Sent

    async with storage_opener(backend, tmp_path, request) as open_one:
        storage = await open_one()
        matches: dict[str, Match] = {}
        for name, shard, status in (("mine_running", 1, ACTIVE), ("mine_over", 1, OVER),
                                    ("theirs_running", 2, ACTIVE), ("theirs_old", 2, ACTIVE),
                                    ("mine_old_over", 3, OVER)):
            matches[name] = await storage.create_match(Match(
                id=0, guild_id=guild_on(shard, 4, 0), channel_id=200 + len(matches),
                game="cityscape", status=status, host_id="1", seats=[Seat("1", "Ann")],
                options={}, seed=1))
        for name, match in matches.items():
            sent = _Sent(match.channel_id, message_id=9000 + match.id,
                         guild_id=None if "old" in name else match.guild_id)
            await storage.set_value(f"{KEY}{match.id}", sent.to_json())
        # A record of a match no longer in the database, saved before records named a server.
        await storage.set_value(f"{KEY}999", _Sent(300, message_id=9999).to_json())

        deleted: list[tuple[int, int]] = []

        async def delete(self: TurnPings, channel_id: int, message_id: int) -> None:
            deleted.append((channel_id, message_id))

        monkeypatch.setattr(pings_module.TurnPings, "_delete", delete)
        started: list[asyncio.Task[None]] = []
        bot = SimpleNamespace(storage=storage, runtime=SimpleNamespace(shards=Shards.of(4, [1, 3])),
                              background=lambda job: started.append(asyncio.ensure_future(job)))
        pings = TurnPings(bot)  # type: ignore[arg-type]  # the parts restore uses
        await pings.restore({matches["mine_running"].id})
        await asyncio.gather(*started)

        left = {int(key[len(KEY):]) for key, _ in await storage.values_with_prefix(KEY)}
        assert left == {matches[n].id for n in ("mine_running", "theirs_running", "theirs_old")}
        assert sorted(deleted) == sorted(
            [(matches[n].channel_id, 9000 + matches[n].id) for n in ("mine_over", "mine_old_over")]
            + [(300, 9999)])
        assert set(pings._sent) == {matches["mine_running"].id}
