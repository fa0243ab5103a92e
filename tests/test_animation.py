"""The game in a few seconds (bot/render/animation.py, ``Tables.animate``): a finished
game's final message gains an animated GIF of its board move by move, with alt text, within
Discord's upload limit, its first frame the board at the start and its last the final board
(the replay contract's boards, bot/core/replaying.py); and on a busy render pool the final
message comes all the same, without it. Played with the test-only noughts and crosses
(tests/noughts/) against a computer player, in the bot of this process."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageStat

import bot.app
import bot.games
from bot.app import CityhallBot
from bot.core.records import Match
from bot.core.replaying import Replay
from bot.render import animated, animation, kit
from bot.tools.fakebot import settle
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage
from tests.harness import Member, cityhall_bot, started_table
from tests.noughts import GAME as NOUGHTS
from tests.noughts.ai import choose
from tests.noughts.render import render_table


@pytest.fixture
def noughts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The bot started in this test hosts noughts and crosses too (its render workers read
    the catalogue from the environment)."""
    monkeypatch.setenv("EXTRA_GAMES", "tests.noughts")
    monkeypatch.setitem(bot.games.GAMES, "noughts", NOUGHTS)
    monkeypatch.setattr(bot.app, "EXTENSIONS", (*bot.app.EXTENSIONS, NOUGHTS.cog))
    yield


async def played(fake: FakeDiscord, cityhall: CityhallBot, ann: Member) -> tuple[Match, FakeMessage]:
    """Ann against a computer player, to the end (she plays what it would: a draw in nine
    moves): the match and its final table message."""
    match, table = await started_table(fake, cityhall, "noughts", ann, computers=1)
    while match.status == "active":
        assert match.state is not None
        await settle(cityhall, match.id)
        if match.status != "active":
            break
        await cityhall.after_move(await cityhall.runtime.act(
            match.id, str(ann["id"]), choose(match.state, str(ann["id"]))))
    await settle(cityhall, match.id)
    await fake.wait_until(lambda: "· final" in table.content, 5, "the final table")
    return match, table


async def animations_done(fake: FakeDiscord, cityhall: CityhallBot) -> None:
    await fake.wait_until(lambda: not cityhall.tables._animating, 20, "the animation's end")


def difference(a: Image.Image, b: Image.Image) -> float:
    """Mean difference of two pictures' colours, 0-255."""
    assert a.size == b.size
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


