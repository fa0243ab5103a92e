"""Whole Big City games through Discord: slash commands and clicks only, against the fake
Discord server, with a restart in the middle, strangers' and stale clicks, paged menus, a
trade, and hands that never reach a public message.

The humans' moves are the computer player's choices (``ENGINE.ai_action``), made by
clicking through the table's buttons, the private choosers, their lettered menus (paging
to the right page) and the confirm buttons, exactly as a person would.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.app import CityhallBot
from bot.core.engine import JSON
from bot.games.bigcity import ENGINE, GAME
from bot.games.bigcity.content import SPECIAL_CARDS
from bot.ui.paged import PAGE_SIZE
from bot.ui.play import NOT_SEATED
from cogs.bigcity import neighborhood_groups, of_kind
from cogs.matches import UNKNOWN_BUTTON
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage
from tests import harness
from tests.harness import Member, answer, cityhall_bot, has_picture, ids, settle, text_of
from tests.labels import coordinates_in, option_texts
from tests.languages import unpseudo
from tests.test_discord_cityscape import public_texts

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")


def has(message: FakeMessage, custom_id: str) -> bool:
    return custom_id in ids(message)


def select_values(message: FakeMessage, custom_id: str) -> list[str]:
    comp = next(c for c in message.iter_components() if c.get("custom_id") == custom_id)
    return [o["value"] for o in comp.get("options", [])]


def shown_lines(fake: FakeDiscord) -> set[str]:
    """Every line a public message showed at some point: one move's news (a building, a
    trade, a timeout) is a line of the table's text, kept there for a few moves."""
    lines: set[str] = set()
    for message in fake.channel_messages(fake.channel_id, ephemeral=False):
        for text in [message.content, *(str(h.get("content") or "") for h in message.history)]:
            lines.update(text.splitlines())
    return lines


