"""A whole Cityscape game through Discord: slash commands and clicks only, against the
fake Discord server, with a restart in the middle and every kind of bad click."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.app import CityhallBot
from bot.core.records import Match
from bot.games.cityscape import ENGINE, GAME
from bot.ui.play import NOT_SEATED
from cogs.matches import UNKNOWN_BUTTON
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage
from tests import harness
from tests.harness import (
    Member,
    answer,
    button_id,
    by_id,
    cityhall_bot,
    settle,
    started_table,
    text_of,
)

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

EPHEMERAL = 64


def select_id(message: FakeMessage, prefix: str) -> str:
    for row in message.components:
        for comp in row.get("components", []):
            if str(comp.get("custom_id", "")).startswith(prefix):
                return str(comp["custom_id"])
    raise AssertionError(f"no select {prefix!r} in {message.components}")


async def set_goals(fake: FakeDiscord, user: dict, table: FakeMessage, match_id: int,
                    sides_codes: list[tuple[str, list[int]]]) -> None:
    """Press My goals, pick the four codes line by line, Confirm (for each owned side)."""
    picker = (await answer(await fake.click(user, table, button_id(table, "My goals")))).message
    assert picker is not None and picker.ephemeral
    for side, codes in sides_codes:
        assert f"({side})" in picker.content
        for line, code in enumerate(codes):
            custom_id = select_id(picker, f"ch:cs:{match_id}:r1:s{side}{line}")
            done = await answer(await fake.select(user, picker, custom_id, [str(code)]))
            assert done.type == 7  # the private picker is updated in place
        confirm = button_id(picker, prefix=f"ch:cs:{match_id}:r1:g{side}")
        done = await answer(await fake.click(user, picker, confirm))
        assert done.type == 7 and "saved" in text_of(done)


async def build(fake: FakeDiscord, bot: CityhallBot, user: dict, match_id: int,
                height: int, lot: str) -> Any:
    match = bot.runtime.get(match_id)
    assert match is not None and match.table_message_id is not None
    table = fake.message(match.table_message_id)
    prefix = f"ch:cs:{match_id}:v{match.version}:"
    opened = await answer(await fake.click(user, table, button_id(table, prefix=f"{prefix}h{height}")))
    assert opened.ephemeral, text_of(opened)
    picker = opened.message
    return picker, await answer(await fake.click(user, picker, button_id(
        picker, prefix=f"{prefix}b{height}{lot}")))


async def against_a_computer(fake: FakeDiscord, bot: CityhallBot, host: dict) -> Match:
    """``host`` opens a one-round game in the fake's channel, adds a computer, starts."""
    match, _ = await started_table(fake, bot, "cityscape", host,
                                   computers=1, options={"rounds": 1})
    return match


def public_texts(fake: FakeDiscord) -> str:
    """Everything anyone in the channel can read (not ephemeral), with every edit."""
    parts = []
    for message in fake.channel_messages(fake.channel_id, ephemeral=False):
        parts.append(json.dumps([message.content, message.embeds, message.components], default=str))
        parts.extend(json.dumps(h, default=str) for h in message.history)
    return "\n".join(parts)


