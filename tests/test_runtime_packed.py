"""Many unfinished matches in one process (issue 25): after a restart a match's state stays
packed until the match is clicked, at most ``decoded_states`` are decoded at once, timers
and computer players are planned without decoding any, and nothing is lost on the way.

"A restart" is a second runtime opened on the same file (tests/test_runtime_restarts.py).
"""

from __future__ import annotations

import asyncio
from collections import deque
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.core.driver import Driver
from bot.core.outcomes import Limits, Outcome
from bot.core.packed import PackedMatch
from bot.core.records import ACTIVE, ENDED, Match, Seat
from bot.core.runtime import DUE, Runtime
from bot.core.storage import Storage
from bot.games import GAMES
from bot.ui.pacing import BUCKET_IDLE, RequestGate
from tests import databases

from .runtime_support import ANN, BOB, CY, GUILD, Clock, OpenRuntime, runtimes

pytestmark = pytest.mark.usefixtures("backend")

__all__ = ["runtimes"]  # the fixture, used by name

CITYSCAPE = GAMES["cityscape"]


async def _game(runtime: Runtime, channel: int, *players: Seat) -> Match:
    match = await runtime.open_lobby(GUILD, channel, "cityscape", players[0], {"rounds": 1})
    for player in players[1:]:
        await runtime.join(match.id, player)
    return await runtime.start(match.id, players[0].id)


async def _move(runtime: Runtime, match_id: int) -> Outcome:
    """The first player due plays the normal computer's move, as a click would."""
    match = runtime.get(match_id)
    assert match is not None and match.state is not None
    player = CITYSCAPE.engine.to_act(match.state)[0]
    return await runtime.act(match_id, player, CITYSCAPE.computer.normal(match.state, player),
                             expected_version=match.version)


def _packed(match: Match | None) -> PackedMatch:
    assert isinstance(match, PackedMatch)
    return match


async def _opened(path: Path, clock: Clock, **kwargs: Any) -> Runtime:
    runtime = Runtime(await Storage.open(databases.target(path)), GAMES, clock=clock,
                      turn_seconds=60, **kwargs)
    await runtime.load()
    return runtime


async def test_a_restarted_bot_answers_a_click_in_a_match_nobody_touched(
        runtimes: OpenRuntime) -> None:
    clock = Clock(5000.0)
    first = await runtimes(clock=clock)
    match = await _game(first, 20, ANN, BOB)
    moved = await _move(first, match.id)

    again = await runtimes(clock=clock)
    waiting = _packed(again.get(match.id))
    # Restored, found by its channel, its timer known: and its state not decoded yet.
    assert again.in_channel(20) is waiting and again.deadline(waiting) == 5000.0 + 60
    assert not waiting.is_decoded and again.states.decoded == 0
    answered = await _move(again, match.id)
    assert answered.match.version == moved.match.version + 1
    assert again.states.decoded == 1
    third = await runtimes(clock=clock)
    seen = third.get(match.id)
    assert seen is not None and seen.state == answered.match.state
    assert seen.version == answered.match.version


@pytest.mark.parametrize("saved_who_is_due", [True, False])
async def test_a_turn_timer_due_in_a_match_nobody_touched_fires_after_a_restart(
        tmp_path: Path, saved_who_is_due: bool) -> None:
    clock = Clock(5000.0)
    first = await _opened(tmp_path / "db.sqlite3", clock)
    try:
        match = await _game(first, 20, ANN, BOB)
        if not saved_who_is_due:
            # As saved by a Cityhall before issue 25: worked out from the state instead.
            stored = await first.storage.get(match.id)
            assert stored is not None and DUE in stored.extra
            del stored.extra[DUE]
            await first.storage.save(stored)
    finally:
        await first.storage.close()
    clock.now += 600  # the bot was down past Ann's and Bob's deadline
    again = await _opened(tmp_path / "db.sqlite3", clock, limits=Limits(restart_grace=0.0))
    told: list[Outcome] = []

    async def tell(outcome: Outcome) -> None:
        told.append(outcome)

    driver = Driver(again, tell, cpu_delay=0)
    try:
        driver.restore(again.unfinished())
        assert again.states.decoded == (0 if saved_who_is_due else 1)
        for _ in range(200):
            if told:
                break
            await asyncio.sleep(0.01)
        await driver.idle(match.id)
        # The computer played for both (Cityscape's goals are chosen at once), saved.
        assert {o.player for o in told} == {ANN.id, BOB.id} and all(o.timed_out for o in told)
        stored = await again.storage.get(match.id)
        assert stored is not None and stored.version == told[-1].match.version
    finally:
        await driver.close()
        await again.storage.close()


