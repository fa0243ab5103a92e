"""What the runtime does with saved states of another engine version, with a server's own
turn time, and what it writes in the admin's log about each game.

Real SQLite files in a temporary folder; the clock is moved by hand.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.core.catalogue import GameRecord
from bot.core.engine import JSON, Result
from bot.core.records import ACTIVE, OVER
from bot.core.runtime import Runtime
from bot.core.server_settings import ServerSettings
from bot.core.storage import Storage
from bot.games import GAMES
from bot.games.cities.engine import CitiesEngine
from bot.games.cityscape.engine import CityscapeEngine
from tests import databases

from .runtime_support import ANN, BOB, CHANNEL, GUILD, Clock

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

DB = "cityhall.sqlite3"


class CityscapeV2(CityscapeEngine):
    """Cityscape as a later Cityhall might ship it: its states have a table colour."""

    state_version = 2

    def new(self, players: list[str], options: JSON, seed: int) -> JSON:
        return {**super().new(players, options, seed), "table_colour": "slate"}

    def upgrade_state(self, state: JSON, from_version: int) -> JSON:
        return {**state, "table_colour": "slate"}


class CitiesV2(CitiesEngine):
    state_version = 2

    def upgrade_state(self, state: JSON, from_version: int) -> JSON:
        return {**state, "table_colour": "slate"}


class SharedWin(CityscapeEngine):
    """Cityscape ending in a tie, or (``nobody``) with no winner: the log must say which."""

    def __init__(self, *, nobody: bool = False) -> None:
        self.nobody = nobody

    def result(self, state: JSON) -> Result | None:
        final = super().result(state)
        if final is None:
            return None
        return Result(final.scores, [] if self.nobody else list(state["players"]))


class BrokenUpgrade(CityscapeV2):
    def upgrade_state(self, state: JSON, from_version: int) -> JSON:
        raise KeyError("rounds")


_OPEN: list[Storage] = []


@pytest.fixture(autouse=True)
async def _close_all() -> AsyncIterator[None]:
    # Also when a test fails: an open aiosqlite connection keeps a thread, and pytest, alive.
    yield
    while _OPEN:
        await _OPEN.pop().close()


async def _runtime(tmp_path: Path, games: dict[str, GameRecord] | None = None,
                   clock: Clock | None = None) -> Runtime:
    """A runtime after a (re)start of the bot; its database is closed by the test (a
    restart) or at teardown."""
    storage = await Storage.open(databases.target(tmp_path / DB))
    _OPEN.append(storage)
    runtime = Runtime(storage, games or GAMES, clock=clock or Clock(), turn_seconds=60)
    await runtime.load()
    return runtime


async def _restart(runtime: Runtime) -> None:
    _OPEN.remove(runtime.storage)
    await runtime.storage.close()


async def _game(runtime: Runtime, channel: int = CHANNEL, game: str = "cityscape") -> int:
    options: JSON = {"rounds": 1} if game == "cityscape" else {}
    match = await runtime.open_lobby(GUILD, channel, game, ANN, options)
    await runtime.join(match.id, BOB)
    await runtime.start(match.id, ANN.id)
    return match.id


def _messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "bot.core.runtime"]


# -- saved states of another version ----------------------------------------------------------


async def test_a_game_saved_before_an_engine_update_is_upgraded_once_and_saved_so(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    old = await _runtime(tmp_path)
    running = await _game(old, 20)
    lobby = (await old.open_lobby(GUILD, 21, "cityscape", BOB, {})).id
    await _restart(old)

    caplog.set_level(logging.INFO, logger="bot.core.runtime")
    new = await _runtime(tmp_path, {**GAMES, "cityscape": replace(GAMES["cityscape"], engine=CityscapeV2())})
    assert "Brought the saved states of 1 Cityscape game(s) (state version 2) up to this " \
           "version's engines." in _messages(caplog)
    match = new.get(running)
    assert match is not None and match.state is not None
    assert match.state["table_colour"] == "slate" and match.state_version == 2
    waiting = new.get(lobby)
    assert waiting is not None and waiting.state is None and waiting.state_version == 2
    # The next move saves the state with the version it now has.
    player = new.engine(match).to_act(match.state)[0]
    await new.act(running, player, GAMES[new.engine(match).name].computer.normal(match.state, player),
                  expected_version=match.version)
    saved = await new.storage.get(running)
    assert saved is not None and saved.state_version == 2


async def test_a_restart_counts_the_upgraded_games_of_each_engine(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    old = await _runtime(tmp_path)
    for channel, game in ((20, "cityscape"), (21, "cityscape"), (22, "cities"), (23, "bigcity")):
        await _game(old, channel, game)
    await old.open_lobby(GUILD, 24, "cityscape", BOB, {})  # a lobby has no state to upgrade
    await _restart(old)
    caplog.set_level(logging.INFO, logger="bot.core.runtime")
    new = await _runtime(tmp_path, {**GAMES, "cityscape": replace(GAMES["cityscape"], engine=CityscapeV2()), "cities": replace(GAMES["cities"], engine=CitiesV2())})
    # Big City's engine did not change: its game is loaded as it was and not counted.
    assert [m for m in _messages(caplog) if m.startswith("Brought")] == [
        "Brought the saved states of 2 Cityscape game(s) (state version 2), 1 Cities game(s) "
        "(state version 2) up to this version's engines."]
    assert len(new.unfinished()) == 5


async def test_games_this_cityhall_cannot_run_are_skipped_and_the_rest_load(
        tmp_path: Path) -> None:
    newer = await _runtime(tmp_path, {**GAMES, "cityscape": replace(GAMES["cityscape"], engine=CityscapeV2())})
    await newer.open_lobby(GUILD, 70, "bigcity", ANN, {})  # a game this Cityhall lacks
    await _game(newer, 71)  # a state this Cityhall cannot read
    lobby = (await newer.open_lobby(GUILD, 72, "cityscape", BOB, {})).id
    cities = await _game(newer, 73, "cities")
    await _restart(newer)
    back = await _runtime(tmp_path, {"cityscape": GAMES["cityscape"], "cities": GAMES["cities"]})
    assert sorted(m.id for m in back.unfinished()) == [lobby, cities]


async def test_a_game_saved_by_a_newer_cityhall_waits_and_is_not_shown(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    newer = await _runtime(tmp_path, {**GAMES, "cityscape": replace(GAMES["cityscape"], engine=CityscapeV2())})
    waiting = await _game(newer, 30)
    await _restart(newer)

    caplog.set_level(logging.INFO, logger="bot.core.runtime")
    back = await _runtime(tmp_path)
    assert f"Match {waiting} (Cityscape in channel 30) is left as it is and not played: its " \
           "state was saved by a newer Cityhall (Cityscape state version 2; this one knows up " \
           "to 1). Run the newer Cityhall again to go on with it." in _messages(caplog)
    assert back.get(waiting) is None and back.unfinished() == []
    assert await back.fetch(waiting) is None  # /game status cannot show it either
    # The channel is free for a new game meanwhile; the old one is kept as it was.
    other = await _game(back, 31)
    assert (await back.fetch(other)) is not None
    kept = await back.storage.get(waiting)
    assert kept is not None and kept.state_version == 2 and kept.status == ACTIVE


async def test_a_failing_upgrade_leaves_that_game_out_and_says_so(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    old = await _runtime(tmp_path)
    broken = await _game(old, 40)
    await _restart(old)
    caplog.set_level(logging.INFO, logger="bot.core.runtime")
    new = await _runtime(tmp_path, {**GAMES, "cityscape": replace(GAMES["cityscape"], engine=BrokenUpgrade())})
    assert f"Match {broken} (Cityscape in channel 40) is left as it is and not played: " \
           "upgrading its state from version 1 to 2 failed." in _messages(caplog)
    assert new.get(broken) is None
    assert not any("Brought the saved states" in m for m in _messages(caplog))


async def test_a_finished_game_read_back_is_upgraded_too(tmp_path: Path) -> None:
    old = await _runtime(tmp_path)
    match_id = await _game(old, 50)
    await old.end(match_id, ANN.id, can_manage=False)
    await _restart(old)
    new = await _runtime(tmp_path, {**GAMES, "cityscape": replace(GAMES["cityscape"], engine=CityscapeV2())})
    ended = await new.fetch(match_id)
    assert ended is not None and ended.state is not None
    assert ended.state["table_colour"] == "slate" and ended.state_version == 2
    assert await new.fetch(match_id + 100) is None


# -- a server's own turn time -------------------------------------------------------------------


async def test_a_servers_turn_time_applies_from_the_next_turn(tmp_path: Path) -> None:
    clock = Clock()
    runtime = await _runtime(tmp_path, clock=clock)
    await runtime.servers.save(GUILD, ServerSettings(turn_seconds=300))
    match_id = await _game(runtime)
    match = runtime.get(match_id)
    assert match is not None
    assert runtime.deadline(match) == clock.now + 300
    # Changed during the turn: the running turn keeps its 5 minutes, also after a restart.
    await runtime.servers.save(GUILD, ServerSettings(turn_seconds=90))
    assert runtime.deadline(match) == clock.now + 300
    await _restart(runtime)
    again = await _runtime(tmp_path, clock=clock)
    reloaded = again.get(match_id)
    assert reloaded is not None and again.deadline(reloaded) == clock.now + 300
    # The next turn gets the new time (both players choose their goals first, at once).
    clock.now += 10
    match = reloaded
    while match.turn_started_at != clock.now:
        assert match.state is not None
        player = again.engine(match).to_act(match.state)[0]
        match = (await again.act(match_id, player,
                                 GAMES[again.engine(match).name].computer.normal(match.state, player),
                                 expected_version=match.version)).match
    assert again.deadline(match) == clock.now + 90
    # Another server keeps the bot's turn time.
    other = await again.open_lobby(GUILD + 1, 99, "cityscape", ANN, {"rounds": 1})
    await again.join(other.id, BOB)
    started = await again.start(other.id, ANN.id)
    assert again.deadline(started) == clock.now + 60


async def test_a_game_begun_before_turn_times_were_kept_uses_the_servers_turn_time(
        tmp_path: Path) -> None:
    # Games started by a Cityhall before /settings have no turn time of their own saved:
    # after the upgrade their server's choice applies, not the bot's default.
    clock = Clock()
    runtime = await _runtime(tmp_path, clock=clock)
    await runtime.servers.save(GUILD, ServerSettings(turn_seconds=300))
    match_id = await _game(runtime)
    await _restart(runtime)
    await databases.query(tmp_path / DB, "UPDATE matches SET extra='{}' WHERE id=?", (match_id,))
    again = await _runtime(tmp_path, clock=clock)
    match = again.get(match_id)
    assert match is not None and "turn_seconds" not in match.extra
    assert again.deadline(match) == clock.now + 300


# -- the admin's log ------------------------------------------------------------------------------


async def test_the_log_tells_each_game_from_lobby_to_result(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.core.runtime")
    clock = Clock()
    runtime = await _runtime(tmp_path, clock=clock)
    lobby = await runtime.open_lobby(GUILD, 60, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(lobby.id, ANN.id)
    await runtime.start(lobby.id, ANN.id)
    cancelled = await runtime.open_lobby(GUILD, 61, "bigcity", BOB, {})
    await runtime.end(cancelled.id, BOB.id, can_manage=False)
    stopped = await _game(runtime, 62)
    await runtime.end(stopped, "9", can_manage=True)
    forgotten = await runtime.open_lobby(GUILD, 63, "cityscape", ANN, {})
    forgotten.created_at = clock.now  # the test's clock rules, not the database's
    clock.now += runtime.limits.lobby_seconds
    await runtime.expire_lobby(forgotten.id)
    for _ in range(500):
        match = runtime.get(lobby.id)
        if match is None:
            break
        assert match.state is not None
        player = runtime.engine(match).to_act(match.state)[0]
        seat = match.seat(player)
        assert seat is not None
        if seat.cpu:
            await runtime.step_computer(lobby.id)
        else:
            await runtime.act(lobby.id, player,
                              GAMES[runtime.engine(match).name].computer.normal(match.state, player),
                              expected_version=match.version)
    final = await runtime.storage.get(lobby.id)
    assert final is not None and final.status == OVER and final.state is not None
    result = runtime.engine(final).result(final.state)
    assert result is not None
    winners = ", ".join(final.name_of(p) for p in result.winners) or "nobody"
    assert _messages(caplog) == [
        f"Cityscape lobby {lobby.id} opened in server {GUILD}, channel 60.",
        f"Cityscape game {lobby.id} started in server {GUILD}, channel 60, with 2 players "
        "(1 computer).",
        f"Big City lobby {cancelled.id} opened in server {GUILD}, channel 61.",
        f"Big City lobby {cancelled.id} in server {GUILD}, channel 61, ended early by 2 "
        "(the host).",
        f"Cityscape lobby {stopped} opened in server {GUILD}, channel 62.",
        f"Cityscape game {stopped} started in server {GUILD}, channel 62, with 2 players "
        "(0 computer).",
        f"Cityscape game {stopped} in server {GUILD}, channel 62, ended early by 9.",
        f"Cityscape lobby {forgotten.id} opened in server {GUILD}, channel 63.",
        f"Lobby {forgotten.id} in server {GUILD}, channel 63 closed: nobody started it in "
        "time.",
        f"Cityscape game {lobby.id} in server {GUILD}, channel 60, finished after "
        f"{final.version - 1} moves; won by {winners}.",
    ]
    await _restart(runtime)


async def _play_out(runtime: Runtime, match_id: int) -> None:
    while (match := runtime.get(match_id)) is not None:
        assert match.state is not None
        player = runtime.engine(match).to_act(match.state)[0]
        await runtime.act(match_id, player, GAMES[runtime.engine(match).name].computer.normal(match.state, player),
                          expected_version=match.version)


@pytest.mark.parametrize(("nobody", "won_by"), [(False, "Ann, Bob"), (True, "nobody")])
async def test_the_log_names_every_winner_of_a_shared_win_or_nobody(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, nobody: bool, won_by: str) -> None:
    runtime = await _runtime(tmp_path, {"cityscape": replace(GAMES["cityscape"], engine=SharedWin(nobody=nobody))})
    match_id = await _game(runtime)
    caplog.set_level(logging.INFO, logger="bot.core.runtime")
    await _play_out(runtime, match_id)
    final = await runtime.storage.get(match_id)
    assert final is not None
    assert _messages(caplog) == [
        f"Cityscape game {match_id} in server {GUILD}, channel {CHANNEL}, finished after "
        f"{final.version - 1} moves; won by {won_by}."]
