"""Computer players' levels in the match runtime: chosen in the lobby, kept across a
restart, played at that level (hard in a render worker process), and a hard player's
thinking never keeps a person's move waiting."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from bot.config import ConfigError, Settings
from bot.core.engine import JSON
from bot.core.levels import Budget, decide
from bot.core.records import OVER, Match, Seat
from bot.core.runtime import Outcome, Refusal, Runtime, Thinker
from bot.core.storage import Storage
from bot.games import GAMES, render_pool
from tests import databases

from .runtime_support import said

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

ANN, BOB = Seat("1", "Ann"), Seat("2", "Bob")
# Few play-outs and no clock: quick, and the same move wherever it is worked out.
BUDGET = Budget(iterations=8, seconds=None)

OpenRuntime = Callable[..., Awaitable[Runtime]]


@pytest.fixture
async def open_runtime(tmp_path: Path) -> AsyncIterator[OpenRuntime]:
    """Runtimes on the test's SQLite file (each one a "process"), closed at teardown."""
    opened: list[Storage] = []

    async def open_(thinker: Thinker | None = None) -> Runtime:
        storage = await Storage.open(databases.target(tmp_path / "db.sqlite3"))
        opened.append(storage)
        runtime = Runtime(storage, GAMES, turn_seconds=60, thinker=thinker, budget=BUDGET)
        await runtime.load()
        return runtime

    yield open_
    for storage in opened:
        await storage.close()


async def ann_bob_and_a_computer(runtime: Runtime) -> Match:
    """Ann's one-round Cityscape lobby with Bob and a normal computer player seated."""
    lobby = await runtime.open_lobby(10, 20, "cityscape", ANN, {"rounds": 1})
    await runtime.join(lobby.id, BOB)
    return await runtime.add_computer(lobby.id, ANN.id)


async def test_the_host_sets_levels_in_the_lobby_and_they_survive_a_restart(
        open_runtime: OpenRuntime) -> None:
    runtime = await open_runtime()
    lobby = await ann_bob_and_a_computer(runtime)
    await runtime.add_computer(lobby.id, ANN.id, "hard")
    await runtime.set_level(lobby.id, ANN.id, "cpu1", "easy")

    again = await open_runtime()  # the bot restarted: the lobby comes back from the file
    match = again.get(lobby.id)
    assert match is not None
    assert [(s.id, s.level) for s in match.seats] == [
        ("1", "normal"), ("2", "normal"), ("cpu1", "easy"), ("cpu2", "hard")]
    await again.set_level(lobby.id, ANN.id, "cpu2", "normal")
    started = await again.start(lobby.id, ANN.id)
    assert [s.level for s in started.seats if s.cpu] == ["easy", "normal"]


async def test_levels_are_refused_in_one_sentence_where_they_make_no_sense(
        open_runtime: OpenRuntime) -> None:
    runtime = await open_runtime()
    lobby = await ann_bob_and_a_computer(runtime)
    with pytest.raises(Refusal, match=said(
            "Only the host can set the computer players' levels.")):
        await runtime.set_level(lobby.id, BOB.id, "cpu1", "hard")
    with pytest.raises(Refusal, match=said(
            "Bob is a person, not a computer player: only computer players have a level.")):
        await runtime.set_level(lobby.id, ANN.id, BOB.id, "hard")
    with pytest.raises(Refusal, match=said(
            "'genius' is not a computer level: choose easy, normal or hard.")):
        await runtime.set_level(lobby.id, ANN.id, "cpu1", "genius")
    with pytest.raises(Refusal, match=said(
            "'genius' is not a computer level: choose easy, normal or hard.")):
        await runtime.add_computer(lobby.id, ANN.id, "genius")
    with pytest.raises(Refusal, match=said("That computer player has left the lobby.")):
        await runtime.set_level(lobby.id, ANN.id, "cpu7", "hard")
    await runtime.start(lobby.id, ANN.id)
    with pytest.raises(Refusal, match=said("That game has already started.")):
        await runtime.set_level(lobby.id, ANN.id, "cpu1", "hard")
    match = runtime.get(lobby.id)
    assert match is not None and [s.level for s in match.seats] == ["normal"] * 3


