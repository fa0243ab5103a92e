"""``python -m bot migrate-db``: a server's SQLite database moved to PostgreSQL, and the bot
carrying on from it: running games restored with working buttons, finished games still
replayable, /stats the same, and the refusals an admin may meet on the way."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.core.records import ABANDONED, ACTIVE, LOBBY, OVER, Seat
from bot.core.runtime import Runtime
from bot.core.storage import SCHEMA_VERSION, Storage
from bot.games import GAMES
from bot.tools.migrate_db import url_to_set
from fakediscord import FakeDiscord
from tests.harness import answer, button_id, cityhall_bot, settle, started_table
from tests.pg_support import PgServer
from tests.runtime_support import Clock, close_runtime, open_runtime

ROOT = Path(__file__).resolve().parent.parent
GAME_NAMES = list(GAMES)


def test_the_url_to_set_keeps_everything_but_the_password() -> None:
    assert url_to_set("postgres://ann:s3cret@db.example:5433/cityhall?sslmode=require") == \
        "postgresql://ann:PASSWORD@db.example:5433/cityhall?sslmode=require"
    assert url_to_set("postgresql://cityhall@localhost/games") == \
        "postgresql://cityhall@localhost/games"
    assert url_to_set("postgresql://[::1]:5432/g?password=x&application_name=c") == \
        "postgresql://[::1]:5432/g?password=PASSWORD&application_name=c"


def migrate_db(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", "migrate-db", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


async def play_out(runtime: Runtime, match_id: int) -> None:
    """The human's moves by the computer player's choice, the computers' by the runtime."""
    for _ in range(5000):
        match = runtime.get(match_id)
        if match is None or match.status != ACTIVE:
            return
        if runtime.computers_due(match):
            await runtime.step_computer(match_id)
            continue
        engine = runtime.engine(match)
        assert match.state is not None
        player = engine.to_act(match.state)[0]
        await runtime.act(match_id, player, GAMES[engine.name].computer.normal(match.state, player))
    raise AssertionError(f"match {match_id} did not end")


