"""The render pool: pictures drawn in worker processes, in priority order, surviving crashes.

The functions at the top are jobs for the workers (the pool is told this module is a
"game"): they record the order jobs ran in and can hold a worker until the test lets go.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from bot.core.engine import JSON
from bot.core.levels import LEVELS, Budget, decide
from bot.games import ENGINES, GAMES, render_pool, renderer
from bot.render import pool as pool_module
from bot.render.pool import (
    DEFAULT_JOB_S,
    PoolClosed,
    PoolStats,
    Priority,
    RenderPool,
    Superseded,
    WorkerDied,
    age_bucket,
    default_spare,
    default_workers,
    rss_kib,
)
from bot.render.worker import WORKER_NICE
from fakediscord import FakeDiscord
from tests.harness import cityhall_bot

JOBS = {"testjobs": "tests.test_render_pool"}


# -- jobs run inside the workers -----------------------------------------------------------


def record(folder: str, tag: str) -> bytes:
    """Note that ``tag`` ran; return it."""
    with open(Path(folder) / "order", "a") as order:
        order.write(tag + "\n")
    return tag.encode()


def hold(folder: str, tag: str) -> bytes:
    """Say which worker runs ``tag``, wait until the test releases it, then record it."""
    (Path(folder) / f"{tag}.started").write_text(str(os.getpid()))
    release = Path(folder) / "release"
    while not release.exists():
        time.sleep(0.005)
    return record(folder, tag)


def nap(folder: str, tag: str, seconds: float) -> bytes:
    """Say which worker runs ``tag``, take ``seconds``, record it."""
    (Path(folder) / f"{tag}.started").write_text(str(os.getpid()))
    time.sleep(seconds)
    return record(folder, tag)


def stamp(folder: str, tag: str) -> bytes:
    """Record ``tag`` with the moment it ran (this machine's monotonic clock)."""
    (Path(folder) / f"{tag}.at").write_text(str(time.monotonic()))
    return record(folder, tag)


def drawer() -> bytes:
    """The process id of the worker that ran this."""
    return str(os.getpid()).encode()


# This module's priority as it was imported: in a worker told to preload it, the priority
# while it imported the pictures.
PRIORITY_AT_IMPORT = os.getpriority(os.PRIO_PROCESS, 0)


def priority_at_import() -> bytes:
    return str(PRIORITY_AT_IMPORT).encode()


_HOARD: list[bytes] = []


def hoard(megabytes: int) -> bytes:
    """Keep ``megabytes`` more of this worker's memory in use (written, so resident)."""
    _HOARD.append(b"\x01" * (megabytes << 20))
    return str(megabytes).encode()


def cache_scale() -> float:
    """The budget scale of this worker's render caches."""
    from bot.render import cache

    return cache.SCALE


# -- helpers -------------------------------------------------------------------------------


async def _until(condition: Any) -> None:
    while not condition():
        await asyncio.sleep(0.005)


async def _started(folder: Path, tag: str) -> int:
    marker = folder / f"{tag}.started"
    await _until(lambda: marker.exists() and marker.read_text())
    return int(marker.read_text())


async def _held(pool: RenderPool, folder: Path) -> asyncio.Task[Any]:
    """A job named "first" that keeps the pool's worker busy until ``folder/release`` is
    made, once it has started: what is sent meanwhile waits in the queue."""
    busy = asyncio.create_task(pool.render("testjobs", "hold", str(folder), "first"))
    await _started(folder, "first")
    return busy


def _order(folder: Path) -> list[str]:
    path = folder / "order"
    return path.read_text().split() if path.exists() else []


def _jobs_of_a_game(game: str, seed: int, every: int) -> list[tuple[str, tuple[Any, ...]]]:
    """Renderer calls along one seeded computer game: tables, event pictures, the end."""
    engine, computer = GAMES[game].engine, GAMES[game].computer
    state = engine.new(["ann", "Bob 田中", "cy"], {}, seed)
    calls: list[tuple[str, tuple[Any, ...]]] = [("render_table", (engine.view(state, None),))]
    step = 0
    while engine.result(state) is None:
        player = engine.to_act(state)[0]
        state, events = engine.apply(state, player, computer.normal(state, player))
        step += 1
        view: JSON = engine.view(state, None)
        if step % every == 0:
            calls.append(("render_table", (view,)))
        if step % every == 1 and events:
            calls.append(("render_extras", (view, events)))
    if hasattr(renderer(game), "render_final"):
        calls.append(("render_final", (engine.view(state, None),)))
    return calls


@pytest.fixture
async def single() -> Any:
    pool = render_pool(1, modules=JOBS)
    await pool.start()
    yield pool
    await pool.close()


# -- pictures ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_pictures_from_the_pool_equal_in_process_renders(game: str) -> None:
    calls = _jobs_of_a_game(game, seed=11, every=9)
    draw = renderer(game)
    async with render_pool(2) as pool:
        pooled = await asyncio.gather(*(pool.render(game, name, *args)
                                        for name, args in calls))
    assert len(pooled) == len(calls) > 5
    for (name, args), picture in zip(calls, pooled, strict=True):
        assert picture == getattr(draw, name)(*args), name
        if name == "render_table":
            assert picture[:8] == b"\x89PNG\r\n\x1a\n"


def spin(seconds: float) -> bytes:
    """Keep the worker's CPU busy for ``seconds`` of its own CPU time."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return b"spun"


async def test_the_pool_counts_each_kind_of_jobs_cpu(single: RenderPool, tmp_path: Path) -> None:
    """Where the workers' CPU goes (the load test's breakdown per move): each kind of job's
    count and the CPU it ran, a job that only waits costing next to none."""
    for _ in range(2):
        await single.render("testjobs", "spin", 0.05)
    await single.render("testjobs", "record", str(tmp_path), "a")
    counted = single.stats.cpu_by_job
    jobs, cpu = counted["tests.test_render_pool.spin"]
    assert jobs == 2 and 0.1 <= cpu < 0.5
    jobs, cpu = counted["tests.test_render_pool.record"]
    assert jobs == 1 and cpu < 0.05


def test_a_workers_age_is_told_in_buckets_of_the_jobs_it_had_done() -> None:
    assert [age_bucket(n) for n in (0, 149, 150, 399, 400, 799, 800, 5000)] == [
        "1-150", "1-150", "151-400", "151-400", "401-800", "401-800", "801+", "801+"]


def test_table_pictures_cpu_is_counted_by_their_workers_age() -> None:
    """What a new worker's cold caches cost (the load test's soak): table pictures only,
    each in the bucket of the jobs its worker had done before it."""
    stats = PoolStats()
    stats.count_cpu("bot.games.cities.render.render_table", 0.020, 0)
    stats.count_cpu("bot.games.cities.render.render_table", 0.010, 900)
    stats.count_cpu("bot.games.bigcity.render.render_table", 0.012, 901)
    stats.count_cpu("bot.games.cities.render.render_preview", 0.030, 900)
    stats.count_cpu("bot.games.cities.render.render_table", 0.015)  # age unknown
    assert stats.table_cpu_by_age == {"1-150": [1, 0.020], "801+": [2, 0.022]}
    assert stats.cpu_by_job["bot.games.cities.render.render_table"][0] == 3


async def test_in_process_mode_draws_the_same_pictures() -> None:
    calls = _jobs_of_a_game("cityscape", seed=3, every=10)
    async with render_pool(0) as pool:
        assert pool.pids() == []
        for name, args in calls:
            assert await pool.render("cityscape", name, *args) == \
                getattr(renderer("cityscape"), name)(*args)


async def test_a_renderer_error_reaches_the_caller_as_itself(single: RenderPool) -> None:
    with pytest.raises(AttributeError) as raised:
        await single.render("bigcity", "render_table", "not a view")
    assert any("in the render worker" in note for note in raised.value.__notes__)
    with pytest.raises(AttributeError):
        await single.render("bigcity", "no_such_picture")
    with pytest.raises(ValueError):
        await single.render("chess", "render_table", {})
    # The worker survived all of that.
    assert single.stats.worker_deaths == 0 and single.stats.failed == 2


# -- order ---------------------------------------------------------------------------------


async def test_interactive_jobs_overtake_queued_background_jobs(single: RenderPool,
                                                                tmp_path: Path) -> None:
    folder = str(tmp_path)
    busy = await _held(single, tmp_path)
    later = [asyncio.create_task(single.render("testjobs", "record", folder, tag))
             for tag in ("refresh1", "refresh2")]
    await _until(lambda: single.queued(Priority.BACKGROUND) == 2)
    urgent = asyncio.create_task(single.render("testjobs", "record", folder, "preview",
                                               priority=Priority.INTERACTIVE))
    await _until(lambda: single.queued(Priority.INTERACTIVE) == 1)
    assert single.queued() == 3 and single.in_flight() == 1
    (tmp_path / "release").touch()
    assert await asyncio.gather(busy, urgent, *later) == [b"first", b"preview", b"refresh1",
                                                          b"refresh2"]
    assert _order(tmp_path) == ["first", "preview", "refresh1", "refresh2"]
    assert single.queued() == 0


async def test_the_next_picture_is_sent_ahead_so_a_busy_event_loop_does_not_hold_it(
        single: RenderPool, tmp_path: Path) -> None:
    """A worker drawing a picture while more wait has the next one in its pipe: it draws it
    the moment it has answered, even while the bot's event loop is busy with clicks (at
    100 clicks a second the worker waited on the loop ~10 % of its time)."""
    folder = str(tmp_path)
    busy = await _held(single, tmp_path)
    first_nap = asyncio.create_task(single.render("testjobs", "nap", folder, "nap", 0.2))
    after = asyncio.create_task(single.render("testjobs", "stamp", folder, "after"))
    await _until(lambda: single.queued() == 2)
    (tmp_path / "release").touch()
    await _started(tmp_path, "nap")
    assert single.in_flight() == 2 and single.queued() == 0
    time.sleep(2.0)  # the event loop is busy for 2 s, from before the nap ends
    loop_free_again = time.monotonic()
    assert await asyncio.gather(busy, first_nap, after) == [b"first", b"nap", b"after"]
    assert float((tmp_path / "after.at").read_text()) < loop_free_again


async def test_an_interactive_picture_waits_for_one_picture_sent_ahead_at_most(
        single: RenderPool, tmp_path: Path) -> None:
    folder = str(tmp_path)
    busy = await _held(single, tmp_path)
    refreshes = [asyncio.create_task(single.render("testjobs", "nap", folder, "refresh1", 0.3)),
                 *(asyncio.create_task(single.render("testjobs", "record", folder, tag))
                   for tag in ("refresh2", "refresh3"))]
    await _until(lambda: single.queued() == 3)
    (tmp_path / "release").touch()
    await _started(tmp_path, "refresh1")  # refresh2 is sent ahead of it
    assert single.in_flight() == 2 and single.queued() == 1
    preview = await single.render("testjobs", "record", folder, "preview",
                                  priority=Priority.INTERACTIVE)
    assert preview == b"preview"
    await asyncio.gather(busy, *refreshes)
    assert _order(tmp_path) == ["first", "refresh1", "refresh2", "preview", "refresh3"]


async def test_computer_thinking_leaves_a_worker_for_pictures_and_goes_last(
        tmp_path: Path) -> None:
    # Hard computer players think at the lowest priority, on at most all workers but one:
    # with both workers free and two players thinking, a picture asked for next is drawn
    # while the first still thinks, and the second waits for a thinking slot.
    folder = str(tmp_path)
    async with render_pool(2, modules=JOBS) as pool:
        assert pool.thinking_slots == 1
        first = asyncio.create_task(pool.render("testjobs", "hold", folder, "think1",
                                                priority=Priority.THINKING))
        await _started(tmp_path, "think1")
        second = asyncio.create_task(pool.render("testjobs", "hold", folder, "think2",
                                                 priority=Priority.THINKING))
        await _until(lambda: pool.queued(Priority.THINKING) == 1)
        assert await pool.render("testjobs", "record", folder, "table") == b"table"
        assert pool.queued(Priority.THINKING) == 1 and not first.done()
        assert not (tmp_path / "think2.started").exists()
        # A player's picture would wait for none of that thinking, only for the free worker.
        assert pool.expected_wait() == pytest.approx(pool.stats.worker_seconds)
        (tmp_path / "release").touch()
        assert await asyncio.gather(first, second) == [b"think1", b"think2"]
        # The thinking (held by the test) is not taken for time spent drawing pictures.
        assert pool.stats.thinking_seconds > 0 and pool.stats.per_priority[Priority.THINKING] == 2
        assert pool.expected_wait() == pytest.approx(pool.stats.worker_seconds / 2)
    assert _order(tmp_path) == ["table", "think1", "think2"]


async def test_a_computer_move_from_a_worker_is_the_one_worked_out_here() -> None:
    engine, computer = GAMES["cities"].engine, GAMES["cities"].computer
    state = engine.new(["ann", "cpu1"], {}, 5)
    while engine.to_act(state)[0] != "cpu1" or state["phase"] != "play":
        player = engine.to_act(state)[0]
        state, _ = engine.apply(state, player, computer.normal(state, player))
    budget = Budget(iterations=6, seconds=None)
    async with render_pool(1) as pool:
        moves = await asyncio.gather(*(pool.think("cities", state, "cpu1", level, budget)
                                       for level in LEVELS))
    assert moves == [decide(computer, state, "cpu1", level, budget) for level in LEVELS]


async def test_a_player_is_told_how_long_the_pictures_ahead_will_take(
        single: RenderPool, tmp_path: Path) -> None:
    # What a private screen uses to decide whether to wait for its picture: the pictures
    # ahead of a player's (interactive ones and the one being drawn; not table refreshes)
    # at the pool's time per picture so far.
    folder = str(tmp_path)
    assert single.expected_wait() == pytest.approx(DEFAULT_JOB_S)  # nothing ahead
    busy = await _held(single, tmp_path)
    queued = [asyncio.create_task(single.render("testjobs", "record", folder, f"p{i}",
                                                priority=Priority.INTERACTIVE))
              for i in range(3)]
    refresh = asyncio.create_task(single.render("testjobs", "record", folder, "refresh"))
    await _until(lambda: single.queued() == 4)
    assert single.expected_wait(Priority.INTERACTIVE) == pytest.approx(5 * DEFAULT_JOB_S)
    assert single.expected_wait(Priority.BACKGROUND) == pytest.approx(6 * DEFAULT_JOB_S)
    (tmp_path / "release").touch()
    await asyncio.gather(busy, refresh, *queued)
    # Now measured: the mean of the five jobs drawn, one of which was held.
    per_job = single.stats.worker_seconds / single.stats.done
    assert single.stats.done == 5 and per_job > 0
    assert single.expected_wait() == pytest.approx(per_job)


async def test_background_jobs_with_the_same_key_coalesce(single: RenderPool,
                                                          tmp_path: Path) -> None:
    folder = str(tmp_path)
    busy = await _held(single, tmp_path)
    old = asyncio.create_task(single.render("testjobs", "record", folder, "old", key=7))
    other = asyncio.create_task(single.render("testjobs", "record", folder, "other", key=8))
    await _until(lambda: single.queued(Priority.BACKGROUND) == 2)
    new = asyncio.create_task(single.render("testjobs", "record", folder, "new", key=7))
    # An interactive job is never coalesced, even with the same key.
    ask = asyncio.create_task(single.render("testjobs", "record", folder, "ask", key=7,
                                            priority=Priority.INTERACTIVE))
    with pytest.raises(Superseded):
        await old
    await _until(lambda: single.queued(Priority.INTERACTIVE) == 1)
    assert single.queued(Priority.BACKGROUND) == 2
    (tmp_path / "release").touch()
    assert await asyncio.gather(busy, new, other, ask) == [b"first", b"new", b"other", b"ask"]
    # The replaced job never ran; its replacement kept the replaced job's place.
    assert _order(tmp_path) == ["first", "ask", "new", "other"]
    assert single.stats.superseded == 1


class Board:
    """A stand-in for a view: an object that pickles and can be referred to weakly."""

    def __init__(self, tag: str) -> None:
        self.tag = tag


def tag_of(folder: str, board: Board) -> bytes:
    return record(folder, board.tag)


async def test_a_waiting_picture_keeps_its_arguments_pickled_not_alive(
        single: RenderPool, tmp_path: Path) -> None:
    # A restart's crowd on a slow host queues thousands of table pictures at once; each
    # waits as a few KB of pickle rather than the view's objects (issue 25, item 6).
    import gc
    import weakref

    folder = str(tmp_path)
    busy = await _held(single, tmp_path)
    board = Board("queued")
    alive = weakref.ref(board)
    waiting = asyncio.create_task(single.render("testjobs", "tag_of", folder, board, key=3))
    await _until(lambda: single.queued(Priority.BACKGROUND) == 1)
    del board
    gc.collect()
    assert alive() is None  # neither the queue nor the waiting caller holds it
    (tmp_path / "release").touch()
    assert await asyncio.gather(busy, waiting) == [b"first", b"queued"]
    # Arguments that cannot travel to a worker are refused at once, nothing queued.
    with pytest.raises((TypeError, AttributeError, pickle.PicklingError)):
        await single.render("testjobs", "record", folder, lambda: "not picklable")
    assert single.queued() == 0 and single.stats.failed == 0


async def test_background_pictures_are_prepared_a_few_at_a_time_in_turn(
        single: RenderPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A backlog of table refreshes waits for its turn before taking its snapshot: only
    # BACKGROUND_AHEAD are prepared at once, the rest count as queued, and all are drawn
    # in the order they asked (issue 25, item 6: a restart's crowd on a slow host).
    monkeypatch.setattr(single, "_turns", asyncio.Semaphore(2))
    folder = str(tmp_path)
    busy = await _held(single, tmp_path)
    prepared: list[str] = []

    async def refresh(tag: str) -> bytes:
        async with single.turn():
            prepared.append(tag)
            result: bytes = await single.render("testjobs", "record", folder, tag)
            return result

    tags = ["t1", "t2", "t3", "t4", "t5"]
    refreshes = [asyncio.create_task(refresh(tag)) for tag in tags]
    await _until(lambda: len(prepared) == 2)
    await asyncio.sleep(0.05)
    assert prepared == ["t1", "t2"]  # the others hold nothing yet
    assert single.queued(Priority.BACKGROUND) == 5 and single.queued(Priority.INTERACTIVE) == 0
    (tmp_path / "release").touch()
    assert await asyncio.gather(busy, *refreshes) == [b"first", *(t.encode() for t in tags)]
    assert prepared == tags and _order(tmp_path) == ["first", *tags]
    assert single.queued() == 0


async def test_a_cancelled_caller_takes_its_job_out_of_the_queue(single: RenderPool,
                                                                 tmp_path: Path) -> None:
    folder = str(tmp_path)
    busy = await _held(single, tmp_path)
    gone = asyncio.create_task(single.render("testjobs", "record", folder, "gone", key=1))
    await _until(lambda: single.queued() == 1)
    gone.cancel()
    await _until(lambda: single.queued() == 0)
    kept = asyncio.create_task(single.render("testjobs", "record", folder, "kept", key=1))
    (tmp_path / "release").touch()
    assert await asyncio.gather(busy, kept) == [b"first", b"kept"]
    assert _order(tmp_path) == ["first", "kept"]


async def test_pictures_that_fall_behind_borrow_the_spare_core_and_give_it_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # On 2 cores the default is one worker; when pictures have waited too long a second is
    # lent (with half the caches), draws them, and is stopped once none has come a while.
    monkeypatch.setattr(pool_module, "LEND_NOT_BEFORE_S", 0.0)
    monkeypatch.setattr(pool_module, "LEND_AFTER_S", 0.2)
    monkeypatch.setattr(pool_module, "SPARE_IDLE_S", 1.0)
    folder = str(tmp_path)
    async with render_pool(1, modules=JOBS, spare=1, memory_budget_mb=100_000) as pool:
        busy = await _held(pool, tmp_path)  # the standing worker is held
        early = asyncio.create_task(pool.render("testjobs", "record", folder, "early"))
        await asyncio.sleep(0.1)
        assert pool.stats.lent == 0  # a short wait lends nothing
        await asyncio.sleep(0.2)
        late = asyncio.create_task(pool.render("testjobs", "cache_scale"))
        assert await asyncio.wait_for(early, 30) == b"early"
        assert await asyncio.wait_for(late, 30) == pytest.approx(
            cache_scale() * pool_module.SPARE_CACHE_SCALE)
        assert not busy.done() and pool.stats.lent == 1 and len(pool.pids()) == 2
        (tmp_path / "release").touch()
        assert await busy == b"first"
        await asyncio.wait_for(_until(lambda: len(pool.pids()) == 1), 10)  # given back
        assert pool.stats.lent == 1
    assert _order(tmp_path) == ["early", "first"]


async def test_no_spare_worker_is_lent_where_memory_is_short(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Memory is a small VPS's limit: where the bot and its worker leave no room for a spare
    # in ``memory_budget_mb`` (thousands of matches, a grown worker) a backlog waits for
    # the standing worker rather than start another (issue 25, items 5 and 6).
    monkeypatch.setattr(pool_module, "LEND_NOT_BEFORE_S", 0.0)
    monkeypatch.setattr(pool_module, "LEND_AFTER_S", 0.05)
    folder = str(tmp_path)
    async with render_pool(1, modules=JOBS, spare=1, memory_budget_mb=1) as pool:
        busy = await _held(pool, tmp_path)
        waiting = []
        for tag in ("a", "b", "c"):  # each asked for once the one before has waited
            waiting.append(asyncio.create_task(pool.render("testjobs", "record", folder, tag)))
            asked = len(waiting)
            await _until(lambda: pool.queued() == asked)  # noqa: B023 (awaited here)
            await asyncio.sleep(0.1)
        assert pool.stats.lent == 0 and len(pool.pids()) == 1
        assert pool.stats.not_lent_for_memory == 1  # said once for the whole backlog
        (tmp_path / "release").touch()
        assert await asyncio.gather(busy, *waiting) == [b"first", b"a", b"b", b"c"]
    assert _order(tmp_path) == ["first", "a", "b", "c"]


async def test_a_lent_worker_is_given_back_once_memory_is_over_the_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Lent while there was room; all processes then grow past the budget (read from
    # /proc: here a stand-in) and the spare is stopped when it takes its next picture, which
    # goes back to the head of the queue for the standing worker (issue 25, item 5: a slow host's soak reached 394 MB with it).
    monkeypatch.setattr(pool_module, "LEND_NOT_BEFORE_S", 0.0)
    monkeypatch.setattr(pool_module, "LEND_AFTER_S", 0.05)
    monkeypatch.setattr(pool_module, "LEND_MEMORY_CHECK_S", 0.0)
    resident_kib = {"now": 100 << 10}  # 100 MB per process: 200 with one worker
    monkeypatch.setattr(pool_module, "rss_kib", lambda pid: resident_kib["now"])
    folder = str(tmp_path)
    async with render_pool(1, modules=JOBS, spare=1, memory_budget_mb=300) as pool:
        busy = await _held(pool, tmp_path)
        early = asyncio.create_task(pool.render("testjobs", "record", folder, "early"))
        await asyncio.sleep(0.1)
        lent = asyncio.create_task(pool.render("testjobs", "record", folder, "lent"))
        assert await asyncio.wait_for(early, 30) == b"early"  # the spare drew them
        assert await asyncio.wait_for(lent, 30) == b"lent"
        assert pool.stats.lent == 1 and len(pool.pids()) == 2
        resident_kib["now"] = 160 << 10  # 320 MB with the spare: over
        after = asyncio.create_task(pool.render("testjobs", "record", folder, "after"))
        await asyncio.wait_for(_until(lambda: len(pool.pids()) == 1), 10)
        assert pool.stats.given_back_for_memory == 1
        await asyncio.sleep(0.2)
        assert not after.done() and pool.stats.lent == 1  # no room: not lent again
        (tmp_path / "release").touch()
        assert await asyncio.gather(busy, after) == [b"first", b"after"]
    assert _order(tmp_path) == ["early", "lent", "first", "after"]


def test_the_core_left_to_the_bot_is_lent_only_by_default() -> None:
    assert default_spare(None, cores=2) == 1 and default_spare(None, cores=8) == 1
    assert default_spare(None, cores=1) == 0  # one core: nothing to lend
    assert default_spare(1, cores=2) == 0  # RENDER_WORKERS set: the admin's number


async def test_the_memory_budget_governs_the_default_workers_only(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """Left to the bot, its workers keep to the small VPS's budget (a spare lent only where
    it fits, a worker held to what the bot leaves); an admin who sets RENDER_WORKERS has
    the memory for the workers they asked for, which are never squeezed below ``max_mb``."""
    async with cityhall_bot(fake_discord, tmp_path / "a.sqlite3", render_workers=None) as bot:
        assert bot.pictures.memory_budget_mb == pool_module.MEMORY_BUDGET_MB
    async with cityhall_bot(fake_discord, tmp_path / "b.sqlite3", render_workers=1) as bot:
        assert bot.pictures.memory_budget_mb is None and bot.pictures.spare == 0


# -- crashes and shutdown ------------------------------------------------------------------


async def test_a_worker_killed_mid_job_is_replaced_and_the_job_fails(tmp_path: Path) -> None:
    folder = str(tmp_path)
    view = ENGINES["bigcity"].view(ENGINES["bigcity"].new(["ann", "bob"], {}, 5), None)
    async with render_pool(1, modules=JOBS, retries=0) as pool:
        job = asyncio.create_task(pool.render("testjobs", "hold", folder, "doomed"))
        pid = await _started(tmp_path, "doomed")
        assert pool.pids() == [pid]
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(WorkerDied):
            await job
        assert await pool.render("bigcity", "render_table", view) == \
            renderer("bigcity").render_table(view)
        assert pool.pids() and pool.pids() != [pid]
        assert pool.stats.worker_deaths == 1
    assert _order(tmp_path) == []


async def test_a_job_whose_worker_was_killed_is_run_again_once(tmp_path: Path) -> None:
    folder = str(tmp_path)
    async with render_pool(1, modules=JOBS, retries=1) as pool:
        job = asyncio.create_task(pool.render("testjobs", "hold", folder, "again"))
        pid = await _started(tmp_path, "again")
        (tmp_path / "again.started").unlink()
        os.kill(pid, signal.SIGKILL)
        second = await _started(tmp_path, "again")  # the replacement picked it up
        assert second != pid
        (tmp_path / "release").touch()
        assert await job == b"again"
    assert _order(tmp_path) == ["again"]


@pytest.mark.parametrize("failure", ["killed", "timed out"])
async def test_a_picture_sent_ahead_to_a_worker_that_is_gone_is_drawn_by_the_next(
        tmp_path: Path, failure: str) -> None:
    """The picture behind one whose worker was killed (or ran over the timeout) never ran:
    the next worker draws it, even with no retries left."""
    folder = str(tmp_path)
    async with render_pool(1, modules=JOBS, retries=0,
                           timeout=3.0 if failure == "timed out" else 60) as pool:
        busy = await _held(pool, tmp_path)
        doomed = asyncio.create_task(pool.render("testjobs", "nap", folder, "doomed", 30))
        behind = asyncio.create_task(pool.render("testjobs", "record", folder, "behind"))
        await _until(lambda: pool.queued() == 2)
        (tmp_path / "release").touch()
        pid = await _started(tmp_path, "doomed")
        assert pool.in_flight() == 2
        if failure == "killed":
            os.kill(pid, signal.SIGKILL)
        with pytest.raises(WorkerDied if failure == "killed" else pool_module.RenderTimeout):
            await doomed
        async with asyncio.timeout(20):
            assert await asyncio.gather(busy, behind) == [b"first", b"behind"]
        assert pool.pids() != [pid] and pool.stats.failed == 1
    assert _order(tmp_path) == ["first", "behind"]


async def test_a_picture_sent_ahead_fails_with_the_pool_closed(tmp_path: Path) -> None:
    folder = str(tmp_path)
    others = set(_children())
    pool = render_pool(1, modules=JOBS)
    await pool.start()
    busy = await _held(pool, tmp_path)
    drawing = asyncio.create_task(pool.render("testjobs", "nap", folder, "drawing", 30))
    behind = asyncio.create_task(pool.render("testjobs", "record", folder, "behind"))
    await _until(lambda: pool.queued() == 2)
    (tmp_path / "release").touch()
    await _started(tmp_path, "drawing")
    assert pool.in_flight() == 2
    await pool.close()
    assert await busy == b"first"
    for job in (drawing, behind):
        with pytest.raises(PoolClosed):
            await job
    assert set(_children()) - others == set()
    assert _order(tmp_path) == ["first"]


@pytest.mark.parametrize("hand_over", [True, False])
async def test_worn_workers_with_pictures_sent_ahead_lose_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hand_over: bool) -> None:
    """Pictures queued all at once through workers worn every two jobs: each is drawn once,
    in order, whether the worn worker hands over to its successor or is stopped first."""
    folder = str(tmp_path)
    real_start = pool_module._Process.start
    four_drawn = asyncio.Event()

    async def start_after_four(*args: Any, **kwargs: Any) -> Any:
        # A successor comes up while its worn worker has pictures to draw.
        await four_drawn.wait()
        return await real_start(*args, **kwargs)

    async with render_pool(1, modules=JOBS, max_jobs=2, memory_budget_mb=None) as pool:
        if hand_over:
            monkeypatch.setattr(pool_module._Process, "start", start_after_four)
        else:
            pool.memory_budget_mb = 1.0  # no room for a successor beside it
            four_drawn.set()
        tags = [f"t{n}" for n in range(9)]
        jobs = [asyncio.create_task(pool.render("testjobs", "nap", folder, tag, 0.05))
                for tag in tags]
        async with asyncio.timeout(60):
            await _until(lambda: len(_order(tmp_path)) >= 4)
            four_drawn.set()
            drawn = await asyncio.gather(*jobs)
            # (a successor still starting takes over once it is up)
            await _until(lambda: pool.stats.recycled >= 1 and not pool._successors)
        assert drawn == [tag.encode() for tag in tags]
        assert pool.stats.worker_deaths == 0
        assert pool.stats.handed_over == (pool.stats.recycled if hand_over else 0)
        if not hand_over:
            assert pool.stats.recycled == 4  # after the 2nd, 4th, 6th and 8th
    assert _order(tmp_path) == tags


async def test_workers_are_replaced_after_max_jobs(tmp_path: Path) -> None:
    async with render_pool(1, modules=JOBS, max_jobs=2, memory_budget_mb=None) as pool:
        seen = set()
        for done, tag in enumerate("abcde", start=1):
            assert await pool.render("testjobs", "record", str(tmp_path), tag) == tag.encode()
            async with asyncio.timeout(10):  # an idle slot hands over once the new one is up
                await _until(lambda done=done: pool.stats.recycled >= done // 2 and bool(pool.pids()))
            seen.update(pool.pids())
        assert len(seen) == 3 and pool.stats.recycled == 2
    assert _order(tmp_path) == list("abcde")


async def test_a_worn_worker_draws_on_until_its_successor_has_started(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Replacing a worker costs the pictures no wait: the worn one is stopped only once the
    fresh one is ready (stopped first, every picture waited through the new one's start)."""
    let_start = asyncio.Event()
    real_start = pool_module._Process.start

    async def slow_start(*args: Any, **kwargs: Any) -> Any:
        await let_start.wait()
        return await real_start(*args, **kwargs)

    # no memory budget: this test process alone may be bigger than a small VPS's
    async with render_pool(1, modules=JOBS, max_jobs=1, memory_budget_mb=None) as pool:
        first = int(await pool.render("testjobs", "drawer"))  # worn after this one
        monkeypatch.setattr(pool_module._Process, "start", slow_start)
        async with asyncio.timeout(10):  # stopped first, the worn worker drew none of them
            drawn = [int(await pool.render("testjobs", "drawer")) for _ in range(3)]
        assert drawn == [first] * 3 and pool.stats.recycled == 0
        let_start.set()
        async with asyncio.timeout(10):
            await _until(lambda: bool(pool.pids()) and pool.pids() != [first])
        assert pool.stats.recycled == pool.stats.handed_over == 1
        assert int(await pool.render("testjobs", "drawer")) == pool.pids()[0] != first
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)