async def test_a_hard_computer_plays_hard_moves_worked_out_in_a_worker_to_the_end(
        open_runtime: OpenRuntime) -> None:
    engine, computer = GAMES["bigcityz"].engine, GAMES["bigcityz"].computer
    async with render_pool(1) as pool:
        runtime = await open_runtime(thinker=pool.think)
        lobby = await runtime.open_lobby(10, 20, "bigcityz", ANN, {})
        # A fixed deal: in about one random deal in twenty (seeds 1 and 7, say) hard and
        # normal happen to agree on every move, and the last check below could not tell.
        lobby.seed = 2
        await runtime.add_computer(lobby.id, ANN.id, "hard")
        await runtime.start(lobby.id, ANN.id)
        played: list[tuple[JSON, JSON]] = []  # (state before, the move played)
        while (live := runtime.get(lobby.id)) is not None:
            assert live.state is not None
            before = live.state
            outcome = await runtime.step_computer(lobby.id)
            if outcome is not None:
                assert outcome.player == "cpu1" and outcome.by_computer
                played.append((before, outcome.action))
                continue
            assert engine.to_act(before) == [ANN.id]
            await runtime.act(lobby.id, ANN.id, computer.normal(before, ANN.id))
    final = await runtime.storage.get(lobby.id)
    assert final is not None and final.status == OVER
    assert played
    # Each move is hard's, the same as worked out here (what `arena` and replays get)...
    assert all(action == decide(computer, state, "cpu1", "hard", BUDGET)
               for state, action in played)
    # ...and not simply normal's.
    assert any(action != computer.normal(state, "cpu1") for state, action in played)


