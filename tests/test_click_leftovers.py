"""A handled click leaves nothing for the garbage collector (bot/ui/leftovers.py), and
its answer is not parsed back (bot/ui/answers.py).

Under load, whatever a click leaves in reference cycles waits for a full garbage
collection, whose pause every player waits through; these tests hold the bot to freeing
its clicks by reference counting alone."""

from __future__ import annotations

import asyncio
import copy
import gc
import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import discord
import discord.webhook.async_ as webhook_http
import pytest

from bot.games import GAMES
from bot.games.cityscape import ENGINE as CITYSCAPE
from bot.ui.answers import LeanAnswers
from bot.ui.items import GameItem
from bot.ui.leftovers import COUNTING_WORKS, _Probe, cut_if_unused, trim_click
from fakediscord import FakeDiscord
from tests.harness import button_id, cityhall_bot, cityscape_building, settle


def click_on(message: dict[str, Any], custom_id: str) -> dict[str, Any]:
    return {"type": 3, "id": "1", "token": "t", "data": {"custom_id": custom_id,
                                                          "component_type": 2},
            "message": message}


TABLE = {
    "id": "10", "channel_id": "20", "flags": 0, "content": "",
    "interaction_metadata": {"id": "2", "type": 2, "user": {"id": "5", "username": "ann"}},
    "embeds": [{"title": "Cityscape", "image": {"url": "attachment://table.png"}}],
    "attachments": [{"id": "30", "filename": "table.png"}],
    "components": [
        {"type": 1, "components": [{"type": 2, "custom_id": f"ch:cs:1:v3:h{h}", "style": 2}
                                   for h in range(1, 6)]},
        {"type": 1, "components": [{"type": 2, "custom_id": "ch:cs:1:v3:goals", "style": 1},
                                   {"type": 2, "custom_id": "ch:cs:1:v3:help", "style": 2}]},
    ],
}


def test_a_click_keeps_only_the_clicked_component_of_its_message() -> None:
    data = click_on(copy.deepcopy(TABLE), "ch:cs:1:v3:goals")
    trim_click(data)
    message = data["message"]
    assert message["components"] == [
        {"type": 1, "components": [{"type": 2, "custom_id": "ch:cs:1:v3:goals", "style": 1}]}]
    assert message["embeds"] == [] and message["attachments"] == []
    assert "interaction_metadata" not in message
    assert (message["id"], message["channel_id"], message["flags"]) == ("10", "20", 0)


def test_what_the_trim_does_not_understand_is_left_as_it_came() -> None:
    layout = copy.deepcopy(TABLE) | {"flags": 1 << 15}  # components v2: not rows
    odd_row: dict[str, Any] = copy.deepcopy(TABLE)
    odd_row["components"].append({"type": 17, "components": []})
    command = {"type": 2, "data": {"name": "cityscape"}, "message": copy.deepcopy(TABLE)}
    for data in (click_on(layout, "ch:cs:1:v3:goals"), click_on(odd_row, "ch:cs:1:v3:goals"),
                 command, click_on("not a message", "x")):  # type: ignore[arg-type]
        before = copy.deepcopy(data)
        trim_click(data)
        assert data == before


def test_an_interaction_still_in_use_keeps_its_response() -> None:
    assert COUNTING_WORKS  # on the interpreters Cityhall runs on, cycles are cut
    interaction: Any = _Probe()  # discord.Interaction's two self-referencing slots
    response = interaction._cs_response
    holder = [interaction]  # say, a picture still being sent for this click
    assert not cut_if_unused(interaction)
    assert interaction._cs_response is response
    holder.clear()
    del response
    assert cut_if_unused(interaction)
    assert not hasattr(interaction, "_cs_response")


@contextmanager
def collector_off() -> Iterator[list[Any]]:
    """The collector stays off while the clicks run, then one collection keeps whatever
    it finds unreachable in the list yielded."""
    gc.collect()
    gc.disable()
    found: list[Any] = []
    try:
        yield found
    finally:
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found.extend(gc.garbage)
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()


