"""Replays (issue 28, item 4): /replay <game>, the Replay button on a finished table and a
/history entry open a private viewer that steps through every move's board, each frame the
replay contract's board (`python -m bot replay`) at that step; running games, unknown ones
and other servers' are refused in a sentence (bot/ui/replay.py, bot/core/replaying.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord
import pytest

import bot.games
import bot.ui.replay as replay_ui
from bot.app import CityhallBot
from bot.core.engine import JSON
from bot.core.i18n import Words
from bot.core.records import OVER, Match, Seat
from bot.core.replaying import Replay, round_starts, steps
from bot.tools.replay import replay
from bot.ui.game import display_names, rename_players
from bot.ui.later import DRAWING
from bot.ui.replay import REPLAYS, replay_button, replay_items
from fakediscord import FakeDiscord
from fakediscord.interactions import InteractionCallback
from fakediscord.models import FakeMessage
from tests.harness import answer, button_id, cityhall_bot, ids, text_of
from tests.noughts import GAME as NOUGHTS
from tests.noughts.engine import ENGINE
from tests.noughts.render import render_table

_ = Words("bot")

# Ann (X) and Bob (O): X takes the top row while O answers in the middle row.
MOVES = (0, 3, 1, 4, 2)


@pytest.fixture(autouse=True)
def noughts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test-only game in the catalogue, for the bot, its pictures and the replay runner."""
    monkeypatch.setitem(bot.games.GAMES, "noughts", NOUGHTS)
    REPLAYS.forget()


async def finished_game(bot: CityhallBot, ann: dict[str, Any],
                        bob: dict[str, Any], guild_id: int, channel_id: int) -> Match:
    """Ann and Bob play MOVES through the runtime: a game over, its log stored."""
    await bot.load_extension("tests.noughts.cog")
    runtime = bot.runtime
    lobby = await runtime.open_lobby(guild_id, channel_id, "noughts",
                                     Seat(str(ann["id"]), "Ann"), {})
    await runtime.join(lobby.id, Seat(str(bob["id"]), "Bob"))
    match = await runtime.start(lobby.id, str(ann["id"]))
    for turn, cell in enumerate(MOVES):
        player = str((ann, bob)[turn % 2]["id"])
        outcome = await runtime.act(match.id, player, {"type": "mark", "cell": cell})
    assert outcome.match.status == OVER
    return outcome.match


def viewer_of(shown: InteractionCallback) -> FakeMessage:
    assert shown.ephemeral, "a replay is private"
    message = shown.message
    assert message is not None
    return message


async def posted(cityhall: CityhallBot, fake: FakeDiscord, custom_id: str,
                 select: bool = False) -> FakeMessage:
    """A message in the channel carrying one component with ``custom_id`` (as a /history
    page or a viewer would carry it, or forged): what a click is made on."""
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Select(custom_id=custom_id, options=[
        discord.SelectOption(label="1", value="1")]) if select
        else discord.ui.Button(label="Replay", custom_id=custom_id))
    channel = cityhall.get_channel(int(fake.channel_id))
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("·", view=view)
    return fake.message(sent.id)


async def framed(fake: FakeDiscord, message: FakeMessage) -> FakeMessage:
    """The viewer once its picture is on it: drawn within 0.4 s it comes with the answer,
    else it follows as an edit (bot/ui/later.py), as on a busy machine."""
    def ready() -> FakeMessage | None:
        now = fake.message(message.id)
        return now if now.attachments and _(DRAWING) not in now.content else None

    shown: FakeMessage = await fake.wait_until(ready, 10.0, "the replay's picture")
    return shown


def nav(message: FakeMessage, arrow: str) -> dict[str, Any]:
    [button] = [c for c in message.iter_components()
                if (c.get("emoji") or {}).get("name") == arrow]
    return button


