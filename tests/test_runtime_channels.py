"""Games in different channels do not wait for each other: while one channel's change is
being saved, the same kind of change in another channel goes ahead and is saved in the same
commit (each match has its own lock; only one match's changes run one at a time)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import pytest

from bot.core.records import Match
from bot.core.runtime import Runtime
from bot.core.storage import Storage

from .runtime_support import ANN, BOB, CY, Clock, OpenRuntime, runtimes

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

__all__ = ["runtimes"]  # the fixture, used by name

Change = Callable[[Runtime, Match], Coroutine[Any, Any, object]]
GOALS = {"type": "set_goals", "side": "S", "codes": [1, 2, 3, 4]}


async def _lobby(runtime: Runtime, channel: int) -> Match:
    return await runtime.open_lobby(10, channel, "cityscape", ANN, {"rounds": 1})


async def _with_bob(runtime: Runtime, channel: int) -> Match:
    lobby = await _lobby(runtime, channel)
    return await runtime.join(lobby.id, BOB)


async def _with_computer(runtime: Runtime, channel: int) -> Match:
    lobby = await _lobby(runtime, channel)
    return await runtime.add_computer(lobby.id, ANN.id)


async def _started(runtime: Runtime, channel: int) -> Match:
    return await runtime.start((await _with_computer(runtime, channel)).id, ANN.id)


async def _expired(runtime: Runtime, channel: int) -> Match:
    lobby = await _lobby(runtime, channel)
    lobby.created_at = -10_000.0  # long before the test clock's now
    return lobby


async def _overdue(runtime: Runtime, channel: int) -> Match:
    match = await _started(runtime, channel)
    match.turn_started_at = -10_000.0
    return match


CHANGES: dict[str, tuple[Callable[[Runtime, int], Awaitable[Match]], Change]] = {
    "join": (_lobby, lambda r, m: r.join(m.id, CY)),
    "leave": (_with_bob, lambda r, m: r.leave(m.id, BOB.id)),
    "add a computer": (_lobby, lambda r, m: r.add_computer(m.id, ANN.id)),
    "remove a computer": (_with_computer, lambda r, m: r.remove_computer(m.id, ANN.id)),
    "start": (_with_computer, lambda r, m: r.start(m.id, ANN.id)),
    "end": (_lobby, lambda r, m: r.end(m.id, ANN.id, can_manage=False)),
    "abandon": (_lobby, lambda r, m: r.abandon(m.id, "channel deleted")),
    "expire": (_expired, lambda r, m: r.expire_lobby(m.id)),
    "table message": (_lobby, lambda r, m: r.set_table_message(m.id, 555)),
    "move": (_started, lambda r, m: r.act(m.id, ANN.id, GOALS)),
    "computer move": (_started, lambda r, m: r.step_computer(m.id)),
    "time out": (_overdue, lambda r, m: r.time_out(m.id)),
}


async def _queued(storage: Storage, count: int) -> None:
    # The writer's queue is private; these tests are about what waits in it.
    while storage._writer._queue.qsize() < count:
        await asyncio.sleep(0.01)


@pytest.mark.sqlite_only("holds the SQLite writer thread; PostgreSQL has no single writer")
@pytest.mark.parametrize("kind", list(CHANGES))
async def test_a_change_in_one_channel_does_not_wait_for_another_channels(
        kind: str, runtimes: OpenRuntime) -> None:
    runtime = await runtimes(clock=Clock())
    prepare, change = CHANGES[kind]
    first, second = await prepare(runtime, 1), await prepare(runtime, 2)
    before = _summary(first)
    running, release = threading.Event(), threading.Event()

    def hold(conn: sqlite3.Connection) -> None:
        running.set()
        release.wait(10)

    held = asyncio.create_task(runtime.storage.write(hold))
    await asyncio.to_thread(running.wait, 10)
    one = asyncio.create_task(change(runtime, first))
    await _queued(runtime.storage, 1)
    two = asyncio.create_task(change(runtime, second))
    await _queued(runtime.storage, 2)  # saved together: neither waited for the other's lock
    release.set()
    await asyncio.gather(held, one, two)
    # and each took effect, the same way
    after = [_summary(await runtime.storage.get(m.id)) for m in (first, second)]
    assert after[0] == after[1] != before


def _summary(match: Match | None) -> tuple[object, ...]:
    assert match is not None
    return (match.status, [s.id for s in match.seats], match.version, match.table_message_id,
            match.extra)
