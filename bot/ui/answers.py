"""The answer to a click, without reading back what Discord echoes of it.

discord.py asks Discord to return the message an interaction's answer made (and the one
an edit of that answer made), and parses all of it: the embed, the attachments, every
button and every option of every menu, into objects. Cityhall never reads them: what a
later step needs of an answer is its id, fetched when needed (``original_response``). So
the adapter discord.py sends interaction answers through gets those replies with their
message cut to its id and flags before discord.py parses them. After a restart, when
every table's first click arrives within a second, that parse was a tenth of each
click's time on the event loop.

The same adapter keeps each interaction token's rate-limit window without holding up, or
locking out for good, a request cancelled while it runs (``TokenWindowLock``).
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Any

import discord.webhook.async_ as webhook_http

# Interaction answers and edits of them: /interactions/{id}/{token}/callback and
# /webhooks/{application}/{token}/messages/@original.
_ANSWERS = ("/callback", "/messages/@original", "/messages/{message_id}")
WINDOW_MARGIN = 0.01  # seconds a token's lock is held past the window Discord reports


def lean_message(message: dict[str, Any]) -> None:
    """Keep what discord.py needs to make a Message of ``message``, in place."""
    message["embeds"] = []
    message["attachments"] = []
    message["components"] = []
    message["mentions"] = []
    message["mention_roles"] = []


class LeanAnswers(webhook_http.AsyncWebhookAdapter):
    async def request(self, route: Any, session: Any, **kwargs: Any) -> Any:
        data = await super().request(route, session, **kwargs)
        path = getattr(route, "path", "")
        if isinstance(data, dict) and path.endswith(_ANSWERS):
            resource = data.get("resource")
            message = resource.get("message") if isinstance(resource, dict) else data
            if isinstance(message, dict) and "id" in message:
                lean_message(message)
        return data


class TokenWindowLock:
    """Holds an interaction token's lock for the rest of Discord's window after a request
    that used its last call, without holding up the request that did.

    discord.py (``AsyncDeferredLock``) sleeps out that window inside the request, lock
    held, and releases after the sleep without ``finally``: a request cancelled there (a
    table edit past ``Tables.THROUGH_CLICK_PATIENCE``) kept the token's lock for good, and
    every later request on that token (a ping's deletion, the next table edit) waited
    forever. Here the release is scheduled instead, so nothing is awaited on the way out."""

    def __init__(self, lock: asyncio.Lock) -> None:
        self.lock = lock
        self.delta: float | None = None

    async def __aenter__(self) -> TokenWindowLock:
        await self.lock.acquire()
        return self

    def delay_by(self, delta: float) -> None:
        self.delta = delta

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, traceback: TracebackType | None) -> None:
        if self.delta:
            # A little past the window: the event loop's timers fire to the millisecond,
            # and one released a hair early met a 429 (retry_after 0.001 s) in the load test.
            asyncio.get_running_loop().call_later(self.delta + WINDOW_MARGIN, self.lock.release)
        else:
            self.lock.release()


def install() -> bool:
    """Send interaction answers through ``LeanAnswers`` from the current context on
    (tasks started later inherit it), their tokens' windows kept by ``TokenWindowLock``.
    False where discord.py has no such hook."""
    context = getattr(webhook_http, "async_context", None)
    if context is None:
        return False
    if hasattr(webhook_http, "AsyncDeferredLock"):
        # Looked up by name in ``AsyncWebhookAdapter.request`` each time it runs.
        webhook_http.AsyncDeferredLock = TokenWindowLock  # type: ignore[misc,assignment]
    context.set(LeanAnswers())
    return True
