"""Every game's table carries How to play: one click shows the game's short rules to
whoever clicked (a player or someone watching), and the table stays as it is; a finished or
unknown game gets a sentence instead (bot/ui/howto.py). The button finds room on the table in
every state of every game, without pushing out any of the game's own buttons."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.core.engine import IllegalAction
from bot.core.records import ACTIVE, OVER, Match, Seat
from bot.games import GAMES
from bot.tools.fakebot import button_id
from bot.ui.components import Components
from bot.ui.game import GameAdapter
from bot.ui.howto import HowToPlay, free_row, with_how_to_play
from cogs.bigcity.adapter import BigCityAdapter
from cogs.bigcityz.adapter import BigCityzAdapter
from cogs.cities.adapter import CitiesAdapter
from cogs.cityscape.adapter import CityscapeAdapter
from fakediscord import FakeDiscord
from tests.harness import answer, cityhall_bot, settle, started_table

ADAPTERS: dict[str, type[GameAdapter[Any]]] = {
    "cityscape": CityscapeAdapter, "bigcity": BigCityAdapter, "bigcityz": BigCityzAdapter,
    "cities": CitiesAdapter}
ANN, BOB = "111111111111111111", "222222222222222222"


def buttons(count: int, row: int | None = None) -> list[discord.ui.Item[Any]]:
    return [discord.ui.Button(label=str(n), row=row) for n in range(count)]


def test_the_button_goes_beside_the_bottom_rows_buttons_else_on_a_row_of_its_own() -> None:
    assert free_row([]) == 0
    assert free_row([*buttons(5, row=0), *buttons(1, row=1)]) == 1  # Cityscape's heights, goals
    assert free_row(buttons(9)) == 1  # laid out by discord.py: five, then four
    assert free_row([*buttons(2, row=0), *buttons(5, row=1)]) == 2  # the bottom row is full
    menu: discord.ui.Select[Any] = discord.ui.Select(
        row=4, options=[discord.SelectOption(label="a")])
    assert free_row([*buttons(5, row=0), menu]) == 1  # a menu fills its row
    four_full = [b for r in range(4) for b in buttons(5, row=r)]
    assert free_row([*four_full, *buttons(4, row=4)]) == 4
    assert free_row([b for r in range(5) for b in buttons(5, row=r)]) is None  # no room: none


def game_states(game: str, options: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every state of a seeded two-player game until it is over. Moves are random legal
    ones (every kind comes up, cheaply), the computer's where a legal move is only a
    template (Cityscape's goals) and in Big City, whose random games run to a thousand
    moves."""
    engine, computer = GAMES[game].engine, GAMES[game].computer
    rng = random.Random(3)
    state = engine.new([ANN, BOB], options, 3)
    while engine.result(state) is None:
        yield state
        due = engine.to_act(state)
        if not due:  # Big Cityz's objection window, which only the timer closes
            state, _ = engine.apply(state, None, {"type": "close_vetoes"})
            continue
        try:
            if game == "bigcity":
                raise IllegalAction(game)
            state, _ = engine.apply(state, due[0],
                                    rng.choice(engine.legal(state, due[0])).action)
        except IllegalAction:
            state, _ = engine.apply(state, due[0], computer.normal(state, due[0]))


def test_every_state_of_every_game_has_room_for_it() -> None:
    """Each game's table, in every state of a game, keeps all its own buttons and gets How
    to play on a row with room (Discord refuses a message otherwise)."""
    layouts: dict[tuple[tuple[int | None, int], ...], list[discord.ui.Item[Any]]] = {}
    for game, adapter_class in ADAPTERS.items():
        adapter = adapter_class(GAMES[game].engine)
        options = {"rounds": 1} if game == "cityscape" else {}
        for state in game_states(game, options):
            match = Match(id=42, guild_id=1, channel_id=2, game=game, status=ACTIVE,
                          host_id=ANN, seats=[Seat(ANN, "Ann"), Seat(BOB, "Bob")],
                          options=options, seed=3, state=state, turn_started_at=0.0)
            own = adapter.table_items(match)
            items = with_how_to_play(match, own)
            assert items[:-1] == own and isinstance(items[-1], HowToPlay), (game, state)
            layouts[tuple((item.row, item.width) for item in items)] = items
    assert len(layouts) >= 8  # the games' tables differ: each layout is laid out once
    for items in layouts.values():
        view = Components()
        for item in items:
            view.add_item(item)  # ValueError if a row overflows
    finished = Match(id=42, guild_id=1, channel_id=2, game="cityscape", status=OVER,
                     host_id=ANN, seats=[], options={}, seed=3)
    assert with_how_to_play(finished, []) == []  # a finished table has no buttons


class Asker:
    """A click on How to play as the handler sees it: what it was answered."""

    def __init__(self, bot: Any) -> None:
        self.said: list[dict[str, Any]] = []
        self.client = bot
        self.response = SimpleNamespace(is_done=lambda: False, send_message=self.send)

    async def send(self, content: str | None = None, **kwargs: Any) -> None:
        self.said.append({"content": content, **kwargs})


@pytest.mark.parametrize(("kept", "expected"), [
    (None, "I don't know that game any more; /help lists Cityhall's games."),
    (OVER, "This game is over. /cityscape rules shows how it is played."),
])
async def test_a_finished_or_unknown_game_gets_a_sentence(kept: str | None,
                                                          expected: str) -> None:
    match = Match(id=42, guild_id=1, channel_id=2, game="cityscape", status=kept or OVER,
                  host_id=ANN, seats=[], options={}, seed=3)

    async def stored(match_id: int) -> Match | None:
        return match if kept is not None and match_id == 42 else None

    bot = SimpleNamespace(runtime=SimpleNamespace(get=lambda match_id: None),
                          storage=SimpleNamespace(get=stored),
                          adapters={"cityscape": CityscapeAdapter(GAMES["cityscape"].engine)})
    asker = Asker(bot)
    await HowToPlay(42)._handle(asker)  # type: ignore[arg-type]  # the parts it reads
    [said] = asker.said
    assert said["content"] == expected and said["ephemeral"] is True


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_anyone_at_the_table_sees_the_rules_only_they_and_after_a_restart(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    eve = await fake.add_member("Eve")  # watches
    db = tmp_path / "db.sqlite3"
    async with cityhall_bot(fake, db) as bot:
        match, lobby = await started_table(fake, bot, "cityscape", ann, joiners=(bob,),
                                           options={"rounds": 1})
        await settle(bot, match.id)
        table = fake.message(lobby.id)
        rules = GAMES["cityscape"]
        howto = button_id(table, "How to play")
        assert howto == f"ch:howto:{match.id}"
        before = (table.content, table.components)
        shown = await answer(await fake.click(eve, table, howto))
        assert shown.ephemeral
        [embed] = shown.message.embeds
        assert embed["title"] == f"How to play {rules.engine.title}"
        assert embed["description"] == str(bot.adapters["cityscape"].rules_summary)
        assert (table.content, table.components) == before  # the table is as it was
    async with cityhall_bot(fake, db) as bot:  # a restart: the same button still answers
        shown = await answer(await fake.click(ann, fake.message(table.id), howto))
        assert shown.ephemeral and shown.message.embeds[0]["title"] == embed["title"]
