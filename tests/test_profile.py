"""/profile through the fake Discord: a member's page after a few finished games (seeded
through Storage.save, which rates them) is a picture of their figures with the same figures
in its alt text, private unless posted; a member with no finished game gets a sentence."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from PIL import Image

from bot.app import CityhallBot
from bot.core.i18n import PSEUDO, speaking
from bot.core.records import ACTIVE, OVER, Match, Seat
from bot.core.storage import ResultRow, Storage
from bot.render.kit import least_text, recording_text
from bot.render.profile import render_profile, sample
from fakediscord import FakeDiscord
from tests.harness import answer, cityhall_bot, text_of

_channels = iter(range(500, 100_000))


def result(member: dict[str, Any] | str, score: int, won: bool = False) -> ResultRow:
    """A seat's result: a member of the fake guild, or a computer at a level."""
    if isinstance(member, str):
        return ResultRow(player_id=f"cpu{score}", name="Ada (computer)", cpu=True,
                         score=score, won=won, extra={}, level=member)
    return ResultRow(player_id=str(member["id"]), name=str(member["username"]), cpu=False,
                     score=score, won=won, extra={})


async def finish(storage: Storage, guild: int, game: str, rows: list[ResultRow],
                 moves: int = 12) -> Match:
    """A game saved as ended by its rules with ``rows`` as its results, as the runtime
    saves the last move (which rates it in the same transaction)."""
    seats = [Seat(r.player_id, r.name, r.cpu, r.level or "normal") for r in rows]
    match = await storage.create_match(Match(
        id=0, guild_id=guild, channel_id=next(_channels), game=game, status=ACTIVE,
        host_id=seats[0].id, seats=seats, options={}, seed=1, state={"turn": 1}))
    match.status, match.version = OVER, moves + 1
    await storage.save(match, action={"type": "last"}, player=rows[0].player_id, results=rows)
    return match


def spy_on_pictures(bot: CityhallBot) -> list[dict[str, Any]]:
    """What the bot asks the render pool to draw as a profile, in order."""
    drawn: list[dict[str, Any]] = []
    real: Callable[..., Awaitable[Any]] = bot.pictures.render

    async def render(module: str, function: str, *args: Any, **kwargs: Any) -> Any:
        if module == "profile":
            drawn.append(args[0])
        return await real(module, function, *args, **kwargs)

    bot.pictures.render = render  # type: ignore[method-assign,assignment]
    return drawn


