"""What a server's managers chose with /settings: turn time, computer delay, where games may
be started, and default options per game.

Kept as JSON text in the database's key/value store (``server:<guild id>:settings``), one
key per server, and in memory after start, so that the runtime and the driver can ask for a
server's turn time without waiting on the database. Nothing here knows Discord.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .i18n import ENGLISH, LANGUAGES, PSEUDO, Words, cldr, current, number
from .storage import Storage

_ = Words("bot")
_n = _.plural

log = logging.getLogger(__name__)

KEY_PREFIX = "server:"
KEY_SUFFIX = ":settings"

# Bounds a server manager may choose within. A turn under 30 s is too short to read a board
# and pick; over a day, a game nobody plays keeps its channel busy for days.
TURN_SECONDS_MIN = 30.0
TURN_SECONDS_MAX = 24 * 3600.0
CPU_DELAY_MAX = 10.0


class SettingsError(ValueError):
    """A value a server manager cannot choose; the text is a sentence saying why."""


def settings_key(guild_id: int) -> str:
    return f"{KEY_PREFIX}{guild_id}{KEY_SUFFIX}"


@dataclass(frozen=True)
class ServerSettings:
    """One server's choices. ``None`` means "the bot's default" (TURN_SECONDS, CPU_DELAY),
    so a server that never changed a value follows the host's .env when it changes."""

    turn_seconds: float | None = None
    cpu_delay: float | None = None
    # None: games may be started in every channel except ``denied_channels``; a tuple:
    # only in those channels (and threads under them).
    allowed_channels: tuple[int, ...] | None = None
    denied_channels: tuple[int, ...] = ()
    game_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # The language of the server's public messages and pictures (a code of
    # bot.core.i18n.LANGUAGES); None: Discord's server language (guild_locale), else English.
    language: str | None = None

    def __post_init__(self) -> None:
        if self.language is not None and self.language not in LANGUAGES:
            raise SettingsError(_("Cityhall does not speak {language}.",
                                  language=self.language))
        if self.turn_seconds is not None and \
                not TURN_SECONDS_MIN <= self.turn_seconds <= TURN_SECONDS_MAX:
            raise SettingsError(_("The turn time must be between {shortest} and {longest}.",
                                  shortest=describe_seconds(TURN_SECONDS_MIN),
                                  longest=describe_seconds(TURN_SECONDS_MAX)))
        if self.cpu_delay is not None and not 0.0 <= self.cpu_delay <= CPU_DELAY_MAX:
            raise SettingsError(_("The computer players' pause must be between 0 and "
                                  "{most} seconds.", most=int(CPU_DELAY_MAX)))

    # -- where games may be started ---------------------------------------------------------

    def allows(self, channel_id: int, parent_id: int | None = None) -> bool:
        """May a game be started in this channel (or thread, under ``parent_id``)?"""
        places = {channel_id} | ({parent_id} if parent_id is not None else set())
        if places & set(self.denied_channels):
            return False
        return self.allowed_channels is None or bool(places & set(self.allowed_channels))

    def allow(self, channel_id: int) -> ServerSettings:
        denied = tuple(c for c in self.denied_channels if c != channel_id)
        if self.allowed_channels is None:
            return replace(self, denied_channels=denied)
        allowed = self.allowed_channels if channel_id in self.allowed_channels \
            else (*self.allowed_channels, channel_id)
        return replace(self, allowed_channels=allowed, denied_channels=denied)

    def allow_only(self, channel_id: int) -> ServerSettings:
        """From "every channel" to "only listed ones", starting with this one."""
        allowed = (*(self.allowed_channels or ()), channel_id) \
            if channel_id not in (self.allowed_channels or ()) else self.allowed_channels
        return replace(self, allowed_channels=allowed,
                       denied_channels=tuple(c for c in self.denied_channels if c != channel_id))

    def deny(self, channel_id: int) -> ServerSettings:
        if self.allowed_channels is not None:
            return replace(self, allowed_channels=tuple(
                c for c in self.allowed_channels if c != channel_id))
        if channel_id in self.denied_channels:
            return self
        return replace(self, denied_channels=(*self.denied_channels, channel_id))

    def everywhere(self) -> ServerSettings:
        return replace(self, allowed_channels=None, denied_channels=())

    # -- default options --------------------------------------------------------------------

    def options_for(self, game: str, chosen: Mapping[str, Any]) -> dict[str, Any]:
        """A lobby's options: the server's defaults for the game, then what /new chose."""
        return {**self.game_options.get(game, {}), **chosen}

    def with_options(self, game: str, options: Mapping[str, Any]) -> ServerSettings:
        games = {k: dict(v) for k, v in self.game_options.items() if k != game}
        if options:
            games[game] = dict(options)
        return replace(self, game_options=games)

    # -- storage ----------------------------------------------------------------------------

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "turn_seconds": self.turn_seconds,
            "cpu_delay": self.cpu_delay,
            "allowed_channels": None if self.allowed_channels is None
            else [str(c) for c in self.allowed_channels],
            "denied_channels": [str(c) for c in self.denied_channels],
            "game_options": {k: dict(v) for k, v in self.game_options.items()},
        }
        if self.language is not None:
            data["language"] = self.language
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ServerSettings:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise SettingsError("not a JSON object")
        allowed = data.get("allowed_channels")
        options = data.get("game_options") or {}
        return cls(
            turn_seconds=_number(data.get("turn_seconds")),
            cpu_delay=_number(data.get("cpu_delay")),
            allowed_channels=None if allowed is None else tuple(int(c) for c in allowed),
            denied_channels=tuple(int(c) for c in data.get("denied_channels") or ()),
            game_options={str(k): dict(v) for k, v in options.items() if isinstance(v, dict)},
            language=data.get("language"),
        )


