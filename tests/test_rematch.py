"""Rematch through the fake Discord (bot/ui/rematch.py): after a finished game, the final
table's Rematch opens a new lobby in the channel with the same options and computer players
at their levels, the first presser hosting; a second presser is seated, a press by someone
seated is answered kindly; a press while the channel has an unfinished game changes
nothing; and the Rematch of an older game says a newer one was played. The finished games
are seeded through the storage (a one-round Cityscape game the computer plays for all)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import CityhallBot
from bot.core.records import ACTIVE, LOBBY, OVER, Match, Seat
from bot.core.storage import ResultRow
from bot.games import GAMES
from fakediscord import FakeDiscord
from fakediscord.models import FakeMessage
from tests.harness import Member, answer, button_id, cityhall_bot, started_table, text_of

OPTIONS = {"rounds": 1}


async def finished_game(fake: FakeDiscord, bot: CityhallBot, *people: Member,
                        level: str = "hard") -> tuple[Match, FakeMessage]:
    """A one-round Cityscape game of ``people`` and a computer player at ``level``, played
    to its end and saved move by move as the runtime saves it, and its final table posted
    in the channel: the match and that message."""
    record = GAMES["cityscape"]
    engine = record.engine
    seats = [*(Seat(str(p["id"]), p["username"]) for p in people),
             Seat("cpu1", "Ada (computer)", cpu=True, level=level)]
    match = Match(id=0, guild_id=int(fake.guild_id), channel_id=int(fake.channel_id),
                  game="cityscape", status=LOBBY, host_id=seats[0].id, seats=seats,
                  options=dict(OPTIONS), seed=7)
    await bot.storage.create_match(match)
    match.state = engine.new(match.player_ids, match.options, match.seed)
    match.status, match.version = ACTIVE, 1
    await bot.storage.save(match)
    while (result := engine.result(match.state)) is None:
        player = engine.to_act(match.state)[0]
        action = record.computer.normal(match.state, player)
        match.state, _events = engine.apply(match.state, player, action)
        match.version += 1
        rows: list[ResultRow] = []
        if (result := engine.result(match.state)) is not None:
            match.status = OVER
            rows = [ResultRow(s.id, s.name, s.cpu, int(result.scores.get(s.id, 0)),
                              s.id in result.winners, {}) for s in seats]
        await bot.storage.save(match, action=action, player=player, results=rows)
    sent = await bot.tables.repost(match)
    assert sent is not None
    return match, fake.message(sent.id)


def seats_of(match: Match) -> list[tuple[str, bool, str]]:
    return [(s.id, s.cpu, s.level) for s in match.seats]


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_rematch_seats_both_players_and_the_computer_at_its_level(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann, bob, cid = [await fake.add_member(n) for n in ("Ann", "Bob", "Cid")]
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        old, final = await finished_game(fake, bot, ann, bob)
        rematch = button_id(final, "Rematch")
        assert rematch == f"ch:rematch:{old.id}"

        # Bob presses first: he hosts the new lobby, with the same options, and the hard
        # computer player is back at its level.
        opened = await answer(await fake.click(bob, final, rematch))
        assert not opened.ephemeral and opened.message is not None
        lobby = bot.runtime.in_channel(int(fake.channel_id))
        assert lobby is not None and lobby.status == LOBBY and lobby.id != old.id
        assert lobby.host_id == str(bob["id"]) and lobby.options == OPTIONS
        assert seats_of(lobby) == [(str(bob["id"]), False, "normal"), ("cpu1", True, "hard")]
        shown = str(opened.message.embeds)
        assert "Bob" in shown and "hard" in shown and "1 round" in shown, shown

    # A restart: the old table's Rematch still leads to the same lobby.
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        seated = await answer(await fake.click(ann, final, rematch))
        lobby = bot.runtime.in_channel(int(fake.channel_id))
        assert lobby is not None and lobby.status == LOBBY
        assert seated.ephemeral and "You have a seat in the rematch." in text_of(seated)
        assert f"/{lobby.table_message_id}" in text_of(seated), "a link to the lobby"
        assert seats_of(lobby)[-1] == (str(ann["id"]), False, "normal")
        again = await answer(await fake.click(ann, final, rematch))
        assert again.ephemeral
        assert "You already have a seat in this rematch." in text_of(again)
        assert len(lobby.seats) == 3, "nothing changed"
        await fake.wait_until(lambda: "Ann" in str(opened.message.embeds), 5,
                              "Ann listed in the lobby message")

        # The lobby starts as any lobby does; a press after that says so.
        await answer(await fake.click(bob, opened.message, button_id(opened.message, "Start")))
        assert lobby.status == ACTIVE and len(lobby.seats) == 3
        late = await answer(await fake.click(cid, final, rematch))
        assert "This rematch has already started." in text_of(late)
        assert len(lobby.seats) == 3


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_a_busy_channel_and_an_older_game_refuse_a_rematch(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann, bob = [await fake.add_member(n) for n in ("Ann", "Bob")]
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        _old, final = await finished_game(fake, bot, ann)
        rematch = button_id(final, "Rematch")
        # Another game is running in the channel: the Rematch says so and changes nothing.
        newer, _ = await started_table(fake, bot, "cityscape", bob, computers=1)
        busy = await answer(await fake.click(ann, final, rematch))
        assert busy.ephemeral and "already has an unfinished game" in text_of(busy)
        assert bot.runtime.in_channel(int(fake.channel_id)) is newer
        # Once it ended (it was played, not just a lobby), the older Rematch is closed.
        await bot.runtime.end(newer.id, str(bob["id"]), can_manage=True)
        closed = await answer(await fake.click(ann, final, rematch))
        said = text_of(closed)
        assert "A newer game has been played in this channel" in said
        assert "/cityscape new" in said
        assert bot.runtime.in_channel(int(fake.channel_id)) is None
