"""A turn of several moves is drawn once, when it ends (issue 25): a Cities player takes an
item, then places what they took, one move each. While the turn is in progress the table's
words and buttons follow every move at once ("Ann took …", "Ann is placing …", Place…) and
the message keeps the board it had; the board is drawn once the turn is over. A table
message whose picture the bot does not know (after a restart) is drawn in full. Big City's
action and the draw back to a full hand after it, a card a click, are such a turn too.

Played through the fake Discord with clicks only (``Players`` of test_discord_cities)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import CityhallBot
from bot.games.bigcity import GAME as BIGCITY
from bot.games.bigcity.views import drawing_under_way
from bot.games.cities import ENGINE
from bot.games.cities.views import placing
from fakediscord import FakeDiscord
from tests import harness
from tests.harness import Member, by_id, cityhall_bot, settle
from tests.test_discord_cities import Players, computer_move, open_lobby
from tests.test_table_hooks import table_edits

pytestmark = pytest.mark.usefixtures("backend")


def board_of(fake: FakeDiscord, bot: CityhallBot, match_id: int) -> tuple[str, str, int]:
    """The table message's id, the id of the board picture it carries, and how many edits
    with a new picture it has had."""
    match = bot.runtime.get(match_id)
    assert match is not None and match.table_message_id is not None
    table = fake.message(match.table_message_id)
    return table.id, table.attachment("table.png").id, len(table_edits(fake, table.id))


async def through_start_tiles(bot: CityhallBot, players: Players, match_id: int) -> None:
    match = bot.runtime.get(match_id)
    assert match is not None and match.state is not None
    while match.state["phase"] == "start_tiles":
        await players.move(bot, match_id)
        await settle(bot, match_id)


def pending_player(bot: CityhallBot, match_id: int) -> str | None:
    match = bot.runtime.get(match_id)
    assert match is not None and match.state is not None
    pending = placing(match.state)
    return None if pending is None else str(pending["player"])


@pytest.mark.one_database("the table's publishing, not storage")
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_a_turn_in_progress_changes_the_words_at_once_and_the_board_when_it_ends(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        await open_lobby(fake, ann, {"city": "New York City"}, [bob], 0)
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None
        players = Players(fake, by_id(ann, bob))
        await through_start_tiles(bot, players, match.id)

        turns_in_progress = placements_held = 0
        for _turn in range(20):
            if turns_in_progress >= 4:
                break
            live = bot.runtime.get(match.id)
            assert live is not None and live.state is not None
            mover = ENGINE.to_act(live.state)[0]
            table_id, picture, pictures_sent = board_of(fake, bot, match.id)
            await players.move(bot, match.id)  # the take
            await settle(bot, match.id)
            turns_in_progress += pending_player(bot, match.id) == mover
            while pending_player(bot, match.id) == mover:
                table = fake.message(table_id)
                # The words say what was taken and who is placing it; the buttons are the
                # turn's (Place…); the board is the one from before the take.
                assert "took" in table.content and "is placing" in table.content, table.content
                assert any(":o0p0" in i for i in harness.ids(table))
                assert board_of(fake, bot, match.id) == (table_id, picture, pictures_sent)
                await players.move(bot, match.id)  # a placement
                await settle(bot, match.id)
                placements_held += 1
            # The turn is over: its board is on the table, drawn once.
            now_id, now_picture, now_sent = board_of(fake, bot, match.id)
            assert now_picture != picture
            if now_id == table_id:  # not posted anew below a round's scoring
                assert now_sent == pictures_sent + 1
        assert turns_in_progress >= 4 and placements_held >= turns_in_progress


@pytest.mark.one_database("the table's publishing, not storage")
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_after_a_restart_a_turn_in_progress_draws_its_board(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    """The restarted bot does not know what the table message shows, so the first move of a
    turn in progress after it draws the board instead of keeping a picture it cannot vouch
    for."""
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    users = by_id(ann, bob)
    async with cityhall_bot(fake, db) as bot:
        await open_lobby(fake, ann, {"city": "New York City"}, [bob], 0)
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None
        match_id = match.id
        players = Players(fake, users)
        await through_start_tiles(bot, players, match_id)
        # Turns until one takes two or more features or pieces: placing the first leaves
        # the turn in progress.
        for _turn in range(40):
            await players.move(bot, match_id)
            await settle(bot, match_id)
            live = bot.runtime.get(match_id)
            assert live is not None and live.state is not None
            pending = placing(live.state)
            if pending is not None and len(pending["items"]) >= 2:
                break
            while pending_player(bot, match_id) is not None:
                await players.move(bot, match_id)
                await settle(bot, match_id)
        else:
            pytest.fail("no take of two items or more in 40 turns")
        _, picture, _ = board_of(fake, bot, match_id)

    async with cityhall_bot(fake, db) as bot:
        await settle(bot, match_id)
        assert board_of(fake, bot, match_id)[1] == picture  # nothing re-drawn on its own
        players = Players(fake, users)
        mover = pending_player(bot, match_id)
        await players.move(bot, match_id)
        await settle(bot, match_id)
        assert pending_player(bot, match_id) == mover  # still in progress…
        assert board_of(fake, bot, match_id)[1] != picture  # …and drawn


@pytest.mark.one_database("the table's publishing, not storage")
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_a_turn_whose_end_was_never_shown_is_drawn_when_the_next_turn_begins(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    """Newest state wins: when the next player's take lands while the table still waits to
    show the move that ended the turn before, the table shows the take's state. Its words
    say a turn is in progress, but the board on the message is from before the turn that
    ended, so it is drawn: the player who just finished sees their turn on the board."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        await open_lobby(fake, ann, {"city": "New York City"}, [bob], 0)
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None
        match_id = match.id
        await through_start_tiles(bot, Players(fake, by_id(ann, bob)), match_id)

        async def play() -> bool:
            """One computer-chosen move, published; whether it left a turn in progress."""
            live = bot.runtime.get(match_id)
            assert live is not None and live.state is not None
            player, action, _legal, _index = computer_move(live.state)
            bot.publish(await bot.runtime.act(match_id, player, action))
            return pending_player(bot, match_id) is not None

        for _turn in range(40):
            while pending_player(bot, match_id) is not None:  # to the end of a turn
                live = bot.runtime.get(match_id)
                assert live is not None and live.state is not None
                pending = placing(live.state)
                assert pending is not None
                if len(pending["items"]) == 1:
                    break
                await play()
                await settle(bot, match_id)
            if pending_player(bot, match_id) is None:
                await play()  # a take
                await settle(bot, match_id)
                continue
            _, picture, _ = board_of(fake, bot, match_id)
            async with bot.tables._locks(match_id):  # the table is busy showing a move
                await play()  # the turn's last placement
                in_progress = await play()  # and the next player's take
            await settle(bot, match_id)
            if in_progress:
                table = fake.message(board_of(fake, bot, match_id)[0])
                assert "is placing" in table.content, table.content
                assert board_of(fake, bot, match_id)[1] != picture
                return
            await settle(bot, match_id)
        pytest.fail("no turn ended with a take that left the next one in progress")


