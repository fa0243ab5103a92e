"""The match runtime against a real SQLite file: lobbies, saving, restarts, races, timers."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from bot.core.driver import Driver
from bot.core.engine import IllegalAction
from bot.core.records import ACTIVE, OVER, Match, Seat
from bot.core.runtime import Limits, Outcome, Refusal, Runtime, StaleBoard
from bot.core.storage import Storage
from bot.games import GAMES
from tests import databases

from .runtime_support import said

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

ANN, BOB, CY = Seat("1", "Ann"), Seat("2", "Bob"), Seat("3", "Cy")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


OpenRuntime = Callable[..., Awaitable[Runtime]]


@pytest.fixture
async def open_runtime(tmp_path: Path) -> AsyncIterator[OpenRuntime]:
    """Opens runtimes on the test's SQLite file; every one is closed at teardown, also when
    the test fails (an open aiosqlite connection keeps a thread, and so pytest, alive)."""
    opened: list[Storage] = []

    async def open_(clock: Clock | None = None) -> Runtime:
        storage = await Storage.open(databases.target(tmp_path / "db.sqlite3"))
        opened.append(storage)
        runtime = Runtime(storage, GAMES, clock=clock or Clock(), turn_seconds=60)
        await runtime.load()
        return runtime

    yield open_
    for storage in opened:
        await storage.close()


@pytest.fixture
async def runtime(open_runtime: OpenRuntime) -> Runtime:
    return await open_runtime()


def _live(runtime: Runtime, match_id: int) -> Match:
    match = runtime.get(match_id)
    assert match is not None
    return match


async def _started(runtime: Runtime, *seats: Seat) -> int:
    match = await runtime.open_lobby(10, 20, "cityscape", seats[0], {"rounds": 1})
    for seat in seats[1:]:
        await runtime.join(match.id, seat)
    await runtime.start(match.id, seats[0].id)
    return match.id


async def test_lobby_rules(runtime: Runtime) -> None:
    match = await runtime.open_lobby(10, 20, "cityscape", ANN, {})
    with pytest.raises(Refusal, match="already has a lobby of Cityscape"):
        await runtime.open_lobby(10, 20, "cityscape", BOB, {})
    with pytest.raises(Refusal, match="needs 2–4 players; 1 is seated"):
        await runtime.start(match.id, ANN.id)
    with pytest.raises(Refusal, match=said("You are already in this game.")):
        await runtime.join(match.id, ANN)
    await runtime.join(match.id, BOB)
    with pytest.raises(Refusal, match=said("Only the host can start the game.")):
        await runtime.start(match.id, BOB.id)
    with pytest.raises(Refusal, match=said("Only the host can add computer players.")):
        await runtime.add_computer(match.id, BOB.id)
    await runtime.add_computer(match.id, ANN.id)
    await runtime.add_computer(match.id, ANN.id)
    with pytest.raises(Refusal, match="table is full"):
        await runtime.join(match.id, CY)
    await runtime.leave(match.id, BOB.id)
    with pytest.raises(Refusal, match=said(
            "You are the host: use Cancel to close the lobby instead.")):
        await runtime.leave(match.id, ANN.id)
    started = await runtime.start(match.id, ANN.id)
    assert started.status == ACTIVE and [s.id for s in started.seats] == ["1", "cpu1", "cpu2"]
    with pytest.raises(IllegalAction):
        await runtime.open_lobby(10, 21, "cityscape", ANN, {"rounds": 99})


async def test_every_move_is_saved_and_survives_a_restart(open_runtime: OpenRuntime) -> None:
    runtime = await open_runtime()
    match_id = await _started(runtime, ANN, BOB)
    await runtime.act(match_id, "1", {"type": "set_goals", "side": "S", "codes": [1, 2, 3, 4]})
    await runtime.act(match_id, "1", {"type": "set_goals", "side": "W", "codes": [1, 2, 3, 4]})
    await runtime.act(match_id, "2", {"type": "set_goals", "side": "N", "codes": [4, 3, 2, 1]})
    await runtime.act(match_id, "2", {"type": "set_goals", "side": "E", "codes": [4, 3, 2, 1]})
    outcome = await runtime.act(match_id, "1", {"type": "build", "height": 4, "lot": "C3"})
    version = outcome.match.version
    # No close(): the process is "killed"; a second runtime opens the same file.
    again = await open_runtime()
    match = again.get(match_id)
    assert match is not None and match.version == version and match.state is not None
    assert match.state["lots"]["C3"] == [4] and match.state["goals"]["N"] == [4, 3, 2, 1]
    assert len(await again.storage.actions(match_id)) == 5
    with pytest.raises(StaleBoard, match=said("That button belongs to an earlier board.")):
        await again.act(match_id, "2", {"type": "build", "height": 1, "lot": "A1"},
                        expected_version=version - 1)
    await again.act(match_id, "2", {"type": "build", "height": 1, "lot": "A1"},
                    expected_version=version)


async def test_two_simultaneous_clicks_never_both_apply(runtime: Runtime) -> None:
    match_id = await _started(runtime, ANN, BOB)
    for side, owner in (("S", "1"), ("W", "1"), ("N", "2"), ("E", "2")):
        await runtime.act(match_id, owner, {"type": "set_goals", "side": side, "codes": [2] * 4})
    version = _live(runtime, match_id).version
    clicks = [runtime.act(match_id, "1", {"type": "build", "height": h, "lot": "B2"},
                          expected_version=version) for h in (1, 2, 3, 4, 5)]
    results = await asyncio.gather(*clicks, return_exceptions=True)
    accepted = [r for r in results if isinstance(r, Outcome)]
    assert len(accepted) == 1
    assert all(isinstance(r, StaleBoard) for r in results if not isinstance(r, Outcome))
    state = _live(runtime, match_id).state
    assert state is not None and len(state["lots"]["B2"]) == 1


async def test_strangers_cannot_move(runtime: Runtime) -> None:
    match_id = await _started(runtime, ANN, BOB)
    with pytest.raises(Refusal, match=said("You are not playing in this game.")):
        await runtime.act(match_id, "99", {"type": "set_goals", "side": "S", "codes": [1] * 4})


async def test_computers_play_and_results_are_recorded(runtime: Runtime) -> None:
    match = await runtime.open_lobby(10, 20, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(match.id, ANN.id)
    await runtime.add_computer(match.id, ANN.id)
    await runtime.start(match.id, ANN.id)
    seen: list[Outcome] = []

    async def told(outcome: Outcome) -> None:
        seen.append(outcome)

    driver = Driver(runtime, told, cpu_delay=0)
    try:
        driver.kick(match.id)
        await driver.idle(match.id)
        assert [o.player for o in seen] == ["cpu1", "cpu2"]  # both set goals at once
        await runtime.act(match.id, "1", {"type": "set_goals", "side": "S", "codes": [2] * 4})
        while runtime.get(match.id) is not None:
            driver.kick(match.id)
            await driver.idle(match.id)
            live = runtime.get(match.id)
            if live is None:
                break
            assert live.state is not None
            action = GAMES[runtime.engine(live).name].computer.normal(live.state, "1")
            await runtime.act(match.id, "1", action)
    finally:
        await driver.close()
    final = await runtime.storage.get(match.id)
    assert final is not None and final.status == OVER
    board = await runtime.storage.leaderboard(10, "cityscape")
    assert [row.name for row in board] == ["Ann"]  # computers stay off the leaderboard
    assert board[0].games == 1


async def test_timer_plays_for_a_slow_player_and_says_so(open_runtime: OpenRuntime) -> None:
    clock = Clock()
    runtime = await open_runtime(clock)
    match_id = await _started(runtime, ANN, BOB)
    assert await runtime.time_out(match_id) == []  # not yet
    clock.now += 61
    outcomes = await runtime.time_out(match_id)
    assert {o.player for o in outcomes} == {"1", "2"}
    assert all(o.timed_out and o.by_computer for o in outcomes)
    match = runtime.get(match_id)
    assert match is not None and match.state is not None
    # both players' four sides are set now, by the computer; building begins
    assert match.state["phase"] == "building"


async def test_end_needs_host_or_moderator(runtime: Runtime) -> None:
    match_id = await _started(runtime, ANN, BOB)
    with pytest.raises(Refusal, match=said(
            "Only the host or someone with Manage Messages can end this game.")):
        await runtime.end(match_id, BOB.id, can_manage=False)
    await runtime.end(match_id, BOB.id, can_manage=True)
    assert runtime.in_channel(20) is None
    # the channel is free again
    await runtime.open_lobby(10, 20, "cityscape", BOB, {})


async def test_the_timer_plays_only_for_late_humans_not_for_computers(
        open_runtime: OpenRuntime) -> None:
    # Everyone chooses goals at once; a computer that has not chosen yet is the driver's to
    # move (as a computer move), not a late player's.
    clock = Clock()
    runtime = await open_runtime(clock)
    lobby = await runtime.open_lobby(10, 20, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(lobby.id, ANN.id)
    await runtime.start(lobby.id, ANN.id)
    clock.now += 61
    outcomes = await runtime.time_out(lobby.id)
    assert outcomes and {o.player for o in outcomes} == {"1"}
    assert runtime.computers_due(_live(runtime, lobby.id))


async def test_an_ended_game_has_no_clock_and_no_computer_to_move(runtime: Runtime) -> None:
    # What the driver asks of the match the end returned: no timer, no computer turn, even
    # though the board was mid-game with everyone due.
    lobby = await runtime.open_lobby(10, 20, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(lobby.id, ANN.id)
    await runtime.start(lobby.id, ANN.id)
    ended = await runtime.end(lobby.id, ANN.id, can_manage=False)
    assert ended.state is not None and ended.turn_started_at is not None
    assert runtime.deadline(ended) is None
    assert not runtime.computers_due(ended)


async def test_final_results_carry_each_players_score_win_and_numbers(
        open_runtime: OpenRuntime) -> None:
    # Big Cityz: its results carry per-player numbers (objections) for /stats
    runtime = await open_runtime()
    lobby = await runtime.open_lobby(10, 20, "bigcityz", ANN, {})
    await runtime.join(lobby.id, BOB)
    match_id = (await runtime.start(lobby.id, ANN.id)).id
    engine = runtime.engine(_live(runtime, match_id))
    while (live := runtime.get(match_id)) is not None:
        assert live.state is not None
        player = engine.to_act(live.state)[0]
        await runtime.act(match_id, player, GAMES[engine.name].computer.normal(live.state, player))
    final = await runtime.storage.get(match_id)
    assert final is not None and final.state is not None
    result = engine.result(final.state)
    assert result is not None
    board = {r.player_id: r for r in await runtime.storage.leaderboard(10, "bigcityz")}
    assert {p: (r.best, r.wins) for p, r in board.items()} == {
        p: (int(result.scores[p]), int(p in result.winners)) for p in ("1", "2")}
    numbers = {p: {k: v for k, v in result.extra.get("per_player", {}).get(p, {}).items()
                   if isinstance(v, int) and not isinstance(v, bool)} for p in ("1", "2")}
    assert {p: r.extra for p, r in board.items()} == numbers and numbers["1"]


async def test_the_log_on_disk_marks_the_computers_moves(
        open_runtime: OpenRuntime, tmp_path: Path) -> None:
    runtime = await open_runtime()
    lobby = await runtime.open_lobby(10, 20, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(lobby.id, ANN.id)
    await runtime.start(lobby.id, ANN.id)
    await runtime.act(lobby.id, "1", {"type": "set_goals", "side": "S", "codes": [2] * 4})
    assert await runtime.step_computer(lobby.id) is not None
    assert await databases.query(tmp_path / "db.sqlite3",
                                 "SELECT player, by_computer FROM actions ORDER BY seq") \
        == [("1", 0), ("cpu1", 1)]


async def test_a_player_who_owes_two_things_gets_no_fresh_time_after_the_first(
        open_runtime: OpenRuntime) -> None:
    clock = Clock()
    runtime = await open_runtime(clock)
    match_id = await _started(runtime, ANN, BOB)  # both choose goals for two sides each
    clock.now += 30
    await runtime.act(match_id, "1", {"type": "set_goals", "side": "S", "codes": [1, 2, 3, 4]})
    assert runtime.deadline(_live(runtime, match_id)) == 1060.0


async def test_the_deal_follows_the_saved_seed(runtime: Runtime) -> None:
    # Replays and the move log depend on it: the board is the engine's for that seed.
    lobby = await runtime.open_lobby(10, 20, "bigcityz", ANN, {})
    await runtime.join(lobby.id, BOB)
    match = await runtime.start(lobby.id, ANN.id)
    assert match.state == runtime.engine(match).new(["1", "2"], match.options, match.seed)


async def test_a_turn_lasts_three_minutes_unless_set(runtime: Runtime) -> None:
    default = Runtime(runtime.storage, GAMES, clock=lambda: 1000.0)
    lobby = await default.open_lobby(10, 20, "cityscape", ANN, {})
    await default.join(lobby.id, BOB)
    match = await default.start(lobby.id, ANN.id)
    assert default.deadline(match) == 1180.0


@pytest.mark.sqlite_only("a second connection locks the SQLite file")
async def test_a_lobby_change_that_fails_to_save_changes_nothing_in_memory(
        tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "db.sqlite3", busy_timeout=0.2)
    try:
        runtime = Runtime(storage, GAMES)
        lobby = await runtime.open_lobby(10, 20, "cityscape", ANN, {})
        other = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")  # another program holds the file
        try:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                await runtime.join(lobby.id, BOB)
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                await runtime.end(lobby.id, ANN.id, can_manage=False)
        finally:
            other.execute("ROLLBACK")
            other.close()
        current = _live(runtime, lobby.id)
        assert [s.id for s in current.seats] == ["1"] and current.extra == {}
    finally:
        await storage.close()


async def test_every_game_gets_its_own_deal(runtime: Runtime) -> None:
    # The seed decides the deal: thirty lobbies, thirty seeds (two equal in a range of 2**31
    # is a one-in-ten-million chance).
    many = Runtime(runtime.storage, GAMES, limits=Limits(lobbies_per_user=30, matches_per_user=30))
    seeds = {(await many.open_lobby(10, 100 + n, "bigcityz", ANN, {})).seed for n in range(30)}
    assert len(seeds) == 30
