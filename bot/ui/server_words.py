"""A server's settings in words, for /settings and for refusals that depend on them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from bot.core.i18n import LANGUAGES
from bot.core.records import LOBBY, Match
from bot.core.server_settings import ServerSettings, ServerSettingsStore, describe_seconds

if TYPE_CHECKING:
    from .game import GameAdapter


def channels_sentence(server: ServerSettings) -> str:
    if server.allowed_channels is not None:
        if not server.allowed_channels:
            return "Games may not be started in any channel at the moment."
        return ("Games may be started only in " + _mentions(server.allowed_channels)
                + " (and threads in them).")
    if server.denied_channels:
        return ("Games may be started in every channel except "
                + _mentions(server.denied_channels) + ".")
    return "Games may be started in every channel."


def describe(server: ServerSettings, store: ServerSettingsStore, guild_id: int,
             adapters: Mapping[str, GameAdapter]) -> str:
    """Every setting of one server, one line each."""
    turn = describe_seconds(store.turn_seconds(guild_id))
    pause = store.cpu_delay(guild_id)
    lines = [
        f"**Turn time:** {turn} per move"
        + (" (the bot's default)" if server.turn_seconds is None else "")
        + "; then the computer player moves for whoever is late.",
        f"**Computer players** pause {pause:g} second{'s' if pause != 1 else ''} before "
        "each move" + (" (the bot's default)." if server.cpu_delay is None else "."),
        f"**Channels:** {channels_sentence(server)}",
        "**Language:** " + (LANGUAGES[server.language] if server.language else
                            "Discord's language for the server, English if it has none")
        + " (public messages and pictures; private answers follow each player's Discord).",
    ]
    for game, adapter in sorted(adapters.items()):
        chosen = server.game_options.get(game)
        if not chosen:
            continue
        words = adapter.options_text(_placeholder(game, chosen)).replace("\n", "; ")
        lines.append(f"**{adapter.engine.title} defaults for /{game} new:** {words}")
    if not server.game_options:
        lines.append("**Game options:** each game's own defaults; /settings defaults sets "
                     "this server's.")
    return "\n".join(lines)


def _placeholder(game: str, options: Mapping[str, object]) -> Match:
    # The games describe options from a match; a lobby-shaped stand-in carries them.
    return Match(id=0, guild_id=0, channel_id=0, game=game, status=LOBBY, host_id="",
                 seats=[], options=dict(options), seed=0)


def _mentions(channel_ids: tuple[int, ...]) -> str:
    names = [f"<#{c}>" for c in channel_ids]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