@pytest.mark.one_database("the table's publishing, not storage")
@pytest.mark.fakediscord(rate_limit_scale=harness.WHOLE_GAME_WINDOWS)
async def test_a_big_city_turn_with_a_draw_step_is_drawn_when_its_last_card_ends_it(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    """Big City's turn is an action (a building) and then, if cards were spent, a draw back
    to a full hand, a click a card: the action and the draws are words at once, the board
    is drawn when the last card ends the turn."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match, _ = await harness.started_table(fake, bot, "bigcity", ann, joiners=(bob,))
        draws_in_words = 0
        for _move in range(400):
            await settle(bot, match.id)
            live = bot.runtime.get(match.id)
            if live is None or live.state is None or draws_in_words >= 3:
                break
            player = BIGCITY.engine.to_act(live.state)[0]
            table_id, picture, pictures_sent = board_of(fake, bot, match.id)
            outcome = await bot.runtime.act(
                match.id, player, BIGCITY.computer.normal(live.state, player))
            bot.publish(outcome)
            await settle(bot, match.id)
            after = bot.runtime.get(match.id)
            assert after is not None and after.state is not None
            if drawing_under_way(after.state):
                draws_in_words += 1
                table = fake.message(table_id)
                assert "more card" in table.content, table.content
                assert board_of(fake, bot, match.id) == (table_id, picture, pictures_sent)
            elif board_of(fake, bot, match.id)[0] == table_id:
                # a turn's end (or an action that draws nothing): a new board
                assert board_of(fake, bot, match.id)[2] == pictures_sent + 1
        assert draws_in_words >= 3