class Player:
    """Clicks through the Big City UI for the seated humans."""

    def __init__(self, fake: FakeDiscord, bot: CityhallBot, match_id: int,
                 users: dict[str, dict]) -> None:
        self.fake, self.bot, self.match_id, self.users = fake, bot, match_id, users
        self.pages_turned = 0  # how often a menu was paged past its first page
        self.via_hand = 0
        self.builds = 0
        self.kinds: set[str] = set()
        self.private: FakeMessage | None = None  # the last private reply to a move
        self.most_choices = 0  # the most menus a neighbourhood placement took

    @property
    def match(self) -> Any:
        match = self.bot.runtime.get(self.match_id)
        assert match is not None
        return match

    def table(self) -> FakeMessage:
        return self.fake.message(self.match.table_message_id)

    async def click(self, user: dict, message: FakeMessage, custom_id: str) -> Any:
        reply = await answer(await self.fake.click(user, message, custom_id))
        assert reply.type in (4, 7), (custom_id, reply.type)
        if reply.type == 4:
            assert reply.message is not None and reply.message.ephemeral, text_of(reply)
        return reply

    async def click_raw_on(self, user: dict, message: FakeMessage, custom_id: str) -> None:
        """A button that an older version of the message carried, pressed on it."""
        reply = await answer(await self.fake.click_raw(user, self.fake.channel_id, custom_id,
                                                       message))
        assert reply.type == 7, text_of(reply)

    async def open(self, user: dict, custom_id: str) -> FakeMessage:
        """Press a button on the table; the chooser opens privately."""
        reply = await self.click(user, self.table(), custom_id)
        assert reply.type == 4 and reply.message.ephemeral, text_of(reply)
        return reply.message

    async def pick(self, user: dict, message: FakeMessage, base: str, code: str, arg: str,
                   position: int, index: int) -> None:
        """Page a lettered menu to the choice's page and pick it (the message updates)."""
        page = position // PAGE_SIZE
        for p in range(1, page + 1):
            await self.click(user, message, f"{base}:c{code}{arg}:p{p}")
            self.pages_turned += 1
        select = f"{base}:l{code}{arg}:p{page}"
        assert str(index) in select_values(message, select)
        reply = await answer(await self.fake.select(user, message, select, [str(index)]))
        assert reply.type == 7, text_of(reply)

    async def place_neighborhood(self, user: dict, message: FakeMessage, base: str,
                                 index: int) -> None:
        """At most two menus: the neighbourhood and side (when there is a choice), then its
        lettered place there; none of them names a grid coordinate."""
        choices = 0
        group = next((c for c in message.iter_components()
                      if str(c.get("custom_id", "")).startswith(f"{base}:gn:")), None)
        if group is not None:
            assert len(group["options"]) <= PAGE_SIZE and not coordinates_in(message)
            for option in group["options"]:
                assert unpseudo(option["label"]).startswith("Neighborhood "), option
                assert unpseudo(option["label"]).endswith(("the city", "part")), option
            # the group holding the move (the bot groups the same way at this version)
            state = self.match.state
            legal = ENGINE.legal(state, ENGINE.to_act(state)[0])
            code = next(g.code for g in neighborhood_groups(state, of_kind(legal, "n"))
                        if index in [i for i, _la in g.options])
            picked = await answer(await self.fake.select(user, message, group["custom_id"],
                                                         [str(code)]))
            assert picked.type == 7, text_of(picked)
            choices += 1
        menu = next(c for c in message.iter_components()
                    if str(c.get("custom_id", "")).startswith(f"{base}:ln"))
        assert len(menu["options"]) <= PAGE_SIZE
        assert not [c for c in message.iter_components()
                    if unpseudo(c.get("label") or "") == "Next ▶"]
        assert not coordinates_in(message), option_texts(message)
        assert await has_picture(self.fake, message, "choices.png")
        reply = await answer(await self.fake.select(user, message, menu["custom_id"],
                                                    [str(index)]))
        assert reply.type == 7, text_of(reply)
        choices += 1
        said = unpseudo(message.content)
        assert "**neighborhood " in said and "next to" in said
        self.most_choices = max(self.most_choices, choices)

    async def confirm(self, user: dict, message: FakeMessage, custom_id: str) -> Any:
        reply = await self.click(user, message, custom_id)
        self.private = message
        return reply

    async def abandon(self, player: str) -> tuple[dict, FakeMessage, str]:
        """Open the Pass chooser and leave it unanswered (its Confirm goes stale later)."""
        match = self.match
        base = f"ch:bc:{self.match_id}:v{match.version}"
        message = await self.open(self.users[player], f"{base}:cp")
        custom_id = next(i for i in ids(message) if i.startswith(f"{base}:a"))
        return self.users[player], message, custom_id

    async def act(self, player: str, action: JSON, *, via_hand: bool = False) -> Any:
        """Make ``action`` for ``player`` through the UI, and check it was the one made."""
        match = self.match
        state = match.state
        legal = ENGINE.legal(state, player)
        index = next(i for i, la in enumerate(legal) if la.action == action)
        user = self.users[player]
        kind = action["type"]
        self.kinds.add(kind)
        base = f"ch:bc:{self.match_id}:v{match.version}"
        version = match.version
        if kind == "draw":
            # the private reply to the move offers the draw too; else the table does
            custom_id = f"{base}:a{index}"
            private = self.private
            if private is None or not has(private, custom_id):
                private = None
            reply = await self.click(user, self.table() if private is None else private,
                                     custom_id)
            assert reply.type == (4 if private is None else 7) and \
                "You drew" in unpseudo(text_of(reply))
            self.private = reply.message
            return reply
        if kind in ("build", "special", "place_neighborhood", "streetcar"):
            code = {"build": "b", "special": "k", "place_neighborhood": "n",
                    "streetcar": "s"}[kind]
            if via_hand:
                hand = await self.click(user, self.table(), f"ch:bc:{self.match_id}:hand")
                message = hand.message
                assert message.ephemeral and "Your hand" in unpseudo(message.content)
                assert await has_picture(self.fake, message, "choices.png")
                self.via_hand += 1
            else:
                message = await self.open(user, f"{base}:c{code}")
            options = [i for i, la in enumerate(legal) if la.action["type"] == kind]
            arg = ""
            if kind == "place_neighborhood":
                await self.place_neighborhood(user, message, base, index)
                reply = await self.confirm(user, message, f"{base}:a{index}")
                assert reply.type == 7, text_of(reply)
                after = self.bot.runtime.get(self.match_id) or await self.bot.storage.get(
                    self.match_id)
                assert after is not None and after.version == version + 1, text_of(reply)
                return reply
            if kind == "streetcar":
                singles = [i for i in options if len(legal[i].action["segments"]) == 1]
                if len(action["segments"]) == 1:
                    first = index
                else:
                    first = next(i for i in singles
                                 if legal[i].action["segments"][0] in action["segments"])
                await self.pick(user, message, base, "s", "", singles.index(first), first)
                if has(message, f"{base}:ls{first}:p0"):  # the second-streetcar menu
                    pairs = [first] + [i for i in options
                                       if len(legal[i].action["segments"]) == 2
                                       and legal[first].action["segments"][0]
                                       in legal[i].action["segments"]]
                    await self.pick(user, message, base, "s", str(first), pairs.index(index),
                                    index)
            else:
                await self.pick(user, message, base, code, arg, options.index(index), index)
            assert await has_picture(self.fake, message, "choices.png")
            reply = await self.confirm(user, message, f"{base}:a{index}")
        elif kind in ("exchange", "discard_useless", "trade"):
            code = {"exchange": "x", "discard_useless": "d", "trade": "t"}[kind]
            if state["step"] == "trade_accept":
                message = await self.open(user, f"{base}:cw")
                await self.click(user, message, f"{base}:cx")
            else:
                message = await self.open(user, f"{base}:c{code}")
            values = [str(c) for c in action["cards"]]
            reply = await answer(await self.fake.select(user, message, f"{base}:m{code}", values))
            assert reply.type == 7, text_of(reply)
            reply = await self.confirm(user, message, f"{base}:a{index}")
        elif kind == "pass":
            message = await self.open(user, f"{base}:cp")
            reply = await self.confirm(user, message, f"{base}:a{index}")
        elif kind in ("trade_offer", "trade_decline"):
            tbase = f"ch:bc:{self.match_id}:t{state['turn_number']}"
            message = await self.open(user, f"{tbase}:cr")
            if kind == "trade_decline":
                reply = await self.click(user, message, f"{tbase}:a{index}")
            else:
                values = [str(c) for c in action["cards"]]
                picked = await answer(await self.fake.select(user, message, f"{tbase}:mr",
                                                             values))
                assert picked.type == 7, text_of(picked)
                reply = await self.click(user, message, f"{tbase}:a{index}")
        else:  # trade_accept, trade_end
            message = await self.open(user, f"{base}:cw")
            reply = await self.confirm(user, message, f"{base}:a{index}")
        assert reply.type == 7, text_of(reply)
        after = self.bot.runtime.get(self.match_id) or await self.bot.storage.get(self.match_id)
        assert after is not None and after.version == version + 1, text_of(reply)
        return reply

    async def play_until(self, done: Any, *, hand_every: int = 3) -> int:
        """Humans play the computer player's moves until ``done()`` or the game ends; every
        third build is made from **My hand** rather than the Build button."""
        moves = 0
        while True:
            await settle(self.bot, self.match_id)
            match = self.bot.runtime.get(self.match_id)
            if match is None or done():
                break
            assert match.state is not None
            due = [p for p in ENGINE.to_act(match.state) if p in self.users]
            assert due, "computers move by themselves"
            player = due[0]
            action = GAME.computer.normal(match.state, player)
            moves += 1
            if action["type"] == "build":
                self.builds += 1
            await self.act(player, action, via_hand=action["type"] == "build"
                           and self.builds % hand_every == 1)
        await settle(self.bot, self.match_id)
        return moves


