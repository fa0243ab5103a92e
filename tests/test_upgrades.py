"""An admin who updates Cityhall while games are running keeps every game.

`tests/fixtures/upgrade-schema2.sqlite3` was written by the Cityhall of before numbered
migrations and state versions (schema 2, commit f8ef796; `scripts/make_upgrade_fixture.py`):
a lobby, running games of all four games (Big Cityz with its objection window open, Cities
with features a player still has to place), two finished games on /stats and one ended
early. These tests open a copy with today's code, as `make run` after `git pull` would.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import sqlite3
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import pytest

from bot.core.engine import JSON
from bot.core.records import ACTIVE, LOBBY, OVER, Match, Seat
from bot.core.runtime import Runtime
from bot.core.storage import SCHEMA_VERSION, Migration, Storage, StorageError, records
from bot.core.storage import schema as schema_module
from bot.core.storage.jobs import decode_log
from bot.games import GAMES
from bot.games.cityscape.engine import CityscapeEngine
from bot.tools.replay import replay

from .runtime_support import Clock, OpenRuntime, runtimes, storages

__all__ = ["runtimes", "storages"]  # the fixtures, used by name

FIXTURE = Path(__file__).parent / "fixtures" / "upgrade-schema2.sqlite3"
ANN, CY = "101", "103"
# What the fixture holds, by match id.
FINISHED_CITYSCAPE, FINISHED_BIGCITYZ, ENDED_CITYSCAPE = 1, 2, 3
RUNNING = {4: "cityscape", 5: "bigcityz", 6: "bigcity", 7: "cities"}
LOBBY_ID = 8
COMMANDS_KEY = "commands:global"
OpenStorage = Callable[..., Awaitable[Storage]]


def copy_fixture(tmp_path: Path) -> Path:
    path = tmp_path / "cityhall.sqlite3"
    shutil.copyfile(FIXTURE, path)
    return path


def schema_of(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


def results_of(path: Path, match_id: int) -> dict[str, tuple[int, bool]]:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        rows = conn.execute("SELECT player_id, score, won FROM results WHERE match_id=?",
                            (match_id,)).fetchall()
    return {player: (score, bool(won)) for player, score, won in rows}


async def play_to_the_end(runtime: Runtime, match_id: int) -> None:
    """Everyone due moves: computer players by themselves, humans by 'clicking' the move the
    computer player would make for them (Big Cityz objectors included)."""
    for _ in range(3000):
        match = runtime.get(match_id)
        if match is None:
            return
        assert match.state is not None
        engine = runtime.engine(match)
        player = engine.to_act(match.state)[0]
        seat = match.seat(player)
        assert seat is not None
        if seat.cpu:
            assert await runtime.step_computer(match_id) is not None
        else:
            await runtime.act(match_id, player, GAMES[engine.name].computer.normal(match.state, player),
                              expected_version=match.version)
    raise AssertionError(f"match {match_id} did not end in 3000 moves")


async def replays_to_its_result(storage: Storage, match: Match, path: Path) -> None:
    """The saved action log, replayed from the start, ends in the recorded result."""
    log = await storage.actions(match.id)
    outcome = replay({"game": match.game, "players": match.player_ids, "seed": match.seed,
                      "options": match.options,
                      "actions": [{"player": player, **action} for player, action in log]})
    assert outcome["rejected"] == []
    assert outcome["over"]
    recorded = results_of(path, match.id)
    assert {p: score for p, (score, _won) in recorded.items()} == outcome["scores"]
    assert sorted(p for p, (_score, won) in recorded.items() if won) == \
        sorted(outcome["winners"])


# -- the schema: migrations, the backup, the log -----------------------------------------------


async def test_an_update_keeps_every_running_game_and_plays_each_to_its_end(
        tmp_path: Path, runtimes: OpenRuntime, caplog: pytest.LogCaptureFixture) -> None:
    path = copy_fixture(tmp_path)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        # Today's bot creates this table when it first uploads its commands.
        conn.execute("CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT INTO kv VALUES (?, 'abc123')", (COMMANDS_KEY,))
        conn.commit()
    assert schema_of(path) == 2

    with caplog.at_level(logging.INFO, logger="bot.core"):
        runtime = await runtimes(path=path, clock=Clock())

    # A copy of the database as it was sits beside it, and the log says where.
    backup = tmp_path / f"cityhall.sqlite3.before-v{SCHEMA_VERSION}.sqlite3"
    assert backup.is_file()
    assert schema_of(backup) == 2 and schema_of(path) == SCHEMA_VERSION
    with contextlib.closing(sqlite3.connect(backup)) as conn:
        assert conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 8
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    said = [r.getMessage() for r in caplog.records]
    assert any(f"a copy of it as it was is at {backup}" in line for line in said), said
    assert "Upgrading the database from schema 2 to 3: a table for the bot's own values, " \
           "and the state version of every saved game." in said
    # What the bot stored before is still there (no command upload after the update).
    assert await runtime.storage.value(COMMANDS_KEY) == "abc123"

    # Every unfinished game is back, where the players left it.
    back = {m.id: m for m in runtime.unfinished()}
    assert {i: back[i].game for i in RUNNING} == RUNNING
    assert all(back[i].status == ACTIVE for i in RUNNING)
    assert back[LOBBY_ID].status == LOBBY
    bigcityz, cities = back[5].state, back[7].state
    assert bigcityz is not None and bigcityz["phase"] == "veto"
    assert cities is not None and cities["pending"]["row"] == "features"
    assert cities["pending"]["player"] in ("101", "102")

    # The lobby fills and starts; then every game is played to its end.
    await runtime.join(LOBBY_ID, Seat(ANN, "Ann"))
    await runtime.start(LOBBY_ID, CY)
    for match_id in [*RUNNING, LOBBY_ID]:
        await play_to_the_end(runtime, match_id)

    for match_id in [*RUNNING, LOBBY_ID]:
        finished = await runtime.fetch(match_id)
        assert finished is not None and finished.status == OVER
        assert len(results_of(path, match_id)) == len(finished.seats)
        await replays_to_its_result(runtime.storage, finished, path)
    # The games finished before the update still replay to their results.
    for match_id in (FINISHED_CITYSCAPE, FINISHED_BIGCITYZ):
        old = await runtime.fetch(match_id)
        assert old is not None and old.status == OVER and old.state is not None
        await replays_to_its_result(runtime.storage, old, path)

    # /stats counts the games from before the update and those finished after it.
    board = {row.player_id: row for row in await runtime.storage.leaderboard(10, "cityscape")}
    assert board[ANN].games == 3  # one before, the running game and the lobby's after
    assert board[CY].games == 1
    # and rates them: the game from before by the upgrade, the others as they finished
    rated = (await runtime.storage.rating_boards(10, ["cityscape"]))["cityscape"]
    assert {r.player_id: r.rated for r in rated}[ANN] == 3

    # The next start upgrades nothing and copies nothing.
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="bot.core"):
        again = await runtimes(path=path, clock=Clock())
    assert not any("Upgrading" in r.getMessage() for r in caplog.records)
    assert sorted(p.name for p in tmp_path.glob("*.before-*")) == [backup.name]
    assert again.unfinished() == []


async def test_a_failed_migration_leaves_the_database_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = copy_fixture(tmp_path)
    broken = Migration(SCHEMA_VERSION + 1, "a step that fails halfway",
                       "CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1)")
    monkeypatch.setattr(schema_module, "MIGRATIONS", [*schema_module.MIGRATIONS, broken])
    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StorageError, match=rf"cityhall\.sqlite3: upgrading it from schema "
                       rf"{SCHEMA_VERSION} to {SCHEMA_VERSION + 1} failed .*no_such_table.*; "
                       rf"it was left at schema {SCHEMA_VERSION}"):
        await Storage.open(path)
    # The earlier steps are done and kept; the failed one left nothing behind.
    assert schema_of(path) == SCHEMA_VERSION
    with contextlib.closing(sqlite3.connect(path)) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "half_done" not in tables and "kv" in tables
    first_copy = tmp_path / f"cityhall.sqlite3.before-v{SCHEMA_VERSION + 1}.sqlite3"
    assert schema_of(first_copy) == 2  # the file as the admin had it before updating
    # Tried again, it fails the same way, and the first copy is kept as it was.
    with pytest.raises(StorageError, match="no_such_table"):
        await Storage.open(path)
    assert schema_of(first_copy) == 2
    assert schema_of(first_copy.with_name(
        f"cityhall.sqlite3.before-v{SCHEMA_VERSION + 1}-2.sqlite3")) == SCHEMA_VERSION

    # Fixed (here: the step taken out), the next start upgrades nothing more and plays on.
    monkeypatch.undo()
    storage = await Storage.open(path)
    try:
        running = await storage.unfinished()
        assert {m.id for m in running} == {*RUNNING, LOBBY_ID}
    finally:
        await storage.close()


# -- saved states: versions and upgrade steps -----------------------------------------------------


class CityscapeV2(CityscapeEngine):
    """Cityscape as a later Cityhall might ship it: its states gained a field (the colour
    the table is drawn in), which every move relies on, so a state saved before must be
    upgraded before it is played."""

    state_version = 2

    def __init__(self) -> None:
        self.upgrades: list[int] = []

    def new(self, players: list[str], options: JSON, seed: int) -> JSON:
        return {**super().new(players, options, seed), "table_colour": "slate"}

    def apply(self, state: JSON, player: str | None, action: JSON) -> tuple[JSON, list[JSON]]:
        colour = state["table_colour"]  # a KeyError here is what an old state would cause
        after, events = super().apply(state, player, action)
        return {**after, "table_colour": colour}, events

    def upgrade_state(self, state: JSON, from_version: int) -> JSON:
        assert from_version == 1
        self.upgrades.append(from_version)
        return {**state, "table_colour": "slate"}


async def test_a_state_saved_at_an_older_version_is_upgraded_and_played_on(
        tmp_path: Path, storages: OpenStorage, caplog: pytest.LogCaptureFixture) -> None:
    path = copy_fixture(tmp_path)
    engine = CityscapeV2()
    games = {**GAMES, "cityscape": replace(GAMES["cityscape"], engine=engine)}
    storage = await storages(path)
    runtime = Runtime(storage, games, clock=Clock(), turn_seconds=60)
    with caplog.at_level(logging.INFO, logger="bot.core"):
        await runtime.load()
    assert "Brought the saved states of 1 Cityscape game(s) (state version 2) up to this " \
           "version's engines." in [r.getMessage() for r in caplog.records]
    running = runtime.get(4)
    assert running is not None and running.state is not None
    assert running.state["table_colour"] == "slate" and running.state_version == 2
    assert engine.upgrades == [1]

    await play_to_the_end(runtime, 4)
    saved = await storage.get(4)
    assert saved is not None and saved.status == OVER and saved.state is not None
    # The finished game's state was saved in the new shape, with its version.
    assert saved.state_version == 2 and saved.state["table_colour"] == "slate"
    assert engine.upgrades == [1]  # upgraded once, on load; never again
    assert len(results_of(path, 4)) == 3
    # The game finished before the update is upgraded when it is read.
    old = await runtime.fetch(FINISHED_CITYSCAPE)
    assert old is not None and old.state is not None and old.state["table_colour"] == "slate"
    # Other games' states were version 1 already and stay so.
    bigcity = runtime.get(6)
    assert bigcity is not None and bigcity.state_version == 1


async def test_a_game_saved_by_a_newer_version_waits_and_the_others_play_on(
        tmp_path: Path, storages: OpenStorage, runtimes: OpenRuntime,
        caplog: pytest.LogCaptureFixture) -> None:
    path = copy_fixture(tmp_path)
    await (await storages(path)).close()  # upgraded to today's schema
    with contextlib.closing(sqlite3.connect(path)) as conn:
        # As if a newer Cityhall had moved on Big Cityz's state, then the admin went back.
        conn.execute("UPDATE match_states SET state_version=7 WHERE match_id=5")
        conn.commit()
    with caplog.at_level(logging.INFO, logger="bot.core"):
        runtime = await runtimes(path=path, clock=Clock())
    assert "Match 5 (Big Cityz in channel 22) is left as it is and not played: its state was " \
           "saved by a newer Cityhall (Big Cityz state version 7; this one knows up to 1). " \
           "Run the newer Cityhall again to go on with it." \
           in [r.getMessage() for r in caplog.records]
    assert runtime.get(5) is None
    assert {m.id for m in runtime.unfinished()} == {4, 6, 7, LOBBY_ID}
    await play_to_the_end(runtime, 4)
    assert results_of(path, 4)
    # Its saved state is untouched, for the newer Cityhall to take up again.
    with contextlib.closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT state_version FROM match_states WHERE match_id=5"
                            ).fetchone()[0] == 7


async def test_finished_games_of_a_schema_4_database_replay_and_show_in_history_and_profile(
        tmp_path: Path, runtimes: OpenRuntime) -> None:
    """Schema 4 archived a finished game as its moves in a list and its last state beside
    them. After the upgrade to schema 5 (which archives new games smaller, without the state)
    such a game still replays to its result, its final board is the one it kept, /history
    lists it and /profile counts it with its rating; saving it again keeps its state."""
    path = tmp_path / "cityhall.sqlite3"
    runtime = await runtimes(path)
    ann, bob = Seat("111111111111111111", "Ann"), Seat("222222222222222222", "Bob")
    lobby = await runtime.open_lobby(10, 20, "cityscape", ann, {"rounds": 1})
    await runtime.join(lobby.id, bob)
    await runtime.start(lobby.id, ann.id)
    await play_to_the_end(runtime, lobby.id)
    over = await runtime.storage.get(lobby.id)
    assert over is not None and over.state is not None and over.status == OVER
    final = over.state
    await runtime.storage.close()
    # The file as schema 4 left it: the log as a list, the state beside it, the index back.
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        blob, = conn.execute("SELECT actions FROM archive WHERE match_id=?",
                             (lobby.id,)).fetchone()
        conn.execute("UPDATE archive SET actions=?, state=? WHERE match_id=?",
                     (zlib.compress(json.dumps(decode_log(blob)).encode(), 9),
                      zlib.compress(json.dumps(final).encode(), 9), lobby.id))
        conn.execute("CREATE INDEX results_by_guild ON results(guild_id, game)")
        conn.execute("PRAGMA user_version=4")

    again = await runtimes(path)
    storage = again.storage
    assert schema_of(path) == SCHEMA_VERSION == 5
    with contextlib.closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT name FROM sqlite_master WHERE name='results_by_guild'"
                            ).fetchall() == []
    match = await again.fetch(lobby.id)
    assert match is not None and match.state == final  # the board it kept
    await replays_to_its_result(storage, match, path)
    page = await records.history(storage, 10)
    assert [(e.match_id, e.game, sorted(s.seat.name for s in e.seats)) for e in page.entries] \
        == [(lobby.id, "cityscape", ["Ann", "Bob"])]
    assert page.entries[0].moves == len(await storage.actions(lobby.id)) > 0
    profile = await records.profile(storage, 10, ann.id)
    assert profile is not None and profile.total_games == 1
    (figures,) = profile.games
    assert figures.game == "cityscape" and figures.rated == 1 and figures.rating is not None
    assert [r.match_id for r in profile.recent] == [lobby.id]
    # Saved again (its table message re-posted): the state it kept stays with it.
    log = await storage.actions(lobby.id)
    match.table_message_id = 999
    await storage.save(match)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        state, = conn.execute("SELECT state FROM archive WHERE match_id=?",
                              (lobby.id,)).fetchone()
    assert state is not None and json.loads(zlib.decompress(state)) == final
    assert await storage.actions(lobby.id) == log
