"""A restarted bot finds every lobby change, start and move where the players left them.

"A restart" is a second runtime opened on the same SQLite file while the first one is
still open (as after a killed process): whatever it sees was written before the first
runtime answered.
"""

from __future__ import annotations

import pytest

from bot.core.records import ACTIVE, ENDED, LOBBY, Match, Seat
from bot.core.runtime import Refusal, Runtime

from .runtime_support import (
    ANN,
    BOB,
    CHANNEL,
    CY,
    GUILD,
    Clock,
    OpenRuntime,
    runtimes,
    said,
)

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

__all__ = ["runtimes"]  # the fixture, used by name

# Big Cityz, stacked as in test_bigcityz_rules.py: slot 1 is "Has a population of 1 million
# or more" (green 5/3, red 4/2); Paris is a city of over a million.
BIGCITYZ = {
    "city_order": ["Paris", "Tokyo", "Bergen", "Oslo"],
    "statement_order": ["population", "south", "capital", "coast", "eurasia", "airport",
                        "founded", "elevation", "area", "timezones", "temperature",
                        "left_traffic"],
    "veto_seconds": 5,
}
PARIS_RIGHT = {"type": "place", "slot": 1, "color": "green", "points": 5}


async def _started(runtime: Runtime, *joiners: Seat) -> Match:
    """Ann's stacked Big Cityz table with ``joiners`` seated after her, started: Paris is
    Ann's to place."""
    match = await runtime.open_lobby(GUILD, CHANNEL, "bigcityz", ANN, BIGCITYZ)
    for player in joiners:
        await runtime.join(match.id, player)
    return await runtime.start(match.id, ANN.id)


async def _paris_placed(runtimes: OpenRuntime, clock: Clock) -> tuple[Runtime, Match]:
    """Ann, Bob and Cy's stacked Big Cityz game on ``clock``, Ann having placed Paris: Bob's
    and Cy's objection window (5 s) is open."""
    runtime = await runtimes(clock=clock)
    match = await _started(runtime, BOB, CY)
    await runtime.act(match.id, ANN.id, PARIS_RIGHT)
    return runtime, match


# -- the lobby and the start survive a restart --------------------------------------------------


async def test_a_restart_between_start_and_the_first_move_keeps_the_game(
        runtimes: OpenRuntime) -> None:
    clock = Clock(5000.0)
    runtime = await runtimes(clock=clock)
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {"rounds": 1})
    await runtime.join(match.id, BOB)
    started = await runtime.start(match.id, ANN.id)

    again = await runtimes(clock=clock)
    seen = again.get(match.id)
    assert seen is not None
    assert seen.status == ACTIVE and seen.version == 1
    assert seen.state == started.state and seen.state is not None
    assert seen.state["phase"] == "goals"
    assert seen.turn_started_at == 5000.0  # the players' clock runs from the start
    assert again.in_channel(CHANNEL) is seen
    # the restarted bot takes the first move and counts it from version 1
    outcome = await again.act(match.id, ANN.id, {"type": "set_goals", "side": "S",
                                                 "codes": [1, 2, 3, 4]}, expected_version=1)
    assert outcome.match.version == 2


