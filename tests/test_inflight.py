"""A board asked for while it is being drawn is drawn once (bot/core/inflight.py): a
click's answer and a refresh of the same table share one picture, a player's answer never
waits behind a background drawing, and cancelling a caller cancels the drawing only when
nobody else waits for it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.core.inflight import InFlight
from bot.render.pool import Priority
from fakediscord import FakeDiscord
from tests.harness import cityhall_bot, settle, started_table


class Drawer:
    """Draws "pictures" on request: counts the drawings, and holds each until released."""

    def __init__(self) -> None:
        self.drawn: list[str] = []
        self.cancelled: list[str] = []
        self.release = asyncio.Event()

    def of(self, board: str) -> object:
        async def draw() -> str:
            self.drawn.append(board)
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled.append(board)
                raise
            return f"picture of {board}"
        return draw


async def test_the_same_board_asked_for_twice_is_drawn_once() -> None:
    drawings: InFlight[str] = InFlight()
    drawer = Drawer()
    first = asyncio.ensure_future(drawings.get(1, "v3", 1, drawer.of("v3")))  # type: ignore[arg-type]
    second = asyncio.ensure_future(drawings.get(1, "v3", 1, drawer.of("v3")))  # type: ignore[arg-type]
    other = asyncio.ensure_future(drawings.get(2, "v3", 1, drawer.of("m2 v3")))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    drawer.release.set()
    assert await first == await second == "picture of v3"
    assert await other == "picture of m2 v3"  # another match's board is its own drawing
    assert drawer.drawn == ["v3", "m2 v3"] and drawings.shared == 1
    assert len(drawings) == 0  # nothing kept once drawn
    # asked for again after it was drawn: drawn again (the newest state wins, no cache)
    assert await drawings.get(1, "v3", 1, drawer.of("v3")) == "picture of v3"  # type: ignore[arg-type]
    assert drawer.drawn == ["v3", "m2 v3", "v3"]


async def test_a_newer_board_or_a_more_urgent_caller_gets_a_drawing_of_its_own() -> None:
    drawings: InFlight[str] = InFlight()
    drawer = Drawer()
    background = asyncio.ensure_future(
        drawings.get(1, "v3", int(Priority.BACKGROUND), drawer.of("v3 background")))  # type: ignore[arg-type]
    newer = asyncio.ensure_future(
        drawings.get(1, "v4", int(Priority.BACKGROUND), drawer.of("v4 background")))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    # a player's answer does not wait behind the background queue...
    answer = asyncio.ensure_future(
        drawings.get(1, "v4", int(Priority.INTERACTIVE), drawer.of("v4 answer")))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    # ...and a refresh of that board then waits for the player's drawing, the sooner one
    refresh = asyncio.ensure_future(
        drawings.get(1, "v4", int(Priority.BACKGROUND), drawer.of("v4 refresh")))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    drawer.release.set()
    assert await background == "picture of v3 background"
    assert await newer == "picture of v4 background"
    assert await answer == await refresh == "picture of v4 answer"
    assert drawer.drawn == ["v3 background", "v4 background", "v4 answer"]


async def test_cancelling_a_caller_cancels_the_drawing_only_when_nobody_else_waits() -> None:
    drawings: InFlight[str] = InFlight()
    drawer = Drawer()
    first = asyncio.ensure_future(drawings.get(1, "v3", 0, drawer.of("v3")))  # type: ignore[arg-type]
    second = asyncio.ensure_future(drawings.get(1, "v3", 0, drawer.of("v3")))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    first.cancel()  # e.g. a click's answer that gave up waiting for its picture
    await asyncio.sleep(0)
    assert drawer.cancelled == []
    drawer.release.set()
    assert await second == "picture of v3"
    assert first.cancelled()

    drawer.release.clear()
    lone = asyncio.ensure_future(drawings.get(1, "v5", 0, drawer.of("v5")))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    lone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await lone
    await asyncio.sleep(0)
    assert drawer.cancelled == ["v5"]  # its job leaves the render queue
    assert len(drawings) == 0


async def test_a_failed_drawing_fails_every_caller() -> None:
    drawings: InFlight[str] = InFlight()

    async def broken() -> str:
        await asyncio.sleep(0.01)
        raise ValueError("the renderer broke")

    calls = [asyncio.ensure_future(drawings.get(1, "v3", 1, broken)) for _ in range(2)]
    for call in calls:
        with pytest.raises(ValueError, match="renderer broke"):
            await call


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_a_clicks_answer_and_a_refresh_of_one_board_draw_one_picture(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, _lobby = await started_table(fake, bot, "cityscape", ann, joiners=(bob,),
                                            options={"rounds": 1})
        await settle(bot, match.id)
        before = bot.pictures.stats.done
        answer, refresh = await asyncio.gather(
            bot.render_table(match, priority=Priority.INTERACTIVE), bot.render_table(match))
        assert answer == refresh and answer[:8] == b"\x89PNG\r\n\x1a\n"
        assert bot.pictures.stats.done == before + 1  # one picture drawn for both
