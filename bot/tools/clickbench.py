"""The benchmark's click timing (``python -m bot bench``): the real bot against the fake
Discord, which runs on its own event loop in a thread, so that the bot's loop carries only
the bot's work; two players click each game's moves and every move click is timed from
the click to the interaction's answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from bot.app import CityhallBot
from bot.core.discord_api import reset_api_base, use_api_base
from bot.core.records import Match
from bot.tools.fakebot import Member, bot_settings, button_id, by_id, settle
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage

T = TypeVar("T")


class FakeInThread:
    """FakeDiscord on its own event loop in a thread, so that the bot's loop, measured by
    the benchmark, carries only the bot's own work (the fake validates every request
    against the OpenAPI description, which is slow and not the bot's cost)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fakediscord",
                                       daemon=True)
        self.fake: FakeDiscord

    async def call(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        future = asyncio.run_coroutine_threadsafe(_call(fn, *args), self.loop)
        return await asyncio.wrap_future(future)

    async def __aenter__(self) -> FakeInThread:
        self.thread.start()
        self.fake = await self.call(_started_fake)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.call(self.fake.stop)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


async def _two_player_table(remote: FakeInThread, bot: CityhallBot, game: str,
                            ann: dict[str, Any], bob: dict[str, Any],
                            options: dict[str, Any]) -> Match:
    """Ann opens a lobby with /<game> new, Bob joins, Ann starts: the running match."""
    fake = remote.fake
    ix = await remote.call(fake.slash, ann, fake.channel_id, game, ["new"], options)
    lobby = (await remote.call(ix.seen, 5)).message
    assert lobby is not None
    join = await remote.call(fake.click, bob, lobby, button_id(lobby, "Join"))
    await remote.call(join.seen, 5)
    start = await remote.call(fake.click, ann, lobby, button_id(lobby, "Start"))
    await remote.call(start.seen, 5)
    match = bot.runtime.in_channel(int(fake.channel_id))
    assert match is not None
    return match


async def _call(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    return await fn(*args)


async def _started_fake() -> FakeDiscord:
    # The benchmark times the bot, so the fake skips its OpenAPI validation here (the tests
    # validate every request; validating here would time the fake's jsonschema instead).
    return await FakeDiscord(validate=False).start()


async def click_benchmark(game: str, clicks: int) -> dict[str, Any] | None:
    """Median and p95 from an injected move click to the interaction response (Cityscape: a
    lot; Big City: a draw from a stack, or the Confirm of a build), and the longest stall of
    the bot's event loop meanwhile."""
    if game not in _TIMED_CLICK:
        return None
    times: list[float] = []
    stall = 0.0
    with tempfile.TemporaryDirectory() as tmp, _callback_clock() as longest_callback:
        async with FakeInThread() as remote:
            fake = remote.fake
            use_api_base(fake.api_base)
            bot = CityhallBot(bot_settings(fake, Path(tmp) / "bench.sqlite3"),
                              guild_ready_timeout=0.05)
            runner = asyncio.create_task(bot.start(fake.token))
            try:
                for _ in range(500):
                    if bot.is_ready():
                        break
                    await asyncio.sleep(0.01)
                ann = await remote.call(fake.add_member, "Ann")
                bob = await remote.call(fake.add_member, "Bob")
                stop = asyncio.Event()

                async def watch_loop() -> None:
                    nonlocal stall
                    loop = asyncio.get_running_loop()
                    while not stop.is_set():
                        before = loop.time()
                        await asyncio.sleep(0.002)
                        stall = max(stall, (loop.time() - before - 0.002) * 1000)

                watcher = asyncio.create_task(watch_loop())
                longest_callback[0] = 0.0  # start-up (imports, command sync) is not a click
                while len(times) < clicks:
                    await _benchmark_game(remote, bot, game, ann, bob, clicks, times)
                stop.set()
                await watcher
            finally:
                await bot.close()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(runner, 5)
                reset_api_base()
    ordered = sorted(times)
    return {
        "clicks": len(times),
        "median_ms": round(statistics.median(times), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 2),
        "loop_block_ms": round(longest_callback[0] * 1000, 2),
        "loop_stall_wall_ms": round(stall, 2),
    }


@contextlib.contextmanager
def _callback_clock() -> Iterator[list[float]]:
    """The longest time one callback of this thread's event loop kept the loop busy, in CPU
    seconds of the loop's own thread. Wall-clock stalls also count time spent waiting for
    the GIL while the in-process fake Discord (in another thread) validates requests; CPU
    time counts only the bot's own work, which is what must not block the loop."""
    loop_thread = threading.get_ident()
    longest = [0.0]
    original = asyncio.events.Handle._run

    def timed_run(handle: asyncio.events.Handle) -> None:
        if threading.get_ident() != loop_thread:
            original(handle)
            return
        began = time.thread_time()
        try:
            original(handle)
        finally:
            longest[0] = max(longest[0], time.thread_time() - began)

    asyncio.events.Handle._run = timed_run  # type: ignore[method-assign,assignment]
    try:
        yield longest
    finally:
        asyncio.events.Handle._run = original  # type: ignore[method-assign]


# The click of a benchmark move that is timed (from the click to the interaction response),
# made after any untimed clicks that lead up to it (opening a chooser, turning its pages).
TimedClick = Callable[[], Awaitable[Any]]
# (remote, match, the player due, their user, their action) -> the timed click, or None for
# a move that goes straight to the runtime, untimed.
MoveClick = Callable[[FakeInThread, Match, str, Member, dict[str, Any]],
                     Awaitable[TimedClick | None]]


async def _benchmark_game(remote: FakeInThread, bot: CityhallBot, game: str, ann: Member,
                          bob: Member, clicks: int, times: list[float]) -> None:
    """One two-player game for the benchmark, Ann against Bob, each playing the computer's
    move: the game's timed clicks add their times to ``times`` until there are ``clicks``."""
    users = by_id(ann, bob)
    options = {"rounds": 1} if game == "cityscape" else {}
    match = await _two_player_table(remote, bot, game, ann, bob, options)
    assert match.state is not None
    if game == "cityscape":  # goals are chosen once a round, not timed
        for side, owner in match.state["sides"].items():
            outcome = await bot.runtime.act(match.id, owner, {
                "type": "set_goals", "side": side, "codes": [2, 3, 5, 6]})
            await bot.after_move(outcome)
    await settle(bot, match.id)
    engine = bot.runtime.engine(match)
    while len(times) < clicks and bot.runtime.get(match.id) is not None:
        state = match.state
        player = engine.to_act(state)[0]
        # the harness's own thinking runs off the bot's loop, so it is not counted as a stall
        action = await asyncio.to_thread(bot.runtime.games[match.game].computer.normal, state,
                                         player)
        click = await _TIMED_CLICK[game](remote, match, player, users[player], action)
        if click is None:
            await bot.after_move(await bot.runtime.act(match.id, player, action))
        else:
            began = time.perf_counter()
            ix = await click()
            await remote.call(ix.seen, 5)
            times.append((time.perf_counter() - began) * 1000)
        await settle(bot, match.id)
    if bot.runtime.get(match.id) is not None:
        await bot.runtime.end(match.id, str(ann["id"]), can_manage=True)


async def _cityscape_click(remote: FakeInThread, match: Match, player: str, user: Member,
                           action: dict[str, Any]) -> TimedClick | None:
    """The height on the table opens the lot picker (untimed); the lot is the timed click."""
    fake = remote.fake
    table = fake.message(match.table_message_id)  # type: ignore[arg-type]
    prefix = f"ch:cs:{match.id}:v{match.version}:"
    height = await remote.call(fake.click, user, table, button_id(
        table, prefix=f"{prefix}h{action['height']}"))
    picker = (await remote.call(height.seen, 5)).message
    assert picker is not None
    lot = button_id(picker, prefix=f"{prefix}b{action['height']}{action['lot']}")
    return lambda: remote.call(fake.click, user, picker, lot)


async def _bigcity_click(remote: FakeInThread, match: Match, player: str, user: Member,
                         action: dict[str, Any]) -> TimedClick | None:
    """Draws are clicked on the table and builds through the chooser (only the move clicks
    are timed); other moves go straight to the runtime."""
    from bot.games.bigcity import ENGINE

    if action["type"] not in ("draw", "build"):
        return None
    fake = remote.fake
    assert match.state is not None
    legal = [la.action for la in await asyncio.to_thread(ENGINE.legal, match.state, player)]
    index = legal.index(action)
    base = f"ch:bc:{match.id}:v{match.version}"
    table = fake.message(match.table_message_id)  # type: ignore[arg-type]
    message: FakeMessage | None = table  # a draw is clicked on the table
    if action["type"] == "build":
        opened = await remote.call(fake.click, user, table, button_id(table, prefix=f"{base}:cb"))
        message = (await remote.call(opened.seen, 5)).message
        assert message is not None
        builds = [i for i, a in enumerate(legal) if a["type"] == "build"]
        page = builds.index(index) // 25
        for p in range(1, page + 1):
            turned = await remote.call(fake.click, user, message, f"{base}:cb:p{p}")
            await remote.call(turned.seen, 5)
        picked = await remote.call(fake.select, user, message, f"{base}:lb:p{page}", [str(index)])
        await remote.call(picked.seen, 5)
    return lambda: remote.call(fake.click, user, message, f"{base}:a{index}")


async def _bigcityz_click(remote: FakeInThread, match: Match, player: str, user: Member,
                          action: dict[str, Any]) -> TimedClick | None:
    """The placement picked in the private menu and the other player's answer to it are the
    timed clicks; a replacement, or no free square, goes straight to the runtime."""
    from bot.games.bigcityz import ENGINE

    fake = remote.fake
    state = match.state
    assert state is not None
    table = fake.message(match.table_message_id)  # type: ignore[arg-type]
    if state["phase"] == "veto":
        label = "Objection" if action["type"] == "veto" else "No objection"
        return lambda: remote.call(fake.click, user, table, button_id(table, label))
    if action["type"] != "place":
        return None
    opened = await remote.call(fake.click, user, table, button_id(table, "Place"))
    chooser = (await remote.call(opened.seen, 5)).message
    assert chooser is not None
    index = [la.action for la in ENGINE.legal(state, player)].index(action)
    return lambda: remote.call(fake.select, user, chooser,
                               f"ch:bz:{match.id}:v{match.version}:pick", [str(index)])


async def _cities_click(remote: FakeInThread, match: Match, player: str, user: Member,
                        action: dict[str, Any]) -> TimedClick | None:
    """Taking an item from the table (one click, answered with the private chooser) is the
    timed click; placements go straight to the runtime."""
    from bot.games.cities import ENGINE

    if action["type"] != "take":
        return None
    fake = remote.fake
    assert match.state is not None
    legal = [la.action for la in await asyncio.to_thread(ENGINE.legal, match.state, player)]
    table = fake.message(match.table_message_id)  # type: ignore[arg-type]
    custom_id = f"ch:ct:{match.id}:v{match.version}:a{legal.index(action)}"
    return lambda: remote.call(fake.click, user, table, custom_id)


_TIMED_CLICK: dict[str, MoveClick] = {
    "cityscape": _cityscape_click, "bigcity": _bigcity_click, "bigcityz": _bigcityz_click,
    "cities": _cities_click,
}
