"""The per-match timers and locks that cost nothing while a match waits (bot/core/alarms.py,
bot/core/keyedlocks.py): turn timers ring once, in order, after being moved or cancelled;
a match's lock keeps its moves one at a time and is gone once nobody uses it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import pytest

from bot.core.alarms import Alarms
from bot.core.keyedlocks import KeyedLocks


async def rung(rang: Sequence[object], count: int, timeout: float = 10.0) -> None:
    """Until ``count`` alarms have rung (a busy machine runs the loop late, never early)."""
    deadline = time.monotonic() + timeout
    while len(rang) < count:
        assert time.monotonic() < deadline, f"only {rang} rang in {timeout} s"
        await asyncio.sleep(0.01)


async def test_alarms_ring_once_each_in_time_order() -> None:
    rang: list[int] = []
    alarms = Alarms(rang.append, time.time)
    now = time.time()
    alarms.set(3, now + 0.15)
    alarms.set(1, now + 0.05)
    alarms.set(2, now + 0.10)
    assert alarms.when(1) == now + 0.05 and len(alarms) == 3
    await rung(rang, 3)
    assert rang == [1, 2, 3]
    assert len(alarms) == 0 and alarms.when(1) is None
    alarms.close()


async def test_a_moved_or_cancelled_alarm_rings_only_as_it_stands() -> None:
    rang: list[tuple[int, float]] = []
    started = time.time()
    alarms = Alarms(lambda key: rang.append((key, time.time() - started)), time.time)
    alarms.set(1, started + 0.05)
    alarms.set(1, started + 0.25)  # the turn changed: its timer moves later
    alarms.set(2, started + 0.05)
    alarms.cancel(2)  # the move was made: no timer
    alarms.set(3, started + 0.10)
    await rung(rang, 2)
    assert [key for key, _ in rang] == [3, 1]
    assert rang[1][1] >= 0.25
    assert len(alarms) == 0  # nothing left to ring: the cancelled 2 never will
    alarms.close()


async def test_an_alarm_set_while_one_rings_is_kept() -> None:
    rang: list[int] = []

    def ring(key: int) -> None:
        rang.append(key)
        if key == 1:
            alarms.set(2, time.time() + 0.05)  # the timed-out move starts the next turn

    alarms = Alarms(ring, time.time)
    alarms.set(1, time.time() + 0.02)
    await rung(rang, 2)
    assert rang == [1, 2] and len(alarms) == 0
    alarms.close()


async def test_many_moved_alarms_still_ring_right() -> None:
    rang: list[int] = []
    alarms = Alarms(rang.append, time.time)
    now = time.time()
    for round_ in range(300):  # 300 moves in each of 5 matches: the heap is rebuilt
        for key in range(5):
            alarms.set(key, now + 10 + round_)
    for key in range(5):
        alarms.set(key, now + 0.05 * (key + 1))
    assert len(alarms._heap) < 300
    await rung(rang, 5)
    assert rang == [0, 1, 2, 3, 4]
    alarms.close()


async def test_a_matchs_lock_serialises_and_is_dropped_after() -> None:
    locks = KeyedLocks()
    order: list[str] = []

    async def move(name: str, key: int) -> None:
        async with locks(key):
            order.append(f"{name} in")
            await asyncio.sleep(0.02)
            order.append(f"{name} out")

    await asyncio.gather(move("a", 1), move("b", 1), move("c", 2))
    assert order.index("a out") < order.index("b in")  # same match: one at a time
    assert order.index("c in") < order.index("a out")  # another match: meanwhile
    assert len(locks) == 0


async def test_a_waiter_cancelled_leaves_no_lock_behind() -> None:
    locks = KeyedLocks()
    held = asyncio.Event()
    release = asyncio.Event()

    async def holder() -> None:
        async with locks(7):
            held.set()
            await release.wait()

    async def waiter() -> None:
        async with locks(7):
            pass

    first = asyncio.create_task(holder())
    await held.wait()
    second = asyncio.create_task(waiter())
    await asyncio.sleep(0.01)
    assert locks.locked(7)
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    release.set()
    await first
    assert len(locks) == 0 and not locks.locked(7)
