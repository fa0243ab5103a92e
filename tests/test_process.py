"""The bot as an admin runs it: `python -m bot run` in its own process.

Without a token it explains itself; with DISCORD_API_BASE it talks only to the given API
(here the fake Discord server); and a killed process loses nothing: the next one carries
on with the same buttons.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from fakediscord import FakeDiscord
from tests.harness import button_id
from tests.process_harness import stop_process

ROOT = Path(__file__).resolve().parent.parent


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DEV_GUILD"))}
    env.update(extra)
    return env


def test_run_without_a_token_explains_what_to_do(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "bot", "run"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60,
                          env=_env(PYTHONPATH=str(ROOT), DISCORD_TOKEN="",
                                   DATABASE_PATH=str(tmp_path / "x.sqlite3")))
    assert done.returncode == 78  # EX_CONFIG: systemd does not restart it in a loop
    assert "Traceback" not in done.stderr
    for needed in ("discord.com/developers/applications", "DISCORD_TOKEN", "Attach Files",
                   "applications.commands", "python -m bot simulate"):
        assert needed in done.stderr, needed


def test_bad_setting_is_a_sentence_not_a_traceback(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "bot", "run"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60,
                          env=_env(PYTHONPATH=str(ROOT), DISCORD_TOKEN="x", TURN_SECONDS="soon"))
    assert done.returncode == 78 and "Traceback" not in done.stderr
    assert "TURN_SECONDS must be a number of seconds" in done.stderr


async def _start(fake: FakeDiscord, db: Path) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=str(ROOT),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        env=_env(DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base,
                 DEV_GUILD_ID=fake.guild_id, DATABASE_PATH=str(db), CPU_DELAY="0",
                 LOG_LEVEL="INFO"))
    await fake.wait_until(lambda: len(fake.commands(fake.guild_id)) >= 3 and _connected(fake),
                          30, "command sync and gateway connection")
    return process


def _connected(fake: FakeDiscord) -> bool:
    return any(s.connection is not None for s in fake.sessions.values())


async def test_a_killed_process_loses_nothing(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    ann = await fake.add_member("Ann")
    bob = await fake.add_member("Bob")
    first = await _start(fake, db)
    try:
        names = {c["name"] for c in fake.commands(fake.guild_id)}
        assert {"cityscape", "game", "stats"} <= names
        lobby = (await (await fake.slash(ann, fake.channel_id, "cityscape", ["new"],
                                         {"rounds": 1})).seen(timeout=10)).message
        assert lobby is not None
        await (await fake.click(bob, lobby, button_id(lobby, "Join"))).seen(timeout=10)
        await (await fake.click(ann, lobby, button_id(lobby, "Start"))).seen(timeout=10)
        for user, side in ((ann, "S"), (ann, "W"), (bob, "N"), (bob, "E")):
            picker = (await (await fake.click(user, lobby, button_id(lobby, "My goals")))
                      .seen(timeout=10)).message
            assert picker is not None and f"({side})" in picker.content
            for line in range(4):
                select = next(c["custom_id"] for c in picker.iter_components()
                              if str(c.get("custom_id", "")).startswith(f"ch:cs:1:r1:s{side}{line}"))
                await (await fake.select(user, picker, select, ["2"])).seen(timeout=10)
            confirm = button_id(picker, prefix=f"ch:cs:1:r1:g{side}")
            await (await fake.click(user, picker, confirm)).seen(timeout=10)
        # the table shows the building buttons once both goals are in
        await fake.wait_until(lambda: any(":h1" in str(c.get("custom_id", ""))
                                          for c in lobby.iter_components()), 10)
        opened = await (await fake.click(ann, lobby, button_id(lobby, prefix="ch:cs:1:v5:h3")))\
            .seen(timeout=10)
        assert opened.message is not None
        built = await (await fake.click(ann, opened.message,
                                        button_id(opened.message, prefix="ch:cs:1:v5:b3B2")))\
            .seen(timeout=10)
        assert built.type == 7
    finally:
        first.send_signal(signal.SIGKILL)  # no goodbye, no clean shutdown
        await first.wait()
    await fake.wait_until(lambda: not _connected(fake), 10, "the killed bot's socket to close")

    second = await _start(fake, db)
    try:
        # the same table message, its buttons working again, the move kept
        await fake.wait_until(lambda: any(":v6:h" in str(c.get("custom_id", ""))
                                          for c in lobby.iter_components()), 10)
        opened = await (await fake.click(bob, lobby, button_id(lobby, prefix="ch:cs:1:v6:h1")))\
            .seen(timeout=10)
        assert opened.message is not None and "B2 · 3" in str(opened.message.components)
        built = await (await fake.click(bob, opened.message,
                                        button_id(opened.message, prefix="ch:cs:1:v6:b1B2")))\
            .seen(timeout=10)
        assert built.data is not None and "now 4 high" in built.data["content"]
        # the move made just before the kill was saved once: not lost, not replayed
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as saved:
            builds = [(player, json.loads(action)) for player, action in saved.execute(
                "SELECT player, action FROM actions WHERE match_id=1 ORDER BY seq")]
        assert [move for move in builds if move[1]["type"] == "build"] == [
            (str(ann["id"]), {"type": "build", "height": 3, "lot": "B2"}),
            (str(bob["id"]), {"type": "build", "height": 1, "lot": "B2"}),
        ]
    finally:
        await stop_process(second)
        output = (await second.stdout.read()).decode() if second.stdout else ""
        assert fake.token not in output  # the token is never logged
        assert "Invite Cityhall to a server: https://discord.com/oauth2/authorize" in output
