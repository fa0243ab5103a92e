"""Answers every interaction gets: a sentence for a refusal, never silence."""

from __future__ import annotations

import logging

import discord

from bot.core import diskfull
from bot.core.i18n import Text, Words
from bot.core.storage import DatabaseLost

from .expiry import too_late

_ = Words("bot")
_l = _.lazy

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
# The English, which tests compare; said with ``_(RESTARTING)`` in the clicker's language.
RESTARTING = _l("Cityhall is restarting — try again in a moment.").message
# What bot.core tells a player in English when the database refuses a write (dbfile.LOST,
# diskfull.SENTENCE), filed here for the catalog: ``storage_fault`` looks them up by it.
STORAGE_SENTENCES = (
    _l("The bot's database file was deleted or replaced while it was running, so your move "
       "was not saved. The bot's admin has been told."),
    _l("The server's disk is full, so your move was not saved; nothing was changed. The "
       "bot's admin can free some space, then play on."),
)
USER_MENTIONS = discord.AllowedMentions(users=True, roles=False, everyone=False)


def plain_name(name: str) -> str:
    """A name members chose, as literal text in a message.

    Display names can hold Markdown: ``[x](https://evil)`` would render as a masked link and
    ``# x`` as a heading in a public message. Mentions are escaped too (a zero-width space
    after the @), so a name like "@everyone" never pings, even where pings are allowed.
    """
    return discord.utils.escape_mentions(discord.utils.escape_markdown(name))


def storage_fault(exc: BaseException, where: str) -> str | None:
    """The sentence for a player whose click or command the database could not take for a
    reason of the server's, not a bug: its file lost (the writer said so in the log, once)
    or its disk full (counted into the minute's one warning, ``where`` naming the latest).
    None for anything else, which is a bug: log it and apologise."""
    lost = exc if isinstance(exc, DatabaseLost) else exc.__cause__
    if isinstance(lost, DatabaseLost):
        return _(str(lost))
    if diskfull.is_disk_full(exc):
        diskfull.NOTES.note(where)
        return _(diskfull.SENTENCE)
    return None


async def tell(interaction: discord.Interaction, text: str | Text, *,
               file: discord.File | None = None) -> None:
    """An ephemeral sentence for the one who clicked, whether or not we answered before
    (a ``Text`` is said in the language current here: the clicker's)."""
    text = str(text)
    kwargs: dict = {"ephemeral": True, "allowed_mentions": NO_MENTIONS}
    if file is not None:
        kwargs["file"] = file
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, **kwargs)
        else:
            await interaction.response.send_message(text, **kwargs)
    except discord.HTTPException as exc:
        if too_late(exc):
            log.warning("Could not answer a click: it was over 3 s old (Discord's limit).")
        else:
            log.exception("could not answer an interaction")


async def oops(interaction: discord.Interaction) -> None:
    """Our own bug: say so plainly rather than let Discord say "This interaction failed".

    While the bot is stopping, a failure is most likely the stop itself (the database or the
    render workers closed under a click still running): then the player is told what new
    clicks are told, to try again in a moment, not that something is broken."""
    if getattr(interaction.client, "draining", False):
        await tell(interaction, _(RESTARTING))
        return
    await tell(interaction, _("Something went wrong on our side and nothing was changed. "
                              "Please try again; /game status shows the current table."))
