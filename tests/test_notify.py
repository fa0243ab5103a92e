"""/notify through the fake Discord: each player chooses how they are told it is their move
(channel pings, a direct message, or off), the answer says the choice, and the turn's ping
goes each player's way with a link to the table; a player whose direct messages Discord
refuses is pinged in the channel instead (bot/ui/pings.py, cogs/notify.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.i18n import Words
from fakediscord import FakeDiscord
from fakediscord.components import buttons
from fakediscord.models import FakeMessage
from tests.harness import answer, cityhall_bot, started_table, text_of


def link_of(message: FakeMessage) -> str:
    [button] = buttons(message)
    return str(button.get("url"))


@pytest.mark.fakediscord(rate_limit_scale=0.1)
async def test_each_player_is_told_their_way_with_a_link_to_the_table(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")  # direct messages
    bob = await fake.add_member("Bob")  # off
    cid = await fake.add_member("Cid")  # direct messages, which Discord refuses him
    fake.close_dms(cid)
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        shown = await answer(await fake.slash(ann, fake.channel_id, "notify"))
        assert shown.ephemeral and text_of(shown).startswith("Your turns: **channel pings**.")
        chosen = await answer(await fake.slash(ann, fake.channel_id, "notify", [],
                                               {"how": "dm"}))
        assert chosen.ephemeral
        assert text_of(chosen).startswith("Your turns: **direct message**.")
        assert text_of(chosen).endswith("This applies in every server, from your next turn on.")
        off = await answer(await fake.slash(bob, fake.channel_id, "notify", [], {"how": "off"}))
        assert text_of(off).startswith("Your turns: **off**. No pings and no reminders")
        await answer(await fake.slash(cid, fake.channel_id, "notify", [], {"how": "dm"}))
        assert await bot.storage.value(f"user:{ann['id']}:notify") == "dm"

        # Ann's Discord speaks German from here on: her direct message follows her own
        # language (her latest click's), the channel the server's English.
        fake.set_locale(ann, "de")
        # Goals are chosen by all three at once: all three are due.
        _, lobby = await started_table(fake, bot, "cityscape", ann, joiners=(bob, cid),
                                       options={"rounds": 1})
        table = f"https://discord.com/channels/{fake.guild_id}/{fake.channel_id}/{lobby.id}"

        def pings() -> list[FakeMessage]:
            return [m for m in fake.channel_messages(fake.channel_id, ephemeral=False)
                    if m.content.startswith("⏰")]

        await fake.wait_until(lambda: (fake.direct_messages(ann) and pings()) or None, 10.0,
                              "Ann's direct message and Cid's ping")
        [direct] = fake.direct_messages(ann)
        assert direct.content.startswith(f"⏰ <@{ann['id']}>: ")
        assert Words("bot").in_language("de", "your move") in direct.content
        assert "your move" not in direct.content
        assert link_of(direct) == table
        [ping] = pings()  # Cid's, in the channel: his direct message was refused
        assert ping.content.startswith(f"⏰ <@{cid['id']}>: your move in **Cityscape**")
        assert link_of(ping) == table
        assert f"<@{bob['id']}>" not in ping.content and not fake.direct_messages(bob)
        assert fake.direct_messages(cid) == []
        assert [(e.status, e.code) for e in fake.expected_errors] == [(403, 50007)]
