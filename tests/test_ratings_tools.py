"""Ratings as players and admins meet them: a game played through the bot rates its players
and /stats shows them; /settings ratings reset; ``python -m bot ratings --rebuild`` gives the
same numbers; ``python -m bot forget`` leaves no trace of a member; and a kill -9 right after
a game's last move rates it exactly once.

SQLite only: what the database does on both backends is tests/test_ratings.py's subject."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest

import bot.games
from bot.app import CityhallBot
from bot.core.records import OVER, Match, Seat
from bot.tools import forget as forget_tool
from bot.tools import ratings as ratings_tool
from bot.ui.pings import notify_key
from fakediscord import FakeDiscord
from tests.harness import answer, text_of
from tests.harness import cityhall_bot as harness_bot
from tests.noughts import GAME as NOUGHTS
from tests.process_harness import KillSession
from tests.test_process_games import button_id, component_ids, users
from tests.test_ratings import finish, row

# Ann (X) takes the top row while Bob (O) answers in the middle row.
MOVES = (0, 3, 1, 4, 2)


@pytest.fixture(autouse=True)
def noughts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test-only game in the catalogue (its /stats board among the others)."""
    monkeypatch.setitem(bot.games.GAMES, "noughts", NOUGHTS)
    monkeypatch.setitem(bot.games.ENGINES, "noughts", NOUGHTS.engine)


async def play(cityhall: CityhallBot, fake: FakeDiscord, channel: int, first: Seat,
               second: Seat) -> Match:
    """``first`` beats ``second`` at noughts, through the bot's runtime."""
    if "tests.noughts.cog" not in cityhall.extensions:
        await cityhall.load_extension("tests.noughts.cog")
    runtime = cityhall.runtime
    lobby = await runtime.open_lobby(int(fake.guild_id), channel, "noughts", first, {})
    await runtime.join(lobby.id, second)
    match = await runtime.start(lobby.id, first.id)
    for turn, cell in enumerate(MOVES):
        outcome = await runtime.act(match.id, (first, second)[turn % 2].id,
                                    {"type": "mark", "cell": cell})
    assert outcome.match.status == OVER
    return outcome.match


async def stats(fake: FakeDiscord, user: dict[str, Any], **options: Any) -> str:
    # every game's board (the test game is not among /stats' choices, fixed at import)
    reply = await answer(await fake.slash(user, fake.channel_id, "stats", [], options))
    assert "embeds" in reply.data, reply.data
    return json.dumps(reply.data["embeds"], ensure_ascii=False)


async def test_a_game_played_through_the_bot_is_rated_shown_reset_and_rebuilt_alike(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    admin = await fake.add_member("Alice", administrator=True)
    ann, bob = await fake.add_member("Ann"), await fake.add_member("Bob")
    db = tmp_path / "db.sqlite3"
    async with harness_bot(fake, db) as cityhall:
        match = await play(cityhall, fake, int(fake.channel_id), Seat(str(ann["id"]), "Ann"),
                           Seat(str(bob["id"]), "Bob"))
        board = (await cityhall.storage.rating_boards(int(fake.guild_id), ["noughts"]))[
            "noughts"]
        assert [(r.name, r.rated, r.wins) for r in board] == [("Ann", 1, 1), ("Bob", 1, 0)]
        assert board[0].rating > 1000 > board[1].rating
        # and a Cities game Ann lost to a hard computer player: the level has its line
        await finish(cityhall.storage, [row(str(ann["id"]), 20, name="Ann"),
                                        row("cpu1", 30, True, level="hard")],
                     game="cities", guild=int(fake.guild_id))
        shown = await stats(fake, bob)
        assert f"**1.** Ann — **{board[0].rating:,}** (1 rated game) · 1 win, best 1\\n" \
               f"**2.** Bob — **{board[1].rating}** (1 rated game) · 0 wins, best 0" in shown
        hard = (await cityhall.storage.ratings_of(int(fake.guild_id), "cpu:hard"))["cities"]
        assert f"**1.** Computer (hard) — **{hard.rating:,}** (1 rated game)\\n**2.** Ann" \
               in shown, shown

        # Only a server manager starts a new season; a member is told so and nothing changes.
        refused = await answer(await fake.slash(bob, fake.channel_id, "settings",
                                                ["ratings", "reset"], {}))
        assert refused.ephemeral and "Manage Server" in text_of(refused), text_of(refused)
        assert await cityhall.storage.season(int(fake.guild_id)) == 1
        reset = await answer(await fake.slash(admin, fake.channel_id, "settings",
                                              ["ratings", "reset"], {}))
        assert "Rating season 2 has begun" in text_of(reset) and reset.ephemeral
        # (one /stats per member and channel every 10 seconds: Ann and Alice ask next)
        now = await stats(fake, ann)
        assert "No rated games this season yet." in now and "Rating season 2" in now
        assert f"**{board[0].rating:,}**" in await stats(fake, admin, season=1)
    # The rebuild, as an admin runs it: the same numbers, and it says so.
    counts = await ratings_tool.rebuild(str(db))
    assert ratings_tool.report(counts) == "Rated 2 finished games again: the stored ratings " \
                                          "matched."
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT player_id, rating, games FROM ratings WHERE game='noughts'"
                            " ORDER BY rating DESC").fetchall() == [
            (str(ann["id"]), board[0].rating, 1), (str(bob["id"]), board[1].rating, 1)]
        assert conn.execute("SELECT COUNT(*) FROM rating_changes WHERE match_id=?",
                            (match.id,)).fetchone() == (1 * 2,)


