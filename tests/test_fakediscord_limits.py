"""FakeDiscord says no like Discord: rate limits, injected faults, lost channels and sockets.

Every call here goes through discord.py's own HTTP client (or, where a test needs a client
that misbehaves, a raw aiohttp session), so these tests show what a bot built on
discord.py experiences when Discord refuses, fails or drops it.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.core import discord_api
from fakediscord import FakeDiscord, FakeMessage
from fakediscord.limits import RateLimiter, bucket_hash, peak_count, peak_start
from fakediscord.runner import running_bot


@app_commands.command(name="ping", description="Answers pong")
async def ping(interaction: discord.Interaction[Any]) -> None:
    try:
        await interaction.response.send_message("pong")
    except discord.HTTPException as exc:
        assert isinstance(interaction.client, ProbeBot)
        interaction.client.answer_errors.append(exc)


class ProbeBot(commands.Bot):
    """A bot whose /ping answers and remembers what discord.py raised while answering."""

    def __init__(self, guild_id: str) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default(), help_command=None,
                         guild_ready_timeout=0.05)
        self.guild_obj = discord.Object(int(guild_id))
        self.answer_errors: list[discord.HTTPException] = []

    async def setup_hook(self) -> None:
        await discord_api.gateway_from_api(self)
        self.tree.add_command(ping, guild=self.guild_obj)
        await self.tree.sync(guild=self.guild_obj)

    def text_channel(self, channel_id: str) -> discord.TextChannel:
        channel = self.get_channel(int(channel_id))
        assert isinstance(channel, discord.TextChannel)
        return channel


@pytest.fixture
async def probe(fake_discord: FakeDiscord) -> AsyncIterator[ProbeBot]:
    async with running_bot(fake_discord, ProbeBot(fake_discord.guild_id)) as running:
        yield running


def png() -> discord.File:
    return discord.File(io.BytesIO(b"\x89PNG\r\n\x1a\n" + b"\0" * 16), filename="board.png")


async def raw_post(fake: FakeDiscord, http: aiohttp.ClientSession, channel_id: str, content: str) -> int:
    """A message sent by a client that ignores rate-limit headers (not discord.py)."""
    async with http.post(f"{fake.api_base}/channels/{channel_id}/messages", json={"content": content},
                         headers={"Authorization": f"Bot {fake.token}"}) as resp:
        await resp.read()
        return resp.status


def games_channel(fake: FakeDiscord) -> str:
    return next(cid for cid, c in fake.guild.channels.items() if c["name"] == "games")


# -- rate limits ------------------------------------------------------------------------------


def test_a_window_just_opened_says_its_whole_length_never_more() -> None:
    # A fresh clone's run, 2 Dec: "5.001" for a fresh 5 s window. start + per - now carries float noise
    # (1 in ~100 clock readings) that rounding up to the millisecond turned into a
    # millisecond more than the window has; a client would sleep past it for nothing.
    now = 0.0
    limiter = RateLimiter(global_limit=(10**6, 1.0), clock=lambda: now)
    resets: set[str] = set()
    for k in range(2000):
        now = 1000.0 + k * 0.0137
        verdict = limiter.check("POST", f"/channels/{k}/messages", "/channels/{channel_id}/messages",
                                {"channel_id": str(k)})
        resets.add(verdict.headers["X-RateLimit-Reset-After"])
    assert resets == {"5.000"}


async def test_rate_limit_headers_count_down_per_channel(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    general = probe.text_channel(fake.channel_id)
    sent = [await general.send(f"turn {n}") for n in range(3)]
    await probe.text_channel(games_channel(fake)).send("elsewhere")
    await sent[0].edit(content="turn 0, edited")

    posts = [r for r in fake.requests if r.method == "POST" and r.path.endswith("/messages")]
    assert [r.headers["X-RateLimit-Remaining"] for r in posts] == ["4", "3", "2", "4"]
    assert {r.headers["X-RateLimit-Limit"] for r in posts} == {"5"}
    # One bucket id for "create message", whichever channel; the channel picks the counter.
    assert {r.headers["X-RateLimit-Bucket"] for r in posts} == {bucket_hash("create_message")}
    for r in posts:
        assert 0 < float(r.headers["X-RateLimit-Reset-After"]) <= 5.0
        assert float(r.headers["X-RateLimit-Reset"]) > 1.6e9  # a unix timestamp
    (edit,) = [r for r in fake.requests if r.method == "PATCH"]
    assert edit.headers["X-RateLimit-Bucket"] == bucket_hash("edit_message")
    assert edit.headers["X-RateLimit-Remaining"] == "4"  # edits have their own bucket
    assert fake.rate_limited == []


@pytest.mark.fakediscord(bucket_limits={"create_message": (2, 1.0)})
async def test_burst_over_route_limit_gets_429_and_discordpy_retries(
    fake_discord: FakeDiscord, probe: ProbeBot
) -> None:
    fake = fake_discord
    # Another process with the same token (a second shard, a script) uses up the bucket.
    async with aiohttp.ClientSession() as http:
        assert [await raw_post(fake, http, fake.channel_id, f"spam {n}") for n in range(2)] == [200, 200]
    sent = await probe.text_channel(fake.channel_id).send("the bot still gets through")

    (hit,) = fake.rate_limited
    assert hit.bucket == f"create_message:{fake.channel_id}" and not hit.is_global and not hit.violation
    assert 0 < hit.retry_after <= 1.0
    limited = next(r for r in fake.requests if r.status == 429)
    assert limited.headers["Retry-After"] and limited.headers["X-RateLimit-Scope"] == "user"
    assert limited.headers["X-RateLimit-Remaining"] == "0"
    assert fake.message(sent.id).content == "the bot still gets through"
    assert fake.errors == []  # and the fixture's teardown check passes: discord.py waited


@pytest.mark.fakediscord(bucket_limits={"edit_message": (2, 0.5)})
async def test_discordpy_paces_a_burst_of_edits_by_the_headers(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    msg = await probe.text_channel(fake.channel_id).send("frame 0")
    await asyncio.gather(*(msg.edit(content=f"frame {n}") for n in range(1, 7)))

    edits = fake.bucket("edit_message", fake.channel_id)
    assert edits is not None and edits.hits == 6 and edits.accepted == 6
    assert edits.limited == 0 and fake.rate_limited == []  # six edits, two per window, no 429
    assert len(fake.message(msg.id).history) == 6
    assert 1 <= fake.global_peak <= 50


async def test_global_limit_spares_interaction_callbacks(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    fake.limiter.set_global_limit(2, 5.0)  # tightened once the bot is up (start-up is busy)
    alice = await fake.add_member("alice")
    for _ in range(4):
        ix = await fake.slash(alice, fake.channel_id, "ping")
        assert (await ix.response(timeout=2)).message is not None
    assert fake.rate_limited == [] and probe.answer_errors == []


async def test_global_limit_applies_across_routes(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    fake.limiter.set_global_limit(2, 0.5)
    channel_ids = [fake.channel_id, games_channel(fake), fake.thread_id]
    # Three different routes/channels: no per-route bucket is full, only the global one.
    fetched = await asyncio.gather(*(probe.fetch_channel(int(c)) for c in channel_ids),
                                   probe.fetch_user(int(fake.owner["id"])))
    assert [str(c.id) for c in fetched[:3]] == channel_ids
    hits = fake.rate_limited
    assert hits and all(h.is_global and h.bucket == "global" and not h.violation for h in hits)
    limited = next(r for r in fake.requests if r.status == 429)
    assert limited.headers["X-RateLimit-Global"] == "true"
    assert limited.headers["X-RateLimit-Scope"] == "global"


@pytest.mark.fakediscord(bucket_limits={"create_message": (1, 5.0)}, allow_violations=True)
async def test_client_that_ignores_retry_after_is_a_violation(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with aiohttp.ClientSession() as http:
        statuses = [await raw_post(fake, http, fake.channel_id, "first"),
                    await raw_post(fake, http, fake.channel_id, "too soon")]
        await asyncio.sleep(fake.violation_grace + 0.1)  # told to wait ~5 s; comes back anyway
        statuses.append(await raw_post(fake, http, fake.channel_id, "ignoring retry_after"))
    assert statuses == [200, 429, 429]
    assert [h.violation for h in fake.rate_limited] == [False, True]
    with pytest.raises(AssertionError, match="rate limit: VIOLATION 429 POST"):
        fake.assert_clean()


@pytest.mark.fakediscord(rate_limits=False)
async def test_limits_off_still_counts_but_never_refuses(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with aiohttp.ClientSession() as http:
        statuses = [await raw_post(fake, http, fake.channel_id, f"m{n}") for n in range(7)]
    assert statuses == [200] * 7 and fake.rate_limited == []
    counted = fake.bucket("create_message", fake.channel_id)
    assert counted is not None and counted.hits == 7 and counted.peak() == 7
    assert counted.limited == 2  # what Discord (5 per 5 s) would have refused
    assert "X-RateLimit-Limit" not in fake.requests[-1].headers


# -- injected faults ----------------------------------------------------------------------------


async def test_missing_permissions_and_access(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    channel = probe.text_channel(fake.channel_id)
    fake.fail("POST", r"/channels/\d+/messages$", 403)
    with pytest.raises(discord.Forbidden) as denied:
        await channel.send("hello")
    assert denied.value.code == 50013 and denied.value.text == "Missing Permissions"
    fake.fail("GET", r"/channels/\d+$", 403, 50001)
    with pytest.raises(discord.Forbidden) as no_access:
        await probe.fetch_channel(channel.id)
    assert no_access.value.code == 50001
    assert (await channel.send("once only")).content == "once only"  # times=1 each
    assert [e.code for e in fake.expected_errors] == [50013, 50001] and fake.errors == []


async def test_unknown_channel_and_message(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    channel = probe.text_channel(fake.channel_id)
    msg = await channel.send("here")
    fake.fail("PATCH", rf"/messages/{msg.id}$", 404, 10008)
    with pytest.raises(discord.NotFound) as gone:
        await msg.edit(content="edited")
    assert gone.value.code == 10008
    fake.fail("*", rf"/channels/{channel.id}/", 404)
    with pytest.raises(discord.NotFound) as no_channel:
        await channel.send("anyone?")
    assert no_channel.value.code == 10003 and no_channel.value.text == "Unknown Channel"


@pytest.mark.fakediscord(interaction_timeout=0.5, allow_failed=True)
async def test_unknown_interaction_leaves_the_user_with_a_failed_interaction(
    fake_discord: FakeDiscord, probe: ProbeBot
) -> None:
    fake = fake_discord
    fake.fail("POST", r"/interactions/\d+/[^/]+/callback$", 404, 10062)
    alice = await fake.add_member("alice")
    ix = await fake.slash(alice, fake.channel_id, "ping")
    await fake.wait_until(lambda: probe.answer_errors, 2, "the bot's failed answer")
    (error,) = probe.answer_errors
    assert isinstance(error, discord.NotFound) and error.code == 10062
    await fake.wait_until(lambda: ix.failed, 2, "This interaction failed")


@pytest.mark.fakediscord(interaction_timeout=0.3, allow_failed=True)
async def test_slow_network_makes_the_callback_miss_its_deadline(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    slow = fake.slow("POST", r"/callback$", 0.6)
    alice = await fake.add_member("alice")
    ix = await fake.slash(alice, fake.channel_id, "ping")
    await fake.wait_until(lambda: probe.answer_errors, 3, "the late answer's error")
    assert ix.failed and not ix.answered and len(slow.hits) == 1
    assert isinstance(probe.answer_errors[0], discord.NotFound) and probe.answer_errors[0].code == 10062
    assert fake.errors == []  # the fault's doing, not the bot's


async def test_slow_answer_trips_the_callers_timeout(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    fake.slow("GET", r"/channels/\d+$", 1.0)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(probe.fetch_channel(int(fake.channel_id)), 0.2)
    assert str((await probe.fetch_channel(int(fake.channel_id))).id) == fake.channel_id


async def test_server_errors(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    channel = probe.text_channel(fake.channel_id)
    fake.fail("POST", r"/channels/\d+/messages$", 503)
    with pytest.raises(discord.DiscordServerError) as unavailable:
        await channel.send("now?")
    assert unavailable.value.status == 503
    blip = fake.fail("POST", r"/channels/\d+/messages$", 500)  # discord.py retries 500s once a second
    sent = await channel.send("after a blip")
    assert len(blip.hits) == 1 and fake.message(sent.id).content == "after a blip"
    statuses = [r.status for r in fake.requests if r.method == "POST" and r.path.endswith("/messages")]
    assert statuses == [503, 500, 200]


async def test_429_that_never_ends_reaches_the_bot(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    storm = fake.fail("POST", r"/channels/\d+/messages$", 429, times=None, retry_after=0.01)
    with pytest.raises(discord.HTTPException) as refused:
        await probe.text_channel(fake.channel_id).send("will this ever go through?")
    assert refused.value.status == 429
    assert len(storm.hits) == 5  # discord.py's tries
    assert all(h.injected and not h.violation for h in fake.rate_limited)
    storm.cancel()
    assert (await probe.text_channel(fake.channel_id).send("storm over")).content == "storm over"


# -- lost channels, permissions and sockets ---------------------------------------------------


async def test_deleted_channel_answers_unknown_channel(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    channel = probe.text_channel(games_channel(fake))
    msg = await channel.send("table")
    await fake.delete_channel(channel.id)
    await fake.wait_until(lambda: probe.get_channel(channel.id) is None, 2, "CHANNEL_DELETE in the bot's cache")
    for call in (channel.send("still there?"), msg.edit(content="edit"), probe.fetch_channel(channel.id)):
        with pytest.raises(discord.NotFound) as gone:
            await call
        assert gone.value.code == 10003
    assert len(fake.expected_errors) == 3 and fake.errors == []


async def test_revoked_attach_files(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    channel = probe.text_channel(fake.channel_id)
    await fake.revoke(channel.id, "attach_files")
    await fake.wait_until(lambda: not channel.permissions_for(channel.guild.me).attach_files, 2,
                          "the overwrite in the bot's cache")
    with pytest.raises(discord.Forbidden) as denied:
        await channel.send("board", file=png())
    assert denied.value.code == 50013
    assert (await channel.send("text still works")).content == "text still works"
    await fake.revoke(channel.id, "view_channel")
    with pytest.raises(discord.Forbidden) as hidden:
        await channel.send("hello?")
    assert hidden.value.code == 50001
    await fake.grant(channel.id, "view_channel")
    await fake.grant(channel.id, "attach_files")
    sent = await channel.send("board", file=png())
    assert fake.message(sent.id).attachment("board.png").filename == "board.png"


async def test_dropped_gateway_resumes(fake_discord: FakeDiscord, probe: ProbeBot) -> None:
    fake = fake_discord
    (session,) = fake.sessions.values()
    assert await fake.drop_gateway(4000) == 1
    await fake.wait_until(lambda: session.resumes == 1 and session.connection is not None, 5, "RESUME")
    alice = await fake.add_member("alice")
    ix = await fake.slash(alice, fake.channel_id, "ping")
    message = (await ix.response(timeout=2)).message
    assert isinstance(message, FakeMessage) and message.content == "pong"


async def test_dropped_gateway_with_invalid_session_identifies_again(
    fake_discord: FakeDiscord, probe: ProbeBot
) -> None:
    fake = fake_discord
    (old,) = fake.sessions
    await fake.drop_gateway(4009)  # session timed out: Discord will not resume it
    # discord.py waits 1-5 s after INVALID_SESSION before it IDENTIFYs again.
    await fake.wait_until(lambda: fake.sessions and old not in fake.sessions
                          and all(s.connection for s in fake.sessions.values()), 8, "a new session")
    alice = await fake.add_member("alice")
    ix = await fake.slash(alice, fake.channel_id, "ping")
    assert (await ix.response(timeout=2)).type == 4
    assert fake.gateway_drops == [4009]


def test_the_busiest_second_is_counted_and_placed() -> None:
    # The load test reports how many requests the busiest second had and when it began,
    # to put late pictures beside the moment the bot crowded Discord's global limit.
    times = [0.0, 0.5, 2.0, 2.1, 2.2, 2.9, 3.5, 9.0]
    assert peak_count(times, 1.0) == 4
    assert peak_start(times, 1.0) == 2.0
    assert peak_start([], 1.0) is None