async def test_without_room_in_the_memory_budget_a_worn_worker_is_stopped_first() -> None:
    """The successor's ~35 MB beside the worn worker are not taken where the bot and its
    workers would go over their memory budget: the worn one is stopped, then replaced."""
    async with render_pool(1, modules=JOBS, max_jobs=2, memory_budget_mb=None) as pool:
        first = int(await pool.render("testjobs", "drawer"))
        in_use = sum(rss_kib(pid) for pid in (os.getpid(), first)) / 1024
        pool.memory_budget_mb = in_use + pool_module.SUCCESSOR_MB / 2
        assert int(await pool.render("testjobs", "drawer")) == first  # worn after this one
        async with asyncio.timeout(10):
            await _until(lambda: bool(pool.pids()) and pool.pids() != [first])
        assert pool.stats.recycled == 1 and pool.stats.handed_over == 0
        assert int(await pool.render("testjobs", "drawer")) == pool.pids()[0] != first


async def test_a_successor_not_yet_in_place_is_stopped_with_the_pool(tmp_path: Path) -> None:
    """A pool closed while a worn worker still draws and its successor waits to take over
    leaves no process behind."""
    others = set(_children())  # what other tests of this process may have running
    pool = render_pool(1, modules=JOBS, max_jobs=1, memory_budget_mb=None)
    await pool.start()
    await pool.render("testjobs", "drawer")  # worn: its successor starts
    held = asyncio.create_task(pool.render("testjobs", "hold", str(tmp_path), "held"))
    try:
        await _started(tmp_path, "held")  # the worn worker draws on...
        async with asyncio.timeout(10):  # ...while its successor is up and waiting
            await _until(lambda: all(task.done() for task in pool._successors.values()))
        assert len(set(_children()) - others) == 2
    finally:
        await pool.close()
    with pytest.raises(PoolClosed):
        await held
    assert set(_children()) - others == set()


