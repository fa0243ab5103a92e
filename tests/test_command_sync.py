"""Slash commands are uploaded only when they changed, and `python -m bot sync` cleans up
commands registered in the wrong place (the duplicate-commands case in docs/operating.md)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import bot.app
from bot.core import i18n
from bot.ui import command_words
from fakediscord import FakeDiscord
from tests import databases
from tests.harness import cityhall_bot

# Runs on SQLite and on PostgreSQL (tests/databases.py).
pytestmark = pytest.mark.usefixtures("backend")

ROOT = Path(__file__).resolve().parent.parent


def _uploads(fake: FakeDiscord) -> list[str]:
    """Every bulk overwrite of commands the bot sent (global or per server)."""
    return [r.path for r in fake.requests if r.method == "PUT" and r.path.endswith("/commands")]


def _names(fake: FakeDiscord, guild_id: str | None) -> set[str]:
    return {c["name"] for c in fake.commands(guild_id)}


async def test_a_restart_with_the_same_commands_uploads_nothing(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    async with cityhall_bot(fake, db):
        pass
    assert _uploads(fake) == [f"/applications/{fake.application_id}/guilds/{fake.guild_id}/commands"]
    everything = _names(fake, fake.guild_id)
    assert {"cityscape", "bigcityz", "bigcity", "cities", "game", "stats"} <= everything

    async with cityhall_bot(fake, db):
        pass
    assert len(_uploads(fake)) == 1
    assert _names(fake, fake.guild_id) == everything  # and the commands are still there

    # An upgrade that changes the commands (here: one game fewer) uploads them again.
    monkeypatch.setattr(bot.app, "EXTENSIONS",
                        tuple(e for e in bot.app.EXTENSIONS if e != "cogs.cities"))
    async with cityhall_bot(fake, db):
        pass
    assert len(_uploads(fake)) == 2
    assert _names(fake, fake.guild_id) == everything - {"cities"}


async def _sync_cli(fake: FakeDiscord, db: Path, *args: str) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DEV_GUILD"))}
    env.update(PYTHONPATH=str(ROOT), DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base,
               DATABASE_PATH=str(db))
    target = databases.target(db)
    if isinstance(target, str):  # the test's PostgreSQL database, as the bot's runs use it
        env["DATABASE_URL"] = target
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "sync", *args, cwd=str(db.parent), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(process.communicate(), 50)
    assert process.returncode is not None
    return process.returncode, out.decode()


async def test_sync_clear_removes_commands_registered_twice(fake_discord: FakeDiscord,
                                                            tmp_path: Path) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    # The trap docs/operating.md describes: one start without DEV_GUILD_ID, then one with it.
    async with cityhall_bot(fake, db, dev_guild_id=None):
        pass
    async with cityhall_bot(fake, db):
        pass
    assert "cityscape" in _names(fake, None) and "cityscape" in _names(fake, fake.guild_id)

    code, out = await _sync_cli(fake, db, "--clear")
    assert code == 0, out
    assert "Removed every Cityhall slash command from Discord (global commands)." in out
    assert _names(fake, None) == set()
    assert "cityscape" in _names(fake, fake.guild_id)  # the server's own copy stays

    code, out = await _sync_cli(fake, db, "--clear", "--guild", fake.guild_id)
    assert code == 0, out
    assert f"Removed every Cityhall slash command from server {fake.guild_id}." in out
    assert _names(fake, fake.guild_id) == set()

    # The bot knows the server's commands are gone: its next start uploads them again.
    uploads = len(_uploads(fake))
    async with cityhall_bot(fake, db):
        pass
    assert len(_uploads(fake)) == uploads + 1
    assert "cityscape" in _names(fake, fake.guild_id)


async def test_sync_uploads_to_a_server_and_the_next_start_keeps_them(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    code, out = await _sync_cli(fake, db, "--guild", fake.guild_id)
    assert code == 0, out
    assert f"slash commands to server {fake.guild_id}." in out
    assert "cityscape" in _names(fake, fake.guild_id)
    async with cityhall_bot(fake, db):
        pass
    assert len(_uploads(fake)) == 1  # the bot's start found them current


async def test_sync_refuses_an_id_that_is_not_ascii_digits(fake_discord: FakeDiscord,
                                                           tmp_path: Path) -> None:
    code, out = await _sync_cli(fake_discord, tmp_path / "cityhall.sqlite3", "--guild", "１２３")
    assert code == 2 and "a server id is a number" in out
    assert _uploads(fake_discord) == []


def _descriptions(commands: list[dict[str, Any]], locale: str) -> set[str]:
    """Every command's and subcommand's description in ``locale``, as uploaded."""
    found: set[str] = set()
    for command in commands:
        found.add((command.get("description_localizations") or {}).get(locale, ""))
        found |= _descriptions([o for o in command.get("options", []) if o.get("type") in (1, 2)],
                               locale)
    return found


async def test_a_corrected_translation_uploads_the_commands_again(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    async with cityhall_bot(fake, db):
        pass
    shown = "Den aktuellen Spieltisch dieses Kanals noch einmal zeigen"
    assert shown in _descriptions(fake.commands(fake.guild_id), "de")

    # A translator corrects a German command description; nothing else changes.
    corrected = tmp_path / "de.po"
    text = i18n.catalog_file("bot", "de").read_text(encoding="utf-8")
    corrected.write_text(text.replace(f'msgstr "{shown}"', 'msgstr "Den Spieltisch neu zeigen"'),
                         encoding="utf-8")
    original = i18n.catalog_file

    def catalog_file(domain: str, language: str) -> Path:
        return corrected if (domain, language) == ("bot", "de") else original(domain, language)

    for module in (i18n, command_words):
        monkeypatch.setattr(module, "catalog_file", catalog_file)
    monkeypatch.setattr(i18n, "_loaded", {})  # read again, as a restarted bot would
    monkeypatch.setattr(i18n, "_known", {})
    async with cityhall_bot(fake, db):
        pass
    assert len(_uploads(fake)) == 2
    descriptions = _descriptions(fake.commands(fake.guild_id), "de")
    assert "Den Spieltisch neu zeigen" in descriptions and shown not in descriptions
