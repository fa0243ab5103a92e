"""SIGTERM (what systemd, Docker and Procfile hosts send) and Ctrl-C to the real
`python -m bot run` process in the middle of a burst of clicks.

Every click is answered: those in flight with their real answer, those arriving while the
bot stops with "Cityhall is restarting — try again in a moment."; every click answered as
accepted is in the database; the process exits 0 and leaves no WAL file behind, so the
database file alone holds everything (a plain copy of it is a complete backup).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.app import RESTARTING
from fakediscord import FakeDiscord
from fakediscord.interactions import FakeInteraction
from fakediscord.models import FakeMessage
from tests.harness import button_id

ROOT = Path(__file__).resolve().parent.parent
WAIT = 30.0  # only a hang detector; the machine running the tests may be busy
LOBBIES = 6
BURST_JOINERS = 4  # Big Cityz seats six: the host, four in the burst, one arriving late

pytestmark = [pytest.mark.fakediscord(interaction_timeout=WAIT, rate_limit_scale=0.1),
              pytest.mark.timeout(60)]


class Bot:
    """The bot process, its log read as it comes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while raw := await self.process.stdout.readline():
            self.lines.append(raw.decode(errors="replace").rstrip())

    @property
    def log(self) -> str:
        return "\n".join(self.lines)

    async def wait_for_line(self, text: str) -> None:
        for _ in range(int(WAIT / 0.01)):
            if any(text in line for line in self.lines):
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"the bot never logged {text!r}:\n{self.log}")

    async def exit_code(self) -> int:
        code = await asyncio.wait_for(self.process.wait(), WAIT)
        await self.reader
        return code


async def start_bot(fake: FakeDiscord, db: Path) -> Bot:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DEV_GUILD"))}
    env.update(DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base,
               DEV_GUILD_ID=fake.guild_id, DATABASE_PATH=str(db), CPU_DELAY="0",
               LOG_LEVEL="INFO", MAX_LOBBIES_PER_USER=str(LOBBIES),
               DISCORD_RATE_LIMIT_SCALE=str(fake.rate_limit_scale))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=str(ROOT), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    bot = Bot(process)
    await fake.wait_until(lambda: len(fake.commands(fake.guild_id)) >= 3 and any(
        s.connection is not None for s in fake.sessions.values()), WAIT,
        "command sync and gateway connection")
    return bot


def seats_in(db: Path) -> dict[int, set[str]]:
    """Lobby message id -> the user ids seated, as the database file has them."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return {message: {str(seat["id"]) for seat in json.loads(seats)}
                for message, seats in conn.execute(
                    "SELECT table_message_id, seats FROM matches")}


async def open_lobbies(fake: FakeDiscord, host: dict[str, Any]) -> list[FakeMessage]:
    lobbies = []
    for n in range(LOBBIES):
        channel = fake.channel_id if n == 0 else (await fake.add_channel(f"games-{n}"))["id"]
        reply = await (await fake.slash(host, channel, "bigcityz", ["new"], {})).seen(
            timeout=WAIT)
        assert reply.message is not None and reply.message.embeds, reply.data
        lobbies.append(reply.message)
    return lobbies


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_stopping_mid_burst_answers_every_click_and_keeps_every_answered_one(
        fake_discord: FakeDiscord, tmp_path: Path, signum: signal.Signals) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    host = await fake.add_member("Host")
    joiners = [await fake.add_member(f"Player {n}") for n in range(BURST_JOINERS)]
    latecomer = await fake.add_member("Late")
    bot = await start_bot(fake, db)
    try:
        lobbies = await open_lobbies(fake, host)
        # One answer of the burst takes a while to reach Discord: the bot is still busy with
        # that click when it is told to stop, and must wait for it.
        fake.slow("POST", r"^/interactions/.*/callback$", 2.0, times=1)

        burst: list[tuple[dict[str, Any], FakeMessage, FakeInteraction]] = []
        clicks = [(user, lobby) for user in joiners for lobby in lobbies]
        for n, (user, lobby) in enumerate(clicks):
            if n == len(clicks) // 2:
                bot.process.send_signal(signum)
            burst.append((user, lobby, await fake.click(user, lobby, button_id(lobby, "Join"))))
        await bot.wait_for_line("Stopping (")
        # Clicks that arrive while the bot stops are turned away in a sentence.
        late = [(latecomer, lobby, await fake.click(latecomer, lobby, button_id(lobby, "Join")))
                for lobby in lobbies]
        answers = [(user, lobby, await ix.seen(timeout=WAIT))
                   for user, lobby, ix in burst + late]
        code = await bot.exit_code()
    except BaseException:
        print(bot.log)  # shown with the failure
        raise
    finally:
        if bot.process.returncode is None:
            bot.process.kill()
            await bot.process.wait()
    assert code == 0, bot.log
    assert "Traceback" not in bot.log, bot.log

    accepted: dict[int, set[str]] = {int(lobby.id): {str(host["id"])} for lobby in lobbies}
    turned_away = 0
    for user, lobby, answer in answers:
        if answer.type == 7:  # the lobby message, updated with the new player
            accepted[int(lobby.id)].add(str(user["id"]))
        else:
            assert answer.ephemeral and answer.data is not None, answer
            assert answer.data["content"] == RESTARTING, answer.data
            turned_away += 1
    late_answers = answers[len(burst):]
    assert all(answer.type != 7 for _u, _l, answer in late_answers), \
        "a click after the stop was applied"
    assert turned_away >= len(late)
    assert sum(len(s) - 1 for s in accepted.values()) >= 1, "the burst was all turned away"

    # What the players were told is what the database file has: every accepted join, and
    # nothing a player was told to try again.
    assert seats_in(db) == accepted
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size == 0, "the WAL was not checkpointed"
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