def contract_png(match: Match, step: int) -> bytes:
    """The replay contract's board after ``step`` moves (`python -m bot replay`'s
    ``state``), named and drawn as the table's picture is."""
    logged = [{"player": match.seats[turn % 2].id, "type": "mark", "cell": cell}
              for turn, cell in enumerate(MOVES[:step])]
    board = replay({"game": "noughts", "players": match.player_ids, "seed": match.seed,
                    "options": match.options, "actions": logged})["state"]
    return bytes(render_table(rename_players(board, display_names(match))))


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_a_finished_game_is_stepped_through_from_first_move_to_last(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann, bob = await fake.add_member("Ann"), await fake.add_member("Bob")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as cityhall:
        match = await finished_game(cityhall, ann, bob, int(fake.guild_id),
                                    int(fake.channel_id))
        # The finished table's items and a /history entry's button: Replay, this game.
        for item in (*replay_items(match), replay_button(match.id)):
            assert item.to_component_dict() == {
                "type": 2, "style": 2, "label": "Replay", "emoji": {"name": "🎞️", "id": None},
                "custom_id": f"ch:replay:{match.id}", "disabled": False}

        shown = await answer(await fake.slash(ann, fake.channel_id, "replay", [],
                                              {"game": match.id}))
        viewer = await framed(fake, viewer_of(shown))
        assert text_of(shown).startswith(f"🎞️ Replay of **Noughts and Crosses** game "
                                         f"{match.id}\nThe start (5 moves in all).")
        assert nav(viewer, "⏮").get("disabled") and nav(viewer, "◀").get("disabled")
        assert viewer.attachment().data == contract_png(match, 0)
        seen = [viewer.attachment().data]
        for step in range(1, len(MOVES) + 1):
            stepped = await answer(await fake.click(ann, viewer, nav(viewer, "▶")["custom_id"]))
            assert stepped.type == 7, "the viewer changes in place"
            viewer = await framed(fake, viewer)
            who = "Ann" if step % 2 else "Bob"
            assert f"Move {step} of 5 — {who}." in viewer.content, viewer.content
            # each frame is the replay contract's board at that step, drawn
            assert viewer.attachment().data == contract_png(match, step)
            seen.append(viewer.attachment().data)
        assert len(set(seen)) == len(MOVES) + 1, "every move changes the board"
        assert viewer.content.endswith("The game ends here.")
        assert nav(viewer, "▶").get("disabled") and nav(viewer, "⏭").get("disabled")
        back = await answer(await fake.click(ann, viewer, nav(viewer, "⏮")["custom_id"]))
        assert back.type == 7 and "The start" in fake.message(viewer.id).content
        last = await answer(await fake.click(ann, fake.message(viewer.id),
                                             f"ch:rp:{match.id}:5:l"))
        assert "Move 5 of 5 — Ann." in text_of(last) or \
            "Move 5 of 5 — Ann." in fake.message(viewer.id).content

        # The final table's Replay button, and a /history entry's, open viewers of their own.
        sent = await cityhall.tables.repost(match)
        assert sent is not None
        final = fake.message(sent.id)
        entry = await posted(cityhall, fake, f"ch:replay:{match.id}")
        for message, member in ((final, bob), (entry, ann)):
            opened = await answer(await fake.click(member, message, button_id(message, "Replay")))
            assert (await framed(fake, viewer_of(opened))).attachment().data == \
                contract_png(match, 0)
            assert "The start (5 moves in all)." in text_of(opened)

        # A restart: the viewer's buttons carry everything, nothing is remembered.
        REPLAYS.forget()
        again = await answer(await fake.click(ann, fake.message(viewer.id),
                                              nav(fake.message(viewer.id), "◀")["custom_id"]))
        assert again.type == 7 and "Move 4 of 5 — Bob." in fake.message(viewer.id).content


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_running_unknown_and_other_servers_games_and_bad_buttons_are_refused(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann, bob = await fake.add_member("Ann"), await fake.add_member("Bob")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as cityhall:
        await cityhall.load_extension("tests.noughts.cog")
        runtime = cityhall.runtime
        lobby = await runtime.open_lobby(int(fake.guild_id), int(fake.channel_id), "noughts",
                                         Seat(str(ann["id"]), "Ann"), {})
        await runtime.join(lobby.id, Seat(str(bob["id"]), "Bob"))
        running = await runtime.start(lobby.id, str(ann["id"]))
        await runtime.act(running.id, str(ann["id"]), {"type": "mark", "cell": 4})
        assert replay_items(running) == [], "a running table offers no replay"
        elsewhere = await cityhall.storage.create_match(Match(
            id=0, guild_id=int(fake.guild_id) + 1, channel_id=1, game="noughts", status=OVER,
            host_id="1", seats=[Seat("1", "Zed"), Seat("2", "Yan")], options={}, seed=3,
            state=ENGINE.new(["1", "2"], {}, 3)))

        async def click(custom_id: str) -> Any:
            return await fake.click(ann, await posted(cityhall, fake, custom_id), custom_id)

        async def pick(custom_id: str) -> Any:
            message = await posted(cityhall, fake, custom_id, select=True)
            return await fake.select(ann, message, custom_id, ["1"])

        async def said(ix: Any) -> str:
            got = await answer(ix)
            assert got.ephemeral and not got.files and not (got.data or {}).get("components")
            return text_of(got)

        assert await said(await fake.slash(ann, fake.channel_id, "replay", [],
                                           {"game": running.id})) == (
            f"Game {running.id} is still being played: its replay opens when it is over.")
        unknown = "There is no game 999 on this server. /history lists the finished ones."
        assert await said(await fake.slash(ann, fake.channel_id, "replay", [],
                                           {"game": 999})) == unknown
        assert await said(await fake.slash(ann, fake.channel_id, "replay", [],
                                           {"game": elsewhere.id})) == (
            f"There is no game {elsewhere.id} on this server. /history lists the finished "
            "ones.")
        assert await said(await click(f"ch:replay:{running.id}")) == (
            f"Game {running.id} is still being played: its replay opens when it is over.")
        assert await said(await click("ch:rp:12x:0:f")) == (
            "That replay button is damaged; open the replay again with /replay.")
        assert await said(await click("ch:rp:999:0:f")) == unknown
        await runtime.act(running.id, str(bob["id"]), {"type": "mark", "cell": 0})
        await runtime.end(running.id, str(ann["id"]), can_manage=False)
        assert await said(await click(f"ch:rp:{running.id}:9:n")) == (
            f"Game {running.id} has no move 9: it has 2 moves. Open it again with /replay "
            f"{running.id}.")
        assert await said(await pick(f"ch:rpr:{running.id}")) == (
            f"Game {running.id} has no round starting there. Open it again with /replay "
            f"{running.id}.")
        # A game ended early is replayed up to where it stopped.
        ended = await answer(await fake.slash(ann, fake.channel_id, "replay", [],
                                              {"game": running.id}))
        viewer = viewer_of(ended)
        assert ids(viewer)[-1] == f"ch:rp:{running.id}:2:l"
        end = await answer(await fake.click(ann, viewer, f"ch:rp:{running.id}:2:l"))
        assert end.type == 7
        assert (await framed(fake, viewer)).content.endswith(
            "Move 2 of 2 — Bob.\nThe game was ended early here.")


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_jump_to_round_shows_the_rounds_first_move(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Noughts counted in rounds of two marks, as a game with rounds shows them in its view.
    plain = type(ENGINE).view

    def with_rounds(self: Any, state: JSON, viewer: str | None) -> JSON:
        return {**plain(self, state, viewer), "round": 1 + sum(map(bool, state["board"])) // 2}

    monkeypatch.setattr(type(ENGINE), "view", with_rounds)
    # The rounds are waited for (a long game on a busy bot shows its menu from the next
    # click on; noughts' are found at once, but a loaded test machine may take its time).
    monkeypatch.setattr(replay_ui, "ROUNDS_WAIT_S", 10.0)
    fake = fake_discord
    ann, bob = await fake.add_member("Ann"), await fake.add_member("Bob")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as cityhall:
        match = await finished_game(cityhall, ann, bob, int(fake.guild_id),
                                    int(fake.channel_id))
        shown = await answer(await fake.slash(ann, fake.channel_id, "replay", [],
                                              {"game": match.id}))
        viewer = viewer_of(shown)
        assert text_of(shown).startswith(f"🎞️ Replay of **Noughts and Crosses** game "
                                         f"{match.id}, round 1\nThe start")
        [menu] = [c for c in viewer.iter_components() if c.get("type") == 3]
        assert [(o["label"], o["value"], o.get("default", False)) for o in menu["options"]] \
            == [("Round 1", "0", True), ("Round 2", "2", False), ("Round 3", "4", False)]
        jumped = await answer(await fake.select(ann, viewer, menu["custom_id"], ["4"]))
        assert jumped.type == 7
        viewer = await framed(fake, viewer)
        assert viewer.content.startswith(f"🎞️ Replay of **Noughts and Crosses** game "
                                         f"{match.id}, round 3\nMove 4 of 5 — Bob.")
        [menu] = [c for c in viewer.iter_components() if c.get("type") == 3]
        assert [o["label"] for o in menu["options"] if o.get("default")] == ["Round 3"]


class Rounds:
    """An engine whose public view counts rounds: a round is three moves."""

    def new(self, players: list[str], options: JSON, seed: int) -> JSON:
        return {"moves": 0}

    def apply(self, state: JSON, player: str | None, action: JSON) -> tuple[JSON, list[JSON]]:
        return {"moves": state["moves"] + 1}, [{"type": "moved"}]

    def view(self, state: JSON, viewer: str | None) -> JSON:
        return {"round": 1 + state["moves"] // 3}


def test_jump_to_round_lands_on_each_rounds_first_step() -> None:
    replay_ = Replay(Rounds(), ["a"], {}, 0, [("a", {})] * 7)  # type: ignore[arg-type]
    assert replay_.rounds() == [(1, 0), (2, 3), (3, 6)]
    assert [replay_.round_at(i) for i in (0, 2, 3, 7)] == [1, 1, 2, 3]
    assert round_starts([None, None]) == [] and round_starts([1, 1, 1]) == []
    # Stepping back and forth from the kept steps gives what one walk from the start gives.
    log: list[tuple[str | None, JSON]] = [("a", {})] * 27
    straight = [s.state for s in steps(Rounds(), ["a"], {}, 0, log)]  # type: ignore[arg-type]
    held = Replay(Rounds(), ["a"], {}, 0, log)  # type: ignore[arg-type]
    for index in (5, 4, 27, 26, 12, 0, 13, 20, 19, 27):
        assert held.step(index).state == straight[index] == {"moves": index}
    assert held.rounds()[-1] == (10, 27)
    walked = list(steps(ENGINE, ["a", "b"], {}, 0, [("a", {"type": "mark", "cell": 0}),
                                                    ("a", {"type": "mark", "cell": 1})]))
    assert [s.index for s in walked] == [0, 1, 2]
    assert walked[2].error == "It is not your turn." and walked[2].state == walked[1].state
