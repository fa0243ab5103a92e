"""Computer players' levels through Discord: the host picks each one's level in the lobby
(and only the host, and only there), the choice survives a restart, the table names the
level, and a hard computer's thinking never keeps a person's click waiting."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from bot.app import CityhallBot
from bot.core.engine import JSON
from bot.core.levels import Budget
from bot.games.cityscape import ENGINE, GAME
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage
from tests.harness import WHOLE_GAME_WINDOWS, Member, button_id, cityhall_bot, settle
from tests.test_discord_cityscape import answer, build, set_goals, text_of

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")


def quick_bot(fake: FakeDiscord, db: Path) -> AbstractAsyncContextManager[CityhallBot]:
    """The bot, its hard players trying few play-outs (CPU_HARD_ITERATIONS=8)."""
    return cityhall_bot(fake, db, cpu_hard_iterations=8)


class Gate:
    """Holds the bot's hard players before they think, until the test lets them."""

    def __init__(self, bot: CityhallBot) -> None:
        self.open = asyncio.Event()
        self.thinking = asyncio.Event()
        self.calls = 0
        self._think = bot.runtime.thinker
        bot.runtime.thinker = self.think

    async def think(self, game: str, state: JSON, player: str, level: str,
                    budget: Budget) -> JSON:
        self.calls += 1
        self.thinking.set()
        await self.open.wait()
        return await self._think(game, state, player, level, budget)


def level_menu(message: FakeMessage) -> dict[str, Any] | None:
    return next((c for c in message.iter_components()
                 if str(c.get("custom_id", "")).endswith(":level")), None)


def seated(lobby: FakeMessage) -> str:
    return str(lobby.embeds[0]["description"])


