"""A way in for newcomers: /help, and How to play in every game's lobby, both private."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.games import ENGINES, GAMES
from cogs.bigcity import RULES as BIGCITY_RULES
from cogs.bigcityz import RULES as BIGCITYZ_RULES
from cogs.cities import RULES as CITIES_RULES
from cogs.cityscape import RULES as CITYSCAPE_RULES
from fakediscord import FakeDiscord
from tests.harness import button_id, cityhall_bot

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

RULES = {"cityscape": CITYSCAPE_RULES, "bigcityz": BIGCITYZ_RULES, "bigcity": BIGCITY_RULES,
         "cities": CITIES_RULES}


async def test_help_tells_a_newcomer_what_cityhall_is_and_how_to_start(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    eve = await fake.add_member("Eve")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        assert "help" in {c["name"] for c in fake.commands(fake.guild_id)}
        answer = await (await fake.slash(eve, fake.channel_id, "help", [], {})).seen(timeout=5)
        assert answer.ephemeral
        assert answer.message is not None
        (embed,) = answer.message.embeds
        text = "\n".join([embed["title"], embed["description"],
                          *(f"{f['name']}\n{f['value']}" for f in embed["fields"])])
        assert "board games" in text
        games = next(f["value"] for f in embed["fields"] if f["name"] == "The games")
        lines = games.splitlines()
        assert len(lines) == len(GAMES)  # one line each
        for name, engine in ENGINES.items():
            line = next(line for line in lines if f"**{engine.title}**" in line)
            assert f"{engine.min_players}–{engine.max_players} players" in line
            assert f"/{name} new" in line
        for command in ("/game status", "/game end", "/stats", "Join", "Start", "How to play"):
            assert command in text
        minutes = round(bot.settings.turn_seconds / 60)
        assert f"{minutes} minutes" in text  # how long a move may take
        # nothing else was posted in the channel
        assert not fake.channel_messages(fake.channel_id, ephemeral=False)


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_every_lobby_has_how_to_play_which_answers_privately(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")
    eve = await fake.add_member("Eve")  # not seated, just curious
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", lobbies_per_user=len(GAMES)):
        for name, engine in ENGINES.items():
            channel = (await fake.add_channel(f"{name}-games"))["id"]
            lobby = (await (await fake.slash(ann, channel, name, ["new"], {}))
                     .seen(timeout=5)).message
            assert lobby is not None
            assert lobby.embeds, lobby.content  # a lobby, not a refusal
            before = (lobby.content, lobby.embeds, lobby.components)
            answer = await (await fake.click(eve, lobby, button_id(lobby, "How to play"))
                            ).seen(timeout=5)
            assert answer.ephemeral and answer.message is not None
            (embed,) = answer.message.embeds
            assert embed["title"] == f"How to play {engine.title}"
            assert embed["description"] == RULES[name]
            # the lobby is left as it was: nobody joined, nothing redrawn
            assert (lobby.content, lobby.embeds, lobby.components) == before
            assert not lobby.history
