"""``/history``: the server's finished games, newest first, a page at a time, each one a
replay away.

A page is an embed (each game: its title, when it ended, its length in moves, and every
seat's score with the winners first) with a menu of the page's games, whose pick opens
that game's replay (``bot.ui.replay.replay_button``), and ◀ Newer / Older ▶ buttons.

Nothing is kept in memory. The buttons are ``HistoryPages`` DynamicItems whose custom id
carries the whole listing: who asked for it (only they turn its pages), its anchor (the
newest game when it was first shown: games finished since are not in it, so a page never
shifts under its reader), the page it opens, and the game and member it is filtered by.
A listing whose anchor is no longer kept, or a page that has gone, is refused in a
sentence. The replay menu (``HistoryReplays``) is for anyone who can see it.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord

from bot.core.i18n import Words, day, number
from bot.core.storage.records import HistoryEntry, HistoryPage
from bot.core.storage.records import history as read_history

from .clicks import answer_click
from .components import Components, ascii_number, offered_values
from .game import shown_name
from .leftovers import let_go_of_view
from .paged import shorten
from .play import cityhall
from .profile import title_of
from .replay import replay_button
from .replies import NO_MENTIONS, plain_name, tell
from .words import slash

if TYPE_CHECKING:
    from bot.app import CityhallBot

_ = Words("bot")
_n = _.plural
_l = _.lazy

log = logging.getLogger(__name__)

# Discord's limit on an embed's description.
DESCRIPTION_LIMIT = 4096
NOBODY = "-"  # no game, or no member, in a custom id

# The English, which tests compare; said with ``_()`` in the clicker's language.
NOT_YOURS = _l("Only the member who asked for this list can turn its pages. {history} shows "
               "you a list of your own.").message
OUTDATED = _l("This list is out of date: some of its games are no longer kept. {history} "
              "shows the list as it is now.").message


# -- words -----------------------------------------------------------------------------------


def listing_title(game: str | None, member: str | None) -> str:
    if game is not None and member is not None:
        return _("Finished {title} games of {name}", title=title_of(game), name=member)
    if game is not None:
        return _("Finished {title} games", title=title_of(game))
    if member is not None:
        return _("Finished games of {name}", name=member)
    return _("Finished games")


def entry_lines(entry: HistoryEntry) -> str:
    """Two lines: the game and its number (what ``/replay`` takes), when it ended and its
    length; then each seat's score, the winners first."""
    # TRANSLATORS: a /history entry's first line: "**Big City** · game 123 · 2 hours ago ·
    # 42 moves" ({when} is shown by Discord in the reader's own language).
    ended = f"<t:{int(entry.finished_at)}:R>"
    head = _("**{title}** · game {number} · {when} · {moves}", title=title_of(entry.game),
             number=str(entry.match_id), when=ended,
             moves=_n("{n} move", "{n} moves", entry.moves))
    seats = []
    for seat in entry.seats:
        name = plain_name(shown_name(seat.seat))
        seats.append(f"🏆 **{name}** {number(seat.score)}" if seat.won
                     else f"{name} {number(seat.score)}")
    return f"{head}\n{' · '.join(seats)}"


def history_embed(page: HistoryPage, *, game: str | None, member: str | None) -> discord.Embed:
    embed = discord.Embed(title=shorten(listing_title(game, member), 256),
                          colour=discord.Colour.gold())
    blocks: list[str] = []
    for entry in page.entries:
        block = entry_lines(entry)
        if sum(len(b) + 2 for b in blocks) + len(block) > DESCRIPTION_LIMIT:
            break  # six long escaped names a game, eight games: a rare page is cut short
        blocks.append(block)
    embed.description = "\n\n".join(blocks)
    # TRANSLATORS: the footer of a /history page.
    embed.set_footer(text=_("Page {page} · newest first", page=page.page + 1))
    return embed


def member_name(page: HistoryPage, member_id: str | None) -> str | None:
    """The name a listing filtered by a member calls them: their seat's, as stored."""
    if member_id is None:
        return None
    for entry in page.entries:
        for seat in entry.seats:
            if seat.seat.id == member_id:
                return shown_name(seat.seat)
    return None


def nothing_yet(game: str | None, member: str | None) -> str:
    if member is not None and game is not None:
        return _("{name} has no finished {title} game in this server yet.",
                 name=plain_name(member), title=title_of(game))
    if member is not None:
        return _("{name} has no finished game in this server yet.", name=plain_name(member))
    if game is not None:
        return _("No {title} game has been finished in this server yet.", title=title_of(game))
    return _("No game has been finished in this server yet.")


# -- components ------------------------------------------------------------------------------


def page_id(owner: int, anchor: int, page: int, game: str | None, member: str | None) -> str:
    return f"ch:hist:{owner}:{anchor}:{page}:{game or NOBODY}:{member or NOBODY}"


