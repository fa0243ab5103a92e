"""A table edited through a click on it, outside Discord's global limit.

Discord allows a bot 50 requests a second in all, and on a busy server the tables' edits
alone came near that (issue 25: 39 a second at 80 clicks a second, each picture then waiting
seconds for its turn). Requests through an interaction's webhook are not counted against
that limit. A click on a table's button answered by updating the table
message (a deferred update, type 6, or an update, type 7) lets the bot edit that message
through the click's webhook (``PATCH …/messages/@original``) for the token's 15 minutes.

So when a table has no click with more than ``RENEW_BEFORE`` of its token left, a click on
it that opens a private picker, or says a private word, is answered by a deferred update
followed by a private follow-up (``bot/ui/deferral.py``: the same path a slow click takes),
and ``TableHooks`` remembers it. Other clicks are answered as always, in one request: one
token carries every edit of its table for ten minutes or more. A click that waited its turn
in a crowd (a restart's first clicks) is not made to take two requests either: its answer
comes first, and the table goes through the channel until a later click. ``Tables._edit``
edits through the remembered click while it is valid, and through the channel otherwise
(after a restart, after a quiet quarter of an hour, or when Discord refuses). The tokens
are credentials for 15 minutes: kept in memory only, one per match.
"""

from __future__ import annotations

import time
from collections import OrderedDict

import discord
from discord.http import handle_message_parameters
from discord.webhook.async_ import async_context

from .pings import TOKEN_MARGIN

# The answers after which @original is the message clicked (the table).
UPDATES = (discord.InteractionResponseType.deferred_message_update,
           discord.InteractionResponseType.message_update)
TABLE_CLICK = "cityhall_table_click"  # interaction.extras: the match whose table was clicked
# interaction.extras: a private answer to this click goes out as a deferred update and a
# follow-up, so that the click can carry the table's edits
CARRY_TABLE = "cityhall_carry_table"
# A table's click is renewed when its token has less than this left (of 15 minutes).
RENEW_BEFORE = 300.0
# A click that waited longer than this for its turn is in a crowd: answered in one request.
CROWD_WAIT = 0.25


def clicked_table(interaction: discord.Interaction, match_id: int,
                  table_message_id: int | None, *, carry: bool) -> bool:
    """Whether ``interaction`` is a click on the match's table message; if so it is marked
    (``TableHooks.note`` remembers it if it was answered by updating the table), and with
    ``carry`` a private answer to it goes out as a deferred update and a follow-up."""
    message = interaction.message
    if (message is None or table_message_id is None or message.id != table_message_id
            or interaction.type is not discord.InteractionType.component):
        return False
    interaction.extras[TABLE_CLICK] = match_id
    if carry:
        interaction.extras[CARRY_TABLE] = True
    return True


class TableHooks:
    """Each match's latest click on its table answered by updating it: (the table message's
    id, the click's webhook, when its token stops being used, epoch seconds)."""

    def __init__(self) -> None:
        # In the order they run out (each one noted goes to the end): the expired ones,
        # of matches that ended without another edit, are dropped from the front.
        self._hooks: OrderedDict[int, tuple[int, discord.Webhook, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._hooks)

    def note(self, interaction: discord.Interaction) -> None:
        """Remember ``interaction`` for its match's table edits if it was a click on the
        table (``clicked_table``) answered by updating the table."""
        match_id = interaction.extras.get(TABLE_CLICK)
        if match_id is not None:
            self.carry(match_id, interaction)

    def carry(self, match_id: int, interaction: discord.Interaction) -> None:
        """Remember ``interaction``, a click on the match's table message (Start, on the
        lobby that became the table), for the table's edits if it was answered by updating
        that message."""
        message = interaction.message
        if message is None or interaction.response.type not in UPDATES:
            return
        now = time.time()
        expires = interaction.expires_at.timestamp() - TOKEN_MARGIN
        if expires > now:
            self._hooks[match_id] = (message.id, interaction.followup, expires)
            self._hooks.move_to_end(match_id)
        while self._hooks and next(iter(self._hooks.values()))[2] <= now:
            self._hooks.popitem(last=False)

    def wants(self, match_id: int, message_id: int | None) -> bool:
        """Whether the match's table (``message_id``) needs a new click to carry its edits:
        none, or one with less than ``RENEW_BEFORE`` left."""
        hook = self._hooks.get(match_id)
        return (hook is None or hook[0] != message_id
                or hook[2] - time.time() < RENEW_BEFORE)

    def get(self, match_id: int, message_id: int) -> discord.Webhook | None:
        """The webhook to edit ``message_id`` (the match's table) through, if one is valid."""
        hook = self._hooks.get(match_id)
        if hook is None:
            return None
        table_id, webhook, expires = hook
        if table_id != message_id or expires <= time.time():
            del self._hooks[match_id]
            return None
        return webhook

    def carries(self, match_id: int, message_id: int | None) -> bool:
        """Whether a valid click carries edits of ``message_id`` (nothing is dropped here:
        ``get`` decides when the edit is sent)."""
        hook = self._hooks.get(match_id)
        return hook is not None and hook[0] == message_id and hook[2] > time.time()

    def forget(self, match_id: int) -> None:
        self._hooks.pop(match_id, None)


async def edit_original(webhook: discord.Webhook, **fields: object) -> None:
    """Edit the message a click was on through the click's webhook (Discord's "edit original
    interaction response"), as ``Interaction.edit_original_response`` does, with the token
    alone (the interaction itself is not kept: bot/ui/leftovers.py frees it).
    ``fields``: content, embed, attachments, view, allowed_mentions."""
    assert webhook.token is not None
    with handle_message_parameters(
        content=fields.get("content", discord.utils.MISSING),  # type: ignore[arg-type]
        attachments=fields.get("attachments", discord.utils.MISSING),  # type: ignore[arg-type]
        embed=fields.get("embed", discord.utils.MISSING),  # type: ignore[arg-type]
        view=fields.get("view", discord.utils.MISSING),  # type: ignore[arg-type]
        allowed_mentions=fields.get("allowed_mentions"),  # type: ignore[arg-type]
    ) as params:
        await async_context.get().edit_original_interaction_response(
            webhook.id, webhook.token, session=webhook.session, proxy=webhook.proxy,
            proxy_auth=webhook.proxy_auth, payload=params.payload,
            multipart=params.multipart, files=params.files)
