"""/settings as a server manager uses it: shown in words, changed, kept across a restart and
applied (where games may start, the next turn's time, default options); who sees which
command; and the cooldowns on /game status and /stats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.games import GAMES
from bot.games.cityscape import ENGINE as CITYSCAPE
from fakediscord import FakeDiscord
from tests.harness import Member, answer, button_id, cityhall_bot, cityscape_building, text_of

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

MANAGE_GUILD = 1 << 5
MANAGE_MESSAGES = 1 << 13


async def settings(fake: FakeDiscord, user: dict[str, Any], sub: str | list[str],
                   options: dict[str, Any] | None = None, channel: str | None = None) -> Any:
    path = [sub] if isinstance(sub, str) else sub
    reply = await answer(await fake.slash(user, channel or fake.channel_id, "settings", path,
                                          options or {}))
    assert reply.ephemeral, "settings are answered to the manager only"
    return reply


async def test_only_server_managers_see_settings_and_only_moderators_see_moderate(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3"):
        synced = {c["name"]: c for c in fake.commands(fake.guild_id)}
    assert synced["settings"]["default_member_permissions"] in (MANAGE_GUILD, str(MANAGE_GUILD))
    assert synced["moderate"]["default_member_permissions"] in (MANAGE_MESSAGES, str(MANAGE_MESSAGES))
    # Everyone keeps the commands every player needs.
    for name in ("game", "stats", "cityscape"):
        assert synced[name]["default_member_permissions"] is None, name
    subs = {o["name"] for o in synced["settings"]["options"]}
    assert {"show", "turn_time", "computer_delay", "channels", "defaults"} <= subs


@pytest.fixture
async def admin(fake_discord: FakeDiscord) -> Member:
    """Alice, who administers the fake guild (before ``ann`` in a test's arguments, she is
    added first, as a server's owner would be)."""
    return await fake_discord.add_member("Alice", administrator=True)


async def test_settings_are_shown_changed_and_kept_after_a_restart(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    admin = await fake.add_member("Alice", administrator=True)
    db = tmp_path / "db.sqlite3"
    async with cityhall_bot(fake, db):
        shown = text_of(await settings(fake, admin, "show"))
        assert "10 minutes per move (the bot's default)" in shown
        assert "Games may be started in every channel." in shown

        changed = text_of(await settings(fake, admin, "turn_time", {"minutes": 2, "seconds": 30}))
        assert changed.startswith("Saved.") and "2 minutes 30 seconds per move" in changed
        assert "the bot's default" not in changed.split("\n")[1]
        changed = text_of(await settings(fake, admin, "computer_delay", {"seconds": 2.5}))
        assert "pause 2.5 seconds before each move." in changed
        changed = text_of(await settings(fake, admin, "channels", {"action": "deny"}))
        assert f"every channel except <#{fake.channel_id}>" in changed
        changed = text_of(await settings(fake, admin, ["defaults", "cityscape"], {"rounds": 2}))
        assert "Cityscape defaults for /cityscape new:** 2 rounds" in changed

        refused = text_of(await settings(fake, admin, "turn_time", {"seconds": 5}))
        assert "between 30 seconds and 24 hours" in refused and "Nothing was changed" in refused

    async with cityhall_bot(fake, db) as bot:
        shown = text_of(await settings(fake, admin, "show"))
        assert "2 minutes 30 seconds per move;" in shown
        assert "pause 2.5 seconds" in shown
        assert f"every channel except <#{fake.channel_id}>" in shown
        assert "2 rounds" in shown
        guild = int(fake.guild_id)
        assert bot.servers.turn_seconds(guild) == 150 and bot.servers.cpu_delay(guild) == 2.5

        # Back to the bot's defaults: empty values.
        reset = text_of(await settings(fake, admin, "turn_time"))
        assert "10 minutes per move (the bot's default)" in reset


async def test_games_start_only_where_the_managers_allow(
        fake_discord: FakeDiscord, tmp_path: Path, admin: Member, ann: Member) -> None:
    fake = fake_discord
    other = (await fake.add_channel("other"))["id"]
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        await settings(fake, admin, "channels", {"action": "deny"})
        refused = await answer(await fake.slash(ann, fake.channel_id, "cityscape", ["new"]))
        assert refused.ephemeral
        assert "Games can't be started in this channel" in text_of(refused)
        assert f"every channel except <#{fake.channel_id}>" in text_of(refused)
        assert bot.runtime.in_channel(int(fake.channel_id)) is None

        opened = await answer(await fake.slash(ann, other, "cityscape", ["new"]))
        assert not opened.ephemeral and bot.runtime.in_channel(int(other)) is not None

        # Only listed channels: the one named, and threads in it.
        await settings(fake, admin, "channels", {"action": "only"}, channel=other)
        thread = (await fake.add_thread(other, "a thread"))["id"]
        in_thread = await answer(await fake.slash(ann, thread, "bigcityz", ["new"]))
        assert not in_thread.ephemeral, text_of(in_thread)
        third = (await fake.add_channel("third"))["id"]
        refused = await answer(await fake.slash(ann, third, "cityscape", ["new"]))
        assert f"only in <#{other}>" in text_of(refused)

        await settings(fake, admin, "channels", {"action": "everywhere"})
        opened = await answer(await fake.slash(ann, fake.channel_id, "cityscape", ["new"]))
        assert not opened.ephemeral


async def test_default_options_apply_to_new_lobbies_and_new_wins(
        fake_discord: FakeDiscord, tmp_path: Path, admin: Member, ann: Member) -> None:
    fake = fake_discord
    other = (await fake.add_channel("other"))["id"]
    async with cityhall_bot(fake, tmp_path / "db.sqlite3"):
        await settings(fake, admin, ["defaults", "bigcityz"],
                       {"veto_seconds": 45, "computer_knowledge": "hard"})
        lobby = (await answer(await fake.slash(ann, fake.channel_id, "bigcityz", ["new"]))).message
        assert lobby is not None
        assert "Objection window: 45 s · computer knowledge: more (9 facts in 10)" in str(lobby.embeds[0])
        chosen = (await answer(await fake.slash(ann, other, "bigcityz", ["new"],
                                                {"veto_seconds": 10}))).message
        assert chosen is not None
        assert "Objection window: 10 s · computer knowledge: more (9 facts in 10)" in str(chosen.embeds[0])


async def test_every_game_brings_its_defaults_and_they_are_kept(
        fake_discord: FakeDiscord, tmp_path: Path, admin: Member, ann: Member) -> None:
    """Big City's and Cities' /settings defaults come from their cogs: saved for the server,
    refused for a plain member like every /settings command."""
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        guild = int(fake.guild_id)
        saved = text_of(await settings(fake, admin, ["defaults", "bigcity"], {"trade_cards": True}))
        assert saved.startswith("Saved."), saved
        saved = text_of(await settings(fake, admin, ["defaults", "cities"],
                                       {"city": "Lisbon", "long_variant": True}))
        assert saved.startswith("Saved."), saved
        options = bot.servers.get(guild).game_options
        assert dict(options["bigcity"]) == {"trade_cards": True}
        assert dict(options["cities"]) == {"city": "Lisbon", "variant": "3x5"}
        refused = text_of(await settings(fake, ann, ["defaults", "cities"], {"city": "Sydney"}))
        assert "Manage Server" in refused and "Nothing was changed" in refused
        assert dict(bot.servers.get(guild).game_options["cities"])["city"] == "Lisbon"


async def test_a_changed_turn_time_is_used_from_the_next_turn(fake_discord: FakeDiscord,
                                                              tmp_path: Path) -> None:
    fake = fake_discord
    admin = await fake.add_member("Alice", administrator=True)
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match = await cityscape_building(fake, bot, ann, bob)
        assert match.state is not None

        def turn_limit() -> float:
            deadline = bot.runtime.deadline(match)
            assert deadline is not None and match.turn_started_at is not None
            return round(deadline - match.turn_started_at)

        assert turn_limit() == 600  # the harness's TURN_SECONDS
        await settings(fake, admin, "turn_time", {"seconds": 45})
        assert turn_limit() == 600, "a running turn keeps the time it started with"
        player = CITYSCAPE.to_act(match.state)[0]
        await bot.after_move(await bot.runtime.act(
            match.id, player, GAMES[CITYSCAPE.name].computer.normal(match.state, player)))
        assert CITYSCAPE.to_act(match.state)[0] != player
        assert turn_limit() == 45


async def test_status_and_stats_have_a_cooldown_and_status_pings_nobody(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3"):
        lobby = (await answer(await fake.slash(ann, fake.channel_id, "cityscape", ["new"]))).message
        await answer(await fake.click(bob, lobby, button_id(lobby, "Join")))
        await answer(await fake.click(ann, lobby, button_id(lobby, "Start")))

        status = await answer(await fake.slash(ann, fake.channel_id, "game", ["status"]))
        assert not status.ephemeral and status.files
        assert "<@" in text_of(status)  # it names who is due...
        assert status.data["allowed_mentions"]["parse"] == []  # ...without pinging them
        assert not status.data["allowed_mentions"].get("users")

        again = await answer(await fake.slash(ann, fake.channel_id, "game", ["status"]))
        assert again.ephemeral and not again.files
        assert "You used /game status here a moment ago; try again in" in text_of(again)
        # Per member: Bob is not held back by Ann.
        other = await answer(await fake.slash(bob, fake.channel_id, "game", ["status"]))
        assert not other.ephemeral

        board = await answer(await fake.slash(ann, fake.channel_id, "stats"))
        assert not board.ephemeral and board.data["embeds"]
        refused = await answer(await fake.slash(ann, fake.channel_id, "stats"))
        assert refused.ephemeral and "try again in" in text_of(refused)


# -- forged calls: the bot checks the permission itself (issue 26) ----------------------------


async def test_a_forged_settings_call_from_a_plain_member_changes_nothing(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    # Discord hides /settings from members without Manage Server, but a forged interaction
    # (or a role the admins showed the command to) still reaches the bot.
    fake = fake_discord
    member = await fake.add_member("Mallory")
    moderator = await fake.add_member("Mod", manage_messages=True)
    admin = await fake.add_member("Alice", administrator=True)
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        guild = int(fake.guild_id)
        before = bot.servers.get(guild)
        for caller in (member, moderator):
            for sub, options in (("turn_time", {"minutes": 1}),
                                 ("computer_delay", {"seconds": 9.0}),
                                 ("channels", {"action": "deny"}),
                                 (["defaults", "cityscape"], {"rounds": 2}),
                                 ("show", {})):
                refused = text_of(await settings(fake, caller, sub, options))
                assert refused == ("Only members with the Manage Server permission can change "
                                   "Cityhall's settings. Nothing was changed."), (sub, refused)
        assert bot.servers.get(guild) == before
        saved = text_of(await settings(fake, admin, "turn_time", {"minutes": 1}))
        assert saved.startswith("Saved.")
        assert bot.servers.turn_seconds(guild) == 60


async def test_moderate_end_from_a_plain_member_ends_nothing_but_the_host_may(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        match = await cityscape_building(fake, bot, ann, bob)
        refused = await answer(await fake.slash(bob, fake.channel_id, "moderate", ["end"]))
        assert refused.ephemeral
        assert text_of(refused) == ("Only members with the Manage Messages permission can end "
                                    "someone else's game. Nothing was changed.")
        still = bot.runtime.in_channel(int(fake.channel_id))
        assert still is not None and still.id == match.id and still.status != "over"
        ended = await answer(await fake.slash(ann, fake.channel_id, "moderate", ["end"]))
        assert not ended.ephemeral and "ended by Ann" in text_of(ended)
        assert bot.runtime.in_channel(int(fake.channel_id)) is None
