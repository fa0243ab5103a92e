"""A finished game's Rematch button (issue 28).

The first press opens a new lobby of the same game in the same channel, with the same
options and the presser as host, and seats the same computer players again at their levels;
everyone who presses it afterwards is seated in that lobby (as Join would). The lobby then
starts as any lobby does. The button's custom id carries only the finished match
(``ch:rematch:<match>``) and the lobby it opened is remembered in the database
(``rematch:<match>`` in ``kv``), so both work after a restart. Decisions:
docs/rematch-and-animation.md.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord

from bot.core.engine import IllegalAction
from bot.core.i18n import Words
from bot.core.keyedlocks import KeyedLocks
from bot.core.records import ACTIVE, LOBBY, OVER, Match, Seat
from bot.core.runtime import Refusal

from .deferral import answering_in_time
from .leftovers import let_go_of_view
from .lobby import refused_here
from .replies import oops, storage_fault, tell
from .words import slash

if TYPE_CHECKING:
    from bot.app import CityhallBot

_ = Words("bot")

log = logging.getLogger(__name__)

# Presses of one finished game's Rematch, one at a time: two first presses at once open
# one lobby, and the second presser is seated in it.
_PRESSES = KeyedLocks()


def rematch_key(match_id: int) -> str:
    """The ``kv`` key remembering the lobby a finished match's Rematch opened."""
    return f"rematch:{match_id}"


def rematch_items(match: Match) -> list[discord.ui.Item[Any]]:
    """The Rematch button, on a game played to its end (not one ended early: its table
    keeps no buttons, and its players stopped on purpose)."""
    return [RematchButton(match.id)] if match.status == OVER else []


class RematchButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                    template=r"ch:rematch:(?P<match>[0-9]{1,15})"):
    def __init__(self, match_id: int) -> None:
        super().__init__(discord.ui.Button(
            label=_("Rematch"), emoji="🔁", style=discord.ButtonStyle.primary,
            custom_id=f"ch:rematch:{match_id}"))
        self.match_id = match_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> RematchButton:
        return cls(int(match["match"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            async with answering_in_time(interaction):
                try:
                    async with _PRESSES(self.match_id):
                        await press(interaction, self.match_id)
                except Exception as exc:
                    if (sentence := storage_fault(exc, "Rematch")) is not None:
                        await tell(interaction, sentence)
                        return
                    log.exception("Rematch press failed")
                    await oops(interaction)
        finally:
            let_go_of_view(self)


async def press(interaction: discord.Interaction, old_id: int) -> None:
    """One press of finished match ``old_id``'s Rematch, answered."""
    bot: CityhallBot = interaction.client  # type: ignore[assignment]
    old = await bot.runtime.fetch(old_id)
    if old is None or old.game not in bot.adapters:
        await tell(interaction, _("I can't find that game any more; {command} lists the "
                                  "games you can start.", command=slash("help")))
        return
    if old.status != OVER:
        await tell(interaction, _("Only a game played to its end has a rematch."))
        return
    clicker = Seat(str(interaction.user.id), interaction.user.display_name)
    linked = await bot.storage.value(rematch_key(old.id))
    lobby = bot.runtime.get(int(linked)) if linked and linked.isdigit() else None
    if lobby is not None and lobby.status == LOBBY:
        await _seat(bot, interaction, lobby, clicker)
        return
    if lobby is not None and lobby.status == ACTIVE:
        await tell(interaction, _("This rematch has already started. Use {command} to see it.",
                                  command=slash("game status")))
        return
    if bot.runtime.in_channel(old.channel_id) is not None:
        await tell(interaction, _("This channel already has an unfinished game, so no rematch "
                                  "was opened. Use {command} to see it.",
                                  command=slash("game status")))
        return
    if await newer_game(bot, old):
        await tell(interaction, _("A newer game has been played in this channel since this "
                                  "one, so this Rematch is closed. Start another with "
                                  "{command}.", command=slash(f"{old.game} new",
                                                              _domain(bot, old.game))))
        return
    await _open(bot, interaction, old, clicker)


async def newer_game(bot: CityhallBot, old: Match) -> bool:
    """Whether a game was started in ``old``'s channel after it (a lobby nobody started
    does not count: a cancelled or expired rematch lobby leaves the Rematch open)."""
    return await bot.storage.started_after(old.channel_id, old.id)


def _domain(bot: CityhallBot, game: str) -> str:
    from bot.games import GAMES

    return GAMES[game].domain if game in GAMES else "bot"


async def _seat(bot: CityhallBot, interaction: discord.Interaction, lobby: Match,
                clicker: Seat) -> None:
    """A later press: a seat in the rematch's lobby, as Join gives one."""
    where = _lobby_link(lobby)
    if lobby.seat(clicker.id) is not None:
        await tell(interaction,
                   (_("You already have a seat in this rematch.") + " " + where).strip())
        return
    try:
        lobby = await bot.runtime.join(lobby.id, clicker)
    except Refusal as exc:
        await tell(interaction, str(exc))
        return
    await tell(interaction, (_("You have a seat in the rematch.") + " " + where).strip())
    bot.background(bot.tables.refresh(lobby.id))  # the lobby message lists the new seat


def _lobby_link(lobby: Match) -> str:
    if lobby.table_message_id is None:
        return ""
    return (f"https://discord.com/channels/{lobby.guild_id}/{lobby.channel_id}/"
            f"{lobby.table_message_id}")


async def _open(bot: CityhallBot, interaction: discord.Interaction, old: Match,
                host: Seat) -> None:
    """The first press: a lobby like ``old``'s (its options, its computer players at their
    levels) with ``host`` hosting, posted in the channel as the press's answer."""
    if await refused_here(bot, interaction, old.guild_id, old.channel_id):
        return
    try:
        lobby = await bot.runtime.open_lobby(old.guild_id, old.channel_id, old.game, host,
                                             dict(old.options))
    except (Refusal, IllegalAction) as exc:
        await tell(interaction, str(exc))
        return
    try:
        for seat in old.seats:
            if seat.cpu:
                lobby = await bot.runtime.add_computer(lobby.id, host.id, seat.level)
        await bot.storage.set_value(rematch_key(old.id), str(lobby.id))
        payload = await bot.tables.payload(lobby)
        await interaction.response.send_message(**payload.send_kwargs())
    except (Refusal, discord.HTTPException) as exc:
        # Nobody can join a lobby that was never posted: close it, so nothing changed.
        log.warning("Could not open the rematch of match %s (%s); closing lobby %s.", old.id,
                    exc, lobby.id)
        await bot.runtime.end(lobby.id, host.id, can_manage=True)
        await tell(interaction, _("The rematch could not be opened; please try again."))
        return
    log.info("Rematch of match %s: lobby %s opened by %s.", old.id, lobby.id, host.id)
    try:
        message = await interaction.original_response()
    except discord.HTTPException as exc:
        log.warning("Could not read back the message of rematch lobby %s: %s", lobby.id, exc)
        return
    await bot.runtime.set_table_message(lobby.id, message.id)