async def start_game(fake: FakeDiscord, bot: CityhallBot, host: dict, others: list[dict],
                     computers: int, options: dict[str, bool], options_text: str,
                     seed: int) -> int:
    """/bigcity new, Join, Add computer, Start: all clicks. The seed is fixed so that the
    game (and so the test) is the same every run."""
    lobby = (await answer(await fake.slash(host, fake.channel_id, "bigcity", ["new"],
                                           options))).message
    assert lobby is not None and "Big City" in lobby.embeds[0]["title"]
    assert options_text in json.dumps(lobby.embeds[0]["fields"])
    for user in others:
        await answer(await fake.click(user, lobby, next(
            i for i in ids(lobby) if i.endswith(":join"))))
    for _ in range(computers):
        await answer(await fake.click(host, lobby, next(
            i for i in ids(lobby) if i.endswith(":cpu"))))
    match = bot.runtime.in_channel(int(fake.channel_id))
    assert match is not None
    match.seed = seed
    started = await answer(await fake.click(host, lobby, next(
        i for i in ids(lobby) if i.endswith(":start"))))
    assert started.type == 7
    return match.id


def check_private(fake: FakeDiscord) -> None:
    """No hand, drawn card or private chooser ever reached a public message."""
    public = public_texts(fake)
    for secret in ("Your hand", "You drew", "only you see this", "you could build",
                   "You can build now"):
        assert secret not in public, secret