def _children() -> list[int]:
    """This process's child processes, from /proc (reaped ones are gone from it)."""
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[1]) == os.getpid():
                children.append(int(entry.name))
    return children


async def _replaced_for_memory_after_hoarding(pool: RenderPool, first: int, megabytes: int,
                                              tmp_path: Path) -> None:
    """``first`` keeps ``megabytes`` more and is replaced after that job, for its memory,
    by a fresh worker that goes on drawing (its job recorded as "after")."""
    assert await pool.render("testjobs", "hoard", megabytes) == str(megabytes).encode()
    async with asyncio.timeout(10):
        await _until(lambda: bool(pool.pids()) and pool.pids() != [first])
    assert pool.stats.recycled == pool.stats.recycled_for_memory == 1
    assert await pool.render("testjobs", "record", str(tmp_path), "after") == b"after"


async def test_a_worker_whose_memory_grew_past_its_bound_is_replaced(tmp_path: Path) -> None:
    """What drawing leaves in a worker's heap is not bounded by its caches: a worker over
    ``max_mb`` after a job is replaced (the VPS's memory is the limit), one under it is
    kept, and pictures go on in the fresh worker."""
    async with render_pool(1, modules=JOBS, max_mb=None) as pool:
        pool.MEMORY_CHECK_EVERY, pool.MEMORY_MIN_JOBS = 1, 3
        assert await pool.render("testjobs", "hoard", 1) == b"1"
        [first] = pool.pids()
        fresh = rss_kib(first) / 1024
        assert fresh > 10
        pool.max_mb = fresh + 40
        assert await pool.render("testjobs", "hoard", 1) == b"1"
        assert pool.pids() == [first] and pool.stats.recycled == 0
        await _replaced_for_memory_after_hoarding(pool, first, 80, tmp_path)
        [second] = pool.pids()
        assert rss_kib(second) / 1024 < fresh + 40
    assert _order(tmp_path) == ["after"]


