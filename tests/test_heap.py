"""Freed memory goes back to the system (bot/core/heap.py): the bot and its render workers
would otherwise stay at the size of their busiest moment, which the load test's 300 MB
for all processes has little room for."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import bot.app
from bot.core.heap import trimmer
from fakediscord import FakeDiscord
from tests.harness import cityhall_bot


def resident_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(trimmer() is None, reason="the C library has no malloc_trim (not glibc)")
def test_the_trim_gives_freed_pages_in_the_middle_of_the_heap_back() -> None:
    trim = trimmer()
    assert trim is not None
    trim()
    # 40 MB in pieces under glibc's mmap threshold, so they come from the heap, and one
    # piece after them kept: the heap cannot simply shrink from its top when they are freed.
    pieces = [bytearray(64 * 1024) for _ in range(640)]
    kept = bytearray(64 * 1024)
    before = resident_mb()
    del pieces
    freed = resident_mb()
    trim()
    after = resident_mb()
    assert freed > before - 10, "glibc gave the pages back by itself: this test shows nothing"
    assert after < freed - 20, (before, freed, after)
    del kept


@pytest.mark.one_database("a timer of the process, not storage")
async def test_the_bot_trims_its_heap_every_few_seconds(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trims: list[float] = []
    monkeypatch.setattr(bot.app, "HEAP_TRIM_S", 0.05)
    monkeypatch.setattr(bot.app, "trimmer",
                        lambda: lambda: trims.append(asyncio.get_running_loop().time()))
    async with cityhall_bot(fake_discord, tmp_path / "db.sqlite3"):
        await fake_discord.wait_until(lambda: len(trims) >= 3 or None, 5.0, "three trims")
    stopped = len(trims)
    await asyncio.sleep(0.2)
    assert len(trims) == stopped  # the timer stops with the bot
