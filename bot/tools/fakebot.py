"""Running the real Cityhall bot against the fake Discord (``fakediscord/``): the settings
that point it there, waiting until its tables show every move, and finding a button. The
tests and the benchmark (``bot/tools/clickbench.py``) share these; only Cityhall's
repository has the fake Discord.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.config import Settings
from bot.core.i18n import TRANSLATED, pseudo, translations
from fakediscord import FakeDiscord, find_button
from fakediscord.models import FakeMessage

if TYPE_CHECKING:
    from bot.app import CityhallBot

Member = dict[str, Any]
Users = dict[str, Member]




def bot_settings(fake: FakeDiscord, db_path: Path, **overrides: Any) -> Settings:
    """Settings for a bot in this process talking to ``fake``, its games in ``db_path``."""
    values: dict[str, Any] = {
        "token": fake.token,
        "dev_guild_id": int(fake.guild_id),
        "database_path": str(db_path),
        "api_base": fake.api_base,
        "turn_seconds": 600.0,
        "cpu_delay": 0.0,
        "log_level": "WARNING",
        # the bot paces itself by the same (possibly shortened) windows the fake enforces
        "rate_limit_scale": fake.rate_limit_scale,
        # pictures in a thread: a bot per test would otherwise start two processes each
        # (tests/test_process*.py run the default, worker processes)
        "render_workers": 0,
    }
    values.update(overrides)
    return Settings(**values)


async def settle(bot: CityhallBot, *match_ids: int, timeout: float = 10.0) -> None:
    """Wait until computer moves are done and every table shows its match's latest state."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    ids = set(match_ids) | {m.id for m in bot.runtime.unfinished()}
    while True:
        pending = []
        for match_id in ids:
            match = await bot.runtime.fetch(match_id)
            if match is None or match.status == "lobby" or match.status == "ended":
                continue
            if (bot.runtime.computers_due(match) or bot.runtime.undelivered.get(match_id)
                    or bot.tables.shown.get(match_id) != match.version):
                pending.append(match_id)
        if not pending:
            return
        if loop.time() > end:
            raise TimeoutError(f"matches {pending} did not settle")
        await asyncio.sleep(0.005)


def by_id(*players: Member) -> Users:
    """The players keyed by their user id, as the engines name seats."""
    return {str(player["id"]): player for player in players}


def button_id(message: FakeMessage, label: str | None = None, prefix: str | None = None) -> str:
    """The custom id of the button labelled ``label`` (its English words, found in whatever
    language the message speaks: a catalog's translation or the pseudo-locale's) or
    starting with ``prefix``."""
    if label is None:
        return str(find_button(message, custom_id_prefix=prefix)["custom_id"])
    for said in said_as(label):
        try:
            return str(find_button(message, label=said, custom_id_prefix=prefix)["custom_id"])
        except AssertionError:
            continue
    return str(find_button(message, label=label, custom_id_prefix=prefix)["custom_id"])


def said_as(label: str) -> list[str]:
    """``label`` in English, in the pseudo-locale and in every catalog's translations."""
    from bot.games import GAMES

    said = [label, pseudo(label)]
    for domain in ("bot", *(game.domain for game in GAMES.values())):
        for language in TRANSLATED:
            said.append(translations(domain, language).gettext(label))
    return list(dict.fromkeys(said))
