"""A server's settings in words, for /settings and for refusals that depend on them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from bot.core.i18n import LANGUAGES, Words
from bot.core.records import LOBBY, Match
from bot.core.server_settings import (
    ServerSettings,
    ServerSettingsStore,
    describe_seconds,
    seconds_words,
)

from .words import join_words

if TYPE_CHECKING:
    from .game import GameAdapter

_ = Words("bot")


def channels_sentence(server: ServerSettings) -> str:
    if server.allowed_channels is not None:
        if not server.allowed_channels:
            return _("Games may not be started in any channel at the moment.")
        return _("Games may be started only in {channels} (and threads in them).",
                 channels=_mentions(server.allowed_channels))
    if server.denied_channels:
        return _("Games may be started in every channel except {channels}.",
                 channels=_mentions(server.denied_channels))
    return _("Games may be started in every channel.")


def describe(server: ServerSettings, store: ServerSettingsStore, guild_id: int,
             adapters: Mapping[str, GameAdapter]) -> str:
    """Every setting of one server, one line each."""
    turn = describe_seconds(store.turn_seconds(guild_id))
    pause = store.cpu_delay(guild_id)
    seconds = seconds_words(pause)
    lines = [
        _("**Turn time:** {turn} per move (the bot's default); then the computer player "
          "moves for whoever is late.", turn=turn) if server.turn_seconds is None else
        _("**Turn time:** {turn} per move; then the computer player moves for whoever is "
          "late.", turn=turn),
        _("**Computer players** pause {seconds} before each move (the bot's default).",
          seconds=seconds) if server.cpu_delay is None else
        _("**Computer players** pause {seconds} before each move.", seconds=seconds),
        _("**Channels:** {sentence}", sentence=channels_sentence(server)),
        _("**Language:** {language} (public messages and pictures; private answers follow "
          "each player's Discord).",
          language=LANGUAGES[server.language] if server.language else
          _("Discord's language for the server, English if it has none")),
    ]
    for game, adapter in sorted(adapters.items()):
        chosen = server.game_options.get(game)
        if not chosen:
            continue
        words = adapter.options_text(_placeholder(game, chosen)).replace("\n", "; ")
        lines.append(_("**{title} defaults for /{game} new:** {words}",
                       title=adapter.engine.title, game=game, words=words))
    if not server.game_options:
        lines.append(_("**Game options:** each game's own defaults; /settings defaults sets "
                       "this server's."))
    return "\n".join(lines)


def _placeholder(game: str, options: Mapping[str, object]) -> Match:
    # The games describe options from a match; a lobby-shaped stand-in carries them.
    return Match(id=0, guild_id=0, channel_id=0, game=game, status=LOBBY, host_id="",
                 seats=[], options=dict(options), seed=0)


def _mentions(channel_ids: tuple[int, ...]) -> str:
    return join_words([f"<#{c}>" for c in channel_ids])
