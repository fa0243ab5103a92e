"""A player's move that a computer player answers at once is drawn once (issue 25): where a
server lets computer players move without a pause (/settings, CPU_DELAY 0), the board
after the person's move would be replaced a moment later, so the computers move first and
the table is drawn once, with both moves; with a pause, players see each board in turn."""

from __future__ import annotations

from pathlib import Path

import discord
import pytest

from bot.app import CityhallBot
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.bigcity import GAME
from fakediscord import FakeDiscord
from tests import harness
from tests.harness import cityhall_bot, members, settle, started_table
from tests.test_table_hooks import table_edits

pytestmark = pytest.mark.usefixtures("backend")


async def ann_due(bot: CityhallBot, match_id: int, ann: str) -> Match:
    """The match once Ann is due (computers and their pictures settled)."""
    await settle(bot, match_id)
    match = bot.runtime.get(match_id)
    assert match is not None and match.state is not None
    assert GAME.engine.to_act(match.state) == [ann]
    return match


async def ann_moves_until_the_computer_is_due(fake: FakeDiscord, bot: CityhallBot,
                                              match_id: int, ann: str,
                                              table_id: str) -> tuple[int, int, int]:
    """Ann plays as the click path publishes (``publish``: table, computers, pings) until
    her move leaves the computer player due (in Big City, the draw that ends her turn): the
    version that move made, and how many edits with and without a picture the table had
    had before it."""
    while True:
        match = await ann_due(bot, match_id, ann)
        assert match.state is not None
        before = len(table_edits(fake, table_id))
        words_before = words_only_edits(fake, table_id)
        action = GAME.computer.normal(match.state, ann)
        outcome = await bot.runtime.act(match_id, ann, action)
        bot.publish(outcome)
        if bot.runtime.computers_due(outcome.match):
            return outcome.match.version, before, words_before


def words_only_edits(fake: FakeDiscord, table_id: str) -> int:
    """Accepted edits of the table that changed its words and buttons only (a Big City
    draw under way, docs/channel.md)."""
    return sum(1 for r in fake.requests
               if r.method == "PATCH" and r.status < 400 and not r.files
               and (r.path.endswith(f"/{table_id}") or r.path.endswith("/@original")))


@pytest.mark.one_database("the table's publishing, not storage")
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
@pytest.mark.parametrize("cpu_delay", [0.0, 0.05], ids=["answered at once", "with a pause"])
async def test_a_move_a_computer_answers_at_once_is_drawn_once_with_both_moves(
        fake_discord: FakeDiscord, tmp_path: Path, cpu_delay: float) -> None:
    """At once: one picture, showing her move and the moves of both computer players after
    it, none for the boards the next move replaced at once. With a pause: her board first,
    so that the table can be followed, then each of the computers'."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", cpu_delay=cpu_delay) as bot:
        (ann,) = await members(fake, "Ann")
        match, table = await started_table(fake, bot, "bigcity", ann, computers=2)
        player = str(ann["id"])
        chains: list[int] = []
        for _turn in range(3):  # a placement in the setup, then whole turns
            hers, before, words_before = await ann_moves_until_the_computer_is_due(
                fake, bot, match.id, player, table.id)
            now = await ann_due(bot, match.id, player)

            # The computers moved after her, and the table shows where they left the game...
            computer_moves = now.version - hers
            assert computer_moves >= 1
            assert bot.tables.shown[match.id] == now.version
            # ... in as many pictures as said above.
            pictures = len(table_edits(fake, table.id)[before:])
            if cpu_delay == 0:
                assert pictures == 1
            else:
                # Each board in turn: drawn, or told in words while a draw is under way.
                words = words_only_edits(fake, table.id) - words_before
                assert pictures + words == computer_moves + 1 and pictures >= 2
            chains.append(computer_moves)
        assert max(chains) >= 2  # two computer players: several boards replaced at once


@pytest.mark.one_database("the table's publishing, not storage")
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_a_board_held_for_the_next_computer_move_is_shown_when_that_move_fails(
        fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Computer players moving on their own (after a restart, or a turn that ran out): the
    first one's board waits for the second's move, which fails (a bug in a game). The table
    still shows the first computer's move, not the board from before it."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", cpu_delay=0.0) as bot:
        (ann,) = await members(fake, "Ann")
        match, _table = await started_table(fake, bot, "bigcity", ann, computers=2)
        player = str(ann["id"])
        step = bot.runtime.step_computer
        moved: list[int] = []

        async def first_only(match_id: int) -> Outcome | None:
            if moved:
                raise RuntimeError("a bug in the computer player")
            outcome = await step(match_id)
            assert outcome is not None
            moved.append(outcome.match.version)
            return outcome

        while True:  # Ann's moves, saved but not told, until the computers are due
            now = await ann_due(bot, match.id, player)
            assert now.state is not None
            outcome = await bot.runtime.act(match.id, player,
                                            GAME.computer.normal(now.state, player))
            bot.runtime.delivered(match.id)
            if bot.runtime.computers_due(outcome.match):
                break
        bot.runtime.step_computer = first_only  # type: ignore[method-assign]
        bot.driver.kick(match.id)
        await fake.wait_until(lambda: bool(moved) and bot.tables.shown.get(match.id)
                              == moved[0], 5, "the first computer's board shown")
        live = bot.runtime.get(match.id)
        assert live is not None and live.version == moved[0]
        assert bot.runtime.computers_due(live)  # the second computer's move never came
        assert "A computer move failed" in caplog.text


@pytest.mark.one_database("the pings' route, not storage")
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_the_computers_pings_go_through_the_click_they_answered(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """Their moves are told before the click's own ping update, so the click is kept for
    them first: Ann's next ping is a follow-up of her click (outside Discord's global
    limit), not of an older click's."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", cpu_delay=0.0) as bot:
        (ann,) = await members(fake, "Ann")
        match, table = await started_table(fake, bot, "bigcity", ann, computers=1)
        player = str(ann["id"])
        clicks: list[discord.Interaction] = []

        async def keep(interaction: discord.Interaction) -> None:
            clicks.append(interaction)

        bot.add_listener(keep, "on_interaction")
        while True:
            now = await ann_due(bot, match.id, player)
            assert now.state is not None
            # Her click on the table (a look at her hand), answered: its webhook is valid.
            hand = next(str(c["custom_id"]) for c in fake.message(table.id).iter_components()
                        if str(c.get("custom_id", "")).endswith(":hand"))
            await (await fake.click(ann, fake.message(table.id), hand)).seen(timeout=5)
            click = clicks[-1]
            outcome = await bot.runtime.act(match.id, player,
                                            GAME.computer.normal(now.state, player))
            if not bot.runtime.computers_due(outcome.match):
                bot.publish(outcome, click)
                continue
            sent = len(fake.requests)
            bot.publish(outcome, click)
            break
        await ann_due(bot, match.id, player)
        pings = [r.path for r in fake.requests[sent:]
                 if r.method == "POST" and r.status < 400 and "/webhooks/" in r.path
                 and not r.path.endswith("/messages/@original")]
        assert pings and all(click.token in path for path in pings), pings
