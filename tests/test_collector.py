"""The collector keeps full collections short by freezing their survivors, and frees once
an hour what died in a cycle while frozen (bot/core/collector.py)."""
from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from bot.core.collector import Collector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> tuple[Node, weakref.ref[Node]]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(a)


@pytest.fixture
def collector() -> Iterator[Collector]:
    thresholds = gc.get_threshold()
    made = Collector()
    yield made
    made.close()
    gc.unfreeze()
    gc.set_threshold(*thresholds)


async def test_survivors_of_a_full_collection_are_frozen(collector: Collector) -> None:
    collector.settle()
    kept, _ = cycle()
    frozen = gc.get_freeze_count()
    gc.collect()  # a full collection, as CPython runs one now and then
    await asyncio.sleep(0)  # the freeze is asked of the loop
    assert collector.freezes == 1
    assert gc.get_freeze_count() > frozen
    assert not any(o is kept for o in gc.get_objects())  # the collector no longer walks it


async def test_the_thaw_frees_cycles_that_died_while_frozen(collector: Collector) -> None:
    collector.settle()
    node, alive = cycle()
    gc.collect()
    await asyncio.sleep(0)
    del node
    gc.collect()
    assert alive() is not None  # frozen: a full collection leaves it alone
    collector.thaw()
    assert alive() is None
    assert collector.thaws == 1


async def test_a_cycle_dies_at_the_next_collection_when_not_frozen(
        collector: Collector) -> None:
    collector.settle()
    node, alive = cycle()
    del node
    gc.collect(0)
    assert alive() is None


async def test_closed_it_freezes_nothing(collector: Collector) -> None:
    collector.settle()
    collector.close()
    gc.collect()
    await asyncio.sleep(0)
    assert collector.freezes == 0
