"""What the runtime refuses, and the sentence the player gets, at each stage of a match.

Each refusal is checked to change nothing: neither in memory nor in what a second runtime
opened on the same file (a restarted bot) sees.
"""

from __future__ import annotations

import pytest

from bot.core.records import ACTIVE, ENDED, LOBBY
from bot.core.runtime import Refusal, StaleBoard

from .runtime_support import ANN, BOB, CHANNEL, CY, GUILD, OpenRuntime, runtimes, said, starts

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

__all__ = ["runtimes"]  # the fixture, used by name

BUILD = {"type": "build", "height": 1, "lot": "A1"}
GOALS = {"type": "set_goals", "side": "S", "codes": [1, 1, 1, 1]}


# -- the lobby ------------------------------------------------------------------------------


async def test_only_the_host_can_remove_a_computer_player(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    await runtime.join(match.id, BOB)
    await runtime.add_computer(match.id, ANN.id)
    with pytest.raises(Refusal, match=said("Only the host can remove computer players.")):
        await runtime.remove_computer(match.id, BOB.id)
    assert [s.id for s in runtime.get(match.id).seats] == ["1", "2", "cpu1"]  # type: ignore[union-attr]
    again = await runtimes()
    assert [s.id for s in again.get(match.id).seats] == ["1", "2", "cpu1"]  # type: ignore[union-attr]


async def test_the_host_removes_the_last_computer_added(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    await runtime.add_computer(match.id, ANN.id)
    await runtime.join(match.id, BOB)
    await runtime.add_computer(match.id, ANN.id)
    names = [s.name for s in runtime.get(match.id).seats]  # type: ignore[union-attr]
    assert names == ["Ann", "Ada (computer)", "Bob", "Babbage (computer)"]
    after = await runtime.remove_computer(match.id, ANN.id)
    assert [s.id for s in after.seats] == ["1", "cpu1", "2"]
    # the freed number is given to the next computer again
    again = await runtime.add_computer(match.id, ANN.id)
    assert [s.id for s in again.seats] == ["1", "cpu1", "2", "cpu2"]
    assert again.seats[-1].cpu


async def test_removing_a_computer_when_there_is_none(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    await runtime.join(match.id, BOB)
    with pytest.raises(Refusal, match=said("There is no computer player to remove.")):
        await runtime.remove_computer(match.id, ANN.id)
    assert [s.id for s in runtime.get(match.id).seats] == ["1", "2"]  # type: ignore[union-attr]


async def test_the_host_cannot_add_a_computer_to_a_full_table(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    for _ in range(3):
        await runtime.add_computer(match.id, ANN.id)
    with pytest.raises(Refusal, match=said("Cityscape is for at most 4 players; the table is full.")):
        await runtime.add_computer(match.id, ANN.id)
    assert len(runtime.get(match.id).seats) == 4  # type: ignore[union-attr]


async def test_leaving_a_game_you_are_not_in(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    with pytest.raises(Refusal, match=said("You are not in this game.")):
        await runtime.leave(match.id, BOB.id)


async def test_too_many_players_cannot_start(runtimes: OpenRuntime) -> None:
    # Big Cityz seats at most 6; a lobby never holds more, so the check is at join time.
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "bigcityz", ANN, {})
    for _ in range(5):
        await runtime.add_computer(match.id, ANN.id)
    with pytest.raises(Refusal, match=said("Big Cityz is for at most 6 players; the table is full.")):
        await runtime.join(match.id, BOB)
    assert (await runtime.start(match.id, ANN.id)).status == ACTIVE


async def test_a_lone_host_is_told_how_many_are_seated(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "bigcityz", ANN, {})
    with pytest.raises(Refusal, match=said("Big Cityz needs 2–6 players; 1 is seated.")):
        await runtime.start(match.id, ANN.id)
    assert runtime.get(match.id).status == LOBBY  # type: ignore[union-attr]


async def test_options_the_engine_refuses_at_start_are_a_refusal(runtimes: OpenRuntime) -> None:
    # first_player is checked against the seated players only when the game starts
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "bigcityz", ANN, {"first_player": "p0"})
    await runtime.join(match.id, BOB)
    with pytest.raises(Refusal, match=said("p0 is not playing, so cannot go first.")):
        await runtime.start(match.id, ANN.id)
    assert runtime.get(match.id).status == LOBBY  # type: ignore[union-attr]


# -- "That game has already started." ---------------------------------------------------------


async def test_lobby_buttons_after_the_start_say_it_has_started(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    await runtime.join(match.id, BOB)
    await runtime.start(match.id, ANN.id)
    started = said("That game has already started.")
    with pytest.raises(Refusal, match=started):
        await runtime.join(match.id, CY)
    with pytest.raises(Refusal, match=started):
        await runtime.leave(match.id, BOB.id)
    with pytest.raises(Refusal, match=started):
        await runtime.add_computer(match.id, ANN.id)
    with pytest.raises(Refusal, match=started):
        await runtime.remove_computer(match.id, ANN.id)
    with pytest.raises(Refusal, match=started):
        await runtime.start(match.id, ANN.id)
    live = runtime.get(match.id)
    assert live is not None and [s.id for s in live.seats] == ["1", "2"] and live.version == 1


# -- "The game has not started yet." ------------------------------------------------------------


async def test_moves_in_the_lobby_say_the_game_has_not_started(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    await runtime.join(match.id, BOB)
    with pytest.raises(Refusal, match=said("The game has not started yet.")):
        await runtime.act(match.id, ANN.id, GOALS)
    live = runtime.get(match.id)
    assert live is not None and live.status == LOBBY and live.state is None
    assert await runtime.storage.actions(match.id) == []


# -- "That game has already finished." ----------------------------------------------------------


async def test_buttons_of_an_ended_game_say_it_has_finished(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    await runtime.join(match.id, BOB)
    await runtime.start(match.id, ANN.id)
    ended = await runtime.end(match.id, ANN.id, can_manage=False)
    assert ended.status == ENDED and ended.extra["ended_by"] == ANN.id
    finished = said("That game has already finished.")
    with pytest.raises(Refusal, match=finished):
        await runtime.act(match.id, ANN.id, GOALS)
    with pytest.raises(Refusal, match=finished):
        await runtime.join(match.id, CY)
    with pytest.raises(Refusal, match=finished):
        await runtime.remove_computer(match.id, ANN.id)
    with pytest.raises(Refusal, match=finished):
        await runtime.end(match.id, ANN.id, can_manage=True)
    assert runtime.get(match.id) is None and runtime.unfinished() == []
    assert await runtime.step_computer(match.id) is None
    assert await runtime.time_out(match.id) == []
    # the database keeps it, ended, for the record
    saved = await runtime.fetch(match.id)
    assert saved is not None and saved.status == ENDED and saved.extra["ended_by"] == "1"


async def test_a_cancelled_lobby_frees_the_channel(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    await runtime.end(match.id, ANN.id, can_manage=False)
    assert runtime.in_channel(CHANNEL) is None
    again = await runtimes()
    assert again.unfinished() == []
    other = await again.open_lobby(GUILD, CHANNEL, "bigcityz", BOB, {})
    assert other.id != match.id


# -- playing ------------------------------------------------------------------------------------


async def test_a_choice_from_an_earlier_stage_is_stale(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "cityscape", ANN, {})
    await runtime.join(match.id, BOB)
    await runtime.start(match.id, ANN.id)
    with pytest.raises(StaleBoard, match=said("That choice belongs to an earlier stage of the game.")):
        await runtime.act(match.id, ANN.id, GOALS, still_valid=lambda m: False)
    assert runtime.get(match.id).version == 1  # type: ignore[union-attr]
    outcome = await runtime.act(match.id, ANN.id, GOALS, still_valid=lambda m: m.version == 1)
    assert outcome.match.version == 2 and outcome.player == ANN.id
    assert not outcome.by_computer and not outcome.timed_out


async def test_the_busy_channel_sentence_names_the_running_game(runtimes: OpenRuntime) -> None:
    runtime = await runtimes()
    match = await runtime.open_lobby(GUILD, CHANNEL, "bigcityz", ANN, {})
    with pytest.raises(Refusal, match=starts("This channel already has a lobby of Big Cityz running")):
        await runtime.open_lobby(GUILD, CHANNEL, "cityscape", BOB, {})
    await runtime.join(match.id, BOB)
    await runtime.start(match.id, ANN.id)
    with pytest.raises(Refusal, match=starts(
            "This channel already has a game of Big Cityz running. Finish it, or ask its host "
            "to use /game end")):
        await runtime.open_lobby(GUILD, CHANNEL, "cityscape", BOB, {})
    # another channel (or a thread) is free
    assert (await runtime.open_lobby(GUILD, CHANNEL + 1, "cityscape", BOB, {})).status == LOBBY