# Whole games: Discord's limits with shorter windows (tests/harness.py).
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_a_whole_three_player_game_with_a_computer_and_a_restart(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member, eve: Member) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    channel = fake.channel_id
    users = by_id(ann, bob)

    async with cityhall_bot(fake, db) as bot:
        lobby = (await answer(await fake.slash(ann, channel, "cityscape", ["new"], {"rounds": 1}))).message
        assert lobby is not None and "waiting for players" in lobby.embeds[0]["title"]

        # one game per channel, of any game
        second = await answer(await fake.slash(bob, channel, "cityscape", ["new"]))
        assert second.ephemeral and "already has a lobby of Cityscape" in text_of(second)

        refused = await answer(await fake.click(eve, lobby, button_id(lobby, "Start")))
        assert refused.ephemeral and "Only the host can start" in text_of(refused)
        refused = await answer(await fake.click(ann, lobby, button_id(lobby, "Start")))
        assert "needs 2–4 players; 1 is seated" in text_of(refused)

        joined = await answer(await fake.click(bob, lobby, button_id(lobby, "Join")))
        assert joined.type == 7 and "Bob" in lobby.embeds[0]["description"]
        await answer(await fake.click(ann, lobby, button_id(lobby, "Add computer")))
        assert "(computer)" in lobby.embeds[0]["description"]

        started = await answer(await fake.click(ann, lobby, button_id(lobby, "Start")))
        assert started.type == 7
        table = lobby  # the lobby message became the table
        assert not table.embeds and "secret goals" in table.content
        # The click is answered first; the picture follows as soon as it is drawn.
        await fake.wait_until(lambda: any(a.filename == "table.png" for a in table.attachments),
                              10, "the table's picture")
        with table.attachment("table.png").image() as picture:
            assert picture.format == "PNG" and picture.width >= 800
        match = bot.runtime.in_channel(int(channel))
        assert match is not None
        match_id = match.id

        # nobody but a seated player may open the goal picker
        stranger = await answer(await fake.click(eve, table, button_id(table, "My goals")))
        assert stranger.ephemeral and text_of(stranger) == str(NOT_SEATED)

        await set_goals(fake, ann, table, match_id, [("S", [3, 5, 6, 2])])
        await set_goals(fake, bob, table, match_id, [("W", [1, 4, 4, 1])])
        await settle(bot, match_id)
        live = bot.runtime.get(match_id)
        assert live is not None and live.state is not None
        assert live.state["phase"] == "building"
        # secret goals never reach a public message
        public = public_texts(fake)
        assert "3-5-6-2" not in public and "1-4-4-1" not in public

        # my goals, shown privately, with the line-by-line status
        mine = await answer(await fake.click(ann, table, button_id(table, "My goals")))
        assert mine.ephemeral and "code 3" in text_of(mine) and "code 6" in text_of(mine)

        moves = 0
        stale_picker: FakeMessage | None = None
        stale_user: dict = ann
        while moves < 12:
            match = bot.runtime.get(match_id)
            assert match is not None and match.state is not None
            player = ENGINE.to_act(match.state)[0]
            table = fake.message(match.table_message_id)  # type: ignore[arg-type]
            assert player in users, "computers move by themselves"
            other = bob if users[player] is ann else ann
            # a click by the player who is not on turn, and by a stranger
            h = next(h for h in (1, 2, 3, 4, 5) if match.state["blocks_left"][str(h)])
            prefix = f"ch:cs:{match_id}:v{match.version}:h{h}"
            wrong = await answer(await fake.click(other, table, button_id(table, prefix=prefix)))
            assert wrong.ephemeral and "turn to build, not yours" in text_of(wrong)
            nosy = await answer(await fake.click(eve, table, button_id(table, prefix=prefix)))
            assert nosy.ephemeral and text_of(nosy) == str(NOT_SEATED)
            action = GAME.computer.normal(match.state, player)
            if stale_picker is None:
                # a picker opened and left unused: it belongs to this board only
                extra = await answer(await fake.click(users[player], table, button_id(
                    table, prefix=f"ch:cs:{match_id}:v{match.version}:h{h}")))
                stale_picker = extra.message
                stale_user = users[player]
            _, done = await build(fake, bot, users[player], match_id, action["height"],
                                  action["lot"])
            assert done.type == 7 and f"on {action['lot']}" in text_of(done)
            moves += 1
            await settle(bot, match_id)

        # a click on an outdated private picker is not applied; the board is shown instead
        assert stale_picker is not None
        match = bot.runtime.get(match_id)
        assert match is not None
        before = json.dumps(match.state)
        old_lot = next(c["custom_id"] for c in stale_picker.iter_components()
                       if ":b" in str(c.get("custom_id", "")))
        stale = await answer(await fake.click(stale_user, stale_picker, old_lot))
        assert stale.ephemeral and "earlier board" in text_of(stale)
        assert stale.files and stale.files[0].filename == "table.png"
        assert json.dumps(bot.runtime.get(match_id).state) == before  # type: ignore[union-attr]

        # malformed custom ids get a sentence, never "This interaction failed"
        for bad in ("ch:cs:abc:v1:h9", "ch:cs:99999:goals", "totally-unknown", "ch:lobby:1:explode"):
            reply = await answer(await fake.click_raw(ann, channel, bad))
            assert reply.ephemeral and text_of(reply), bad
        assert text_of(await answer(await fake.click_raw(ann, channel, "totally-unknown"))) \
            == UNKNOWN_BUTTON

        # two simultaneous clicks by the player on turn: exactly one is applied
        match = bot.runtime.get(match_id)
        assert match is not None and match.state is not None
        player = ENGINE.to_act(match.state)[0]
        table = fake.message(match.table_message_id)  # type: ignore[arg-type]
        prefix = f"ch:cs:{match_id}:v{match.version}:"
        h = next(h for h in (1, 2, 3, 4, 5) if match.state["blocks_left"][str(h)] >= 2)
        opened = await answer(await fake.click(users[player], table,
                                               button_id(table, prefix=f"{prefix}h{h}")))
        picker = opened.message
        placed_before = match.state["placed"]
        a1_before, d4_before = len(match.state["lots"]["A1"]), len(match.state["lots"]["D4"])
        clicks = await asyncio.gather(
            fake.click(users[player], picker, button_id(picker, prefix=f"{prefix}b{h}A1")),
            fake.click(users[player], picker, button_id(picker, prefix=f"{prefix}b{h}D4")),
        )
        replies = [await answer(ix) for ix in clicks]
        assert sorted(r.type for r in replies) == [4, 7]  # one update, one ephemeral refusal
        await settle(bot, match_id)
        match = bot.runtime.get(match_id)
        assert match is not None and match.state is not None
        grew = (len(match.state["lots"]["A1"]) - a1_before) + (
            len(match.state["lots"]["D4"]) - d4_before)
        assert grew == 1  # exactly one of the two clicks was applied
        assert match.state["placed"] > placed_before
        version_before_restart = match.version
        table_id = match.table_message_id

    # -- the bot restarts: a new client, the same database file ------------------------
    async with cityhall_bot(fake, db) as bot:
        match = bot.runtime.get(match_id)
        assert match is not None and match.version == version_before_restart
        assert match.table_message_id == table_id
        await settle(bot, match_id)
        while bot.runtime.get(match_id) is not None:
            match = bot.runtime.get(match_id)
            assert match is not None and match.state is not None
            player = ENGINE.to_act(match.state)[0]
            action = GAME.computer.normal(match.state, player)
            _, done = await build(fake, bot, users[player], match_id, action["height"], action["lot"])
            assert done.type == 7
            await settle(bot, match_id)

        final = await bot.storage.get(match_id)
        assert final is not None and final.status == "over" and final.state is not None
        scoring = [m for m in fake.channel_messages(channel, ephemeral=False)
                   if any(a.filename == "round-1.png" for a in m.attachments)]
        assert len(scoring) == 1
        text = scoring[0].content
        assert "Round 1 scored" in text and "3-5-6-2" in text and "1-4-4-1" in text
        with scoring[0].attachment("round-1.png").image() as picture:
            assert picture.format == "PNG"
        table = fake.message(final.table_message_id)  # type: ignore[arg-type]
        assert "final" in table.content and "🏆" in table.content
        assert harness.finished_buttons(table) == ["replay", "rematch"]

        stats = await answer(await fake.slash(bob, channel, "stats", [], {}))
        board = json.dumps(stats.data["embeds"])
        assert "Ann" in board and "Bob" in board and "(computer)" not in board
        # the channel is free for a new game
        again = await answer(await fake.slash(bob, channel, "cityscape", ["new"]))
        assert not again.ephemeral