def _drawn(render: Any, view: Any, width: int) -> Image.Image:
    """The board as the renderer drew it, scaled to ``width`` (the frame the GIF is of)."""
    with kit.capturing(scaled_to=width) as kept:
        render(view)
    return animation.scaled(kept[-1].convert("RGB"), width)


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_the_final_message_carries_the_game_move_by_move(
        fake_discord: FakeDiscord, tmp_path: Path, noughts: None) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")
    # One render worker process, as a bot has (pictures drawn in threads of the bot, as the
    # other tests draw them, get no animation: seconds of the event loop's GIL).
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", render_workers=1) as cityhall:
        match, table = await played(fake, cityhall, ann)
        await animations_done(fake, cityhall)
        names = [a.filename for a in table.attachments]
        assert names == ["table.png", "game.gif"], names
        gif = table.attachment("game.gif")
        alt = gif.description or ""
        assert "Noughts and Crosses in " in alt and "seconds" in alt, alt
        assert "Shared win" in alt, "the final standings in words"
        assert len(gif.data) <= animated.BUDGET_BYTES < animated.MAX_BYTES
        assert "· final" in table.content and "ch:rematch:" in str(table.components)

        picture: Any = Image.open(io.BytesIO(gif.data))
        assert picture.format == "GIF" and picture.is_animated
        replay = Replay(NOUGHTS.engine, match.player_ids, match.options, match.seed,
                        await cityhall.storage.actions(match.id))
        assert replay.last == 9 and picture.n_frames == 10, "one frame a move, and the start"
        adapter = cityhall.adapters["noughts"]
        first, last = (_drawn(render_table, adapter.named_view(match, replay.board(i)),
                              picture.width) for i in (0, replay.last))
        picture.seek(0)
        shown_first = picture.convert("RGB")
        picture.seek(picture.n_frames - 1)
        shown_last = picture.convert("RGB")
        # Equal but for the GIF's 255 colours; the two boards differ far more than that.
        assert difference(shown_first, first) < 1.0 and difference(shown_last, last) < 1.0
        assert difference(shown_first, last) > 3 * difference(shown_first, first) + 1
        shown_for = 0
        for index in range(picture.n_frames):
            picture.seek(index)
            shown_for += picture.info["duration"]
        assert 5_000 <= shown_for <= 15_000, "a few seconds: at most 15"


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_a_busy_render_pool_skips_the_animation_not_the_final_message(
        fake_discord: FakeDiscord, tmp_path: Path, noughts: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")
    # One render worker process, as a bot has (pictures drawn in threads of the bot, as the
    # other tests draw them, get no animation: seconds of the event loop's GIL).
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", render_workers=1) as cityhall:
        pool = cityhall.pictures
        queued = pool.queued
        # Pictures are waiting for the workers whenever the game ends.
        monkeypatch.setattr(pool, "queued", lambda priority=None: 1 if priority is None
                            else queued(priority))
        match, table = await played(fake, cityhall, ann)
        await animations_done(fake, cityhall)
        assert [a.filename for a in table.attachments] == ["table.png"]
        assert "· final" in table.content and "Shared win" in table.content
        # The final table shown once more after the animation was skipped (a refresh that
        # came late) is not held for an animation that will not come: held, each such
        # game's table stayed in the bot's memory until 64 later games pushed it out.
        tables = cityhall.tables
        tables._keep_final(match, await tables.payload(match), int(table.id))
        assert tables._finals == {}


async def test_an_animation_waits_for_every_picture_asked_before_it_runs() -> None:
    """LOW, the animations' priority, comes after the pictures players and tables wait for,
    even when asked first."""
    from bot.render.pool import Priority, RenderPool

    view = NOUGHTS.engine.view(NOUGHTS.engine.new(["Ann", "Bob"], {}, 1), None)
    finished: list[str] = []
    async with RenderPool(0, modules={"noughts": "tests.noughts.render"}) as pool:
        async def run(name: str, job: Any) -> None:
            await job
            finished.append(name)

        await asyncio.gather(
            run("animation", pool.later(animation.__name__, "sample", [1, 2, 3, 4], 2)),
            run("table", pool.render("noughts", "render_table", view)),
            run("preview", pool.render("noughts", "render_table", view,
                                       priority=Priority.INTERACTIVE)))
    assert finished == ["preview", "table", "animation"]


def test_an_animation_over_its_budget_gets_smaller_then_none(noughts: None) -> None:
    """Over the size budget: narrower frames, then fewer (first and last kept), else none."""
    engine = NOUGHTS.engine
    players = ["Ann", "Ada (computer)"]
    state, actions = engine.new(players, {}, 3), []
    while not state["over"]:
        player = engine.to_act(state)[0]
        action = choose(state, player)
        state, _events = engine.apply(state, player, action)
        actions.append((player, action))
    views = [view for _step, view in animation.boards("bot.games", "noughts", players, {}, 3,
                                                      actions)]
    assert len(views) == 10
    views = animation.sample(views, 4)  # the start, two boards between, the end
    assert views[0]["board"] == [""] * 9 and views[-1]["over"]
    # Widths below the noughts picture's own 480 (the games' pictures are 1,200 wide).
    wide = animation.animate("tests.noughts.render", views, widths=(240, 120))
    assert wide is not None and (wide.width, wide.frames) == (240, 4)
    budget = len(wide.data) - 1
    narrow = animation.animate("tests.noughts.render", views, budget=budget, widths=(240, 120))
    assert narrow is not None and len(narrow.data) <= budget
    assert (narrow.width, narrow.frames) == (120, 4)
    assert animation.animate("tests.noughts.render", views, budget=1_000,
                             widths=(240, 120)) is None


def test_an_animation_holds_a_few_frames_as_pixels_at_a_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker makes the GIF of a finished game beside everything else it holds: each
    frame is decoded when it is mapped onto the palette and let go after, not all 24 at
    once (~32 MB as RGB at the games' 480 px), and the GIF is the one all at once gives."""
    import weakref

    boards = [Image.new("RGB", (480, 300 + 4 * i), (20 * (i % 12), 90, 200 - 5 * i))
              for i in range(24)]
    frames = [animation._frame_bytes(board) for board in boards]
    alive = most = 0
    decode = animation._frame_image

    def gone() -> None:
        nonlocal alive
        alive -= 1

    def counted(data: bytes) -> Image.Image:
        nonlocal alive, most
        picture = decode(data)
        weakref.finalize(picture, gone)
        alive += 1
        most = max(most, alive)
        return picture

    monkeypatch.setattr(animation, "_frame_image", counted)
    made = animation.gif(frames)
    assert made is not None and made.frames == 24
    assert most <= 4
    assert made.data == animation.encode(boards)[0]