class HistoryPages(discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=r"ch:hist:(?P<owner>[0-9]{1,20}):(?P<anchor>[0-9]{1,19}):"
                            r"(?P<page>[0-9]{1,5}):(?P<game>[a-z][a-z0-9_]{0,19}|-):"
                            r"(?P<member>[0-9]{1,20}|-)"):
    """◀ Newer / Older ▶ of a /history listing: shows page ``page`` of it instead."""

    def __init__(self, owner: int, anchor: int, page: int, game: str | None,
                 member: str | None, *, label: str = "", disabled: bool = False,
                 row: int | None = None) -> None:
        super().__init__(discord.ui.Button(
            label=label or "…", style=discord.ButtonStyle.secondary, disabled=disabled,
            row=row, custom_id=page_id(owner, anchor, page, game, member)))
        self.owner, self.anchor, self.page = owner, anchor, page
        self.game, self.member = game, member

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HistoryPages:
        game, member = match["game"], match["member"]
        return cls(int(match["owner"]), int(match["anchor"]), int(match["page"]),
                   None if game == NOBODY else game, None if member == NOBODY else member)

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_click(interaction, self, "/history", lambda: self._turn(interaction))

    async def _turn(self, interaction: discord.Interaction) -> None:
        if interaction.user.id != self.owner:
            await tell(interaction, _(NOT_YOURS, history=slash("history")))
            return
        bot = cityhall(interaction)
        guild_id = interaction.guild_id
        message = interaction.message
        if guild_id is None or message is None:
            await tell(interaction, _(OUTDATED, history=slash("history")))
            return
        page = await read_history(bot.storage, guild_id, game=self.game,
                                  player_id=self.member, page=self.page, anchor=self.anchor)
        if page.outdated or not page.entries:
            await tell(interaction, _(OUTDATED, history=slash("history")))
            return
        if message.flags.ephemeral:
            embed, view = listing(page, owner=self.owner, game=self.game,
                                  member=self.member)
        else:
            # A posted list speaks the server's language, whoever turns its page.
            with bot.speaking_to(guild_id):
                embed, view = listing(page, owner=self.owner, game=self.game,
                                      member=self.member)
        await interaction.response.edit_message(embed=embed, view=view,
                                                allowed_mentions=NO_MENTIONS)


class HistoryReplays(discord.ui.DynamicItem[discord.ui.Select[Any]],
                     template=r"ch:histr:(?P<anchor>[0-9]{1,19}):(?P<page>[0-9]{1,5})"):
    """The menu of a page's games: the one picked opens its replay (privately, for whoever
    picked it: a finished game may be watched by anyone who sees the list)."""

    def __init__(self, item: discord.ui.Select[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HistoryReplays:
        assert isinstance(item, discord.ui.Select)
        return cls(item)

    async def callback(self, interaction: discord.Interaction) -> None:
        values = offered_values(self.item)
        match_id = ascii_number(values[0], 19) if values and len(values) == 1 else None
        if match_id is None:
            try:
                await tell(interaction, _("Pick one of the games in the menu."))
            finally:
                let_go_of_view(self)
            return
        # The replays' own button does the rest, as if it had been clicked.
        opener = replay_button(match_id)
        try:
            await opener.callback(interaction)
        finally:
            let_go_of_view(self)


def replay_menu(page: HistoryPage) -> discord.ui.Select[Any]:
    options = []
    for entry in page.entries:
        winners = [shown_name(s.seat) for s in entry.seats if s.won]
        # TRANSLATORS: a game in /history's replay menu: "Big City 123 · Nov 29, 2026 · Ann
        # won" (123 is the game's number).
        label = _n("{title} {number} · {day} · {winners} won",
                   "{title} {number} · {day} · {winners} won", max(1, len(winners)),
                   title=title_of(entry.game), number=str(entry.match_id),
                   day=day(entry.finished_at), winners=" & ".join(winners) or "–")
        scores = " · ".join(f"{shown_name(s.seat)} {number(s.score)}" for s in entry.seats)
        options.append(discord.SelectOption(label=shorten(label), value=str(entry.match_id),
                                            description=shorten(scores), emoji="🎞️"))
    return discord.ui.Select(custom_id=f"ch:histr:{page.anchor or 0}:{page.page}",
                             placeholder=_("Watch the replay of a game…"), options=options,
                             min_values=1, max_values=1, row=0)


def listing(page: HistoryPage, *, owner: int, game: str | None,
            member: str | None) -> tuple[discord.Embed, Components]:
    """A page of a listing: its embed, and its replay menu and page buttons."""
    name = member_name(page, member)
    embed = history_embed(page, game=game, member=None if name is None else plain_name(name))
    view = Components()
    view.add_item(HistoryReplays(replay_menu(page)))
    anchor = page.anchor or 0
    if page.page > 0 or page.more:
        view.add_item(HistoryPages(owner, anchor, max(0, page.page - 1), game, member,
                                   label=_("◀ Newer"), disabled=page.page == 0, row=1))
        view.add_item(HistoryPages(owner, anchor, page.page + 1, game, member,
                                   label=_("Older ▶"), disabled=not page.more, row=1))
    return embed, view


async def answer_history(bot: CityhallBot, interaction: discord.Interaction, game: str | None,
                         member: discord.abc.User | None, *, post: bool) -> None:
    """Answer ``/history``: its first page (privately, or posted with ``post``), or the
    sentence for a server (game, member) with no finished game."""
    assert interaction.guild_id is not None
    member_id = None if member is None else str(member.id)
    page = await read_history(bot.storage, interaction.guild_id, game=game, player_id=member_id)
    if not page.entries:
        await tell(interaction, nothing_yet(game, None if member is None
                                            else member.display_name))
        return
    if post:
        with bot.speaking_to(interaction.guild_id):
            embed, view = listing(page, owner=interaction.user.id, game=game, member=member_id)
    else:
        embed, view = listing(page, owner=interaction.user.id, game=game, member=member_id)
    await interaction.response.send_message(embed=embed, view=view, ephemeral=not post,
                                            allowed_mentions=NO_MENTIONS)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (HistoryPages, HistoryReplays)
