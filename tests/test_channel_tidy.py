"""A channel stays readable through whole games: one live table per match (a superseded
table keeps neither picture nor buttons), one move's news folded into the table's text,
every picture described in words, and one reminder a minute before the computer plays for
someone, mentioning only them."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from bot.core.records import Match
from bot.games.cityscape import ENGINE as CITYSCAPE
from bot.ui.table import MOVED
from fakediscord import FakeDiscord
from tests import databases
from tests.harness import WHOLE_GAME_WINDOWS, Member, by_id, cityhall_bot, settle, started_table
from tests.test_discord_bigcity import Player, start_game
from tests.test_discord_cityscape import answer, set_goals
from tests.test_turn_pings import live_pings, notifications
from tests.whole_games import described_uploads

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

REMINDER = "left for your move"


def undescribed(fake: FakeDiscord) -> list[str]:
    """Every file the bot uploaded without alt text (an attachment ``description``)."""
    return [upload for upload, text in described_uploads(fake) if not text]


def uploads(fake: FakeDiscord) -> int:
    return sum(len(r.files) for r in fake.requests if r.status < 400)


def check_superseded(fake: FakeDiscord, table_id: int | None) -> int:
    """Only the live table shows a board: every table it replaced is one line of text with
    no picture, buttons or embed. Returns how many were replaced."""
    public = fake.channel_messages(fake.channel_id, ephemeral=False)
    boards = [m for m in public if any(a.filename == "table.png" for a in m.attachments)]
    assert [int(m.id) for m in boards] in ([], [table_id]), [m.content[:40] for m in boards]
    moved = [m for m in public if m.content == str(MOVED)]
    for message in moved:
        assert not message.attachments and not list(message.iter_components()) \
            and not message.embeds, message.id
    return len(moved)


# Whole games: Discord's limits with shorter windows (tests/harness.py).
@pytest.mark.one_database(databases.CHANNEL_ONLY)
@pytest.mark.fakediscord(rate_limit_scale=WHOLE_GAME_WINDOWS)
async def test_a_big_city_table_names_its_last_buildings_and_describes_every_picture(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    """The first buildings of a two-player game (the whole game's channel, a table and the
    final notice, is test_whole_games_channel's Big City game)."""
    fake = fake_discord
    users = by_id(ann, bob)
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match_id = await start_game(fake, bot, ann, [bob], 0, {}, "Basic rules", seed=5)
        ui = Player(fake, bot, match_id, users)
        await ui.play_until(lambda: len(ui.match.state["buildings"]) >= 4)
        # the table names the last buildings in its text, and its picture says it in words
        table = ui.table()
        assert "🏗️ " in table.content and table.content.count("\n🏗️ ") <= 3
        # (edited through the channel, or through a click on it: bot/ui/tablehooks.py)
        described = [r for r in fake.requests if r.files and r.path.endswith(
            (f"/messages/{table.id}", "/messages/@original"))][-1].json["attachments"][0][
            "description"]
        assert "Scores:" in described and "Last move:" in described and "Ann" in described
        await settle(bot, match_id)
        public = fake.channel_messages(fake.channel_id, ephemeral=False)
        # the table and the turn ping; nothing per move
        assert len(public) <= 3, [m.content[:60] for m in public]
        check_superseded(fake, int(table.id))
        # the tables and the previews of choices: all described
        assert uploads(fake) > 10 and undescribed(fake) == []
        assert ui.via_hand > 0  # previews from My hand were among them


@pytest.mark.one_database(databases.CHANNEL_ONLY)
@pytest.mark.fakediscord(rate_limit_scale=WHOLE_GAME_WINDOWS)
async def test_a_table_posted_anew_leaves_no_board_behind(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member) -> None:
    """Round scoring and /game status post the table again below; what they replace keeps
    one line. The computer plays for a slow player: a line of the table, not a message;
    and a turn this short gets no reminder."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", turn_seconds=0.2) as bot:
        match, _ = await started_table(fake, bot, "cityscape", ann,
                                       computers=1, options={"rounds": 2})
        assert match.state is not None
        await fake.wait_until(lambda: (match.state or {}).get("round") == 2 or None, 30, "round 2")
        status = await answer(await fake.slash(ann, fake.channel_id, "game", ["status"]))
        assert status.message is not None and status.files[0].filename == "table.png"
        await fake.wait_until(lambda: match.status == "over" or None, 30, "the end")
        await settle(bot, match.id)
        public = fake.channel_messages(fake.channel_id, ephemeral=False)
        scored = [m for m in public if "scored** — goals revealed" in m.content]
        assert len(scored) == 2 and all(m.attachments for m in scored)
        # the lobby's table, moved below round 1's scoring; /game status's; and round 2's
        # scoring ended the game, so the table then shown stays where it was
        assert check_superseded(fake, match.table_message_id) >= 2
        assert not any("ran out of time" in m.content for m in public
                       if m.id != str(match.table_message_id))
        assert undescribed(fake) == []
        assert not any(REMINDER in text for text, _ in notifications(fake))


def due_now(match: Match) -> list[str]:
    assert match.state is not None
    return CITYSCAPE.to_act(match.state)


@pytest.mark.fakediscord(rate_limit_scale=WHOLE_GAME_WINDOWS)
async def test_one_reminder_before_the_computer_plays_mentions_only_whoever_is_due(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    ann_id, bob_id = str(ann["id"]), str(bob["id"])
    # Times shrunk: a 6 s turn reminded 3 s before its end (in Discord, a turn over two
    # minutes, one minute before).
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", turn_seconds=6.0) as bot:
        bot.pings.remind_before, bot.pings.remind_min_turn = 3.0, 4.0
        match, lobby = await started_table(fake, bot, "cityscape", ann,
                                           joiners=(bob,), options={"rounds": 1})
        assert match.state is not None
        # both owe goals at once and are pinged together; Ann chooses hers, Bob does not
        await fake.wait_until(lambda: notifications(fake) or None, 10.0, "the ping")
        assert notifications(fake)[0][1] == {ann_id, bob_id}
        mine = [s for s, o in match.state["sides"].items() if o == ann_id]
        await set_goals(fake, ann, fake.message(lobby.id), match.id,
                        [(s, [1, 2, 3, 4]) for s in mine])
        assert due_now(match) == [bob_id]

        def reminders() -> list[tuple[str, set[str]]]:
            return [n for n in notifications(fake) if REMINDER in n[0]]

        await fake.wait_until(lambda: reminders() or None, 15.0, "the reminder")
        text, who = reminders()[0]
        assert who == {bob_id} and f"<@{ann_id}>" not in text
        assert "the computer player moves for you" in text
        # it replaced the ping: one message about this turn in the channel
        await fake.wait_until(lambda: live_pings(fake) == [text] or None, 10.0,
                              "the ping replaced")
        # Bob's time runs out: the computer chose his goals, and the turn changes
        await fake.wait_until(lambda: (match.state or {}).get("phase") == "building" or None,
                              15.0, "Bob's goals chosen for him")
        builder = due_now(match)
        await fake.wait_until(lambda: len(reminders()) >= 2 or None, 15.0,
                              "the builder's reminder")
        assert [who for _text, who in reminders()][:2] == [{bob_id}, set(builder)]
        await fake.wait_until(lambda: len(live_pings(fake)) == 1 or None, 10.0,
                              "one ping or reminder left")
        await answer(await fake.slash(ann, fake.channel_id, "game", ["end"]))
        await fake.wait_until(lambda: not live_pings(fake) or None, 10.0, "the ping removed")


@pytest.mark.fakediscord(rate_limit_scale=WHOLE_GAME_WINDOWS)
async def test_a_restart_sends_no_stale_reminders(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    """A turn whose reminder was due before the restart (sent, or missed while the bot
    was down) gets none after it; one still ahead is kept."""
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    async with cityhall_bot(fake, db) as bot:
        match: Match | None  # after each restart, the bot's own copy again
        match, _ = await started_table(fake, bot, "cityscape", ann,
                                       joiners=(bob,), options={"rounds": 1})
        match_id = match.id
        await fake.wait_until(lambda: notifications(fake) or None, 10.0, "the ping")
        turn = bot.runtime.servers.turn_seconds(match.guild_id)
        planned = bot.pings.reminder_at(match_id)
        assert planned is not None and match.turn_started_at is not None
        assert planned == pytest.approx(match.turn_started_at + turn - 60.0)
    before = len(notifications(fake))

    async def turn_began(seconds_ago: float) -> None:
        # the bot was down while the turn ran on
        await databases.query(db, "UPDATE matches SET turn_started_at=? WHERE id=?",
                              (time.time() - seconds_ago, match_id))

    # 30 s left at the restart: the reminder was due half a minute ago
    await turn_began(turn - 30.0)
    async with cityhall_bot(fake, db) as bot:
        assert bot.pings.reminder_at(match_id) is None
        # the bot is up and answering; no reminder went out meanwhile
        shown = await answer(await fake.slash(ann, fake.channel_id, "game", ["status"]))
        assert shown.message is not None
        await settle(bot, match_id)
        assert len(notifications(fake)) == before
        assert not any(REMINDER in text for text, _ in notifications(fake))
    # five minutes left at the restart: its reminder is still ahead, at its own time
    await turn_began(turn - 300.0)
    async with cityhall_bot(fake, db) as bot:
        match = bot.runtime.get(match_id)
        assert match is not None and match.turn_started_at is not None
        assert bot.pings.reminder_at(match_id) == pytest.approx(
            match.turn_started_at + turn - 60.0)
        assert re.search(r"<t:\d+:R>", fake.message(match.table_message_id or 0).content)
