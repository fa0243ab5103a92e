"""/history through the fake Discord: the server's finished games, newest first, a page at
a time (bot/ui/history.py); pages that stay put as new games end; each entry a replay away;
someone else's page buttons and a listing whose games are gone refused in a sentence."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import bot.games
from bot.app import CityhallBot
from bot.core.records import ACTIVE, ENDED, OVER, Match, Seat
from bot.core.storage import records
from bot.core.storage.records import PAGE_SIZE
from bot.ui.history import NOT_YOURS, OUTDATED
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage
from tests.harness import answer, button_id, cityhall_bot, text_of
from tests.noughts import GAME as NOUGHTS
from tests.runtime_support import BACKENDS, OpenStorage, storage_opener
from tests.test_profile import finish, result

_channels = iter(range(900, 100_000))


@pytest.fixture(autouse=True)
def noughts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test-only game in the catalogue: one real game, so that its replay opens."""
    monkeypatch.setitem(bot.games.GAMES, "noughts", NOUGHTS)


async def noughts_won_by(cityhall: CityhallBot, winner: dict[str, Any], loser: dict[str, Any],
                         guild_id: int) -> Match:
    """``winner`` (X) takes the top row while ``loser`` answers in the middle row."""
    await cityhall.load_extension("tests.noughts.cog")
    runtime = cityhall.runtime
    lobby = await runtime.open_lobby(guild_id, next(_channels), "noughts",
                                     Seat(str(winner["id"]), str(winner["username"])), {})
    await runtime.join(lobby.id, Seat(str(loser["id"]), str(loser["username"])))
    match = await runtime.start(lobby.id, str(winner["id"]))
    for turn, cell in enumerate((0, 3, 1, 4, 2)):
        player = str((winner, loser)[turn % 2]["id"])
        outcome = await runtime.act(match.id, player, {"type": "mark", "cell": cell})
    assert outcome.match.status == OVER
    return outcome.match


def listed(message: FakeMessage) -> list[int]:
    """The match ids a page offers in its replay menu, in order."""
    [menu] = [c for c in message.iter_components() if c.get("type") == 3]
    return [int(o["value"]) for o in menu["options"]]


def page_buttons(message: FakeMessage) -> dict[str, bool]:
    """Each page button's label and whether it is enabled."""
    return {str(c["label"]): not c.get("disabled") for c in message.iter_components()
            if c.get("type") == 2}


def description(message: FakeMessage) -> str:
    return str(message.embeds[0]["description"])