async def test_who_is_due_is_saved_for_matches_an_older_version_saved(tmp_path: Path) -> None:
    clock = Clock(5000.0)
    path = tmp_path / "db.sqlite3"
    first = await _opened(path, clock)
    try:
        match = await _game(first, 20, ANN, BOB)
        stored = await first.storage.get(match.id)
        assert stored is not None
        del stored.extra[DUE]  # as saved before issue 25
        await first.storage.save(stored)
    finally:
        await first.storage.close()
    again = await _opened(path, clock)
    try:
        assert again.states.decoded == 1  # read at this start to know Ann's and Bob's timer
        assert await again.save_who_is_due(pause=0) == 1
        assert await again.save_who_is_due(pause=0) == 0
    finally:
        await again.storage.close()
    third = await _opened(path, clock)
    try:
        kept = third.get(match.id)
        assert kept is not None and third.deadline(kept) == 5000.0 + 60
        assert third.states.decoded == 0 and kept.state == match.state
    finally:
        await third.storage.close()


async def test_decoded_states_stay_within_their_bound_and_nothing_is_lost(
        tmp_path: Path) -> None:
    clock = Clock(5000.0)
    path = tmp_path / "db.sqlite3"
    first = await _opened(path, clock, decoded_states=2)
    try:
        ids = [(await _game(first, 20 + i, ANN, BOB)).id for i in range(4)]
        assert len(first.states) <= 2
        states = {i: (await _move(first, i)).match.state for i in ids}
    finally:
        await first.storage.close()
    again = await _opened(path, clock, decoded_states=2)
    try:
        for match_id in ids:
            assert again.get(match_id) is not None
            assert _packed(again.get(match_id)).state == states[match_id]
        assert len(again.states) == 2
        assert sum(_packed(again.get(i)).is_decoded for i in ids) == 2
        # A move in the first match, which the next reads push out of memory: packed
        # again from what was committed, and read back the same, here and after a restart.
        moved = await _move(again, ids[0])
        for match_id in ids[1:]:
            assert again.get(match_id) is not None and again.get(match_id).state is not None  # type: ignore[union-attr]
        assert not _packed(again.get(ids[0])).is_decoded
        assert _packed(again.get(ids[0])).state == moved.match.state
        assert again.states.packed >= 3
    finally:
        await again.storage.close()
    third = await _opened(path, clock)
    try:
        seen = third.get(ids[0])
        assert seen is not None and seen.state == moved.match.state
        assert seen.version == moved.match.version
    finally:
        await third.storage.close()


async def test_matches_are_found_by_channel_server_and_host(runtimes: OpenRuntime) -> None:
    runtime = await runtimes(clock=Clock())
    lobby = await runtime.open_lobby(GUILD, 20, "cityscape", ANN, {"rounds": 1})
    game = await _game(runtime, 21, BOB, CY)
    other = await runtime.open_lobby(GUILD + 1, 22, "cityscape", ANN, {"rounds": 1})
    assert [m.id for m in runtime.in_server(GUILD)] == [lobby.id, game.id]
    assert [m.id for m in runtime.lobbies()] == [lobby.id, other.id]
    assert runtime.in_channel(21) is runtime.get(game.id)
    ended = await runtime.end(lobby.id, ANN.id, can_manage=False)
    assert ended.status == ENDED
    # The channel is free again, and the server counts one match.
    assert runtime.in_channel(20) is None and [m.id for m in runtime.in_server(GUILD)] == [game.id]
    again = await runtime.open_lobby(GUILD, 20, "cityscape", ANN, {"rounds": 1})
    assert runtime.in_channel(20) is again and runtime.get(game.id).status == ACTIVE  # type: ignore[union-attr]
    assert [m.id for m in runtime.lobbies()] == [other.id, again.id]


def test_discord_rate_limit_buckets_of_quiet_channels_are_let_go() -> None:
    async def run() -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()

        def bucket(last: float, outgoing: int = 0) -> SimpleNamespace:
            return SimpleNamespace(_last_request=last, outgoing=outgoing,
                                   _pending_requests=deque(), expires=None)

        walks = 0

        def walk() -> None:  # discord.py's own: walks every bucket each time
            nonlocal walks
            walks += 1

        async def request(*_args: Any, **_kwargs: Any) -> None:
            return None

        quiet = {f"q{i}": bucket(now - BUCKET_IDLE - 1) for i in range(300)}
        busy = {"sending": bucket(now - BUCKET_IDLE - 1, outgoing=1), "recent": bucket(now)}
        http = SimpleNamespace(_buckets={**quiet, **busy}, request=request,
                               _try_clear_expired_ratelimits=walk)
        RequestGate().install(http)
        http._try_clear_expired_ratelimits()
        assert set(http._buckets) == set(busy) and walks == 0
        http._buckets.update({f"n{i}": bucket(now) for i in range(300)})
        http._try_clear_expired_ratelimits()  # 302: walked, all of them in use
        assert len(http._buckets) == 302
        # Not walked again until they have doubled: a new channel's bucket costs no walk.
        http._buckets.update({f"m{i}": bucket(now - BUCKET_IDLE - 1) for i in range(300)})
        http._try_clear_expired_ratelimits()
        assert len(http._buckets) == 602
        http._buckets.update({"a": bucket(now), "b": bucket(now)})  # 604: doubled
        http._try_clear_expired_ratelimits()
        assert len(http._buckets) == 304

    asyncio.run(run())