async def test_a_worker_is_held_to_what_the_other_processes_leave_of_the_budget(
        tmp_path: Path) -> None:
    """Where the bot itself has grown, a worker under its own ``max_mb`` is still replaced
    once it and the bot together (with room for one more job's growth) would pass the
    memory budget: all processes stay within it, not just each worker within its bound."""
    async with render_pool(1, modules=JOBS, max_mb=100_000, memory_budget_mb=None) as pool:
        pool.MEMORY_MIN_JOBS = 3
        assert await pool.render("testjobs", "hoard", 1) == b"1"
        [first] = pool.pids()
        fresh = rss_kib(first) / 1024
        this_process = rss_kib(os.getpid()) / 1024
        # what this process (the bot here) leaves a worker: 40 MB more than it uses now
        pool.memory_budget_mb = this_process + pool.JOB_RISE_MB + fresh + 40
        for _ in range(3):
            assert await pool.render("testjobs", "hoard", 1) == b"1"
        assert pool.pids() == [first] and pool.stats.recycled == 0
        await _replaced_for_memory_after_hoarding(pool, first, 60, tmp_path)
    assert _order(tmp_path) == ["after"]


async def test_a_young_worker_over_the_memory_bound_is_kept(
        caplog: pytest.LogCaptureFixture) -> None:
    """A worker already over ``max_mb`` in its first jobs (a host where a fresh worker is
    that big) is not replaced over and over: said once, kept for its first
    ``MEMORY_MIN_JOBS``."""
    async with render_pool(1, modules=JOBS, max_mb=1.0) as pool:
        pool.MEMORY_CHECK_EVERY = 1
        for _ in range(5):
            assert await pool.render("testjobs", "hoard", 1) == b"1"
        assert pool.stats.recycled == 0 and len(pool.pids()) == 1
    said = [r for r in caplog.records if "after only" in r.getMessage()]
    assert len(said) == 1


