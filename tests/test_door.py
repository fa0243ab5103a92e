"""A crowd of clicks larger than the bot routes in Discord's 3 s: the clicks still waiting
for their turn are acknowledged from the queue, and answered when their turn comes
(bot/ui/door.py). Without that, the back of a restart's crowd on a slow host failed
("This interaction failed") before its handlers ever started (docs/performance.md, 2 Dec)."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from bot.ui.door import Door, acknowledge
from fakediscord import FakeDiscord
from tests.harness import Member, button_id, cityhall_bot, members, new_lobby

DEFERRED_UPDATE = 6
CROWD = 90  # clicks at once: at one routed per turn of a loop held HOG_S a turn, > 3 s
HOG_S = 0.04  # how long each turn of the event loop takes while the crowd is answered


async def _hog(stop: asyncio.Event) -> None:
    """A loop as busy as a slow host's in a restart: every turn takes ``HOG_S``, and the
    bot routes one click a turn (bot/app.py ``route_in_turn``)."""
    while not stop.is_set():
        time.sleep(HOG_S)
        await asyncio.sleep(0)


async def _crowd(fake: FakeDiscord, tmp_path: Path, ann: Member) -> tuple[list[Any], int]:
    """``CROWD`` members click the lobby's How to play at once on a busy loop: the
    interactions, and how many the bot acknowledged from its queue."""
    crowd = await members(fake, *(f"P{i}" for i in range(CROWD)))
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        lobby = await new_lobby(fake, ann, "cityscape", {})
        rules = button_id(lobby, "How to play")
        stop = asyncio.Event()
        hog = asyncio.ensure_future(_hog(stop))
        try:
            clicks = await asyncio.gather(*(fake.click(m, lobby, rules) for m in crowd))
            await asyncio.gather(*(ix.response(timeout=10) for ix in clicks),
                                 return_exceptions=True)
        finally:
            stop.set()
            await hog
        # Their answers follow once the loop is free again.
        await fake.wait_until(lambda: all(ix.callback is not None and (
            ix.callback.type != DEFERRED_UPDATE or ix.followed_by is not None)
            for ix in clicks if not ix.failed), 20, "every acknowledged click's answer")
        return clicks, bot.door.acknowledged


async def test_a_crowd_the_loop_cannot_route_in_3_s_is_acknowledged_from_the_queue(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member) -> None:
    fake = fake_discord
    clicks, at_the_door = await _crowd(fake, tmp_path, ann)
    assert not fake.failed_interactions, fake.failed_interactions
    # The back of the crowd was acknowledged at the door, the front answered as ever.
    assert at_the_door > 0
    assert clicks[0].callback is not None and clicks[0].callback.type != DEFERRED_UPDATE
    for ix in clicks:
        assert ix.callback is not None
        seen = await ix.seen(timeout=1)
        # Every player got the rules, privately: directly or as a follow-up.
        assert seen.type == 4 and seen.message is not None and seen.message.ephemeral, seen
        if ix.callback.type == DEFERRED_UPDATE:
            # Acknowledged before Discord's 3 s ran out, with a second to spare for the
            # acknowledgement's way there on a busy loop.
            assert ix.callback.at - ix.created < 3.0


async def test_without_the_door_the_same_crowd_fails_at_the_back(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The crowd above is one a loop cannot route in time: with nothing acknowledged from
    the queue, the clicks at its back fail (so the test above tests the door)."""
    monkeypatch.setattr(Door, "waiting", lambda self, data, began: None)
    fake = fake_discord
    clicks, at_the_door = await _crowd(fake, tmp_path, ann)
    assert at_the_door == 0
    assert fake.failed_interactions
    # The ones that failed are the back of the queue, routed past what the handler's own
    # acknowledgement (bot/ui/deferral.py, 2 s after the click was made) could reach.
    failed = {ix.id for ix in fake.failed_interactions}
    assert clicks[0].id not in failed
    # Seen, and expected here: the fixture's clean check would fail on them, and on the
    # answers to clicks whose handlers started in time but finished after Discord's 3 s.
    fake.failed_interactions.clear()
    assert all("10062" in str(error) for error in fake.errors), fake.errors
    fake.errors.clear()


async def test_a_refused_acknowledgement_leaves_the_click_as_it_was(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member,
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Discord refused the acknowledgements (a 5xx): each click is routed as if none had
    been sent, answered directly while Discord still takes it and dropped past its 3 s,
    and none is answered twice or breaks its handler."""
    async def refused(state: Any, data: Any) -> bool:
        return False

    monkeypatch.setattr("bot.ui.door.acknowledge", refused)
    fake = fake_discord
    clicks, at_the_door = await _crowd(fake, tmp_path, ann)
    assert at_the_door > 0
    assert fake.failed_interactions  # the back of the crowd, as without the door
    answered = [ix for ix in clicks if ix.callback is not None]
    assert answered and all(ix.callback.type != DEFERRED_UPDATE for ix in answered)
    # Answers that came too late are a warning for the admin, not a bug's traceback.
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], \
        [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    late = sum("10062" in str(error) for error in fake.errors)  # answers after 3 s
    assert sum("too late for Discord" in r.getMessage() for r in caplog.records) >= min(late, 1)
    fake.failed_interactions.clear()
    assert all("10062" in str(error) for error in fake.errors), fake.errors
    fake.errors.clear()


async def test_an_acknowledgement_whose_reply_was_lost_still_gets_its_click_answered(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member,
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Discord took the acknowledgements, but their replies never reached the bot (in a
    restart's crowd on 3 Dec, aiohttp raised while reading one): the bot believes each click
    unacknowledged and answers it directly, which Discord refuses with 40060. Each click is
    then answered by a follow-up: every player gets the rules, and no handler fails."""
    async def reply_lost(state: Any, data: Any) -> bool:
        assert await acknowledge(state, data)
        return False  # what acknowledge says when its request raised

    monkeypatch.setattr("bot.ui.door.acknowledge", reply_lost)
    fake = fake_discord
    clicks, at_the_door = await _crowd(fake, tmp_path, ann)
    assert at_the_door > 0
    assert not fake.failed_interactions, fake.failed_interactions
    lost = [ix for ix in clicks if ix.callback is not None and ix.callback.type == DEFERRED_UPDATE]
    assert len(lost) == at_the_door
    for ix in clicks:
        seen = await ix.seen(timeout=1)
        assert seen.type == 4 and seen.message is not None and seen.message.ephemeral, seen
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], \
        [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    # Each click's direct answer was refused as a second acknowledgement, once.
    refused = [error for error in fake.errors if error.code == 40060]
    assert len(refused) == at_the_door and len(fake.errors) == len(refused), fake.errors
    fake.errors.clear()
