"""The answer to a click, without reading back what Discord echoes of it.

discord.py asks Discord to return the message an interaction's answer made (and the one
an edit of that answer made), and parses all of it: the embed, the attachments, every
button and every option of every menu, into objects. Cityhall never reads them: what a
later step needs of an answer is its id, fetched when needed (``original_response``). So
the adapter discord.py sends interaction answers through gets those replies with their
message cut to its id and flags before discord.py parses them. After a restart, when
every table's first click arrives within a second, that parse was a tenth of each
click's time on the event loop.
"""

from __future__ import annotations

from typing import Any

import discord.webhook.async_ as webhook_http

# Interaction answers and edits of them: /interactions/{id}/{token}/callback and
# /webhooks/{application}/{token}/messages/@original.
_ANSWERS = ("/callback", "/messages/@original", "/messages/{message_id}")


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


def install() -> bool:
    """Send interaction answers through ``LeanAnswers`` from the current context on
    (tasks started later inherit it). False where discord.py has no such hook."""
    context = getattr(webhook_http, "async_context", None)
    if context is None:
        return False
    context.set(LeanAnswers())
    return True