# Whole games: Discord's limits with shorter windows (tests/harness.py).
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_two_players_basic_rules_with_a_restart(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    eve = await fake.add_member("Eve")  # watches, and clicks what isn't hers
    ann_id = str(ann["id"])

    async with cityhall_bot(fake, db) as bot:
        rules = await answer(await fake.slash(ann, fake.channel_id, "bigcity", ["rules"]))
        assert rules.ephemeral and "shopping center 30" in json.dumps(rules.data["embeds"])
        match_id = await start_game(fake, bot, ann, [], 1, {}, "Basic rules", seed=11)
        ui = Player(fake, bot, match_id, {ann_id: ann})
        await settle(bot, match_id)
        match = ui.match
        assert ENGINE.to_act(match.state) == [ann_id]
        table = ui.table()
        assert "setting up the city" in table.content and f"<@{ann_id}>" in table.content
        assert await has_picture(fake, table, "table.png")  # follows the words when slow
        with table.attachment("table.png").image() as picture:
            assert picture.format == "PNG"

        # a stranger's clicks are refused in a sentence
        base = f"ch:bc:{match_id}:v{match.version}"
        for custom_id in (f"ch:bc:{match_id}:hand", f"{base}:cn"):
            stranger = await answer(await fake.click(eve, table, custom_id))
            assert stranger.ephemeral and text_of(stranger) == str(NOT_SEATED)

        # the hand is private: the cards, with their neighborhoods
        hand = await answer(await fake.click(ann, table, f"ch:bc:{match_id}:hand"))
        assert hand.ephemeral and "Your hand" in text_of(hand)
        assert all(f"**{c}**" in text_of(hand)
                   for c in ENGINE.view(match.state, ann_id)["hand"] if isinstance(c, int))

        # a neighbourhood in two short menus: which one and where, then its lettered place;
        # Back returns to the places, and the pick is made again and confirmed
        legal = ENGINE.legal(match.state, ann_id)
        numbers = sorted({la.action["neighborhood"] for la in legal})
        number = max(numbers, key=lambda n: sum(la.action["neighborhood"] == n for la in legal))
        options = [i for i, la in enumerate(legal) if la.action["neighborhood"] == number]
        assert len(options) > PAGE_SIZE
        chooser = await ui.open(ann, f"{base}:cn")
        await ui.place_neighborhood(ann, chooser, base, options[-1])
        back = next(c["custom_id"] for c in chooser.iter_components() if c.get("label") == "Back")
        await ui.click(ann, chooser, back)
        assert not coordinates_in(chooser)
        await ui.click(ann, chooser, f"{base}:cn:p0")  # ◀ another side: the first menu again
        assert any(str(c.get("custom_id")).startswith(f"{base}:gn:") for c in
                   chooser.iter_components())
        assert ui.most_choices <= 2

        # a place that was on the second page of the old single menu: two menus, confirmed
        index = options[PAGE_SIZE + 1]
        await ui.place_neighborhood(ann, chooser, base, index)
        assert await has_picture(ui.fake, chooser, "choices.png")
        await ui.confirm(ann, chooser, f"{base}:a{index}")
        assert ui.most_choices <= 2
        placed = ui.match.state["neighborhoods"][-1]
        action = legal[index].action
        assert placed == {"number": number, "at": action["at"], "rotation": action["rotation"]}

        # play on (the computer player's choices, clicked) until a few buildings stand
        def anns_turn() -> bool:
            state = ui.match.state
            return len(state["buildings"]) >= 6 and state["step"] == "start"

        await ui.play_until(anns_turn)
        abandoned = await ui.abandon(ann_id)
        await ui.play_until(lambda: len(ui.match.state["buildings"]) >= 10)
        check_private(fake)
        # a click on an old private chooser is not applied; the current board is shown
        user, message, custom_id = abandoned
        before = json.dumps(ui.match.state)
        stale = await answer(await fake.click(user, message, custom_id))
        assert stale.ephemeral and "earlier board" in text_of(stale)
        assert stale.files and stale.files[0].filename == "table.png"
        assert json.dumps(ui.match.state) == before
        version = ui.match.version

    # -- the bot restarts: a new client, the same database file --------------------------
    async with cityhall_bot(fake, db) as bot:
        match = bot.runtime.get(match_id)
        assert match is not None and match.version == version
        ui.bot = bot
        await ui.play_until(lambda: False)
        final = await bot.storage.get(match_id)
        assert final is not None and final.status == "over"
        assert {"build", "draw", "place_neighborhood"} <= ui.kinds
        assert ui.via_hand > 0
        table = fake.message(final.table_message_id)  # type: ignore[arg-type]
        assert "final" in table.content and "🏆" in table.content
        assert harness.finished_buttons(table) == ["replay", "rematch"]
        public = fake.channel_messages(fake.channel_id, ephemeral=False)
        over = [m for m in public if "Big City is over" in m.content]
        assert len(over) == 1 and over[0].attachments[0].filename == "final.png"
        built = [line for line in shown_lines(fake) if line.startswith("🏗️ ")]
        assert any(b.startswith("🏗️ Ann built") and "points." in b for b in built)
        assert final.state is not None
        assert len(built) == sum(1 for b in final.state["buildings"]
                                 if b["building"] not in SPECIAL_CARDS)
        check_private(fake)
        # the old private chooser's buttons now say the game has finished
        late = await answer(await fake.click(user, message, custom_id))
        assert late.ephemeral and "finished" in text_of(late)
        # malformed or forged ids get a sentence, never "This interaction failed"
        for bad in (f"ch:bc:{match_id}:v1:a0", f"ch:bc:{match_id}:hand", "ch:bc:abc:v1:a0",
                    "ch:bc:1:v1:zz"):
            reply = await answer(await fake.click_raw(ann, fake.channel_id, bad))
            assert reply.ephemeral and text_of(reply), bad
        reply = await answer(await fake.click_raw(ann, fake.channel_id, "ch:bc:abc:v1:a0"))
        assert text_of(reply) == UNKNOWN_BUTTON


VARIANTS = {"trade_cards": True, "must_exchange_useless": True, "single_streetcar_line": True,
            "limited_streetcar_line": True, "limited_card_drawing": True}


# Whole games: Discord's limits with shorter windows (tests/harness.py). SQLite only: a
# restart on PostgreSQL is the two-player game's; the variants and the trade do not depend
# on the database.
@pytest.mark.one_database("the two-player game with a restart runs on both databases")
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_five_players_every_variant_a_trade_and_a_restart(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member, eve: Member) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    ann_id, bob_id = str(ann["id"]), str(bob["id"])
    users = {ann_id: ann, bob_id: bob}

    async with cityhall_bot(fake, db) as bot:
        match_id = await start_game(fake, bot, ann, [bob], 3, VARIANTS,
                                    "a single streetcar line", seed=5)
        ui = Player(fake, bot, match_id, users)

        def anns_turn() -> bool:
            state = ui.match.state
            return state["phase"] == "play" and state["step"] == "start" \
                and ENGINE.to_act(state) == [ann_id]

        await ui.play_until(anns_turn)
        match = ui.match
        state = match.state
        table = ui.table()
        assert "variants: trade cards" in table.content and f"<@{ann_id}>" in table.content
        base = f"ch:bc:{match_id}:v{match.version}"
        # with useless cards to be exchanged, the table offers no discard
        assert f"{base}:cd" not in ids(table) and f"{base}:ct" in ids(table)
        # Bob is seated but it is not his turn
        wrong = await answer(await fake.click(bob, table, f"{base}:cb"))
        assert wrong.ephemeral and text_of(wrong) == "It's Ann's turn, not yours."

        # -- a trade: Ann offers a card, Bob answers with one, the computers answer too ---
        card = ENGINE.view(state, ann_id)["hand"][0]
        await ui.act(ann_id, {"type": "trade", "cards": [card], "wants": []})
        await settle(bot, match_id)
        state = ui.match.state
        assert state["step"] == "trade_offers" and ENGINE.to_act(state) == [bob_id]
        table = ui.table()
        assert "wants to trade 1 card" in table.content and f"<@{bob_id}>" in table.content
        answer_id = f"ch:bc:{match_id}:t{state['turn_number']}:cr"
        for user, sentence in ((eve, str(NOT_SEATED)),
                               (ann, "The others are answering your trade; wait for their "
                                     "offers.")):
            refused = await answer(await fake.click(user, table, answer_id))
            assert refused.ephemeral and text_of(refused) == sentence
        bobs = ENGINE.view(state, bob_id)["hand"]
        offer = bobs[-1]
        await ui.act(bob_id, {"type": "trade_offer", "cards": [offer]})
        await settle(bot, match_id)
        state = ui.match.state
        assert state["step"] == "trade_accept" and ENGINE.to_act(state) == [ann_id]
        accept = next(la.action for la in ENGINE.legal(state, ann_id)
                      if la.action["type"] == "trade_accept" and la.action["partner"] == bob_id)
        await ui.act(ann_id, accept)
        await settle(bot, match_id)
        assert offer in ENGINE.view(ui.match.state, ann_id)["hand"]
        assert card in ENGINE.view(ui.match.state, bob_id)["hand"]
        traded = [line for line in shown_lines(fake) if "traded 1 card with" in line]
        assert traded == ["🤝 Ann traded 1 card with Bob."]
        check_private(fake)

        await ui.play_until(lambda: len(ui.match.state["buildings"]) >= 12 and anns_turn())
        abandoned = await ui.abandon(ann_id)
        version = ui.match.version

    # -- restart ----------------------------------------------------------------------
    async with cityhall_bot(fake, db) as bot:
        ui.bot = bot
        assert bot.runtime.get(match_id).version == version  # type: ignore[union-attr]
        # a private chooser from before the restart still answers, once it is out of date
        await settle(bot, match_id)
        await ui.act(ann_id, GAME.computer.normal(ui.match.state, ann_id))
        user, message, custom_id = abandoned
        reply = await answer(await fake.click(user, message, custom_id))
        assert reply.ephemeral and "earlier board" in text_of(reply)
        await ui.play_until(lambda: False)
        final = await bot.storage.get(match_id)
        assert final is not None and final.status == "over" and final.state is not None
        assert {"build", "draw", "trade", "trade_offer", "trade_accept"} <= ui.kinds
        assert "discard_useless" not in ui.kinds
        scores = final.state["scores"]
        assert sum(scores.values()) == sum(b["points"] for b in final.state["buildings"])
        table = fake.message(final.table_message_id)  # type: ignore[arg-type]
        assert "🏆" in table.content
        check_private(fake)
        stats = await answer(await fake.slash(bob, fake.channel_id, "stats", [],
                                              {"game": "bigcity"}))
        board = json.dumps(stats.data["embeds"])
        assert "Ann" in board and "Bob" in board and "(computer)" not in board


async def test_the_turn_timer_places_a_neighborhood_for_a_slow_player(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", turn_seconds=0.3) as bot:
        match_id = await start_game(fake, bot, ann, [], 1, {}, "Basic rules", seed=3)

        def told() -> str | None:
            return next((line for line in shown_lines(fake) if "ran out of time" in line), None)

        # one move's news: a line of the table, not a message of its own
        notice = await fake.wait_until(told, 5)
        assert "Ann ran out of time, so the computer player placed neighborhood" in notice
        await bot.runtime.end(match_id, str(ann["id"]), can_manage=True)



# -- the screens and ids, without Discord ---------------------------------------------------

def a_match(state: JSON, version: int = 3) -> Any:
    from bot.core.records import Match, Seat

    seats = [Seat(p, p.title(), cpu=p.startswith("cpu")) for p in state["players"]]
    return Match(id=123456789012345, guild_id=1, channel_id=1, game="bigcity",
                 status="active", host_id=seats[0].id, seats=seats, options={}, seed=1,
                 state=state, version=version)


def all_ids(items: list[Any]) -> list[str]:
    return [str(i.custom_id) for i in items]


def menu(item: discord.ui.Item[Any]) -> discord.ui.Select[Any]:
    assert isinstance(item, discord.ui.Select)
    return item


def button(item: discord.ui.Item[Any]) -> discord.ui.Button[Any]:
    assert isinstance(item, discord.ui.Button)
    return item


def dynamic(item: discord.ui.Item[Any]) -> discord.ui.DynamicItem[Any]:
    assert isinstance(item, discord.ui.DynamicItem)
    return item


def handlers(custom_id: str) -> list[str]:
    """The component classes whose template matches ``custom_id``."""
    from cogs.bigcity import DYNAMIC_ITEMS

    return [c.__name__ for c in DYNAMIC_ITEMS
            if c.__discord_ui_compiled_template__.fullmatch(custom_id)]


def test_letters_and_pages() -> None:
    from bot.ui.paged import Choice, letters, page_count, paged_menu

    assert [letters(i) for i in (0, 1, 25, 26, 27, 51, 52, 701, 702)] == \
        ["A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA"]
    assert [page_count(n) for n in (0, 1, 25, 26, 50, 51)] == [1, 1, 1, 2, 2, 3]
    choices = [Choice(str(i), f"choice {i}") for i in range(60)]
    items = paged_menu(choices, 1, select_id=lambda p: f"s{p}", page_id=lambda p: f"p{p}",
                       placeholder="Pick")
    select, back, forward = menu(items[0]), button(items[1]), button(items[2])
    assert [o.label for o in select.options][:2] == ["Z · choice 25", "AA · choice 26"]
    assert len(select.options) == 25 and "page 2 of 3" in (select.placeholder or "")
    assert (back.custom_id, back.disabled, forward.custom_id, forward.disabled) == \
        ("p0", False, "p2", False)
    last = paged_menu(choices, 9, select_id=lambda p: f"s{p}", page_id=lambda p: f"p{p}",
                      placeholder="Pick")
    assert menu(last[0]).custom_id == "s2" and len(menu(last[0]).options) == 10
    assert button(last[2]).disabled
    assert len(paged_menu(choices[:3], 0, select_id=str, page_id=str, placeholder="x")) == 1


@pytest.mark.one_database("ids, handlers and hidden hands do not depend on the database")
async def test_every_id_fits_and_names_one_handler_and_the_table_hides_hands() -> None:
    """Through a seeded five-player game with trades: every screen's custom ids are at most
    100 characters and match exactly one component class; the table's buttons are the same
    whatever the player on turn holds."""
    from cogs.bigcity import BigCityAdapter, hand_screen, open_screen, step_items

    players = ["ann", "bob", "cy", "dee", "eve"]
    state = ENGINE.new(players, {"trade_cards": True}, 21)
    adapter = BigCityAdapter(ENGINE)
    seen: set[str] = set()
    traded = False
    for move in range(400):
        if ENGINE.result(state) is not None:
            break
        match = a_match(state, version=move + 1)
        items = [dynamic(i) for i in adapter.table_items(match)]
        swapped = json.loads(json.dumps(state))
        hands = swapped["hands"]
        hands["ann"], hands["bob"] = hands["bob"], hands["ann"]
        turn = ENGINE.to_act(state)[0]
        assert [(i.custom_id, i.item.label) for i in items] == \
            [(i.custom_id, i.item.label)
             for i in map(dynamic, adapter.table_items(a_match(swapped, move + 1)))]
        screens = [hand_screen(match, p) for p in players]
        for code in "bksnxdptrw":
            for player in ENGINE.to_act(state):
                screen = open_screen(match, player, code, None, 0)
                if not isinstance(screen, str):
                    screens.append(screen)
        ids_ = [i.custom_id for i in items] + all_ids(step_items(match, turn, private=True))
        for screen in screens:
            ids_ += all_ids(screen.items)
            assert len(screen.text) <= 2000
        for custom_id in ids_:
            found = handlers(custom_id)
            assert len(custom_id) <= 100 and len(found) == 1, custom_id
            seen.update(found)
        player = turn
        legal = ENGINE.legal(state, player)
        action = GAME.computer.normal(state, player)
        trades = [la.action for la in legal if la.action["type"] == "trade"]
        if trades and not traded and state["phase"] == "play":
            action, traded = trades[0], True
        state, _ = ENGINE.apply(state, player, action)
    assert traded and seen == {"HandButton", "OpenButton", "PickSelect", "GroupSelect",
                               "CardSelect", "ActionButton"}


async def test_a_first_streetcar_then_a_second_from_its_own_menu() -> None:
    from bot.games.bigcity.scenario import position
    from cogs.bigcity import board, map_screen, pick_screen

    state = position(neighborhoods=[(2, (3, 0), 0), (3, (0, 3), 0)],
                     pieces=[("city_hall", [15], "bob")], streetcars=[[[0, 0], [1, 0]]])
    match = a_match(state)
    legal = ENGINE.legal(state, "ann")
    screen = map_screen(match, "ann", "s", None, 0)
    assert not isinstance(screen, str) and screen.preview is not None
    singles = [i for i, la in enumerate(legal)
               if la.action["type"] == "streetcar" and len(la.action["segments"]) == 1]
    first = singles[0]
    pairs = pick_screen(match, "ann", board(match), "s", None, 0, first)
    assert not isinstance(pairs, str) and pairs.preview is not None
    chooser = menu(pairs.items[0])
    assert chooser.custom_id == f"ch:bc:{match.id}:v3:ls{first}:p0"
    assert chooser.options[0].label.startswith("A · Only this streetcar")
    second = int(chooser.options[1].value)
    assert len(legal[second].action["segments"]) == 2
    assert legal[first].action["segments"][0] in legal[second].action["segments"]
    confirm = pick_screen(match, "ann", board(match), "s", first, 0, second)
    assert not isinstance(confirm, str) and "Lay **B**" in confirm.text
    assert all_ids(confirm.items) == [
        f"ch:bc:{match.id}:v3:a{second}", f"ch:bc:{match.id}:v3:cs{first}:p0"]
    assert confirm.preview == [{"label": "B", "segments": legal[second].action["segments"]}]
    assert pick_screen(match, "ann", board(match), "s", None, 0, 9999) == \
        "That is not one of the choices."


async def test_an_older_neighborhood_menu_still_places() -> None:
    """Choosers sent before the two-menu placement carry the neighbourhood's number (one
    digit) in their ids: they still list every place of it, page by page, in words."""
    from bot.games.bigcity.scenario import position
    from cogs.bigcity import board, map_screen, pick_screen

    state = position(neighborhoods=[(2, (3, 0), 0)], pieces=[("city_hall", [15], "bob")])
    match = a_match(state)
    legal = ENGINE.legal(state, "ann")
    places = [i for i, la in enumerate(legal)
              if la.action["type"] == "place_neighborhood" and la.action["neighborhood"] == 3]
    assert len(places) > 25
    page = map_screen(match, "ann", "n", 3, 1)
    assert not isinstance(page, str)
    options = menu(page.items[0]).options
    assert options[0].label.startswith("Z · ") and options[0].value == str(places[25])
    assert all("next to" in o.label and "(" not in o.label for o in options)
    confirm = pick_screen(match, "ann", board(match), "n", 3, 1, places[25])
    assert not isinstance(confirm, str) and "Place **Z** · **neighborhood 3**" in confirm.text
    assert all_ids(confirm.items)[0] == f"ch:bc:{match.id}:v3:a{places[25]}"


def test_score_announcements_explain_the_sum() -> None:
    from cogs.bigcity import built_words

    assert built_words("Ann", "double_residence", [14, 15], 10,
                       "6 + 1 outskirts − 2 factory = 5, × 2 streetcar = 10") == (
        "Ann built a double residence on 14+15: 6 + 1 outskirts − 2 factory = 5, "
        "× 2 streetcar = 10 points.")
    assert built_words("Bob", "single_business", [22], 1,
                       "2 − 2 factory = 0, counts as 1") == (
        "Bob built a single business on 22: 2 − 2 factory = 0, counts as 1 point.")
    assert built_words("Cy", "church", [33], 15, "15 church") == \
        "Cy built a church on 33: 15 points."
    assert built_words("Cy", "city_hall", [15], 0, "0 city hall").startswith(
        "Cy built city hall on 15: special buildings")


async def test_useless_cards_are_picked_from_the_hand_and_confirmed() -> None:
    from bot.games.bigcity.scenario import position
    from cogs.bigcity import board, cards_confirm, cards_screen, hand_screen

    state = position(neighborhoods=[(2, (3, 0), 0), (3, (0, 3), 0)],
                     pieces=[("city_hall", [15], "bob"), ("lincoln_park", [25, 26], "bob")],
                     hands={"ann": [25, 11, 12, 13, 14]})
    match = a_match(state)
    screen = cards_screen(match, "ann", "d")
    assert not isinstance(screen, str)
    cards = menu(screen.items[0])
    assert [(o.value, o.description) for o in cards.options] == [
        ("25", "useless: under Lincoln Park")]
    confirm = cards_confirm(match, "ann", board(match), "d", [25])
    assert not isinstance(confirm, str) and confirm.text.startswith("Discard **25**?")
    index = next(i for i, la in enumerate(ENGINE.legal(state, "ann"))
                 if la.action == {"type": "discard_useless", "cards": [25]})
    assert all_ids(confirm.items)[0] == f"ch:bc:{match.id}:v3:a{index}"
    assert cards_confirm(match, "ann", board(match), "d", [11]) == \
        "Only useless cards can be discarded, and not 11 now."
    assert "useless: under Lincoln Park" in hand_screen(match, "ann").text
    assert cards_screen(match, "bob", "d") == (
        "Only cards of properties under a park or factory can be discarded, at the start "
        "of your turn, and you hold none now.")