async def test_a_restart_after_adding_a_computer_keeps_its_seat(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    await runtime.add_computer(match.id, ANN.id)
    again = await runtimes()
    seen = again.get(match.id)
    assert seen is not None and seen.status == LOBBY
    assert [(s.id, s.name, s.cpu) for s in seen.seats] == [
        ("1", "Ann", False), ("cpu1", "Ada (computer)", True)]
    # the restarted bot can start with it: the computer is a real seat
    assert (await again.start(match.id, ANN.id)).player_ids == ["1", "cpu1"]


async def test_a_restart_after_each_lobby_change_sees_it(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {"rounds": 2})

    async def seats_after_restart() -> list[str]:
        seen = (await runtimes()).get(match.id)
        assert seen is not None
        return seen.player_ids

    await runtime.join(match.id, BOB)
    assert await seats_after_restart() == ["1", "2"]
    await runtime.join(match.id, CY)
    await runtime.leave(match.id, BOB.id)
    assert await seats_after_restart() == ["1", "3"]
    await runtime.add_computer(match.id, ANN.id)
    await runtime.remove_computer(match.id, ANN.id)
    assert await seats_after_restart() == ["1", "3"]
    seen = (await runtimes()).get(match.id)
    assert seen is not None and seen.options == {"rounds": 2} and seen.host_id == "1"
    assert seen.guild_id == GUILD and seen.game == "cityscape"


async def test_a_restart_finds_the_table_message_to_edit(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    await runtime.set_table_message(match.id, 777)
    seen = (await runtimes()).get(match.id)
    assert seen is not None and seen.table_message_id == 777
    # the table was posted anew: the newer message is the one found after a restart
    await runtime.set_table_message(match.id, 778)
    seen = (await runtimes()).get(match.id)
    assert seen is not None and seen.table_message_id == 778
    # a finished game has no table to remember; nothing happens
    await runtime.end(match.id, ANN.id, can_manage=False)
    await runtime.set_table_message(match.id, 779)
    stored = await runtime.fetch(match.id)
    assert stored is not None and stored.table_message_id == 778 and stored.status == ENDED


async def test_a_restart_does_not_bring_back_an_ended_game(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    await runtime.join(match.id, BOB)
    await runtime.start(match.id, ANN.id)
    await runtime.end(match.id, BOB.id, can_manage=True)
    again = await runtimes()
    assert again.get(match.id) is None and again.in_channel(CHANNEL) is None
    assert (await again.load()) == []
    stored = await again.fetch(match.id)
    assert stored is not None and stored.status == ENDED and stored.extra["ended_by"] == "2"


# -- one unfinished match per channel, even across two processes --------------------------------


async def test_the_database_refuses_a_second_game_in_a_channel(runtimes: OpenRuntime) -> None:
    first = await runtimes()
    second = await runtimes()  # loaded before the lobby exists: its memory says the channel is free
    match = await first.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    assert second.in_channel(CHANNEL) is None
    with pytest.raises(Refusal, match=said("This channel already has a game; use /game status to see it.")):
        await second.open_lobby(GUILD, CHANNEL, "bigcityz", BOB, {})
    assert second.unfinished() == []
    # the refusal leaves the second process working: other channels still open
    other = await second.open_lobby(GUILD, CHANNEL + 1, "bigcityz", BOB, {})
    # a new id (PostgreSQL spends a sequence number on the refused insert: ids may skip)
    assert other.id > match.id
    # once the game is over the channel is free again for anyone
    await first.end(match.id, ANN.id, can_manage=False)
    later = await second.open_lobby(GUILD, CHANNEL, "bigcityz", BOB, {})
    assert later.status == LOBBY and (await runtimes()).in_channel(CHANNEL) is not None


async def test_a_move_that_cannot_be_saved_is_not_applied(runtimes: OpenRuntime) -> None:
    # Two processes on one file both hold the match; the second one's move at the same
    # version collides with the first one's in the action log and must not count.
    first = await runtimes()
    match = await first.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {"rounds": 1})
    await first.join(match.id, BOB)
    await first.start(match.id, ANN.id)
    second = await runtimes()
    await first.act(match.id, ANN.id, {"type": "set_goals", "side": "S", "codes": [1, 1, 1, 1]})
    with pytest.raises(Exception):  # noqa: B017 - the storage's own error, whatever its class
        await second.act(match.id, ANN.id, {"type": "set_goals", "side": "S", "codes": [4, 4, 4, 4]})
    kept = second.get(match.id)
    assert kept is not None and kept.version == 1 and kept.status == ACTIVE
    assert kept.state is not None and kept.state["goals"].get("S") is None
    assert second.undelivered.get(match.id) is None  # nothing to announce
    assert [a["codes"] for _, a in await first.storage.actions(match.id)] == [[1, 1, 1, 1]]


# -- timers ---------------------------------------------------------------------------------------


async def test_the_veto_timer_closes_the_window_and_plays_nothing_more(
        runtimes: OpenRuntime) -> None:
    clock = Clock()
    runtime = await runtimes(clock=clock)
    match = await _started(runtime, BOB, CY)
    clock.now += 10
    await runtime.act(match.id, ANN.id, PARIS_RIGHT)
    live = runtime.get(match.id)
    assert live is not None and live.state is not None and live.state["phase"] == "veto"
    # the 5-second veto window runs from the placement, not from the turn's start
    assert runtime.deadline(live) == clock.now + 5
    clock.now += 4
    assert await runtime.time_out(match.id) == []
    clock.now += 2
    outcomes = await runtime.time_out(match.id)
    assert len(outcomes) == 1
    closed = outcomes[0]
    assert closed.player is None and closed.action == {"type": "close_vetoes"}
    assert closed.timed_out and closed.by_computer
    assert [e["type"] for e in closed.events] == ["vetoes_closed", "reveal", "city_drawn"]
    # Bob is up with Tokyo in hand and his own full turn: nobody placed it for him
    state = closed.match.state
    assert state is not None and state["phase"] == "place" and state["placement"] is None
    assert runtime.engine(closed.match).to_act(state) == [BOB.id]
    assert state["scores"] == {"1": 5, "2": 0, "3": 0}
    assert await runtime.time_out(match.id) == []
    assert [p for p, _ in await runtime.storage.actions(match.id)] == ["1", None]


async def test_the_next_player_gets_a_full_turn_after_the_veto_timer(
        runtimes: OpenRuntime) -> None:
    clock = Clock()
    runtime = await runtimes(clock=clock)
    match = await runtime.open_lobby(GUILD, CHANNEL, "bigcityz", ANN,
                                     {**BIGCITYZ, "veto_seconds": 90})
    await runtime.join(match.id, BOB)
    await runtime.start(match.id, ANN.id)
    await runtime.act(match.id, ANN.id, PARIS_RIGHT)
    clock.now += 90  # Bob let the 90-second veto window run out
    [closed] = await runtime.time_out(match.id)
    assert closed.match.state is not None and closed.match.state["phase"] == "place"
    # Bob's own 60-second turn starts now; the computer must not place for him at once
    assert runtime.deadline(closed.match) == clock.now + 60
    assert await runtime.time_out(match.id) == []


async def test_the_next_player_gets_a_full_turn_after_answering_last(
        runtimes: OpenRuntime) -> None:
    clock = Clock()
    runtime, match = await _paris_placed(runtimes, clock)
    await runtime.act(match.id, CY.id, {"type": "no_veto"})
    clock.now += 4
    answered = await runtime.act(match.id, BOB.id, {"type": "no_veto"})
    assert answered.match.state is not None and answered.match.state["phase"] == "place"
    assert runtime.deadline(answered.match) == clock.now + 60


async def test_the_turn_timer_places_for_a_slow_player_once(runtimes: OpenRuntime) -> None:
    clock = Clock()
    runtime = await runtimes(clock=clock)
    match = await _started(runtime, BOB)
    clock.now += 59
    assert await runtime.time_out(match.id) == []
    clock.now += 1
    outcomes = await runtime.time_out(match.id)
    # the computer places Ann's card; then Bob's veto window opens and waits for Bob
    assert [(o.player, o.timed_out) for o in outcomes] == [(ANN.id, True)]
    state = outcomes[0].match.state
    assert state is not None and state["phase"] == "veto"
    assert runtime.engine(outcomes[0].match).to_act(state) == [BOB.id]


async def test_no_turn_timer_while_a_computer_is_due(runtimes: OpenRuntime) -> None:
    clock = Clock()
    runtime = await runtimes(clock=clock)
    match = await runtime.open_lobby(GUILD, CHANNEL, "bigcityz", ANN, BIGCITYZ)
    assert runtime.deadline(match) is None and not runtime.computers_due(match)
    await runtime.add_computer(match.id, ANN.id)
    started = await runtime.start(match.id, ANN.id)
    assert not runtime.computers_due(started)
    assert await runtime.step_computer(match.id) is None  # Ann's turn: nothing to do
    await runtime.act(match.id, ANN.id, PARIS_RIGHT)
    live = runtime.get(match.id)
    assert live is not None
    # only the computer may object now: it is due, and no human's clock is running
    assert runtime.computers_due(live)
    assert runtime.deadline(live) is None
    clock.now += 3600
    assert await runtime.time_out(match.id) == []
    outcome = await runtime.step_computer(match.id)
    assert outcome is not None and outcome.player == "cpu1" and outcome.by_computer
    assert not outcome.timed_out
    assert outcome.action["type"] in ("veto", "no_veto")


async def test_each_accepted_move_waits_to_be_told_once(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {"rounds": 1})
    await runtime.join(match.id, BOB)
    await runtime.start(match.id, ANN.id)
    assert match.id not in runtime.undelivered  # starting is not a move
    for side, owner in (("S", ANN.id), ("W", ANN.id)):
        await runtime.act(match.id, owner, {"type": "set_goals", "side": side, "codes": [1] * 4})
    assert runtime.undelivered[match.id] == 2
    runtime.delivered(match.id)
    assert runtime.undelivered[match.id] == 1
    runtime.delivered(match.id)
    assert match.id not in runtime.undelivered
    runtime.delivered(match.id)  # a late extra notice does not go negative
    assert match.id not in runtime.undelivered


async def test_one_objector_answering_does_not_stretch_the_veto_window(
        runtimes: OpenRuntime) -> None:
    clock = Clock()
    runtime, match = await _paris_placed(runtimes, clock)
    placed_at = clock.now
    clock.now += 3
    answered = await runtime.act(match.id, CY.id, {"type": "no_veto"})
    assert answered.match.state is not None and answered.match.state["phase"] == "veto"
    # Bob still has what is left of the same 5 seconds, not 5 more
    assert runtime.deadline(answered.match) == placed_at + 5