def every_text(db: Path) -> list[tuple[str, str]]:
    """(table, text) of every text and blob value of every table, zlib blobs opened."""
    found = []
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
        for table in tables:
            for row in conn.execute(f"SELECT * FROM {table}"):
                for value in row:
                    if isinstance(value, bytes):
                        value = zlib.decompress(value).decode()
                    found.append((table, str(value)))
    return found


async def test_forget_leaves_no_trace_of_the_member_and_waits_for_their_running_game(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    zed, bob = await fake.add_member("Zebedee"), await fake.add_member("Bob")
    zid = str(zed["id"])
    db = tmp_path / "db.sqlite3"
    async with harness_bot(fake, db) as cityhall:
        one = await play(cityhall, fake, int(fake.channel_id), Seat(zid, "Zebedee Quill"),
                         Seat(str(bob["id"]), "Bob"))
        other = int((await fake.add_channel("second"))["id"])
        await play(cityhall, fake, other, Seat(str(bob["id"]), "Bob"), Seat(zid, "Zeb Q"))
        await cityhall.storage.set_value(notify_key(zid), "dm")
        third = int((await fake.add_channel("third"))["id"])
        lobby = await cityhall.runtime.open_lobby(int(fake.guild_id), third, "noughts",
                                                  Seat(str(bob["id"]), "Bob"), {})
        await cityhall.runtime.join(lobby.id, Seat(zid, "Zebedee Quill"))
        bob_before = await cityhall.storage.ratings_of(int(fake.guild_id), str(bob["id"]))

    refused = await forget_tool.forget(str(db), zid)
    assert [m[0] for m in refused.unfinished] == [lobby.id]
    assert "Nothing was changed" in forget_tool.report(zid, refused)
    assert any(zid in text for _table, text in every_text(db))

    async with harness_bot(fake, db) as cityhall:
        await cityhall.runtime.leave(lobby.id, zid)
    done = await forget_tool.forget(str(db), zid)
    assert not done.unfinished and done.rows["results"] == 2 and done.rows["ratings"] == 1
    assert sorted(done.names) == ["Zeb Q", "Zebedee Quill"]
    # the command line refuses what is not a user id, touching nothing
    assert await asyncio.to_thread(forget_tool.main, "Zebedee", database=str(db)) == 2
    leftovers = [(table, text) for table, text in every_text(db)
                 if zid in text or "Zebedee" in text or "Zeb Q" in text]
    assert leftovers == []
    async with harness_bot(fake, db) as cityhall:
        kept = await cityhall.storage.get(one.id)
        assert kept is not None and [(s.id, s.name) for s in kept.seats] == [
            ("0", "Forgotten player"), (str(bob["id"]), "Bob")]
        # the game still replays: the seat's moves under its new id
        assert [p for p, _a in await cityhall.storage.actions(one.id)][:2] == [
            "0", str(bob["id"])]
        assert await cityhall.storage.value(notify_key(zid)) is None
        # Bob keeps what he had: others' ratings are not recomputed
        after = await cityhall.storage.ratings_of(int(fake.guild_id), str(bob["id"]))
        assert after == bob_before


@pytest.mark.fakediscord(allow_failed=True, interaction_timeout=15.0, rate_limit_scale=0.1)
@pytest.mark.timeout(120)
async def test_a_kill_right_after_the_last_move_rates_the_game_exactly_once(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot process is killed (SIGKILL) the moment the last move's commit is in the
    database, before it can do anything after it; after a restart the game is rated once."""
    fake = fake_discord
    monkeypatch.setenv("EXTRA_GAMES", "tests.noughts")
    session = KillSession(fake, tmp_path / "cityhall.sqlite3", 1,
                          await users(fake, "Ann", "Bob"))
    await session.start()
    try:
        (ann_id, ann), (bob_id, bob) = session.users.items()
        lobby = (await (await fake.slash(ann, fake.channel_id, "noughts", ["new"], {}))
                 .seen(timeout=20)).message
        assert lobby is not None
        await (await fake.click(bob, lobby, button_id(lobby, "Join"))).seen(timeout=20)
        await (await fake.click(ann, lobby, button_id(lobby, "Start"))).seen(timeout=20)
        saved = session.db.match_in(fake.channel_id)
        assert saved is not None
        for turn, cell in enumerate(MOVES):
            table = session.table_message(saved)
            prefix = f"ch:nx:{saved.id}:v{saved.version}:"
            await fake.wait_until(lambda t=table, p=prefix: any(  # type: ignore[misc]
                i.startswith(p) for i in component_ids(t)), 20, "the board")
            ix = await fake.click((ann, bob)[turn % 2], table, f"{prefix}c{cell}")
            if turn < len(MOVES) - 1:
                await ix.seen(timeout=20)
                saved = session.db.match(saved.id)
        # the last move: kill as soon as its commit shows
        match_id = saved.id
        await fake.wait_until(lambda: session.db.match(match_id).status == "over", 20,
                              "the last move's commit")
        assert session.process is not None
        session.process.send_signal(signal.SIGKILL)
        await session.process.wait()
        session.process = None
        with sqlite3.connect(session.db_path) as conn:
            rated = conn.execute("SELECT player_id, games FROM ratings ORDER BY player_id"
                                 ).fetchall()
        assert rated == sorted([(ann_id, 1), (bob_id, 1)])
        await session.restart()
        await asyncio.sleep(0.5)  # the restarted bot settles its tables
        await session.stop()
        with sqlite3.connect(session.db_path) as conn:
            assert conn.execute("SELECT player_id, games FROM ratings ORDER BY player_id"
                                ).fetchall() == rated
            assert conn.execute("SELECT COUNT(*) FROM rating_changes").fetchone() == (2,)
        assert (await ratings_tool.rebuild(str(session.db_path)))["ratings"] == 0
    finally:
        await session.stop()