async def test_a_members_profile_shows_their_figures_in_the_picture_and_its_alt_text(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann, bob = await fake.add_member("Ann"), await fake.add_member("Bob")
    guild = int(fake.guild_id)
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        await finish(bot.storage, guild, "cityscape", [result(ann, 30, True), result(bob, 20)])
        await finish(bot.storage, guild, "cityscape", [result(ann, 11), result(bob, 25, True)])
        await finish(bot.storage, guild, "bigcity",
                     [result(ann, 80, True), result("hard", 70), result(bob, 60)])
        drawn = spy_on_pictures(bot)

        shown = await answer(await fake.slash(ann, fake.channel_id, "profile"))
        assert shown.ephemeral, "a profile is private unless its asker posts it"
        assert text_of(shown) == "Profile of **Ann**"
        [data] = drawn
        assert data["name"] == "Ann" and data["single"] is False
        # the favourite (most played) first, each game's own figures
        assert [(g["title"], g["games"], g["wins"], g["best"], g["average"], g["rated"])
                for g in data["games"]] == [("Cityscape", 2, 1, 30, 20.5, 2),
                                            ("Big City", 1, 1, 80, 80.0, 1)]
        cityscape, bigcity = data["games"]
        assert len(cityscape["points"]) == 2 and cityscape["start"] == 1000
        assert cityscape["rating"] == cityscape["points"][-1][1]
        assert bigcity["rating"] > 1000, "a win over a hard computer and Bob raises it"
        # the last games, newest first: the Big City win, then the Cityscape loss and win
        assert [(r["title"], r["won"], r["place"], r["players"], r["score"])
                for r in data["recent"]] == [("Big City", True, 1, 3, 80),
                                             ("Cityscape", False, 2, 2, 11),
                                             ("Cityscape", True, 1, 2, 30)]
        picture = shown.message.attachment("profile.png") if shown.message else None
        assert picture is not None and picture.data.startswith(b"\x89PNG\r\n\x1a\n")
        image = Image.open(io.BytesIO(picture.data))
        assert image.width == 800 and 600 <= image.height <= 1600
        assert 20_000 < len(picture.data) < 400_000
        alt = picture.description or ""
        assert alt.startswith("Profile of Ann: 3 games, 2 wins. Favourite game: Cityscape. ")
        assert (f"Cityscape: rating {cityscape['rating']:,} from 2 rated games; 2 games, 1 win, "
                "best score 30, average 20.5.") in alt
        assert (f"Big City: rating {bigcity['rating']:,} from 1 rated game; 1 game, 1 win, best "
                "score 80, average 80.") in alt
        assert "Last games: Big City, won, 80 points, " in alt
        assert "; Cityscape, place 2 of 2, 11 points, " in alt

        # Bob posts Ann's Big City page in the channel: public, about that game only.
        posted = await answer(await fake.slash(bob, fake.channel_id, "profile", [],
                                               {"member": ann, "game": "bigcity",
                                                "post": True}))
        assert not posted.ephemeral
        assert text_of(posted) == "Profile of **Ann** · Big City"
        single = drawn[-1]
        assert single["single"] is True and [g["title"] for g in single["games"]] == ["Big City"]
        assert [r["title"] for r in single["recent"]] == ["Big City"]
        assert posted.message is not None
        assert (posted.message.attachment("profile.png").description or "").startswith(
            "Profile of Ann: 1 game, 1 win. Big City: rating ")


async def test_a_member_with_no_finished_game_gets_a_sentence_not_a_picture(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann, cid = await fake.add_member("Ann"), await fake.add_member("Cid")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        await finish(bot.storage, int(fake.guild_id), "cityscape",
                     [result(ann, 30, True), result("easy", 20)])
        drawn = spy_on_pictures(bot)
        own = await answer(await fake.slash(cid, fake.channel_id, "profile"))
        assert own.ephemeral and not (own.message and own.message.attachments)
        assert text_of(own).startswith("You have not finished a game in this server yet. "
                                       "Start one with /cityscape new, ")
        other = await answer(await fake.slash(ann, fake.channel_id, "profile", [],
                                              {"member": cid, "post": True}))
        assert other.ephemeral, "nothing to post: the sentence is the asker's alone"
        assert text_of(other) == "Cid has not finished a game in this server yet."
        # Ann has played Cityscape, not Cities.
        none = await answer(await fake.slash(ann, fake.channel_id, "profile", [],
                                             {"game": "cities"}))
        assert text_of(none) == ("You have not finished a Cities game in this server yet. "
                                 "Start one with /cities new!")
        assert drawn == []


def test_the_profile_picture_stays_readable_on_a_phone_in_a_longer_language() -> None:
    """Four games, a long name, the pseudo-locale's 40 % longer words: every word at least
    the size docs/pictures.md asks for, inside the picture and inside the room it was given."""
    with speaking(PSEUDO), recording_text() as drawn:
        png = render_profile({**sample(), "name": "Maximiliane Annabel von Hohenzollern"})
    width = Image.open(io.BytesIO(png)).width
    assert drawn
    for text in drawn:
        assert text.size >= least_text(width, text.secondary), text
        assert text.ink is not None
        assert text.ink[0] >= 0 and text.ink[2] <= width, text
        if text.max_width is not None:
            assert text.box[2] - text.box[0] <= text.max_width, text
    # the figures themselves are never cut, whatever the words around them do
    shown = {t.text for t in drawn}
    assert {"70", "28", "1,130", "61.2"} <= shown
