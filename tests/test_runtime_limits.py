"""Limits a busy bot needs: lobbies per user, games per server, lobbies that expire, a
channel that is gone, and a restart that does not time anybody out."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core.records import ABANDONED, ACTIVE, ENDED, Seat
from bot.core.runtime import Limits, Refusal, Runtime
from bot.core.storage import Storage
from bot.games import GAMES
from tests import databases

from .runtime_support import said

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

ANN, BOB = Seat("1", "Ann"), Seat("2", "Bob")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Storage]:
    opened = await Storage.open(databases.target(tmp_path / "db.sqlite3"))
    try:
        yield opened
    finally:
        await opened.close()


async def test_a_user_holds_only_a_few_open_lobbies_per_server(storage: Storage) -> None:
    runtime = Runtime(storage, GAMES, limits=Limits(lobbies_per_user=2))
    await runtime.open_lobby(10, 1, "cityscape", ANN, {})
    await runtime.open_lobby(10, 2, "cities", ANN, {})
    with pytest.raises(Refusal, match=said(
            "You already have 2 open lobbies in this server; start or cancel one of them first.")):
        await runtime.open_lobby(10, 3, "bigcity", ANN, {})
    # another server, or another user, is not affected
    await runtime.open_lobby(11, 4, "cityscape", ANN, {})
    await runtime.open_lobby(10, 5, "cityscape", BOB, {})
    # a started game is no longer a waiting lobby: room for a new one
    first = runtime.in_channel(1)
    assert first is not None
    await runtime.join(first.id, BOB)
    await runtime.start(first.id, ANN.id)
    await runtime.open_lobby(10, 3, "bigcity", ANN, {})


async def test_a_server_has_a_cap_on_unfinished_games(storage: Storage) -> None:
    runtime = Runtime(storage, GAMES, limits=Limits(matches_per_server=3))
    for channel, host in ((1, ANN), (2, BOB), (3, Seat("3", "Cy"))):
        await runtime.open_lobby(10, channel, "cityscape", host, {})
    with pytest.raises(Refusal, match=said(
            "This server already has 3 games open, the most Cityhall runs in one server at "
            "once. Finish or end one first.")):
        await runtime.open_lobby(10, 4, "cityscape", Seat("4", "Di"), {})
    await runtime.open_lobby(11, 5, "cityscape", Seat("4", "Di"), {})  # other servers go on
    lobby = runtime.in_channel(1)
    assert lobby is not None
    await runtime.end(lobby.id, ANN.id, can_manage=False)
    await runtime.open_lobby(10, 4, "cityscape", Seat("4", "Di"), {})


async def test_limits_hold_when_new_lobbies_are_asked_for_all_at_once(
        storage: Storage) -> None:
    """/new sent many times at once (issue 26: 11 of 12 lobbies and 101 of 100 games got
    through): each limit is checked with every lobby saved before it counted."""
    runtime = Runtime(storage, GAMES, limits=Limits(lobbies_per_user=3, matches_per_server=100))
    tries = await asyncio.gather(*(runtime.open_lobby(10, channel, "cityscape", ANN, {})
                                   for channel in range(1, 13)), return_exceptions=True)
    made = [t for t in tries if not isinstance(t, BaseException)]
    refused = [t for t in tries if isinstance(t, Refusal)]
    assert len(made) == 3 and len(refused) == 9
    assert all("open lobbies" in str(r) for r in refused)
    # 1,000 members at once in one server, one lobby each: exactly the server's cap.
    members = [Seat(str(100 + n), f"M{n}") for n in range(1000)]
    tries = await asyncio.gather(*(runtime.open_lobby(20, 1000 + n, "cityscape", member, {})
                                   for n, member in enumerate(members)),
                                 return_exceptions=True)
    assert sum(1 for t in tries if not isinstance(t, BaseException)) == 100
    assert all(isinstance(t, Refusal) for t in tries if isinstance(t, BaseException))
    assert len(await storage.unfinished()) == 103  # what the database holds, too


async def test_a_member_hosts_only_so_many_games_running_against_computers_too(
        storage: Storage) -> None:
    runtime = Runtime(storage, GAMES, limits=Limits(matches_per_user=2))
    for channel in (1, 2):
        lobby = await runtime.open_lobby(10, channel, "cityscape", ANN, {})
        await runtime.add_computer(lobby.id, ANN.id)
        await runtime.start(lobby.id, ANN.id)
    with pytest.raises(Refusal, match=said(
            "You already host 2 unfinished games in this server, the most one member may; "
            "finish or end one first.")):
        await runtime.open_lobby(10, 3, "cityscape", ANN, {})
    await runtime.open_lobby(10, 3, "cityscape", BOB, {})  # others are not affected
    await runtime.open_lobby(11, 4, "cityscape", ANN, {})  # nor other servers
    running = runtime.in_channel(1)
    assert running is not None
    await runtime.end(running.id, ANN.id, can_manage=False)
    await runtime.open_lobby(10, 5, "cityscape", ANN, {})


async def test_a_lobby_nobody_starts_expires_and_stays_closed_after_a_restart(
        storage: Storage, tmp_path: Path) -> None:
    clock = Clock()
    runtime = Runtime(storage, GAMES, clock=clock, limits=Limits(lobby_seconds=900))
    lobby = await runtime.open_lobby(10, 1, "cityscape", ANN, {})
    lobby.created_at = clock.now  # the storage stamps wall-clock time; this test's clock rules
    clock.now += 899
    assert await runtime.expire_lobby(lobby.id) is None  # not yet
    clock.now += 2
    expired = await runtime.expire_lobby(lobby.id)
    assert expired is not None and expired.status == ENDED and expired.extra["expired"]
    assert runtime.in_channel(1) is None
    with pytest.raises(Refusal, match="already finished"):
        await runtime.join(lobby.id, BOB)
    again = Runtime(storage, GAMES)
    assert await again.load() == []  # nothing to restore
    await again.open_lobby(10, 1, "cityscape", BOB, {})  # the channel is free


async def test_an_abandoned_game_stops_and_records_nothing(storage: Storage) -> None:
    runtime = Runtime(storage, GAMES, turn_seconds=60)
    lobby = await runtime.open_lobby(10, 1, "cityscape", ANN, {"rounds": 1})
    await runtime.add_computer(lobby.id, ANN.id)
    match = await runtime.start(lobby.id, ANN.id)
    gone = await runtime.abandon(match.id, "channel deleted")
    assert gone is not None and gone.status == ABANDONED
    assert runtime.get(match.id) is None
    assert await runtime.step_computer(match.id) is None  # computer players stop
    assert await runtime.abandon(match.id, "again") is None
    saved = await storage.get(match.id)
    assert saved is not None and saved.status == ABANDONED
    assert await storage.leaderboard(10, "cityscape") == []
    assert await Runtime(storage, GAMES).load() == []


async def test_a_restart_gives_the_player_on_turn_time_to_see_the_table(
        storage: Storage) -> None:
    clock = Clock()
    runtime = Runtime(storage, GAMES, clock=clock, turn_seconds=120,
                      limits=Limits(restart_grace=60))
    lobby = await runtime.open_lobby(10, 1, "cityscape", ANN, {})
    await runtime.join(lobby.id, BOB)
    match = await runtime.start(lobby.id, ANN.id)
    assert runtime.deadline(match) == 1120.0
    clock.now = 5000.0  # the bot was down long past the deadline
    again = Runtime(storage, GAMES, clock=clock, turn_seconds=120,
                    limits=Limits(restart_grace=60))
    restored = await again.load()
    assert [m.status for m in restored] == [ACTIVE]
    assert again.deadline(restored[0]) == 5060.0
    assert await again.time_out(match.id) == []  # nobody is played for at once
    clock.now = 5061.0
    assert len(await again.time_out(match.id)) >= 1


async def test_a_restart_tops_a_short_turn_up_to_the_grace_and_never_shortens_one(
        storage: Storage) -> None:
    clock = Clock()
    limits = Limits(restart_grace=60)
    runtime = Runtime(storage, GAMES, clock=clock, turn_seconds=120, limits=limits)
    for channel in (1, 2):
        lobby = await runtime.open_lobby(10, channel, "cityscape", ANN, {})
        await runtime.join(lobby.id, BOB)
        await runtime.start(lobby.id, ANN.id)  # both turns end at 1120
    clock.now = 1100.0  # 20 s left: too little to find the table again
    again = Runtime(storage, GAMES, clock=clock, turn_seconds=120, limits=limits)
    short = (await again.load())[0]
    assert again.deadline(short) == 1160.0
    # what /game status reads after the restart is the topped-up turn, not the saved one
    fetched = await again.fetch(short.id)
    assert fetched is not None and again.deadline(fetched) == 1160.0
    clock.now = 1030.0  # 90 s left: more than the grace, and left alone
    third = Runtime(storage, GAMES, clock=clock, turn_seconds=120, limits=limits)
    assert [third.deadline(m) for m in await third.load()] == [1120.0, 1120.0]


async def test_a_lobby_expires_at_its_deadline_and_a_started_one_never(
        storage: Storage) -> None:
    clock = Clock()
    runtime = Runtime(storage, GAMES, clock=clock, limits=Limits(lobby_seconds=900))
    waiting = await runtime.open_lobby(10, 1, "cityscape", ANN, {})
    started = await runtime.open_lobby(10, 2, "cityscape", ANN, {})
    cancelled = await runtime.open_lobby(10, 3, "cityscape", ANN, {})
    for lobby in (waiting, started, cancelled):
        lobby.created_at = clock.now  # the test's clock rules (see above)
    await runtime.add_computer(started.id, ANN.id)
    await runtime.start(started.id, ANN.id)
    await runtime.end(cancelled.id, ANN.id, can_manage=False)
    clock.now += 900  # exactly the deadline: the lobby's time is up
    expired = await runtime.expire_lobby(waiting.id)
    assert expired is not None and expired.status == ENDED
    assert await runtime.expire_lobby(started.id) is None
    assert await runtime.expire_lobby(cancelled.id) is None
    still = runtime.get(started.id)
    assert still is not None and still.status == ACTIVE


async def test_an_abandoned_game_says_why_on_disk_and_in_the_log(
        storage: Storage, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.core.runtime")
    runtime = Runtime(storage, GAMES, turn_seconds=60)
    lobby = await runtime.open_lobby(10, 77, "cityscape", ANN, {"rounds": 1})
    await runtime.abandon(lobby.id, "channel deleted")
    saved = await storage.get(lobby.id)
    assert saved is not None and saved.extra == {"abandoned": "channel deleted"}
    assert [r.getMessage() for r in caplog.records if r.name == "bot.core.runtime"
            and "abandoned" in r.getMessage()] == [
        f"Match {lobby.id} in channel 77 abandoned: channel deleted"]
