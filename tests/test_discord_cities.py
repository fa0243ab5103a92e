"""Whole Cities games through Discord: slash commands and clicks only, against the fake
Discord server, for 2, 3 and 4 players and the long two-player variant, with a restart in
the middle, strangers' and stale clicks, paged menus, and face-down items that never reach
a public message.

The humans' moves are the computer player's choices (``ENGINE.ai_action``), made by
clicking the table's take buttons and the private chooser's lettered menu (paging and
switching to the right item first) or its Remove button, exactly as a person would.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.app import CityhallBot
from bot.core.engine import JSON
from bot.games.cities import ENGINE, GAME
from bot.games.cities import render as cities_render
from bot.games.cities.content import CONTENT
from bot.ui.paged import PAGE_SIZE
from bot.ui.play import NOT_SEATED
from cogs.matches import UNKNOWN_BUTTON
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage
from tests import harness
from tests.harness import Member, answer, by_id, cityhall_bot, has_picture, ids, settle, text_of
from tests.labels import COORDINATES, coordinates_in, option_texts
from tests.test_discord_cityscape import public_texts

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

EPHEMERAL = 64


Draw = Callable[[JSON], bytes]


@pytest.fixture
def quick_table(monkeypatch: pytest.MonkeyPatch) -> Callable[[], Draw]:
    """Speed: the table picture is re-drawn after every computer move (~0.1 s each, most of
    a long game's run time). The two-player game draws every table for real until its
    restart; after that, and in the longer games, the table gets a tiny stand-in and the
    real picture is drawn once per round by ``finish``, so it is still checked in every
    setting. Previews, neighbourhoods and the final picture are always real."""
    def use() -> Draw:
        real = cities_render.render_table
        buffer = io.BytesIO()
        Image.new("RGB", (8, 8), "white").save(buffer, "PNG")
        monkeypatch.setattr(cities_render, "render_table", lambda view: buffer.getvalue())
        return real
    return use


def same(a: JSON, b: JSON) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def computer_move(state: JSON) -> tuple[str, JSON, list[JSON], int]:
    """Whoever is due first, the move the computer would make for them, the legal moves and
    that move's index among them (which names its button)."""
    player = ENGINE.to_act(state)[0]
    action = GAME.computer.normal(state, player)
    legal = [la.action for la in ENGINE.legal(state, player)]
    return player, action, legal, next(i for i, a in enumerate(legal) if same(a, action))


def key_of(action: JSON) -> str | None:
    return action.get("feature") or action.get("color")


def face_down_words(state: JSON) -> list[str]:
    """What would give a face-down card or tile away: its name or id."""
    words = []
    for row in ("cards", "tiles"):
        for slot in state["rows"][row]:
            for item, hidden in zip(slot["items"], slot["hidden"], strict=True):
                if hidden:
                    words.append(CONTENT.cards[item].name if row == "cards" else item)
    return words


def assert_hidden(fake: FakeDiscord, words: list[str]) -> None:
    public = public_texts(fake)
    for word in words:
        assert not re.search(rf"\b{re.escape(word)}\b", public), word


class Players:
    """Plays the humans' moves through the UI; remembers each one's open chooser."""

    def __init__(self, fake: FakeDiscord, users: dict[str, dict[str, Any]]) -> None:
        self.fake = fake
        self.users = users
        self.choosers: dict[str, FakeMessage] = {}
        self.clicks = 0
        self.used: dict[str, int] = {"page": 0, "switch": 0, "remove": 0, "reopen": 0,
                                     "browsed": 0}
        self.browse = False  # once, page a long menu forward and back before choosing

    async def move(self, bot: CityhallBot, match_id: int) -> Any:
        """One human move (the computer player's choice), clicked; returns the reply."""
        fake = self.fake
        match = bot.runtime.get(match_id)
        assert match is not None and match.state is not None
        state = match.state
        player, action, legal, index = computer_move(state)
        user = self.users[player]
        base = f"ch:ct:{match_id}:v{match.version}"
        table = fake.message(match.table_message_id)  # type: ignore[arg-type]
        if action["type"] in ("take", "choose_start_tile"):
            reply = await answer(await fake.click(user, table, f"{base}:a{index}"))
            self.clicks += 1
            assert reply.ephemeral, text_of(reply)
            assert reply.type == 4
            self.choosers[player] = reply.message
            return reply
        chooser = self.choosers.get(player)
        if chooser is None or not any(i.startswith(f"{base}:") for i in ids(chooser)):
            self.used["reopen"] += 1
            opened = await answer(await fake.click(user, table, f"{base}:o0p0"))
            assert opened.ephemeral and opened.type == 4, text_of(opened)
            chooser = opened.message
            assert chooser is not None
        keys = list(dict.fromkeys(state["pending"]["items"]))
        focus = 0 if state["pending"]["row"] == "tiles" else keys.index(key_of(action))
        spots = [i for i, a in enumerate(legal) if a["type"].startswith("place")
                 and ((focus == 0 and state["pending"]["row"] == "tiles")
                      or key_of(a) == keys[focus])]
        page = spots.index(index) // PAGE_SIZE if index in spots else 0
        if self.browse and not focus and len(spots) > PAGE_SIZE:
            self.browse = False
            self.used["browsed"] += 1
            assert "(A–Y, page 1 of" in json.dumps(chooser.components, ensure_ascii=False)
            turned = await answer(await fake.click(user, chooser, f"{base}:o0p1"))
            assert turned.type == 7 and await has_picture(fake, chooser, "choices.png")
            menu = next(c for c in chooser.iter_components() if c.get("type") == 3)
            assert menu["options"][0]["label"].startswith("Z · ")
            assert menu["custom_id"] == f"{base}:s0p1"
            turned = await answer(await fake.click(user, chooser, f"{base}:o0p0"))
            assert turned.type == 7
        if focus:
            self.used["switch"] += 1
            turned = await answer(await fake.click(user, chooser, f"{base}:o{focus}p0"))
            assert turned.type == 7, text_of(turned)
        for p in range(1, page + 1):
            self.used["page"] += 1
            turned = await answer(await fake.click(user, chooser, f"{base}:o{focus}p{p}"))
            assert turned.type == 7, text_of(turned)
        # every option names the letter, the thing and its place as the picture shows it
        assert not coordinates_in(chooser), option_texts(chooser)
        if action["type"].startswith("discard"):
            self.used["remove"] += 1
            reply = await answer(await fake.click(user, chooser, f"{base}:a{index}"))
        else:
            assert await has_picture(fake, chooser, "choices.png")
            reply = await answer(await fake.select(user, chooser, f"{base}:s{focus}p{page}",
                                                   [str(index)]))
        self.clicks += 1
        assert reply.type == 7, text_of(reply)
        assert not COORDINATES.search(text_of(reply)), text_of(reply)
        self.choosers[player] = chooser
        return reply


async def open_lobby(fake: FakeDiscord, host: dict[str, Any], options: dict[str, Any],
                     joiners: list[dict[str, Any]], computers: int) -> FakeMessage:
    lobby = (await answer(await fake.slash(host, fake.channel_id, "cities", ["new"],
                                           options))).message
    assert lobby is not None and "waiting for players" in lobby.embeds[0]["title"]
    for user in joiners:
        await answer(await fake.click(user, lobby, _button(lobby, "Join")))
    for _ in range(computers):
        await answer(await fake.click(host, lobby, _button(lobby, "Add computer")))
    started = await answer(await fake.click(host, lobby, _button(lobby, "Start")))
    assert started.type == 7, text_of(started)
    return lobby


def _button(message: FakeMessage, label: str) -> str:
    return next(str(c["custom_id"]) for c in message.iter_components() if c.get("label") == label)


async def finish(bot: CityhallBot, players: Players, match_id: int, *,
                 until_round: int | None = None,
                 draw_table: Draw | None = None) -> None:
    """Play the humans' moves until the game ends (or the given round starts)."""
    fake = players.fake
    last_round = -1
    while (match := bot.runtime.get(match_id)) is not None:
        assert match.state is not None
        if until_round is not None and match.state["round"] >= until_round:
            return
        if match.state["round"] != last_round and match.state["phase"] == "play":
            last_round = match.state["round"]
            assert_hidden(fake, face_down_words(match.state))
            if draw_table is not None:
                png = draw_table(bot.adapters["cities"].named_view(
                    match, ENGINE.view(match.state, None)))
                with Image.open(io.BytesIO(png)) as picture:
                    assert picture.format == "PNG" and picture.width >= 800
        await players.move(bot, match_id)
        await settle(bot, match_id)


async def check_final(fake: FakeDiscord, bot: CityhallBot, match_id: int) -> JSON:
    final = await bot.storage.get(match_id)
    assert final is not None and final.status == "over" and final.state is not None
    notices = [m for m in fake.channel_messages(fake.channel_id, ephemeral=False)
               if "final scoring" in m.content]
    assert len(notices) == 1
    assert notices[0].attachments, "the final breakdown has a picture"
    with notices[0].attachments[0].image() as picture:
        assert picture.format == "PNG"
    for player in final.state["players"]:
        assert f"— {ENGINE.result(final.state).scores[player]}**" in notices[0].content  # type: ignore[union-attr]
    table = fake.message(final.table_message_id)  # type: ignore[arg-type]
    assert "final" in table.content and "🏆" in table.content
    assert harness.finished_buttons(table) == ["replay", "rematch"]
    # face-down items removed unseen never appear
    unseen = [CONTENT.cards[i].name if i in CONTENT.cards else i
              for i in final.state["removed"]["face_down"] if not i.startswith("F")]
    assert_hidden(fake, unseen)
    return final.state


# Whole games: Discord's limits with shorter windows (tests/harness.py).
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
@pytest.mark.one_database("a whole game restarted on PostgreSQL: Big City's two-player game "
                          "and Big Cityz's six-player game (test_discord_big*.py)")
async def test_a_two_player_game_with_a_restart_and_bad_clicks(
        fake_discord: FakeDiscord, tmp_path: Path, quick_table: Callable[[], Draw], ann: Member,
        bob: Member, eve: Member) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    channel = fake.channel_id
    users = by_id(ann, bob)
    players = Players(fake, users)

    async with cityhall_bot(fake, db) as bot:
        rules = await answer(await fake.slash(ann, channel, "cities", ["rules"]))
        assert rules.ephemeral and "Cityhall's own design" in json.dumps(rules.data["embeds"])
        lobby = await open_lobby(fake, ann, {"city": "New York City"}, [bob], 0)
        match = bot.runtime.in_channel(int(channel))
        assert match is not None and match.state is not None
        match_id = match.id
        table = lobby
        assert "setup" in table.content and "starting tile" in table.content
        assert await has_picture(fake, table, "table.png")  # follows the words when slow
        with table.attachment("table.png").image() as picture:
            assert picture.format == "PNG"

        # starting tiles, in reverse turn order; the one not due is told so, a stranger too
        due = ENGINE.to_act(match.state)[0]
        other = bob if users[due] is ann else ann
        first_button = next(i for i in ids(table) if ":a" in i)
        wrong = await answer(await fake.click(other, table, first_button))
        assert wrong.ephemeral and "choosing a starting tile" in text_of(wrong)
        nosy = await answer(await fake.click(eve, table, first_button))
        assert nosy.ephemeral and text_of(nosy) == str(NOT_SEATED)
        while match.state["phase"] == "start_tiles":
            reply = await players.move(bot, match_id)
            assert "You start with" in text_of(reply)
            await settle(bot, match_id)
        assert "round 1 of 4" in fake.message(match.table_message_id).content  # type: ignore[arg-type]

        # a stranger may not open a neighbourhood; a player sees their own privately
        table = fake.message(match.table_message_id)  # type: ignore[arg-type]
        hood_id = f"ch:ct:{match_id}:hood"
        nosy = await answer(await fake.click(eve, table, hood_id))
        assert nosy.ephemeral and text_of(nosy) == str(NOT_SEATED)
        mine = await answer(await fake.click(ann, table, hood_id))
        assert mine.ephemeral and "Your neighbourhood" in text_of(mine)
        assert mine.files and mine.files[0].filename == "neighbourhood.png"
        # everyone's neighbourhoods, privately, for a player and for someone watching
        for viewer in (bob, eve):
            hoods = await answer(await fake.click(viewer, table, f"ch:ct:{match_id}:hoods"))
            assert hoods.ephemeral and "Every neighbourhood" in text_of(hoods)
            assert "**Ann**" in text_of(hoods) and "**Bob**" in text_of(hoods)
            assert [f.filename for f in hoods.files] == ["neighbourhoods.png"]
            with hoods.message.attachments[0].image() as picture:
                assert picture.format == "PNG" and picture.width == 1200

        # the player not on turn and a stranger are refused a take; nothing changes
        player = ENGINE.to_act(match.state)[0]
        other = bob if users[player] is ann else ann
        take = next(i for i in ids(table) if ":a" in i)
        before = json.dumps(match.state)
        wrong = await answer(await fake.click(other, table, take))
        assert wrong.ephemeral and "turn, not yours" in text_of(wrong)
        nosy = await answer(await fake.click(eve, table, take))
        assert nosy.ephemeral and text_of(nosy) == str(NOT_SEATED)
        assert json.dumps(match.state) == before

        # play until someone has taken something to place; they open a second chooser
        # from the table and leave it: after the next move it belongs to an earlier board
        select = None
        for _ in range(40):
            while match.state["pending"] is None:
                await players.move(bot, match_id)
                await settle(bot, match_id)
            player = match.state["pending"]["player"]
            table = fake.message(match.table_message_id)  # type: ignore[arg-type]
            extra = await answer(await fake.click(users[player], table,
                                                  f"ch:ct:{match_id}:v{match.version}:o0p0"))
            assert extra.ephemeral
            assert extra.files[0].filename in ("choices.png", "neighbourhood.png")
            stale_chooser, stale_user = extra.message, users[player]
            # some items have nowhere to go but "Remove it": look for a chooser with a menu
            select = next((c for c in stale_chooser.iter_components() if c.get("type") == 3),
                          None)
            if select is not None:
                break
            await players.move(bot, match_id)
            await settle(bot, match_id)
        assert select is not None, "no placement chooser with a menu came up"
        await players.move(bot, match_id)  # the board moves on past the open chooser
        await settle(bot, match_id)
        await finish(bot, players, match_id, until_round=2)
        before = json.dumps(bot.runtime.get(match_id).state)  # type: ignore[union-attr]
        stale = await answer(await fake.select(stale_user, stale_chooser, select["custom_id"],
                                               [select["options"][0]["value"]]))
        assert stale.ephemeral and "earlier board" in text_of(stale)
        assert stale.files and stale.files[0].filename == "table.png"
        assert json.dumps(bot.runtime.get(match_id).state) == before  # type: ignore[union-attr]

        # malformed custom ids get a sentence, never "This interaction failed"
        for bad in ("ch:ct:abc:v1:a0", "ch:ct:99999:hood", "ch:ct:1:v1:zz"):
            reply = await answer(await fake.click_raw(ann, channel, bad))
            assert reply.ephemeral and text_of(reply), bad
        assert text_of(await answer(await fake.click_raw(ann, channel, "ch:ct:1:v1:zz"))) \
            == UNKNOWN_BUTTON

        # stop in the middle of a turn: something taken, not yet placed
        while True:
            match = bot.runtime.get(match_id)
            assert match is not None and match.state is not None
            if match.state["pending"] is not None:
                break
            await players.move(bot, match_id)
            await settle(bot, match_id)
        version_before_restart = match.version
        old_chooser = players.choosers[match.state["pending"]["player"]]

    # -- the bot restarts: a new client, the same database file ----------------------------
    async with cityhall_bot(fake, db) as bot:
        match = bot.runtime.get(match_id)
        assert match is not None and match.version == version_before_restart
        await settle(bot, match_id)
        # the chooser sent before the restart still works: it is self-describing
        players.choosers = {match.state["pending"]["player"]: old_chooser}  # type: ignore[index]
        reply = await players.move(bot, match_id)
        assert reply.type == 7
        await settle(bot, match_id)
        players.choosers = {}
        await finish(bot, players, match_id, draw_table=quick_table())
        state = await check_final(fake, bot, match_id)
        assert state["city"] == "New York City" and state["rounds"] == 4

        stats = await answer(await fake.slash(bob, channel, "stats", [], {}))
        board = json.dumps(stats.data["embeds"])
        assert "Ann" in board and "Bob" in board
        again = await answer(await fake.slash(bob, channel, "cities", ["new"]))
        assert not again.ephemeral


async def ann_against_computers(fake: FakeDiscord, tmp_path: Path, draw: Draw,
                                options: dict[str, Any], computers: int, until_round: int, *,
                                browse: bool = False) -> tuple[JSON, Players, str]:
    """Ann opens a Cities table with ``computers`` computer players and plays to
    ``until_round``; the bot restarts (a new client, the same database) and she plays to the
    end. The final state (checked by ``check_final``), Ann's player, and what the table said
    when the game started."""
    ann = await fake.add_member("Ann")
    players = Players(fake, {str(ann["id"]): ann})
    players.browse = browse
    db = tmp_path / "db.sqlite3"
    async with cityhall_bot(fake, db) as bot:
        lobby = await open_lobby(fake, ann, options, [], computers)
        started = lobby.content
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None
        await settle(bot, match.id)
        await finish(bot, players, match.id, until_round=until_round, draw_table=draw)
    async with cityhall_bot(fake, db) as bot:  # restart: new client, same database
        await settle(bot, match.id)
        await finish(bot, players, match.id, draw_table=draw)
        return await check_final(fake, bot, match.id), players, started


# Computer players' moves are saved by the same runtime path as a person's, which the
# two-player game with a restart and bad clicks runs on both databases: SQLite only.
COMPUTERS_ONLY = "computers' moves take the storage path the two-player game runs on both"


# Whole games: Discord's limits with shorter windows (tests/harness.py).
@pytest.mark.one_database(COMPUTERS_ONLY)
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_three_players_with_computers(fake_discord: FakeDiscord, tmp_path: Path,
                                           quick_table: Callable[[], Draw]) -> None:
    fake = fake_discord
    state, _, _ = await ann_against_computers(fake, tmp_path, quick_table(),
                                              {"city": "Rio de Janeiro"}, 2, until_round=4)
    assert state["rounds"] == 8 and len(state["players"]) == 3
    rounds = [m for m in fake.channel_messages(fake.channel_id, ephemeral=False)
              if "is over.** " in m.content]
    assert len(rounds) == 7
    assert any("Removed from the game" in m.content for m in rounds)


# Whole games: Discord's limits with shorter windows (tests/harness.py).
@pytest.mark.one_database(COMPUTERS_ONLY)
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_four_players_with_computers(fake_discord: FakeDiscord, tmp_path: Path,
                                          quick_table: Callable[[], Draw]) -> None:
    state, _, _ = await ann_against_computers(fake_discord, tmp_path, quick_table(), {}, 3,
                                              until_round=5)
    assert len(state["players"]) == 4 and state["round"] == 8


# Whole games: Discord's limits with shorter windows (tests/harness.py).
@pytest.mark.one_database("the same flow as the short game, which runs on both databases")
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_the_long_two_player_variant(fake_discord: FakeDiscord, tmp_path: Path,
                                          quick_table: Callable[[], Draw]) -> None:
    state, players, started = await ann_against_computers(
        fake_discord, tmp_path, quick_table(), {"city": "Venice", "long_variant": True}, 1,
        until_round=4, browse=True)
    assert "3×5" in started
    assert state["variant"] == "3x5" and state["rounds"] == 7
    assert players.used["browsed"] == 1  # a tile had more than 25 spots and rotations


async def test_the_variant_needs_two_players_and_the_timer(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", turn_seconds=0.3) as bot:
        lobby = (await answer(await fake.slash(ann, fake.channel_id, "cities", ["new"],
                                               {"long_variant": True}))).message
        for _ in range(2):
            await answer(await fake.click(ann, lobby, _button(lobby, "Add computer")))
        refused = await answer(await fake.click(ann, lobby, _button(lobby, "Start")))
        assert refused.ephemeral and "for two players" in text_of(refused)
        await answer(await fake.click(ann, lobby, _button(lobby, "Remove computer")))
        await answer(await fake.click(ann, lobby, _button(lobby, "Start")))
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None

        def told() -> FakeMessage | None:
            return next((m for m in fake.channel_messages(fake.channel_id, ephemeral=False)
                         if "ran out of time" in m.content), None)

        notice = await fake.wait_until(told, 5)
        assert "Ann ran out of time, so the computer player finished their turn" in notice.content
        await bot.runtime.end(match.id, str(ann["id"]), can_manage=True)