async def start(runtime: Runtime, guild: int, channel: int, game: str, host: Seat) -> int:
    lobby = await runtime.open_lobby(guild, channel, game, host, {})
    await runtime.add_computer(lobby.id, host.id, "easy")
    await runtime.start(lobby.id, host.id)
    return lobby.id


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_a_sqlite_database_moves_to_postgresql_and_every_game_goes_on(
        fake_discord: FakeDiscord, tmp_path: Path, pg_server: PgServer) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    guild = int(fake.guild_id)
    ann = await fake.add_member("Ann")
    host = Seat(str(ann["id"]), "Ann")

    # A Cityscape game running in the channel, with its table message, as the bot left it.
    async with cityhall_bot(fake, db) as bot:
        table_match, _ = await started_table(fake, bot, "cityscape", ann,
                                             computers=1, options={"rounds": 1})
        await settle(bot, table_match.id)

    # In every game: one finished with results, one abandoned, one running in a channel of
    # its own, and a lobby.
    runtime = await open_runtime(db, Clock())
    running, finished = {table_match.id}, {}
    for game in GAME_NAMES:
        channel = int((await fake.add_channel(f"{game}-done"))["id"])
        done = await start(runtime, guild, channel, game, host)
        await play_out(runtime, done)
        ended = await runtime.fetch(done)
        assert ended is not None and ended.status == OVER
        finished[game] = done
        channel = int((await fake.add_channel(f"{game}-gone"))["id"])
        gone = await start(runtime, guild, channel, game, host)
        abandoned = await runtime.abandon(gone, "test: its channel was deleted")
        assert abandoned is not None and abandoned.status == ABANDONED
        channel = int((await fake.add_channel(f"{game}-on"))["id"])
        running.add(await start(runtime, guild, channel, game, host))
        channel = int((await fake.add_channel(f"{game}-lobby"))["id"])
        waiting = Seat(f"{game}-host", "Bo")  # a player may hold only a few open lobbies
        running.add((await runtime.open_lobby(guild, channel, game, waiting, {})).id)
    await runtime.storage.set_value("test:kept", "yes")
    boards = await runtime.storage.leaderboards(guild, GAME_NAMES)
    logs = {game: await runtime.storage.actions(match_id)
            for game, match_id in finished.items()}
    await close_runtime(runtime)
    assert all(boards[game] for game in GAME_NAMES)

    url = pg_server.create_database()
    moved = migrate_db("--from", f"sqlite:///{db}", "--to", url)
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert "every table holds as many rows as in the source" in moved.stdout
    assert "matches" in moved.stdout and "player_totals" in moved.stdout
    # the URL it says to set is one the bot takes: the bot below starts from it
    said = re.search(r"Set DATABASE_URL=(\S+) and start the bot\.", moved.stdout)
    assert said is not None, moved.stdout
    url = said.group(1)
    # a second run changes nothing and says so
    again = migrate_db("--from", f"sqlite:///{db}", "--to", url)
    assert again.returncode == 0 and "the copy was made before" in again.stdout

    async with cityhall_bot(fake, db, database_url=url) as bot:
        assert {m.id for m in bot.runtime.unfinished()} == running
        # the restored table's buttons work, through the same click path as before
        match = bot.runtime.get(table_match.id)
        assert match is not None and match.table_message_id is not None
        table = fake.message(match.table_message_id)
        clicked = await answer(await fake.click(ann, table, button_id(table, "My goals")))
        assert clicked.ephemeral and clicked.message is not None, clicked.data
        assert "Your secret goals" in clicked.message.content  # her goal picker, from PostgreSQL
        # every running game takes its next move
        for match in bot.runtime.unfinished():
            if match.status != ACTIVE or match.id == table_match.id:
                continue
            engine = bot.runtime.engine(match)
            assert match.state is not None
            player = engine.to_act(match.state)[0]
            if bot.runtime.computers_due(match):
                continue
            before = match.version
            outcome = await bot.runtime.act(match.id, player, GAMES[engine.name].computer.normal(match.state, player))
            assert outcome.match.version == before + 1
        # a new game takes an id after every copied one
        channel = int((await fake.add_channel("new"))["id"])
        new = await bot.runtime.open_lobby(guild, channel, "cities", Seat("9", "Zed"), {})
        assert new.id == 4 * len(GAME_NAMES) + 2
        # /stats reads the same totals
        assert await bot.runtime.storage.leaderboards(guild, GAME_NAMES) == boards
        stats = await answer(await fake.slash(ann, fake.channel_id, "stats"))
        assert "Ann" in json.dumps(stats.data)
        # a finished game's log replays to the same end
        for game, match_id in finished.items():
            assert await bot.runtime.storage.actions(match_id) == logs[game]
            saved = await bot.runtime.storage.get(match_id)
            assert saved is not None
            spec = {"game": game, "players": [s.id for s in saved.seats], "seed": saved.seed,
                    "options": saved.options,
                    "actions": [{"player": p, **a} for p, a in logs[game]]}
            out = subprocess.run([sys.executable, "-m", "bot", "replay", "-"], cwd=ROOT,
                                 input=json.dumps(spec), capture_output=True, text=True,
                                 timeout=60)
            assert out.returncode == 0 and "error" not in json.loads(out.stdout), out.stdout


async def test_migrate_db_refuses_what_it_cannot_copy_safely(
        tmp_path: Path, pg_server: PgServer) -> None:
    missing = migrate_db("--from", f"sqlite:///{tmp_path}/nothing.sqlite3",
                         "--to", pg_server.url("postgres"))
    assert missing.returncode == 1
    assert f"There is no SQLite database at {tmp_path}/nothing.sqlite3" in missing.stdout

    db = tmp_path / "cityhall.sqlite3"
    storage = await Storage.open(db)
    runtime = Runtime(storage, GAMES, clock=Clock(), turn_seconds=60)
    await runtime.open_lobby(10, 20, "cityscape", Seat("1", "Ann"), {})
    await storage.close()

    # a target that holds other rows
    url = pg_server.create_database()
    other = await Storage.open(url)
    await other.set_value("someone:else", "x")
    await other.close()
    full = migrate_db("--from", f"sqlite:///{db}", "--to", url)
    assert full.returncode == 1
    assert "is not empty (1 kv); nothing was copied" in full.stdout
    replaced = migrate_db("--from", f"sqlite:///{db}", "--to", url, "--replace")
    assert replaced.returncode == 0, replaced.stdout
    check = await Storage.open(url)
    try:
        assert await check.value("someone:else") is None
        assert [m.status for m in await check.unfinished()] == [LOBBY]
    finally:
        await check.close()

    # a source of another schema
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    newer = migrate_db("--from", f"sqlite:///{db}", "--to", pg_server.create_database())
    assert newer.returncode == 1
    assert f"has schema {SCHEMA_VERSION + 1} and this Cityhall writes schema " \
           f"{SCHEMA_VERSION}: update Cityhall first." in newer.stdout

    not_pg = migrate_db("--from", f"sqlite:///{db}", "--to", "mysql://x/y")
    assert not_pg.returncode == 1 and "--to must be a PostgreSQL URL" in not_pg.stdout