async def test_history_lists_the_servers_games_newest_first_and_pages_through_them(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann, bob, cid = [await fake.add_member(n) for n in ("Ann", "Bob", "Cid")]
    guild = int(fake.guild_id)
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as cityhall:
        store = cityhall.storage
        first = await noughts_won_by(cityhall, ann, bob, guild)
        ids = [first.id]
        for i in range(PAGE_SIZE):  # the first page's worth after it, each with 12 moves
            game = ("cityscape", "bigcity")[i % 2]
            rows = [result(ann, 20 + i, i % 3 == 0), result(bob, 25, i % 3 != 0)]
            if game == "bigcity":
                rows.append(result("hard", 10))
            ids.append((await finish(store, guild, game, rows)).id)
        # a game ended early has no result: never in the history
        ended = await store.create_match(Match(
            id=0, guild_id=guild, channel_id=next(_channels), game="cities", status=ACTIVE,
            host_id=str(cid["id"]), seats=[Seat(str(cid["id"]), "Cid")], options={}, seed=1))
        ended.status = ENDED
        await store.save(ended)
        # another server's game neither
        await finish(store, guild + 1, "cityscape", [result(cid, 9, True), result(bob, 1)])

        shown = await answer(await fake.slash(cid, fake.channel_id, "history"))
        assert shown.ephemeral, "a history is private unless its asker posts it"
        page = shown.message
        assert page is not None
        newest = ids[::-1]
        assert listed(page) == newest[:PAGE_SIZE]
        assert page.embeds[0]["title"] == "Finished games"
        assert page.embeds[0]["footer"]["text"] == "Page 1 · newest first"
        # each game: its title, when it ended, its length, the winners first with scores
        blocks = description(page).split("\n\n")
        assert len(blocks) == PAGE_SIZE
        assert blocks[0].startswith(f"**Big City** · game {newest[0]} · <t:")
        assert "· 12 moves\n" in blocks[0]
        assert blocks[0].endswith("\n🏆 **Bob** 25 · Ann 27 · Ada (hard) 10")
        assert blocks[1].endswith("\n🏆 **Ann** 26 · Bob 25")  # i = 6: Ann's win
        assert page_buttons(page) == {"◀ Newer": False, "Older ▶": True}
        [menu] = [c for c in page.iter_components() if c.get("type") == 3]
        assert menu["options"][0]["label"].startswith(f"Big City {newest[0]} · ")
        assert menu["options"][0]["label"].endswith(" · Bob won")

        # A game ends meanwhile: the listing keeps the games it had, pages do not shift.
        late = await finish(store, guild, "cities", [result(cid, 50, True), result(ann, 40)])
        older = await answer(await fake.click(cid, page, button_id(page, "Older ▶")))
        assert older.type == 7, "the page changes in place"
        assert listed(page) == [first.id]
        assert page.embeds[0]["footer"]["text"] == "Page 2 · newest first"
        assert description(page).startswith(f"**Noughts and Crosses** · game {first.id} · <t:")
        assert "· 5 moves\n🏆 **Ann** " in description(page)
        assert page_buttons(page) == {"◀ Newer": True, "Older ▶": False}
        await answer(await fake.click(cid, page, button_id(page, "◀ Newer")))
        assert listed(page) == newest[:PAGE_SIZE] and late.id not in listed(page)

        # A fresh /history has the new game on top.
        again = await answer(await fake.slash(cid, fake.channel_id, "history"))
        assert again.message is not None and listed(again.message)[0] == late.id

        # Its entry opens the replay of that game, privately.
        await answer(await fake.click(cid, page, button_id(page, "Older ▶")))
        opened = await answer(await fake.select(cid, page, f"ch:histr:{newest[0]}:1",
                                                [str(first.id)]))
        assert opened.ephemeral
        assert text_of(opened).startswith(
            f"🎞️ Replay of **Noughts and Crosses** game {first.id}\nThe start (5 moves in all).")

        # The game played through the bot was rated, and Ann's profile shows it.
        shown = await answer(await fake.slash(ann, fake.channel_id, "profile"))
        assert shown.message is not None
        alt = shown.message.attachment("profile.png").description or ""
        assert re.search(r"Noughts and Crosses: rating 1,[1-9]\d\d from 1 rated game; 1 game, "
                         r"1 win, best score 1, average 1\.", alt), "a won game raised it"


async def test_a_posted_history_pages_for_its_asker_only_after_a_restart_too_and_a_gone_listing_says_so(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann, bob, cid = [await fake.add_member(n) for n in ("Ann", "Bob", "Cid")]
    guild = int(fake.guild_id)
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as cityhall:
        store = cityhall.storage
        for i in range(PAGE_SIZE + 2):
            await finish(store, guild, "cityscape", [result(ann, 30 + i, True), result(bob, 20)])
        await finish(store, guild, "bigcity", [result(cid, 30, True), result(ann, 20)])

        posted = await answer(await fake.slash(ann, fake.channel_id, "history", [],
                                               {"game": "cityscape", "post": True}))
        assert not posted.ephemeral
        page = posted.message
        assert page is not None and page.embeds[0]["title"] == "Finished Cityscape games"
        before = list(listed(page))
        refused = await answer(await fake.click(bob, page, button_id(page, "Older ▶")))
        assert refused.ephemeral
        assert text_of(refused) == NOT_YOURS.format(history="/history")
        assert listed(page) == before, "nothing changed"

    # After a restart the asker turns the posted list's page, for everyone.
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as cityhall:
        store = cityhall.storage
        turned = await answer(await fake.click(ann, page, button_id(page, "Older ▶")))
        assert turned.type == 7 and len(listed(page)) == 2
        assert not page.ephemeral and page.embeds[0]["title"] == "Finished Cityscape games"

        # Bob's own games, listed for Ann; then Bob asks to be forgotten.
        his = await answer(await fake.slash(ann, fake.channel_id, "history", [],
                                            {"member": bob}))
        assert his.message is not None
        assert his.message.embeds[0]["title"] == "Finished games of Bob"
        assert len(listed(his.message)) == PAGE_SIZE
        forgotten = await store.forget(str(bob["id"]))
        assert not forgotten.unfinished
        gone = await answer(await fake.click(ann, his.message, button_id(his.message,
                                                                           "Older ▶")))
        assert gone.ephemeral and text_of(gone) == OUTDATED.format(history="/history")

        nobody = await answer(await fake.slash(ann, fake.channel_id, "history", [],
                                               {"member": bob}))
        assert text_of(nobody) == "Bob has no finished game in this server yet."
        none = await answer(await fake.slash(ann, fake.channel_id, "history", [],
                                             {"game": "cities"}))
        assert text_of(none) == "No Cities game has been finished in this server yet."


@pytest.fixture(params=BACKENDS)
async def storages(request: pytest.FixtureRequest,
                   tmp_path: Path) -> AsyncIterator[OpenStorage]:
    async with storage_opener(request.param, tmp_path, request) as open_one:
        yield open_one


async def test_the_reads_page_and_count_alike_on_both_databases(
        storages: OpenStorage) -> None:
    """The SQL behind /history and /profile (bot/core/storage/records.py) on SQLite and on
    PostgreSQL: pages, filters, anchors, totals, averages and places."""
    store = await storages()
    ann, bob = {"id": 11, "username": "Ann"}, {"id": 12, "username": "Bob"}
    made = []
    for i in range(PAGE_SIZE + 3):
        game = "cities" if i % 4 == 3 else "cityscape"
        made.append((await finish(store, 1, game, [result(ann, 10 + i, i % 2 == 0),
                                                    result(bob, 15, i % 2 == 1)], moves=i)).id)
    await finish(store, 2, "cityscape", [result(bob, 1, True), result(ann, 0)])
    newest = made[::-1]

    first = await records.history(store, 1)
    assert [e.match_id for e in first.entries] == newest[:PAGE_SIZE] and first.more
    assert first.anchor == newest[0] and first.entries[0].moves == PAGE_SIZE + 2
    late = await finish(store, 1, "cities", [result(ann, 99, True), result(bob, 1)])
    second = await records.history(store, 1, page=1, anchor=first.anchor)
    assert [e.match_id for e in second.entries] == newest[PAGE_SIZE:] and not second.more
    fresh = await records.history(store, 1)
    assert fresh.entries[0].match_id == late.id
    cities = await records.history(store, 1, game="cities")
    assert [e.match_id for e in cities.entries] == [late.id, made[7], made[3]]
    bobs = await records.history(store, 1, player_id="12", game="cityscape", page=1, size=3)
    assert [e.match_id for e in bobs.entries] == [made[6], made[5], made[4]]
    winners = [s.seat.name for s in first.entries[0].seats if s.won]
    assert winners == ["Ann"] and [s.score for s in first.entries[0].seats] == [20, 15]

    mine = await records.profile(store, 1, "11")
    assert mine is not None and mine.favourite == "cityscape"
    assert [(g.game, g.games, g.wins, g.best, g.average) for g in mine.games] == [
        ("cityscape", 9, 6, 20, 15.0), ("cities", 3, 1, 99, 43.0)]
    assert all(g.rating is not None and g.rated == g.games for g in mine.games)
    assert [(r.match_id, r.won, r.place, r.players) for r in mine.recent[:2]] == [
        (late.id, True, 1, 2), (made[-1], True, 1, 2)]
    assert [(r.won, r.place) for r in mine.recent[2:4]] == [(False, 2), (True, 1)]
    only = await records.profile(store, 1, "11", "cities")
    assert only is not None and [g.game for g in only.games] == ["cities"]
    assert len(only.games[0].points) == 3 and only.games[0].start == 1000
    assert await records.profile(store, 1, "13") is None
