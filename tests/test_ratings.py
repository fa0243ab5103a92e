"""Ratings: each finished game rates its players once, in the transaction that writes its
results; seasons; the rebuild from the stored results; the upgrade that rates old games.

The rules (places, the shown number, computer levels) are checked without a database; what
the database keeps runs on both backends (``storages``)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from bot.core import ratings
from bot.core.records import ABANDONED, ACTIVE, ENDED, OVER, Match, Seat
from bot.core.storage import SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, ResultRow, Storage

from .runtime_support import BACKENDS, storage_opener

OpenStorage = Callable[..., Awaitable[Storage]]
GUILD = 10


@pytest.fixture(params=BACKENDS)
async def storages(request: pytest.FixtureRequest,
                   tmp_path: Path) -> AsyncIterator[OpenStorage]:
    async with storage_opener(request.param, tmp_path, request) as open_one:
        yield open_one


def seat(rid: str, score: int, won: bool = False) -> ratings.Seat:
    return ratings.Seat(rid, score, won)


def row(player: str, score: int, won: bool = False, *, level: str | None = None,
        name: str | None = None) -> ResultRow:
    cpu = level is not None
    return ResultRow(player_id=player, name=name or (f"Bot {player}" if cpu else f"P{player}"),
                     cpu=cpu, score=score, won=won, extra={}, level=level)


_channels = iter(range(100, 100_000))


async def finish(storage: Storage, rows: list[ResultRow], *, game: str = "cityscape",
                 guild: int = GUILD, status: str = OVER) -> Match:
    """A game saved as finished with ``rows`` as its results, as the runtime saves it."""
    seats = [Seat(r.player_id, r.name, r.cpu, r.level or "normal") for r in rows]
    match = await storage.create_match(Match(
        id=0, guild_id=guild, channel_id=next(_channels), game=game, status=ACTIVE,
        host_id=seats[0].id, seats=seats, options={}, seed=1, state={"turn": 1}))
    match.status, match.version = status, 1
    await storage.save(match, action={"type": "last"}, player=rows[0].player_id, results=rows)
    return match


# -- the rules ----------------------------------------------------------------------------


def test_winners_share_first_place_and_equal_scores_share_theirs() -> None:
    # The engine named two winners (a tie it could not break); the others by score, and a
    # player who scored as much as a winner but lost the tie-break is not first.
    seats = [seat("a", 30), seat("b", 40, True), seat("c", 40, True), seat("d", 30),
             seat("e", 40), seat("f", 10)]
    assert ratings.places(seats) == [4, 1, 1, 4, 3, 6]


def test_a_new_player_shows_1000_and_beating_a_hard_computer_lifts_them() -> None:
    assert ratings.START_RATING == 1000 == ratings.Standing().rating
    hard = ratings.Standing(mu=32.0, sigma=2.0, games=40)
    changes = ratings.rate([seat("1", 50, True), seat("cpu:hard", 40)], {"cpu:hard": hard})
    easy = ratings.Standing(mu=18.0, sigma=2.0, games=40)
    against_easy = ratings.rate([seat("1", 50, True), seat("cpu:easy", 40)],
                                {"cpu:easy": easy})
    assert changes["1"].after.rating > against_easy["1"].after.rating > 1000
    assert changes["cpu:hard"].after.rating < hard.rating
    assert changes["1"].place == 1 and changes["cpu:hard"].place == 2


def test_two_computers_of_one_level_move_that_level_once_by_their_mean() -> None:
    before = ratings.Standing(mu=27.0, sigma=3.0, games=5)
    changes = ratings.rate([seat("cpu:hard", 50, True), seat("1", 40), seat("cpu:hard", 20)],
                           {"cpu:hard": before})
    alone_won = ratings.rate([seat("cpu:hard", 50, True), seat("1", 40), seat("x", 20)],
                             {"cpu:hard": before, "x": before})
    hard = changes["cpu:hard"]
    assert hard.after.games == 6 and hard.place == 1 and hard.before == before
    # the winning seat's gain and the last seat's loss, averaged
    won, lost = alone_won["cpu:hard"].after, alone_won["x"].after
    assert hard.after.mu == pytest.approx((won.mu + lost.mu) / 2)
    assert hard.after.sigma == pytest.approx((won.sigma + lost.sigma) / 2)


# -- what the database keeps ----------------------------------------------------------------


async def test_a_finished_game_rates_each_player_once_and_a_rewritten_result_not_again(
        storages: OpenStorage) -> None:
    storage = await storages()
    rows = [row("1", 50, True), row("2", 30), row("cpu1", 40, level="hard")]
    match = await finish(storage, rows)
    board = (await storage.rating_boards(GUILD, ["cityscape"]))["cityscape"]
    assert [(r.player_id, r.rated, r.cpu) for r in board] == [
        ("1", 1, False), ("cpu:hard", 1, True), ("2", 1, False)]
    assert board[0].rating > 1000 and board[0].wins == 1 and board[0].best == 50
    changes = await storage.match_ratings(match.id)
    assert [(c.player_id, c.place, c.before) for c in changes] == [
        ("1", 1, 1000), ("cpu:hard", 2, 1000), ("2", 3, 1000)]
    # the same results written again (a save repeated): rated once, counted once
    await storage.save(match, results=rows)
    assert (await storage.rating_boards(GUILD, ["cityscape"]))["cityscape"] == board
    assert len(await storage.match_ratings(match.id)) == 3
    assert (await storage.rebuild_ratings()) == {"games": 1, "ratings": 0, "changes": 0}


async def test_ended_and_abandoned_games_are_not_rated(storages: OpenStorage) -> None:
    """The runtime writes no results for a game ended early or abandoned; even results saved
    with such a game (by a tool, say) are neither rated nor rebuilt into ratings."""
    storage = await storages()
    for status in (ENDED, ABANDONED):
        match = await finish(storage, [row("1", 50, True), row("2", 30)], status=status)
        assert await storage.match_ratings(match.id) == []
    assert (await storage.rating_boards(GUILD, ["cityscape"]))["cityscape"] == []
    assert await storage.ratings_of(GUILD, "1") == {}
    assert await storage.rebuild_ratings() == {"games": 0, "ratings": 0, "changes": 0}


async def test_a_new_season_starts_everyone_afresh_and_keeps_the_old_one(
        storages: OpenStorage) -> None:
    storage = await storages()
    await finish(storage, [row("1", 50, True), row("2", 30)])
    await finish(storage, [row("1", 50, True), row("2", 30)], guild=GUILD + 1)
    old = (await storage.rating_boards(GUILD, ["cityscape"]))["cityscape"]
    assert await storage.season(GUILD) == 1
    assert await storage.new_season(GUILD) == 2 and await storage.season(GUILD) == 2
    assert (await storage.rating_boards(GUILD, ["cityscape"]))["cityscape"] == []
    assert (await storage.rating_boards(GUILD, ["cityscape"], season=1))["cityscape"] == old
    # the other server's season goes on
    assert await storage.season(GUILD + 1) == 1
    assert len((await storage.rating_boards(GUILD + 1, ["cityscape"]))["cityscape"]) == 2
    # in the new season Ann starts from 1000 again, and her history keeps both
    match = await finish(storage, [row("2", 50, True), row("1", 30)])
    now = await storage.ratings_of(GUILD, "1")
    assert now["cityscape"].rated == 1 and now["cityscape"].rating < 1000
    history = await storage.rating_history(GUILD, "1", "cityscape")
    assert [(c.season, c.before) for c in history] == [(1, 1000), (2, 1000)]
    assert history[-1].match_id == match.id
    assert (await storage.rebuild_ratings())["ratings"] == 0


async def test_the_rebuild_recomputes_every_rating_and_says_what_differed(
        storages: OpenStorage) -> None:
    storage = await storages()
    for winner, loser in (("1", "2"), ("2", "3"), ("1", "3"), ("3", "1")):
        await finish(storage, [row(winner, 40, True), row(loser, 20),
                               row("cpu1", 30, level="easy")], game="bigcity")
    board = (await storage.rating_boards(GUILD, ["bigcity"]))["bigcity"]
    assert await storage.rebuild_ratings() == {"games": 4, "ratings": 0, "changes": 0}

    def spoil() -> object:
        from bot.core.storage import execute
        yield execute("UPDATE ratings SET rating=rating+7 WHERE player_id='2'")
    await storage.run(spoil)  # type: ignore[arg-type]
    assert await storage.rebuild_ratings() == {"games": 4, "ratings": 1, "changes": 0}
    assert (await storage.rating_boards(GUILD, ["bigcity"]))["bigcity"] == board


@pytest.mark.sqlite_only("an upgrade of an SQLite file written by schema 3")
async def test_an_upgraded_database_has_its_finished_games_rated_at_once(
        tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        for script in (SCHEMA_V1, SCHEMA_V2, SCHEMA_V3):
            conn.executescript(script)
        conn.execute("PRAGMA user_version=3")
        seats = ('[{"id": "1", "name": "Ann", "cpu": false},'
                 ' {"id": "cpu1", "name": "Ada", "cpu": true, "level": "hard"}]')
        for match_id, ann, ada in ((1, 40, 30), (2, 20, 35)):
            conn.execute("INSERT INTO matches (id, guild_id, channel_id, game, status, host_id,"
                         " seats, options, seed, version, extra, created_at, updated_at)"
                         " VALUES (?, 10, 20, 'cities', 'over', '1', ?, '{}', 5, 3, '{}', 0,"
                         " 0)", (match_id, seats))
            for player, name, cpu, score in (("1", "Ann", 0, ann), ("cpu1", "Ada", 1, ada)):
                conn.execute("INSERT INTO results VALUES (?, 10, 'cities', ?, ?, ?, ?, ?,"
                             " '{}', ?)", (match_id, player, name, cpu, score,
                                           int(score == max(ann, ada)), match_id))
    storage = await Storage.open(path)
    try:
        board = (await storage.rating_boards(10, ["cities"]))["cities"]
        assert {(r.player_id, r.rated) for r in board} == {("1", 2), ("cpu:hard", 2)}
        history = await storage.rating_history(10, "cpu:hard")
        assert [c.match_id for c in history] == [1, 2]  # in the order they finished
        assert history[0].place == 2 and history[1].place == 1
        assert await storage.rebuild_ratings() == {"games": 2, "ratings": 0, "changes": 0}
    finally:
        await storage.close()


async def test_games_finishing_at_once_with_the_same_players_are_each_rated_in_turn(
        storages: OpenStorage) -> None:
    """Twelve games finish together, all against the hard computer and sharing people: none
    of their ratings is lost (PostgreSQL rates them in parallel transactions), and the
    rebuild, following the stored finishing order, gets the same numbers."""
    storage = await storages()
    people = [str(n) for n in range(1, 5)]
    await asyncio.gather(*(
        finish(storage, [row(people[i % 4], 10 + i, i % 3 == 0), row(people[(i + 1) % 4], 20),
                         row("cpu1", 15, i % 3 != 0, level="hard")])
        for i in range(12)))
    rated = await storage.ratings_of(GUILD, "cpu:hard")
    assert rated["cityscape"].rated == 12
    assert sum(r.rated for r in (await storage.rating_boards(GUILD, ["cityscape"]))[
        "cityscape"]) == 12 * 3
    assert await storage.rebuild_ratings() == {"games": 12, "ratings": 0, "changes": 0}