async def test_a_young_worker_over_what_a_big_bot_leaves_it_is_kept_quietly(
        caplog: pytest.LogCaptureFixture) -> None:
    """Over what the budget leaves it (a bot with 10,000 matches) but under its own
    ``max_mb``, a young worker is kept for its first jobs like any other, and the admin is
    not warned: that is the budget at work, not a platform whose workers are too big."""
    async with render_pool(1, modules=JOBS, max_mb=100_000, memory_budget_mb=1.0) as pool:
        for _ in range(3):
            assert await pool.render("testjobs", "hoard", 30) == b"30"
        [worker] = pool.pids()
        assert rss_kib(worker) / 1024 > pool.MEMORY_BOUND_FLOOR_MB  # over the bound
        assert pool.stats.recycled == 0 and pool.pids() == [worker]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_close_leaves_no_child_processes(tmp_path: Path) -> None:
    pool = render_pool(2, modules=JOBS)
    await pool.start()
    pids = pool.pids()
    assert len(pids) == 2 and all(Path(f"/proc/{pid}").exists() for pid in pids)
    stuck = [asyncio.create_task(pool.render("testjobs", "hold", str(tmp_path), t))
             for t in ("stuck1", "stuck2")]
    await _started(tmp_path, "stuck1")
    await _started(tmp_path, "stuck2")
    queued = [asyncio.create_task(pool.render("testjobs", "record", str(tmp_path), t))
              for t in ("q1", "q2", "q3")]
    await _until(lambda: pool.queued() == 3)
    await pool.close()
    for task in (*stuck, *queued):
        with pytest.raises(PoolClosed):
            await task
    # Reaped, not just killed: no zombie is left either.
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)
    assert pool.pids() == [] and _order(tmp_path) == []
    with pytest.raises(PoolClosed):
        await pool.render("bigcity", "render_table", {})