class ServerSettingsStore:
    """Every server's settings, in memory, written through to the database."""

    def __init__(self, storage: Storage | None, *, turn_seconds: float = 180.0,
                 cpu_delay: float = 1.0) -> None:
        self.storage = storage
        # The host's values (TURN_SECONDS, CPU_DELAY) for servers that chose none.
        self.default_turn_seconds = turn_seconds
        self.default_cpu_delay = cpu_delay
        self._servers: dict[int, ServerSettings] = {}

    async def load(self) -> None:
        if self.storage is None:
            return
        loaded: dict[int, ServerSettings] = {}
        for key, text in await self.storage.values_with_prefix(KEY_PREFIX):
            if not key.endswith(KEY_SUFFIX):
                continue
            raw_id = key[len(KEY_PREFIX):-len(KEY_SUFFIX)]
            try:
                loaded[int(raw_id)] = ServerSettings.from_json(text)
            except (ValueError, TypeError, KeyError) as exc:
                # One server's unreadable settings must not stop the bot; it gets the
                # defaults, and the admin can set them again.
                log.warning("Settings of server %s could not be read (%s); using the "
                            "defaults there.", raw_id, exc)
        self._servers = loaded
        if loaded:
            log.info("Loaded the settings of %d server(s).", len(loaded))

    def get(self, guild_id: int) -> ServerSettings:
        return self._servers.get(guild_id) or ServerSettings()

    async def save(self, guild_id: int, settings: ServerSettings) -> ServerSettings:
        """Store first, then use: a setting shown as changed is on disk."""
        if self.storage is not None:
            await self.storage.set_value(settings_key(guild_id), settings.to_json())
        self._servers[guild_id] = settings
        return settings

    def turn_seconds(self, guild_id: int) -> float:
        chosen = self.get(guild_id).turn_seconds
        return self.default_turn_seconds if chosen is None else chosen

    def cpu_delay(self, guild_id: int) -> float:
        chosen = self.get(guild_id).cpu_delay
        return self.default_cpu_delay if chosen is None else chosen


def describe_seconds(seconds: float) -> str:
    """3 minutes, 1 minute 30 seconds, 45 seconds, 2 hours (in the current language)."""
    total = round(seconds)
    if total < 60 and seconds != total:
        return seconds_words(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    if hours:
        parts.append(_n("{n} hour", "{n} hours", hours))
    if minutes:
        parts.append(_n("{n} minute", "{n} minutes", minutes))
    if secs:
        parts.append(_n("{n} second", "{n} seconds", secs))
    return " ".join(parts) or _n("{n} second", "{n} seconds", 0)


def seconds_words(seconds: float) -> str:
    """``1 second``, ``0.5 seconds``: English writes the number as Python does (``:g``),
    other languages the reader's way (``0,5 Sekunden``), singular or plural by CLDR's rule
    for the number itself (French and Portuguese say ``0,5 seconde``)."""
    language = current()
    amount: float = int(seconds) if seconds == int(seconds) else seconds
    count = 1 if cldr(language).plural_form(amount) == "one" else 2
    shown = f"{seconds:g}" if language in (ENGLISH, PSEUDO) else number(amount)
    return _n("{n} second", "{n} seconds", count, n=shown)


def _number(value: Any) -> float | None:
    return None if value is None else float(value)