async def test_clicks_on_a_table_leave_no_cycles_behind(fake_discord: FakeDiscord,
                                                        tmp_path: Path) -> None:
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        ann = await fake.add_member("Ann")
        bob = await fake.add_member("Bob")
        users = {str(ann["id"]): ann, str(bob["id"]): bob}
        match = await cityscape_building(fake, bot, ann, bob, {"rounds": 1})
        assert match.state is not None
        moves_before = match.version
        sent_before = len(fake.requests)
        with collector_off() as garbage:
            for _ in range(6):
                state = match.state
                player = CITYSCAPE.to_act(state)[0]
                action = GAMES[CITYSCAPE.name].computer.normal(state, player)
                assert match.table_message_id is not None
                table = fake.message(match.table_message_id)
                prefix = f"ch:cs:{match.id}:v{match.version}:"
                height = await fake.click(users[player], table,
                                          button_id(table, prefix=f"{prefix}h{action['height']}"))
                picker = (await height.seen(timeout=5)).message
                assert picker is not None
                lot = button_id(picker, prefix=f"{prefix}b{action['height']}{action['lot']}")
                await (await fake.click(users[player], picker, lot)).seen(timeout=5)
                await settle(bot, match.id)
            for _ in range(50):  # the handled interactions are let go of within a second or two
                if not len(bot.leftovers):
                    break
                await asyncio.sleep(0.1)
            # ...every one of them: one still held after that is never cut, and would wait a
            # minute and then for a full collection (the response wrapper that answers slow
            # clicks once held its interaction twice, and all of them did)
            assert len(bot.leftovers) == 0
        assert match.version == moves_before + 6  # each click was a move
        left = [o for o in garbage if isinstance(o, (discord.Interaction, discord.ui.View,
                                                     discord.ui.Item, discord.Message))]
        assert left == [], f"{len(left)} objects of clicks left to the collector, " \
                           f"e.g. {[type(o).__name__ for o in left[:8]]}"
        assert not any(isinstance(o, GameItem) for o in garbage)
        # Each move re-drew the table, uploaded as a picture: its bytes went with the request
        # (a picture copy left to the collector was the soak's 3.5 MB a minute).
        assert sum(1 for r in fake.requests[sent_before:] if r.files) >= 6
        uploads = [o for o in garbage if isinstance(o, io.BytesIO)]
        assert uploads == [], f"{len(uploads)} uploaded pictures left to the collector"


ANSWERED = {"interaction": {"id": "1", "type": 3},
            "resource": {"type": 4, "message": copy.deepcopy(TABLE) | {"mentions": [{"id": "5"}]}}}


class _Route:
    def __init__(self, path: str) -> None:
        self.path = path


async def test_an_answers_message_comes_back_without_what_nobody_reads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async def discord_replies(self: Any, route: Any, session: Any, **kwargs: Any) -> Any:
        return copy.deepcopy(ANSWERED if route.path.endswith("/callback") else TABLE)

    monkeypatch.setattr(webhook_http.AsyncWebhookAdapter, "request", discord_replies)
    lean = LeanAnswers()
    answered = await lean.request(_Route("/interactions/{webhook_id}/{webhook_token}/callback"),
                                  None)
    message = answered["resource"]["message"]
    assert (message["id"], message["channel_id"], message["flags"]) == ("10", "20", 0)
    assert message["components"] == message["embeds"] == message["attachments"] == []
    assert message["mentions"] == []
    edited = await lean.request(
        _Route("/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"), None)
    assert edited["id"] == "10" and edited["components"] == [] and edited["embeds"] == []
    sent = await lean.request(_Route("/channels/{channel_id}/messages"), None)
    assert sent == TABLE  # not an interaction's answer: as it came


async def test_clicks_are_answered_through_the_lean_adapter(fake_discord: FakeDiscord,
                                                           tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    answered: list[str] = []
    real = LeanAnswers.request

    async def counted(self: Any, route: Any, session: Any, **kwargs: Any) -> Any:
        answered.append(route.path)
        return await real(self, route, session, **kwargs)

    monkeypatch.setattr(LeanAnswers, "request", counted)
    fake = fake_discord
    async with cityhall_bot(fake, tmp_path / "db.sqlite3"):
        ann = await fake.add_member("Ann")
        lobby = (await (await fake.slash(ann, fake.channel_id, "cityscape", ["new"]))
                 .seen(timeout=5)).message
        assert lobby is not None
        rules = await (await fake.click(ann, lobby, button_id(lobby, "How to play"))).seen(timeout=5)
        assert rules.ephemeral
    assert any(path.endswith("/callback") for path in answered)