async def test_workers_give_way_to_the_bot_on_busy_cores() -> None:
    # An admin's `top` shows the workers at a lower priority (NI) than the bot, so a busy
    # machine answers clicks first and draws pictures with what is left.
    async with render_pool(2, modules=JOBS) as pool:
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        lower = min(19, mine + WORKER_NICE)  # 19 is the lowest there is
        assert [os.getpriority(os.PRIO_PROCESS, pid) for pid in pool.pids()] == [lower, lower]


async def test_a_starting_worker_imports_the_pictures_at_its_lower_priority() -> None:
    # A worker replaced mid-game spends ~0.3 s of CPU importing the pictures: at the bot's
    # priority, that took a core from the event loop while players clicked.
    pool = render_pool(1, modules=JOBS)  # its modules are imported as the worker starts
    async with pool:
        lower = min(19, os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICE)
        assert await pool.render("testjobs", "priority_at_import") == str(lower).encode()


def test_a_worker_whose_bot_died_mid_job_exits_quietly(tmp_path: Path) -> None:
    """The bot is killed while its worker draws: the reply has nowhere to go (a broken
    pipe). The worker ends without a traceback in the log (issue 26)."""
    import subprocess
    import sys

    from bot.render import pool as render_pool

    def frame(message: Any) -> bytes:
        data = pickle.dumps(message, render_pool._PICKLE)
        return render_pool._HEADER.pack(len(data)) + data

    worker = subprocess.Popen([sys.executable, "-c", render_pool._WORKER_CODE],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    assert worker.stdin is not None and worker.stdout is not None
    try:
        worker.stdin.write(frame(("init", list(sys.path), [])))
        worker.stdin.flush()
        (size,) = render_pool._HEADER.unpack(worker.stdout.read(render_pool._HEADER.size))
        assert pickle.loads(worker.stdout.read(size))[0] == "ready"
        args = pickle.dumps((str(tmp_path), "drawing"), render_pool._PICKLE)
        worker.stdin.write(frame(("job", 1, "tests.test_render_pool", "hold", args, "en")))
        worker.stdin.flush()
        deadline = time.monotonic() + 30
        while not (tmp_path / "drawing.started").exists():
            assert time.monotonic() < deadline and worker.poll() is None
            time.sleep(0.01)
        worker.stdout.close()  # the bot is gone: nobody reads the reply
        (tmp_path / "release").write_text("")
        assert worker.wait(30) == 0
        assert worker.stderr is not None
        assert worker.stderr.read() == b""
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


def test_the_bot_keeps_a_core_for_its_event_loop() -> None:
    """One worker per core but one, at least one (a 2-core VPS draws in one worker, its other
    core answering clicks)."""
    assert [default_workers(cores) for cores in (1, 2, 4, 8)] == [1, 1, 3, 7]
    assert RenderPool().workers == default_workers()