# Whole games: Discord's limits with shorter windows (tests/harness.py).
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_a_two_player_game_sets_two_sides_each(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, lobby = await started_table(fake, bot, "cityscape", ann,
                                           joiners=(bob,), options={"rounds": 1})
        await set_goals(fake, ann, lobby, match.id, [("S", [1, 2, 3, 4]), ("W", [6, 5, 2, 1])])
        await set_goals(fake, bob, lobby, match.id, [("N", [2, 2, 2, 2]), ("E", [3, 3, 3, 3])])
        await settle(bot, match.id)
        assert match.state is not None and match.state["phase"] == "building"
        assert "it's your turn" in fake.message(match.table_message_id).content  # type: ignore[arg-type]


async def test_the_turn_timer_plays_for_a_slow_player(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", turn_seconds=0.3) as bot:
        match = await against_a_computer(fake, bot, ann)

        def told() -> FakeMessage | None:
            return next((m for m in fake.channel_messages(fake.channel_id, ephemeral=False)
                         if "ran out of time" in m.content), None)

        notice = await fake.wait_until(told, 5)
        assert "Ann ran out of time, so the computer player chose goals" in notice.content
        assert match.state is not None and "S" in match.state["goals"]


async def test_slash_commands_without_a_game_and_bad_options(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3"):
        status = await answer(await fake.slash(ann, fake.channel_id, "game", ["status"]))
        assert status.ephemeral and "no game in this channel" in text_of(status)
        ended = await answer(await fake.slash(ann, fake.channel_id, "game", ["end"]))
        assert ended.ephemeral and "no game to end" in text_of(ended)
        rules = await answer(await fake.slash(ann, fake.channel_id, "cityscape", ["rules"]))
        assert rules.ephemeral and "25 blocks" in json.dumps(rules.data["embeds"])
        bad = await answer(await fake.slash(ann, fake.channel_id, "cityscape", ["new"],
                                            raw_options=[{"name": "rounds", "type": 4,
                                                          "value": 99}]))
        assert bad.ephemeral and "between 1 and 12" in text_of(bad)


async def test_status_reposts_the_table_and_end_needs_the_host(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    mod = await fake.add_member("Mod", manage_messages=True)
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        lobby = (await answer(await fake.slash(ann, fake.channel_id, "cityscape", ["new"]))).message
        await answer(await fake.click(bob, lobby, button_id(lobby, "Join")))
        await answer(await fake.click(ann, lobby, button_id(lobby, "Start")))
        status = await answer(await fake.slash(bob, fake.channel_id, "game", ["status"]))
        assert not status.ephemeral and status.files[0].filename == "table.png"
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None
        old = fake.message(lobby.id)
        # the old table loses its buttons and the new message becomes the table
        await fake.wait_until(lambda: not list(old.iter_components())
                              and match.table_message_id == int(status.message.id), 5)
        refused = await answer(await fake.slash(bob, fake.channel_id, "game", ["end"]))
        assert refused.ephemeral and "Only the host" in text_of(refused)
        ended = await answer(await fake.slash(mod, fake.channel_id, "moderate", ["end"]))
        assert not ended.ephemeral and "ended by Mod" in text_of(ended)
        assert bot.runtime.in_channel(int(fake.channel_id)) is None
        late = await answer(await fake.click(ann, status.message,
                                             button_id(status.message, "My goals")))
        assert late.ephemeral and "finished" in text_of(late)


def test_table_picture_is_a_real_png(tmp_path: Path) -> None:
    from bot.games.cityscape.render import render_table

    state = ENGINE.new(["a", "b", "c"], {}, 1)
    path = tmp_path / "t.png"
    path.write_bytes(render_table(ENGINE.view(state, None)))
    with Image.open(path) as picture:
        assert picture.format == "PNG"


async def test_lobby_leave_remove_cancel_and_threads(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        lobby = (await answer(await fake.slash(ann, fake.channel_id, "cityscape", ["new"]))).message
        # a thread is a table of its own, even while the channel has one
        in_thread = await answer(await fake.slash(bob, fake.thread_id, "cityscape", ["new"]))
        assert not in_thread.ephemeral and in_thread.message is not None
        assert bot.runtime.in_channel(int(fake.thread_id)) is not None

        refused = await answer(await fake.click(bob, lobby, button_id(lobby, "Leave")))
        assert "not in this game" in text_of(refused)
        await answer(await fake.click(bob, lobby, button_id(lobby, "Join")))
        await answer(await fake.click(bob, lobby, button_id(lobby, "Leave")))
        assert "Bob" not in lobby.embeds[0]["description"]
        refused = await answer(await fake.click(ann, lobby, button_id(lobby, "Leave")))
        assert "use Cancel" in text_of(refused)
        for _ in range(3):
            await answer(await fake.click(ann, lobby, button_id(lobby, "Add computer")))
        full = find_button_state(lobby, "Join")
        assert full is True  # four seats taken: Join and Add computer are disabled
        await answer(await fake.click(ann, lobby, button_id(lobby, "Remove computer")))
        assert lobby.embeds[0]["description"].count("(computer)") == 2
        refused = await answer(await fake.click(bob, lobby, button_id(lobby, "Cancel")))
        assert "Only the host" in text_of(refused)
        done = await answer(await fake.click(ann, lobby, button_id(lobby, "Cancel")))
        assert done.type == 7 and "cancelled" in lobby.content and not lobby.components
        assert bot.runtime.in_channel(int(fake.channel_id)) is None
        late = await answer(await fake.click_raw(bob, fake.channel_id, "ch:lobby:1:join"))
        assert late.ephemeral and text_of(late)


def find_button_state(message: FakeMessage, label: str) -> bool:
    return bool(next(c for c in message.iter_components() if c.get("label") == label)
                .get("disabled", False))
