"""Small things a player or an admin would notice: crafted display names shown literally,
forged menu values refused, and a truthful answer when `/new` half-fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.games.bigcityz import ENGINE as BIGCITYZ
from fakediscord import FakeDiscord
from tests.harness import Member, answer, button_id, by_id, cityhall_bot, text_of
from tests.test_discord_bigcityz import open_game

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

# Renders as a masked link, bold text and a ping if put into Markdown as it is.
CRAFTED = "[x](https://evil) **b** @everyone"


def assert_literal(text: str) -> None:
    """The crafted name, escaped: Discord shows its characters instead of formatting them."""
    assert "\\[x](https://evil)" in text, text
    assert "\\*\\*b\\*\\*" in text, text
    assert "@\u200beveryone" in text, text
    assert "[x](https://evil)" not in text.replace("\\[x]", "")
    assert "**b**" not in text and "@everyone" not in text


async def test_crafted_display_names_are_shown_literally(fake_discord: FakeDiscord,
                                                         tmp_path: Path) -> None:
    fake = fake_discord
    evil = await fake.add_member(CRAFTED)
    bob = await fake.add_member("Bob")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3"):
        lobby = (await answer(await fake.slash(evil, fake.channel_id, "cityscape", ["new"]))).message
        assert lobby is not None
        assert_literal(lobby.embeds[0]["description"])
        cancelled = await answer(await fake.click(evil, lobby, button_id(lobby, "Cancel")))
        assert cancelled.type == 7 and "cancelled by" in lobby.content
        assert_literal(lobby.content)

        lobby = (await answer(await fake.slash(evil, fake.channel_id, "cityscape", ["new"]))).message
        assert lobby is not None
        await answer(await fake.click(bob, lobby, button_id(lobby, "Join")))
        await answer(await fake.click(evil, lobby, button_id(lobby, "Start")))
        ended = await answer(await fake.slash(evil, fake.channel_id, "game", ["end"]))
        assert not ended.ephemeral and "was ended by" in text_of(ended)
        assert_literal(text_of(ended))


async def test_forged_menu_values_are_refused_and_change_nothing(fake_discord: FakeDiscord,
                                                                 tmp_path: Path) -> None:
    fake = fake_discord
    users = {}
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        ann = await fake.add_member("Ann")
        bob = await fake.add_member("Bob")
        users = by_id(ann, bob)
        match = bot.runtime.get(await open_game(fake, bot, ann, [bob], 0))
        assert match is not None and match.state is not None
        player = BIGCITYZ.to_act(match.state)[0]
        user = users[player]
        assert match.table_message_id is not None
        table = fake.message(match.table_message_id)
        chooser = (await answer(await fake.click(user, table, button_id(table, "Place")))).message
        assert chooser is not None and chooser.ephemeral
        pick = f"ch:bz:{match.id}:v{match.version}:pick"
        offered = {str(o["value"]) for row in chooser.components for c in row["components"]
                   if c.get("custom_id") == pick for o in c["options"]}
        legal = BIGCITYZ.legal(match.state, player)
        # A legal move the menu does not offer (replacing a board is a button of its own).
        not_offered = [str(i) for i, la in enumerate(legal) if str(i) not in offered]
        assert offered and not_offered
        version, state = match.version, dict(match.state)
        # "²" passes str.isdigit() but not int(); "１" and "٣" are 1 and 3 to int().
        for value in ["²", "１", "٣", "999", "", not_offered[0], "0x1", " 1"]:
            refused = await answer(await fake.click_raw(user, fake.channel_id, pick, chooser,
                                                        component_type=3, values=[value]))
            assert refused.ephemeral, value
            assert text_of(refused) == "Pick one of the choices in the menu.", value
            current = bot.runtime.get(match.id)
            assert current is not None and current.version == version and current.state == state
        # The menu itself still works.
        done = await answer(await fake.select(user, chooser, pick, [sorted(offered)[0]]))
        assert done.type == 7
        current = bot.runtime.get(match.id)
        assert current is not None and current.version > version


async def test_new_lobby_whose_reply_cannot_be_read_back_says_it_is_open(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member, bob: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        fault = fake.fail("GET", r"/messages/@original$", 404, 10008)
        new = await fake.slash(ann, fake.channel_id, "cityscape", ["new"])
        lobby = (await answer(new)).message
        assert lobby is not None and not lobby.ephemeral
        notes = await new.followups(1, timeout=5)
        assert fault.hits
        said = " ".join(m.content for m in notes)
        assert "nothing was changed" not in said
        assert "lobby is open" in said and notes[0].ephemeral
        # and it is: Bob joins with its button
        joined = await answer(await fake.click(bob, lobby, button_id(lobby, "Join")))
        assert joined.type == 7 and "Bob" in lobby.embeds[0]["description"]
        assert bot.runtime.in_channel(int(fake.channel_id)) is not None


async def test_new_lobby_that_cannot_be_posted_is_not_left_open(
        fake_discord: FakeDiscord, tmp_path: Path, ann: Member) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        fake.fail("POST", r"/callback$", 404, 10062)  # e.g. answered too late
        told = await answer(await fake.slash(ann, fake.channel_id, "cityscape", ["new"]))
        assert told.ephemeral and "none was opened" in text_of(told)
        assert bot.runtime.in_channel(int(fake.channel_id)) is None
        # so the channel is free for the next try
        again = (await answer(await fake.slash(ann, fake.channel_id, "cityscape", ["new"]))).message
        assert again is not None and "Join" in str(again.components)
