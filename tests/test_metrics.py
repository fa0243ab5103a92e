"""The metrics endpoint as an admin's Prometheus sees it: off unless METRICS_PORT is set, on
127.0.0.1, and its numbers move with what players do."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.config import ConfigError, Settings
from fakediscord import FakeDiscord
from tests.harness import button_id, cityhall_bot

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")


async def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    async with aiohttp.ClientSession() as session, \
            session.get(f"http://127.0.0.1:{port}/metrics") as reply:
        assert reply.status == 200
        assert reply.headers["Content-Type"].startswith("text/plain")
        text = await reply.text()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str,
          **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def bound_port(bot: Any) -> int:
    server = bot.metrics._server
    assert server is not None, "the endpoint is not running"
    assert server.server_address[0] == "127.0.0.1"
    return int(server.server_port)


async def test_counters_move_with_clicks_and_commands(fake_discord: FakeDiscord,
                                                      tmp_path: Path) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    async with cityhall_bot(fake, tmp_path / "db.sqlite3", metrics_port=0) as bot:
        port = bound_port(bot)
        before = await scrape(port)
        assert value(before, "cityhall_unfinished_matches", status="lobby") == 0
        # Discord answers one request with a 429 (discord.py waits and retries it).
        fake.fail("GET", r"/messages/@original$", 429, retry_after=0.05)
        lobby = (await (await fake.slash(ann, fake.channel_id, "cityscape", ["new"])).seen(
            timeout=5)).message
        assert lobby is not None
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None
        await fake.wait_until(lambda: match.table_message_id is not None, 5)
        join = await fake.click(bob, lobby, button_id(lobby, "Join"))
        await join.seen(timeout=5)
        await fake.wait_until(lambda: not bot._inflight, 5)
        after = await scrape(port)

    assert value(after, "cityhall_interactions_total", kind="command") == 1
    assert value(after, "cityhall_interactions_total", kind="component") == 1
    assert value(after, "cityhall_interaction_seconds_count", kind="command") == 1
    assert value(after, "cityhall_interaction_seconds_count", kind="component") == 1
    assert value(after, "cityhall_interaction_seconds_bucket", kind="component", le="+Inf") == 1
    assert value(after, "cityhall_unfinished_matches", status="lobby") == 1
    # the lobby, its message id and Bob's seat: three writes, each in a commit
    assert value(after, "cityhall_database_writes_total") - \
        value(before, "cityhall_database_writes_total") >= 3
    assert value(after, "cityhall_database_write_seconds_count") > \
        value(before, "cityhall_database_write_seconds_count")
    assert value(after, "cityhall_discord_rate_limited_total", scope="user") == 1
    assert value(after, "cityhall_discord_requests_total", status="2xx") > 0
    assert (("cityhall_render_queue_depth", (("priority", "interactive"),)) in after)


async def test_no_endpoint_unless_asked(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    async with cityhall_bot(fake_discord, tmp_path / "db.sqlite3") as bot:
        assert bot.metrics._server is None
        # nor the per-request hooks that feed it (they cost every request some CPU)
        assert bot.http.http_trace is None


def test_metrics_settings_from_the_environment() -> None:
    base = {"DISCORD_TOKEN": "x"}
    assert Settings.from_env(base).metrics_port is None
    on = Settings.from_env({**base, "METRICS_PORT": "9108"})
    assert on.metrics_port == 9108 and on.metrics_host == "127.0.0.1"
    assert Settings.from_env({**base, "METRICS_PORT": "9108",
                              "METRICS_HOST": "0.0.0.0"}).metrics_host == "0.0.0.0"
    with pytest.raises(ConfigError, match="METRICS_PORT must be a TCP port"):
        Settings.from_env({**base, "METRICS_PORT": "70000"})
    with pytest.raises(ConfigError, match="METRICS_PORT must be a whole number"):
        Settings.from_env({**base, "METRICS_PORT": "http"})


async def test_the_log_says_where_games_start_and_end(fake_discord: FakeDiscord, tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    fake = fake_discord
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    mod = await fake.add_member("Mod", manage_messages=True)
    caplog.set_level(logging.INFO)
    async with cityhall_bot(fake, tmp_path / "db.sqlite3") as bot:
        lobby = (await (await fake.slash(ann, fake.channel_id, "cityscape", ["new"])).seen(
            timeout=5)).message
        assert lobby is not None
        await (await fake.click(bob, lobby, button_id(lobby, "Join"))).seen(timeout=5)
        await (await fake.click(ann, lobby, button_id(lobby, "Start"))).seen(timeout=5)
        match = bot.runtime.in_channel(int(fake.channel_id))
        assert match is not None
        await (await fake.slash(mod, fake.channel_id, "moderate", ["end"])).seen(timeout=5)
    where = f"in server {fake.guild_id}, channel {fake.channel_id}"
    lines = [r.getMessage() for r in caplog.records]
    assert f"Cityscape lobby {match.id} opened {where}." in lines
    assert f"Cityscape game {match.id} started {where}, with 2 players (0 computer)." in lines
    assert f"Cityscape game {match.id} {where}, ended early by {mod['id']}." in lines
    assert any(line.startswith("Online as ") and "1 server(s)" in line for line in lines)
