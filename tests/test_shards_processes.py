"""The real thing: one PostgreSQL, two `python -m bot run` processes owning two shards each
of four, a Cityscape game running in a server on every shard. One process is killed with
SIGKILL mid-game and a replacement started with its shards: every game goes on by clicks on
its table's buttons to the end with no move lost or doubled, and /stats in each server
counts exactly its own finished game. A third process asking for an owned shard is refused
with a sentence naming it, and a process whose lease connection is cut takes its lease back
(nobody else took the shards meanwhile) and goes on."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sys
import time
import zlib
from typing import Any

import asyncpg
import pytest

from bot.core.lease import LOCK_SHARD
from bot.core.storage.jobs import decode_log
from bot.games import GAMES
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage, InteractionCallback
from tests.harness import button_id
from tests.pg_support import PgServer
from tests.process_harness import ROOT, Saved, _env
from tests.test_process_games import cityscape_move, cityscape_ready

COUNT = 4
REPLY = 30.0
pytestmark = [pytest.mark.fakediscord(shard_count=COUNT, allow_failed=True, allow_errors=True,
                                      interaction_timeout=15.0, rate_limit_scale=0.1),
              pytest.mark.timeout(150)]


class Bot:
    """One bot process owning ``shards``."""

    def __init__(self, fake: FakeDiscord, url: str, shards: tuple[int, ...],
                 **extra: str) -> None:
        self.fake, self.url, self.shards, self.extra = fake, url, shards, extra
        self.process: asyncio.subprocess.Process | None = None
        self.output = ""

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", cwd=str(ROOT),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            env=_env(DISCORD_TOKEN=self.fake.token, DISCORD_API_BASE=self.fake.api_base,
                     DATABASE_URL=self.url, SHARD_COUNT=str(COUNT),
                     SHARD_IDS=",".join(map(str, self.shards)), CPU_DELAY="0",
                     LOG_LEVEL="WARNING", TURN_SECONDS="600", RENDER_WORKERS="0",
                     DISCORD_RATE_LIMIT_SCALE=str(self.fake.rate_limit_scale), **self.extra))

    def connected(self) -> bool:
        live = {s.shard[0] for s in self.fake.sessions.values()
                if s.connection is not None and s.shard[1] == COUNT}
        return set(self.shards) <= live

    async def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()
        await self.collect()

    async def stop(self) -> None:
        if self.process is None or self.process.returncode is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), 12)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
        await self.collect()

    async def collect(self) -> None:
        if self.process is not None and self.process.stdout is not None:
            self.output += (await self.process.stdout.read()).decode(errors="replace")


class Game:
    """One server's Cityscape game, seen through the database and its table (what
    tests.test_process_games.cityscape_move needs of a session)."""

    def __init__(self, fake: FakeDiscord, db: asyncpg.Connection, guild_id: str,
                 channel_id: str, user: dict[str, Any]) -> None:
        self.fake, self.db, self.guild_id, self.channel_id = fake, db, guild_id, channel_id
        self.users = {str(user["id"]): user}
        self.user = user
        self.match_id = 0
        self.moves = 0

    async def press(self, user: dict[str, Any], message: FakeMessage, custom_id: str,
                    values: list[str] | None = None, *, commit: Any = None,
                    accepted: Any = None) -> InteractionCallback:
        if values is None:
            ix = await self.fake.click(user, message, custom_id)
        else:
            ix = await self.fake.select(user, message, custom_id, values)
        reply = await ix.seen(timeout=REPLY)
        if commit is not None:
            assert accepted is None or accepted(reply), reply.data
            self.moves += 1
        return reply

    def table_message(self, saved: Saved) -> FakeMessage:
        assert saved.table_message_id is not None
        return self.fake.message(saved.table_message_id)

    async def saved(self) -> Saved:
        row = await self.db.fetchrow(
            "SELECT m.*, s.state AS live, a.state AS archived FROM matches m"
            " LEFT JOIN match_states s ON s.match_id = m.id"
            " LEFT JOIN archive a ON a.match_id = m.id WHERE m.id=$1", self.match_id)
        text = row["live"] if row["archived"] is None else zlib.decompress(row["archived"])
        return Saved(id=row["id"], game=row["game"], status=row["status"],
                     seats=json.loads(row["seats"]), options=json.loads(row["options"]),
                     seed=row["seed"], state=None if text is None else json.loads(text),
                     version=row["version"], table_message_id=row["table_message_id"])

    async def open(self) -> None:
        fake, host = self.fake, self.user
        lobby = (await (await fake.slash(host, self.channel_id, "cityscape", ["new"],
                                         {"rounds": 1})).seen(timeout=REPLY)).message
        assert lobby is not None
        await (await fake.click(host, lobby, button_id(lobby, "Add computer"))).seen(
            timeout=REPLY)
        started = await (await fake.click(host, lobby, button_id(lobby, "Start"))).seen(
            timeout=REPLY)
        assert started.type == 7, started.data
        self.match_id = int(await self.db.fetchval(
            "SELECT id FROM matches WHERE channel_id=$1", int(self.channel_id)))

    async def table(self) -> Saved:
        """The saved game once its table shows it and the human is to move (or it is over)."""
        deadline = time.monotonic() + REPLY
        while time.monotonic() < deadline:
            saved = await self.saved()
            if saved.status != "active":
                return saved
            if saved.table_message_id is not None and saved.state is not None:
                cpus = {str(s["id"]) for s in saved.seats if s.get("cpu")}
                message = self.fake.messages.get(str(saved.table_message_id))
                if not cpus & set(GAMES["cityscape"].engine.to_act(saved.state)) \
                        and message is not None and cityscape_ready(saved, message):
                    return saved
            await asyncio.sleep(0.05)
        raise AssertionError(f"game {self.match_id} in server {self.guild_id}: the table "
                             f"did not show the saved state" + self.fake.diagnostics())

    async def play(self, moves: int | None = None) -> Saved:
        """``moves`` human moves (None: to the end)."""
        made = 0
        while True:
            saved = await self.table()
            if saved.status != "active" or (moves is not None and made >= moves):
                return saved
            await cityscape_move(self, saved)  # type: ignore[arg-type]  # a session's surface
            made += 1


async def test_two_processes_share_four_shards_and_a_replacement_takes_over(
        fake_discord: FakeDiscord, pg_server: PgServer) -> None:
    fake = fake_discord
    url = pg_server.create_database()
    # A server on every shard.
    guilds = {(int(fake.guild_id) >> 22) % COUNT: fake.guild}
    while len(guilds) < COUNT:
        guild = fake.add_guild(f"Server {len(fake.guilds)}")
        guilds.setdefault((int(guild.id) >> 22) % COUNT, guild)
    first, second = Bot(fake, url, (0, 1)), Bot(fake, url, (2, 3))
    replacement = Bot(fake, url, (0, 1))
    intruder = Bot(fake, url, (1, 2), LEASE_WAIT_SECONDS="1")
    db = await asyncpg.connect(url)
    try:
        await first.start()
        await second.start()
        await fake.wait_until(lambda: first.connected() and second.connected()
                              and len(fake.commands()) >= 3, 60, "both bots on their shards")
        games = {}
        for shard, guild in sorted(guilds.items()):
            user = await fake.add_member(f"Player{shard}", guild_id=guild.id)
            games[shard] = Game(fake, db, guild.id, next(iter(guild.channels)), user)
        for game in games.values():
            await game.open()
        # Each process drives only its own servers' games: the first three moves everywhere.
        for game in games.values():
            await game.play(3)

        # A third process asking for shard 1 (owned) and 2 (owned) is refused, by name.
        await intruder.start()
        assert intruder.process is not None
        assert await asyncio.wait_for(intruder.process.wait(), 30) == 75
        await intruder.collect()
        assert "shard 1 of 4 is held by cityhall lease" in intruder.output, intruder.output
        assert "shard 2 of 4 is held by cityhall lease" in intruder.output, intruder.output
        assert first.connected() and second.connected()

        # Every game's human has been told it is their move: a ping on screen, remembered in
        # the database so that a restart of its process neither repeats nor strands it.
        pings = {shard: await db.fetchval("SELECT value FROM kv WHERE key=$1",
                                          f"ping:{game.match_id}")
                 for shard, game in games.items()}
        assert all(pings.values()), pings

        # kill -9 the owner of shards 0 and 1 mid-game; a replacement takes them over.
        await first.kill()
        await fake.wait_until(lambda: not any(
            s.connection is not None and s.shard[0] in (0, 1)
            for s in fake.sessions.values()), 10, "the killed bot's sockets to close")
        await replacement.start()
        await fake.wait_until(replacement.connected, 60, "the replacement on shards 0 and 1")
        # Its restore (before it connects) took back only its own servers' pings: the
        # second process's games keep theirs, record and message (issue 26: a restart of
        # one process deleted every other process's pings).
        for shard in (2, 3):
            kept = await db.fetchval("SELECT value FROM kv WHERE key=$1",
                                     f"ping:{games[shard].match_id}")
            assert kept == pings[shard], (shard, kept, pings[shard])
        finals = {shard: await game.play() for shard, game in games.items()}

        for shard, game in games.items():
            final = finals[shard]
            assert final.status == "over", (shard, final.status)
            # Every move once, in order, replaying to the saved state.
            rows = await db.fetch("SELECT seq FROM actions WHERE match_id=$1 ORDER BY seq",
                                  game.match_id)
            archived = await db.fetchval("SELECT actions FROM archive WHERE match_id=$1",
                                         game.match_id)
            seqs = [r["seq"] for r in rows] or [
                row[0] for row in decode_log(archived)]
            assert seqs == list(range(2, final.version + 1)), (shard, seqs)
            stats = await (await fake.slash(game.user, game.channel_id, "stats", [], {})
                           ).seen(timeout=REPLY)
            (embed,) = (stats.data or {})["embeds"]
            board = {field["name"]: field["value"] for field in embed["fields"]}
            # Its own player's one finished (rated) game against the computer, and nobody
            # from another server.
            lines = board["Cityscape"].split("\n")
            assert len(lines) == 2, board
            assert any(f"Player{shard} — " in line and "(1 rated game)" in line
                       for line in lines), board
            assert any(line.split("** ", 1)[1].startswith("Computer (") for line in lines), board
        assert set(fake.failed_interactions) == set(), "a click was lost"
        # The lease connection of the second process is cut (a server restart, a network
        # blip): nobody else took shards 2 and 3 meanwhile, so it takes them back and goes
        # on (issue 26: it exited 75). A third process asking for them is refused again.
        assert second.process is not None
        await db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                         " WHERE application_name LIKE $1", f"cityhall lease % pid "
                         f"{second.process.pid}")
        deadline = time.monotonic() + 30
        while await db.fetchval(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                " WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = $1"
                " AND a.application_name LIKE $2", LOCK_SHARD,
                f"cityhall lease % pid {second.process.pid}") != 2:
            assert second.process.returncode is None, "it exited instead"
            assert time.monotonic() < deadline, "the lease was not taken back"
            await asyncio.sleep(0.1)
        assert second.process.returncode is None
        # The only refused requests: deleting a message already gone (Unknown Message), in
        # the killed process's servers (a ping or table it had replaced as it died). None in
        # the second process's: nobody else touched its messages.
        killed = {channel for shard in (0, 1) for channel in guilds[shard].channels}
        for error in fake.errors:
            assert error.method == "DELETE" and error.code == 10008, str(error)
            channel = re.search(r"/channels/(\d+)/", error.path)
            assert channel is not None and channel.group(1) in killed, str(error)
    finally:
        for bot in (first, second, replacement, intruder):
            await bot.stop()
        await db.close()
