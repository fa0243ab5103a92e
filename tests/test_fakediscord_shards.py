"""The fake Discord speaks sharding as Discord does: a recommended shard count, IDENTIFY with
[shard_id, num_shards], each server's events on its shard's connection only, close code 4010
for a shard that cannot exist, and (like Discord) no refusal of a second session on a shard
that is already connected: both get its events, which is why the bot holds a lease."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest

from fakediscord import FakeDiscord

INTENT_GUILDS = 1


class Shard:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.events: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        packet: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.receive_str(), 3))
        if packet.get("op") == 0:
            self.events.append(packet)
        return packet

    async def until(self, event: str) -> dict[str, Any]:
        while True:
            packet = await self.receive()
            if packet.get("t") == event:
                data: dict[str, Any] = packet["d"]
                return data


@asynccontextmanager
async def shard(fake: FakeDiscord, shard_id: int, count: int) -> AsyncIterator[Shard]:
    async with aiohttp.ClientSession() as http, \
            http.ws_connect(fake.gateway_url + "?v=10&encoding=json") as ws:
        hello = json.loads(await asyncio.wait_for(ws.receive_str(), 3))
        assert hello["op"] == 10
        await ws.send_json({"op": 2, "d": {"token": fake.token, "intents": INTENT_GUILDS,
                                           "properties": {}, "shard": [shard_id, count]}})
        yield Shard(ws)


def guild_on(fake: FakeDiscord, shard_id: int, count: int) -> str:
    """A new server whose id puts it on ``shard_id``."""
    while True:
        guild = fake.add_guild(f"server {len(fake.guilds)}")
        if (int(guild.id) >> 22) % count == shard_id:
            return guild.id


@pytest.mark.fakediscord(shard_count=4)
async def test_the_gateway_recommends_the_fakes_shard_count(fake_discord: FakeDiscord) -> None:
    async with aiohttp.ClientSession() as http, http.get(
            fake_discord.api_base + "/gateway/bot",
            headers={"Authorization": f"Bot {fake_discord.token}"}) as answer:
        assert (await answer.json())["shards"] == 4


@pytest.mark.fakediscord(shard_count=4)
async def test_a_server_can_be_placed_on_a_chosen_shard(fake_discord: FakeDiscord) -> None:
    # what the load test relies on to spread its servers evenly over every shard
    wanted = [3, 3, 0, 1, 2, 2, 0]
    ids = [int(fake_discord.add_guild(f"s{i}", shard=s).id) for i, s in enumerate(wanted)]
    assert [(i >> 22) % 4 for i in ids] == wanted
    assert ids == sorted(set(ids))
    with pytest.raises(ValueError):
        fake_discord.add_guild("nowhere", shard=4)


@pytest.mark.fakediscord(allow_errors=True)
@pytest.mark.parametrize("bad", [[2, 2], [-1, 2], [0, 0]])
async def test_a_shard_that_cannot_exist_is_closed_with_4010(fake_discord: FakeDiscord,
                                                            bad: list[int]) -> None:
    async with shard(fake_discord, *bad) as connection:
        closed = await asyncio.wait_for(connection.ws.receive(), 3)
        assert closed.type is aiohttp.WSMsgType.CLOSE
        assert closed.data == 4010
    assert not fake_discord.sessions


async def test_each_server_reaches_only_its_shards_connection(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    first, second = guild_on(fake, 0, 2), guild_on(fake, 1, 2)
    async with shard(fake, 0, 2) as zero, shard(fake, 1, 2) as one:
        ready0, ready1 = await zero.until("READY"), await one.until("READY")
        assert ready0["shard"] == [0, 2] and ready1["shard"] == [1, 2]
        ids0 = {g["id"] for g in ready0["guilds"]}
        ids1 = {g["id"] for g in ready1["guilds"]}
        assert first in ids0 and first not in ids1
        assert second in ids1 and second not in ids0
        # A server joined later: its GUILD_CREATE goes to its shard's connection only.
        later = guild_on(fake, 1, 2)
        created = await one.until("GUILD_CREATE")
        while created["id"] != later:
            created = await one.until("GUILD_CREATE")
        assert all(e["d"].get("id") != later for e in zero.events)


async def test_a_second_session_on_a_connected_shard_is_accepted_and_gets_its_events(
        fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with shard(fake, 1, 2) as first, shard(fake, 1, 2) as second:
        await first.until("READY")
        await second.until("READY")
        assert len(fake.sessions) == 2
        later = guild_on(fake, 1, 2)
        for connection in (first, second):
            created = await connection.until("GUILD_CREATE")
            while created["id"] != later:
                created = await connection.until("GUILD_CREATE")