async def test_the_host_sets_each_computer_players_level_in_the_lobby(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    channel = fake.channel_id

    async with quick_bot(fake, db) as bot:
        lobby = (await answer(await fake.slash(ann, channel, "cityscape", ["new"],
                                               {"rounds": 1}))).message
        await answer(await fake.click(bob, lobby, button_id(lobby, "Join")))
        assert level_menu(lobby) is None  # no computer, no menu
        await answer(await fake.click(ann, lobby, button_id(lobby, "Add computer")))
        assert "🤖 Ada (computer) · normal" in seated(lobby)  # normal unless chosen
        menu = level_menu(lobby)
        assert menu is not None
        assert [o["value"] for o in menu["options"]] == ["cpu1:easy", "cpu1:normal", "cpu1:hard"]
        assert menu["options"][1]["description"].startswith("Its level now")

        refused = await answer(await fake.select(bob, lobby, menu["custom_id"], ["cpu1:hard"]))
        assert refused.ephemeral
        assert text_of(refused) == "Only the host can set the computer players' levels."
        # A level for a person is not among the menu's choices; a forged pick is refused.
        forged = await answer(await fake.click_raw(ann, channel, menu["custom_id"], lobby,
                                                   component_type=3,
                                                   values=[f"{bob['id']}:hard"]))
        assert forged.ephemeral and text_of(forged) == "Pick one of the choices in the menu."
        assert "Ada (computer) · normal" in seated(lobby)

        picked = await answer(await fake.select(ann, lobby, menu["custom_id"], ["cpu1:hard"]))
        assert picked.type == 7 and "🤖 Ada (computer) · hard" in seated(lobby)
        await answer(await fake.click(ann, lobby, button_id(lobby, "Add computer")))
        assert "Babbage (computer) · normal" in seated(lobby)

    async with quick_bot(fake, db) as bot:  # restarted: the menu and the levels still work
        menu = level_menu(lobby)
        assert menu is not None and len(menu["options"]) == 6
        await answer(await fake.select(ann, lobby, menu["custom_id"], ["cpu2:easy"]))
        assert "Ada (computer) · hard" in seated(lobby)
        assert "Babbage (computer) · easy" in seated(lobby)

        gate = Gate(bot)  # the table is read before the hard player sets its goals
        started = await answer(await fake.click(ann, lobby, button_id(lobby, "Start")))
        assert started.type == 7
        # The table names each computer with its level (the lobby message became it).
        assert "Ada (hard)" in lobby.content
        assert "Babbage (easy)" in lobby.content
        assert level_menu(lobby) is None
        late = await answer(await fake.click_raw(ann, channel, str(menu["custom_id"]), lobby,
                                                 component_type=3, values=["cpu1:easy"]))
        assert late.ephemeral and "Nothing was changed" in text_of(late)
        match = bot.runtime.in_channel(int(channel))
        assert match is not None
        assert [s.level for s in match.seats] == ["normal", "normal", "hard", "easy"]
        gate.open.set()


@pytest.mark.fakediscord(rate_limit_scale=WHOLE_GAME_WINDOWS)
async def test_a_hard_computer_thinks_while_a_person_plays_and_the_game_ends(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member) -> None:
    fake = fake_discord
    channel = fake.channel_id

    async with quick_bot(fake, tmp_path / "cityhall.sqlite3") as bot:
        lobby = (await answer(await fake.slash(ann, channel, "cityscape", ["new"],
                                               {"rounds": 1}))).message
        await answer(await fake.click(ann, lobby, button_id(lobby, "Add computer")))
        menu = level_menu(lobby)
        assert menu is not None
        await answer(await fake.select(ann, lobby, menu["custom_id"], ["cpu1:hard"]))
        gate = Gate(bot)
        await answer(await fake.click(ann, lobby, button_id(lobby, "Start")))
        match = bot.runtime.in_channel(int(channel))
        assert match is not None
        match_id = match.id
        await gate.thinking.wait()
        assert bot.runtime.budget == Budget(iterations=8, seconds=0.9)
        assert "Waiting for: " in lobby.content and "Ada (hard)" in lobby.content

        # Both set goals at once; the computer is still thinking when Ann saves hers.
        await set_goals(fake, ann, lobby, match_id, [("S", [3, 5, 6, 2]), ("W", [1, 4, 4, 1])])
        assert not gate.open.is_set()
        live = bot.runtime.get(match_id)
        assert live is not None and live.state is not None
        assert "S" in live.state["goals"] and "N" not in live.state["goals"]
        gate.open.set()
        await settle(bot, match_id)

        # Then the game goes on to its end, the computer moving by itself at hard.
        while (live := bot.runtime.get(match_id)) is not None:
            assert live.state is not None
            assert ENGINE.to_act(live.state) == [str(ann["id"])], "computers move by themselves"
            action = GAME.computer.normal(live.state, str(ann["id"]))
            _, done = await build(fake, bot, ann, match_id, action["height"], action["lot"])
            assert done.type == 7
            await settle(bot, match_id)
        final = await bot.runtime.fetch(match_id)
        assert final is not None and final.status == "over"
        assert gate.calls >= 13  # its goals, and every block it built, thought hard


async def test_big_cityz_knowledge_is_not_called_a_level(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member) -> None:
    # Big Cityz's own option (how many city facts computers know) is "computer knowledge";
    # "level" is the seat's strategy, set in the lobby's menu.
    fake = fake_discord
    async with quick_bot(fake, tmp_path / "cityhall.sqlite3"):
        lobby = (await answer(await fake.slash(ann, fake.channel_id, "bigcityz", ["new"],
                                               {"computer_knowledge": "easy"}))).message
        await answer(await fake.click(ann, lobby, button_id(lobby, "Add computer")))
        options = str(lobby.embeds[0]["fields"])
        assert "computer knowledge: less (about half the facts)" in options
        assert "level" not in options
        assert "🤖 Ada (computer) · normal" in seated(lobby)
        # The menu says what hard means here: it knows more cities, as well as thinking.
        menu = level_menu(lobby)
        assert menu is not None
        words = {o["value"]: o["description"] for o in menu["options"]}
        assert words["cpu1:hard"] == "Knows more cities than normal and thinks ahead"
        assert words["cpu1:easy"] == "Makes slips a person might make"