async def test_a_persons_move_is_taken_while_a_hard_computer_thinks_then_it_thinks_again(
        open_runtime: OpenRuntime) -> None:
    """Cityscape's goals are set at the same time: Ann sets hers while the hard computer is
    still thinking about its own."""
    computer = GAMES["cityscape"].computer
    thinking = asyncio.Event()
    release = asyncio.Event()
    seen: list[JSON] = []

    async def slow_thinker(game: str, state: JSON, player: str, level: str,
                           budget: Budget) -> JSON:
        seen.append(state)
        thinking.set()
        await release.wait()
        return await asyncio.to_thread(decide, GAMES[game].computer, state, player, level, budget)

    runtime = await open_runtime(thinker=slow_thinker)
    lobby = await runtime.open_lobby(10, 20, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(lobby.id, ANN.id, "hard")
    await runtime.start(lobby.id, ANN.id)
    step = asyncio.create_task(runtime.step_computer(lobby.id))
    await thinking.wait()

    mine = await runtime.act(lobby.id, ANN.id,
                             {"type": "set_goals", "side": "S", "codes": [2, 2, 2, 2]})
    assert not step.done() and len(seen) == 1  # answered while the computer still thinks
    # The match in memory is updated in place by later moves: keep what Ann's move left.
    after_mine, version_after_mine = mine.match.state, mine.match.version
    release.set()
    outcome = await step
    assert isinstance(outcome, Outcome) and outcome.player == "cpu1"
    # What it first thought of belonged to a board that is gone: it thought again.
    assert len(seen) == 2 and seen[1] == after_mine
    assert outcome.match.version == version_after_mine + 1
    state = outcome.match.state
    assert state is not None and state["goals"]["S"] == [2, 2, 2, 2]
    assert outcome.action == decide(computer, after_mine, "cpu1", "hard", BUDGET)


def test_the_hard_players_budget_comes_from_the_settings_or_a_sentence() -> None:
    settings = Settings.from_env({"CPU_HARD_SECONDS": "0.5", "CPU_HARD_ITERATIONS": "40"})
    assert (settings.cpu_hard_seconds, settings.cpu_hard_iterations) == (0.5, 40)
    default = Settings.from_env({})
    assert (default.cpu_hard_seconds, default.cpu_hard_iterations) == (0.9, 0)
    with pytest.raises(ConfigError, match=said(
            "CPU_HARD_SECONDS must be a number of seconds, not 'fast'.")):
        Settings.from_env({"CPU_HARD_SECONDS": "fast"})
    with pytest.raises(ConfigError, match=said(
            "CPU_HARD_ITERATIONS must be a whole number, at least 0, not '-3'.")):
        Settings.from_env({"CPU_HARD_ITERATIONS": "-3"})


async def test_easy_and_hard_play_their_own_moves_with_the_runtimes_own_thinker(
        open_runtime: OpenRuntime) -> None:
    """Without a render pool (the default thinker, a thread), each computer plays at its
    level to the end of a game: easy's moves are easy's, hard's are hard's."""
    computer = GAMES["bigcityz"].computer
    runtime = await open_runtime()
    lobby = await runtime.open_lobby(10, 20, "bigcityz", ANN, {})
    lobby.seed = 2
    await runtime.add_computer(lobby.id, ANN.id, "easy")
    await runtime.add_computer(lobby.id, ANN.id, "hard")
    await runtime.start(lobby.id, ANN.id)
    moves: dict[str, list[tuple[JSON, JSON]]] = {"cpu1": [], "cpu2": []}
    while (live := runtime.get(lobby.id)) is not None:
        assert live.state is not None
        before = live.state
        outcome = await runtime.step_computer(lobby.id)
        if outcome is not None:
            assert outcome.player is not None
            moves[outcome.player].append((before, outcome.action))
            continue
        await runtime.act(lobby.id, ANN.id, computer.normal(before, ANN.id))
    for player, level in (("cpu1", "easy"), ("cpu2", "hard")):
        assert moves[player]
        assert all(action == decide(computer, state, player, level, BUDGET)
                   for state, action in moves[player]), level
        assert any(action != computer.normal(state, player)
                   for state, action in moves[player]), level


async def test_a_level_set_as_the_game_starts_is_in_the_game_or_refused(
        open_runtime: OpenRuntime) -> None:
    """The host's level change and Start arrive together: the change lands in the lobby
    before the start, or is refused because the game started; never lost, never undoing
    the start."""
    runtime = await open_runtime()
    lobby = await runtime.open_lobby(10, 20, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(lobby.id, ANN.id)
    started, changed = await asyncio.gather(
        runtime.start(lobby.id, ANN.id), runtime.set_level(lobby.id, ANN.id, "cpu1", "hard"),
        return_exceptions=True)
    assert not isinstance(started, BaseException), started
    match = runtime.get(lobby.id)
    assert match is not None and match.status == "active" and match.state is not None
    if isinstance(changed, BaseException):
        assert isinstance(changed, Refusal) and str(changed) == "That game has already started."
        assert match.seats[1].level == "normal"
    else:
        assert match.seats[1].level == "hard"
    saved = await runtime.storage.get(lobby.id)
    assert saved is not None and saved.status == "active" and saved.seats == match.seats


async def test_a_level_that_is_not_one_is_quoted_short_in_the_refusal(
        open_runtime: OpenRuntime) -> None:
    runtime = await open_runtime()
    lobby = await runtime.open_lobby(10, 20, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(lobby.id, ANN.id)
    with pytest.raises(Refusal) as refused:
        await runtime.set_level(lobby.id, ANN.id, "cpu1", "x" * 25)
    # the first 20 characters of whatever was typed, no more
    assert str(refused.value) == f"'{'x' * 20}' is not a computer level: choose easy, normal or hard."


async def test_a_hard_move_that_cannot_be_worked_out_is_normals_and_logged(
        open_runtime: OpenRuntime, caplog: pytest.LogCaptureFixture) -> None:
    """A render worker that dies mid-thought must not stop the game: that one move is the
    normal level's, and the log says so with the error."""
    computer = GAMES["cityscape"].computer

    async def broken_thinker(game: str, state: JSON, player: str, level: str,
                             budget: Budget) -> JSON:
        raise RuntimeError("the worker died")

    runtime = await open_runtime(thinker=broken_thinker)
    lobby = await runtime.open_lobby(10, 20, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(lobby.id, ANN.id, "hard")
    started = await runtime.start(lobby.id, ANN.id)
    assert started.state is not None
    before = started.state
    caplog.set_level("ERROR", logger="bot.core.runtime")
    outcome = await runtime.step_computer(lobby.id)
    assert isinstance(outcome, Outcome) and outcome.player == "cpu1" and outcome.by_computer
    assert outcome.action == computer.normal(before, "cpu1")
    failures = [r for r in caplog.records if r.levelname == "ERROR"]
    assert [r.getMessage() for r in failures] == [
        f"A hard computer move could not be worked out in match {lobby.id}; "
        "playing the normal level's move instead."]
    assert failures[0].exc_info is not None
    assert str(failures[0].exc_info[1]) == "the worker died"


async def test_a_game_ended_while_a_hard_computer_thinks_gets_no_move(
        open_runtime: OpenRuntime) -> None:
    """The host ends the game while the hard computer is thinking: its move, when ready,
    is dropped, and nothing is saved for it."""
    runtime: Runtime

    async def thinker(game: str, state: JSON, player: str, level: str,
                      budget: Budget) -> JSON:
        await runtime.end(lobby.id, ANN.id, can_manage=False)
        return decide(GAMES[game].computer, state, player, level, budget)

    runtime = await open_runtime(thinker=thinker)
    lobby = await runtime.open_lobby(10, 20, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(lobby.id, ANN.id, "hard")
    version = (await runtime.start(lobby.id, ANN.id)).version
    assert await runtime.step_computer(lobby.id) is None
    saved = await runtime.storage.get(lobby.id)
    assert saved is not None and saved.status == "ended"
    assert saved.version == version  # no move was saved after the start


async def test_a_persons_move_waits_while_a_hard_computers_move_is_being_saved(
        open_runtime: OpenRuntime, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hard thinks without the match's lock, but saves its move under it: a person's move
    arriving while that save is under way waits for it and goes on from the board it left,
    so neither move is lost and no version is saved twice."""

    async def thinker(game: str, state: JSON, player: str, level: str,
                      budget: Budget) -> JSON:
        return decide(GAMES[game].computer, state, player, level, budget)

    runtime = await open_runtime(thinker=thinker)
    lobby = await runtime.open_lobby(10, 20, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(lobby.id, ANN.id, "hard")
    version = (await runtime.start(lobby.id, ANN.id)).version
    save = runtime.storage.save
    computer_saving, go_on, person_saving = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def slow_computer_save(match: object, **kwargs: object) -> None:
        if kwargs.get("by_computer"):
            computer_saving.set()
            await go_on.wait()  # a slow disk
        else:
            person_saving.set()
        await save(match, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(runtime.storage, "save", slow_computer_save)
    step = asyncio.create_task(runtime.step_computer(lobby.id))
    await computer_saving.wait()
    mine = asyncio.create_task(runtime.act(
        lobby.id, ANN.id, {"type": "set_goals", "side": "S", "codes": [2, 2, 2, 2]}))
    # The person's move must not be saved while the computer's is: give it the chance.
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(person_saving.wait(), 0.5)
    go_on.set()
    computer, person = await step, await mine
    assert isinstance(computer, Outcome)
    assert (computer.match.version, person.match.version) == (version + 2, version + 2)
    saved = await runtime.storage.get(lobby.id)
    assert saved is not None and saved.version == version + 2 and saved.state is not None
    assert saved.state["goals"]["S"] == [2, 2, 2, 2] and saved.state["goals"]["N"] is not None
