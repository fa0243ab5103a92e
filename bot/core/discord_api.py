"""Point discord.py at another Discord API (a local fake in tests, a proxy elsewhere).

discord.py hard-codes two endpoints: the REST base (``discord.http.Route.BASE``) and the
gateway (``DiscordWebSocket.DEFAULT_GATEWAY``). This module redirects both.

Usage, typically driven by the ``DISCORD_API_BASE`` environment variable::

    from bot.core import discord_api

    discord_api.configure_from_env()        # or use_api_base("http://127.0.0.1:8080/api/v10")

    class CityhallBot(commands.Bot):
        async def setup_hook(self) -> None:
            await discord_api.gateway_from_api(self)   # no-op unless an API base is set
            ...

``use_api_base`` must run before ``Client.login`` (it changes where login itself goes);
``gateway_from_api`` must run after login (it needs the client's HTTP session) and before
``connect``, which is exactly what ``setup_hook`` offers. Both settings are process-wide,
like the discord.py class attributes they change; ``reset_api_base`` restores the defaults.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import discord
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

ENV_VAR = "DISCORD_API_BASE"

# Captured at import so reset_api_base() can undo use_api_base()/gateway_from_api().
_DEFAULT_BASE: str = Route.BASE
_DEFAULT_GATEWAY: yarl.URL = DiscordWebSocket.DEFAULT_GATEWAY

_api_base: str | None = None


def use_api_base(api_base: str) -> None:
    """Send all REST calls (including webhooks and interaction callbacks) to ``api_base``.

    ``api_base`` is the versioned root, e.g. ``http://127.0.0.1:8080/api/v10``.
    """
    global _api_base
    url = yarl.URL(api_base)
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"{ENV_VAR} must be an absolute http(s) URL, got {api_base!r}")
    base = api_base.rstrip("/")
    # Route builds every URL as BASE + path when the route is created, and the webhook
    # adapter (interaction responses, follow-ups) uses the same Route class, so one class
    # attribute covers every REST request discord.py makes.
    Route.BASE = base
    _api_base = base


def configure_from_env(environ: Mapping[str, str] | None = None) -> str | None:
    """Apply ``DISCORD_API_BASE`` if it is set and non-empty; return the base used, if any."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "").strip()
    if not value:
        return None
    use_api_base(value)
    return value.rstrip("/")


def api_base() -> str | None:
    """The base set by ``use_api_base``, or ``None`` when talking to the real Discord."""
    return _api_base


async def gateway_from_api(client: discord.Client) -> yarl.URL | None:
    """Ask the configured API for its gateway and make ``client`` connect there.

    Does nothing (returns ``None``) unless ``use_api_base`` was called, so a bot can call
    it unconditionally from ``setup_hook``. Returns the gateway URL that will be used.
    """
    if _api_base is None:
        return None
    # discord.py 2.7 no longer asks /gateway/bot before connecting (only AutoShardedClient
    # does); Client.connect() calls DiscordWebSocket.from_client() without a gateway, which
    # falls back to the DEFAULT_GATEWAY class attribute. Setting that attribute is the least
    # invasive hook: overriding Client.connect would mean copying its reconnect loop, and
    # the attribute is also what discord.py itself falls back to after INVALID_SESSION, so
    # reconnects stay on the same server. RESUMEs use resume_gateway_url from READY, which
    # the API we talk to controls anyway.
    _shards, url, _limits = await client.http.get_bot_gateway()
    gateway = yarl.URL(url)
    DiscordWebSocket.DEFAULT_GATEWAY = gateway
    return gateway


def reset_api_base() -> None:
    """Restore discord.py's real Discord endpoints (for tests that switch back and forth)."""
    global _api_base
    Route.BASE = _DEFAULT_BASE
    DiscordWebSocket.DEFAULT_GATEWAY = _DEFAULT_GATEWAY
    _api_base = None
