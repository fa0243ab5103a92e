"""The lobby every game shares: Join, Leave, Add computer, Start, Cancel, and a menu for
the host to set each computer player's level (easy, normal or hard)."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.core.engine import IllegalAction
from bot.core.i18n import Text, Words
from bot.core.levels import LEVELS
from bot.core.records import LOBBY, Match, Seat
from bot.core.runtime import Refusal, Runtime

from .clicks import answer_click
from .components import Components, offered_values
from .game import said_name
from .payload import TablePayload
from .permissions import has_manage_messages
from .replies import NO_MENTIONS, plain_name, tell
from .server_words import channels_sentence

if TYPE_CHECKING:
    from bot.app import CityhallBot

    from .game import GameAdapter

log = logging.getLogger(__name__)

_ = Words("bot")
_l = _.lazy

OPS = {
    "join": (_l("Join"), discord.ButtonStyle.success, 0),
    "leave": (_l("Leave"), discord.ButtonStyle.secondary, 0),
    "start": (_l("Start"), discord.ButtonStyle.primary, 0),
    "rules": (_l("How to play"), discord.ButtonStyle.secondary, 0),
    "cpu": (_l("Add computer"), discord.ButtonStyle.secondary, 1),
    "nocpu": (_l("Remove computer"), discord.ButtonStyle.secondary, 1),
    "cancel": (_l("Cancel"), discord.ButtonStyle.danger, 1),
}

# A computer player's level as the lobby and its menu name it.
LEVEL_NAMES: Mapping[str, Text] = {"easy": _l("easy"),
                                   "normal": _l("normal"), "hard": _l("hard")}


def level_name(level: str) -> str:
    return str(LEVEL_NAMES.get(level, level))


async def _answered(item: discord.ui.Item[Any], handling: Awaitable[None],
                    interaction: discord.Interaction, what: str) -> None:
    """A lobby item's click, answered as every restart-safe button's is (bot/ui/clicks.py):
    in time, a bug as an apology, the view discord.py routed it through let go of."""
    async def handle() -> None:
        await handling

    await answer_click(interaction, item, what, handle)


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=r"ch:lobby:(?P<match>[0-9]{1,15}):(?P<op>join|leave|start|rules|cpu|nocpu|cancel)"):
    def __init__(self, match_id: int, op: str) -> None:
        label, style, row = OPS[op]
        super().__init__(discord.ui.Button(label=str(label), style=style, row=row,
                                           custom_id=f"ch:lobby:{match_id}:{op}"))
        self.match_id = match_id
        self.op = op

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LobbyButton:
        return cls(int(match["match"]), match["op"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await _answered(self, self._handle(interaction), interaction, "a lobby click")

    async def _handle(self, interaction: discord.Interaction) -> None:
        bot: CityhallBot = interaction.client  # type: ignore[assignment]
        match = bot.runtime.get(self.match_id)
        if self.op == "rules":
            await _rules(bot, interaction, self.match_id, match)
            return
        if match is None or match.status != LOBBY:
            await tell(interaction, str(CLOSED))
            return
        clicker = Seat(str(interaction.user.id), interaction.user.display_name)
        try:
            match = await _CALLS[self.op](bot.runtime, match, clicker, interaction)
        except Refusal as exc:
            await tell(interaction, str(exc))
            return
        await bot.tables.answer_with(interaction, match, ended=_cancelled(bot, match, clicker))


# What each lobby button asks of the runtime for the clicker; the answer is
# ``Tables.answer_with``'s (the lobby, the table just started, or the cancelled lobby).
LobbyCall = Callable[[Runtime, Match, Seat, discord.Interaction], Awaitable[Match]]


async def _cancel(runtime: Runtime, match: Match, clicker: Seat,
                  interaction: discord.Interaction) -> Match:
    if clicker.id != match.host_id and not has_manage_messages(interaction):
        raise Refusal(_("Only the host or someone with Manage Messages can cancel."))
    return await runtime.end(match.id, clicker.id, can_manage=True)


_CALLS: dict[str, LobbyCall] = {
    "join": lambda runtime, match, clicker, _: runtime.join(match.id, clicker),
    "leave": lambda runtime, match, clicker, _: runtime.leave(match.id, clicker.id),
    "cpu": lambda runtime, match, clicker, _: runtime.add_computer(match.id, clicker.id),
    "nocpu": lambda runtime, match, clicker, _: runtime.remove_computer(match.id, clicker.id),
    "start": lambda runtime, match, clicker, _: runtime.start(match.id, clicker.id),
    "cancel": _cancel,
}


def _cancelled(bot: CityhallBot, match: Match, clicker: Seat) -> Text:
    """What the message of a lobby cancelled by ``clicker`` says (in the channel's
    language, said by ``answer_with``)."""
    return _l("The {game} lobby was cancelled by {name}.",
              game=bot.adapters[match.game].engine.title, name=plain_name(clicker.name))


async def _rules(bot: CityhallBot, interaction: discord.Interaction, match_id: int,
                 match: Match | None) -> None:
    """How to play: for anyone, seated or not, and whatever became of the lobby: only the
    asker sees it, and the lobby stays as it is."""
    game = match.game if match is not None else await _game_of(bot, match_id)
    if game is None:
        await tell(interaction, _("I don't know that game any more; /help lists them."))
        return
    await send_rules_of(interaction, bot.adapters[game])


_LEVEL_PICK = re.compile(r"(?P<seat>cpu[0-9]{1,3}):(?P<level>easy|normal|hard)")
CLOSED = _l("This lobby is closed. Use /game status to see what is on in this channel.")


class LevelSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                  template=r"ch:lobby:(?P<match>[0-9]{1,15}):level"):
    """The host's menu of computer players' levels: one option per computer and level
    ("Ada (computer): hard"), so one pick on a phone sets one player's level. Its custom id
    carries only the match, so it works after a restart like the lobby's buttons."""

    def __init__(self, match_id: int, select: discord.ui.Select[Any] | None = None) -> None:
        super().__init__(select or discord.ui.Select(custom_id=f"ch:lobby:{match_id}:level"))
        self.match_id = match_id

    @classmethod
    def on(cls, match: Match, words: Mapping[str, str | Text]) -> LevelSelect:
        """The menu for ``match``; ``words`` say what each level means in this game (a
        phone shows an option's description under it)."""
        options = [
            discord.SelectOption(
                label=_("{name}: {level}", name=said_name(seat), level=level_name(level))[:100],
                value=f"{seat.id}:{level}",
                description=((_("Its level now") + " · " if seat.level == level else "")
                             + str(words[level]))[:100])
            for seat in match.seats if seat.cpu for level in LEVELS
        ][:25]
        return cls(match.id, discord.ui.Select(
            custom_id=f"ch:lobby:{match.id}:level",
            placeholder=_("Set a computer player's level"),
            options=options, row=2))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LevelSelect:
        # The menu as the message carries it: the pick is checked against its options.
        return cls(int(match["match"]), item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        await _answered(self, self._handle(interaction), interaction, "a lobby level pick")

    async def _handle(self, interaction: discord.Interaction) -> None:
        bot: CityhallBot = interaction.client  # type: ignore[assignment]
        values = offered_values(self.item)
        pick = _LEVEL_PICK.fullmatch(values[0]) if values and len(values) == 1 else None
        if pick is None:
            await tell(interaction, _("Pick one of the choices in the menu."))
            return
        match = bot.runtime.get(self.match_id)
        if match is None or match.status != LOBBY:
            await tell(interaction, str(CLOSED))
            return
        try:
            match = await bot.runtime.set_level(self.match_id, str(interaction.user.id),
                                                pick["seat"], pick["level"])
        except Refusal as exc:
            await tell(interaction, str(exc))
            return
        await bot.tables.answer_with(interaction, match)


async def _game_of(bot: CityhallBot, match_id: int) -> str | None:
    match = await bot.storage.get(match_id)
    return match.game if match is not None and match.game in bot.adapters else None


def lobby_payload(bot: CityhallBot, match: Match) -> TablePayload:
    adapter = bot.adapters[match.game]
    engine = adapter.engine
    seats = "\n".join(
        f"{i}. {'🤖 ' if s.cpu else ''}{plain_name(said_name(s))}"
        + (" " + _("(host)") if s.id == match.host_id else "")
        # Every computer's level, normal too: this is where the host chooses it.
        + (f" · {level_name(s.level)}" if s.cpu else "")
        for i, s in enumerate(match.seats, 1)
    )
    embed = discord.Embed(
        title=_("{game} — waiting for players", game=engine.title),
        description=(
            _("{least}–{most} players.", least=engine.min_players, most=engine.max_players)
            + " " + _("Press **Join** to take a seat; the host adds computer players (normal; "
                "the menu below sets each one's level: easy, normal or hard) and starts.")
            + "\n\n"
            + _("**Seated ({seated}/{most})**", seated=len(match.seats),
                most=engine.max_players)
            + f"\n{seats}"
        ),
        colour=adapter.colour,
    )
    if options := adapter.options_text(match):
        embed.add_field(name=_("Options"), value=options, inline=False)
    view = Components()
    full = len(match.seats) >= engine.max_players
    for op in OPS:
        button = LobbyButton(match.id, op)
        if op in ("join", "cpu") and full:
            button.item.disabled = True
        if op == "nocpu" and not any(s.cpu for s in match.seats):
            button.item.disabled = True
        view.add_item(button)
    if any(s.cpu for s in match.seats):
        view.add_item(LevelSelect.on(match, adapter.level_words))
    return TablePayload(content="", png=None, view=view, embed=embed)


async def refused_here(bot: CityhallBot, interaction: discord.Interaction, guild_id: int,
                       channel_id: int) -> bool:
    """Whether the server's managers keep games out of this channel (``/settings
    channels``); if so the clicker has been told where games may be started."""
    server = bot.servers.get(guild_id)
    parent_id = getattr(interaction.channel, "parent_id", None)  # a thread's channel
    if server.allows(channel_id, parent_id):
        return False
    await tell(interaction, _("Games can't be started in this channel: this server's "
                              "managers chose where with /settings.") + " "
               + channels_sentence(server))
    return True


async def open_lobby(interaction: discord.Interaction, game: str, options: dict[str, Any]) -> None:
    """``/<game> new``: open a lobby in this channel with the clicker as host and post it,
    or say in a sentence why not (a busy channel, an option the game refuses)."""
    bot: CityhallBot = interaction.client  # type: ignore[assignment]
    if interaction.guild_id is None or interaction.channel_id is None:
        await tell(interaction, _("Cityhall games are played in server channels."))
        return
    server = bot.servers.get(interaction.guild_id)
    if await refused_here(bot, interaction, interaction.guild_id, interaction.channel_id):
        return
    # The server's default options for this game, then what /new chose.
    options = server.options_for(game, options)
    host = Seat(str(interaction.user.id), interaction.user.display_name)
    try:
        match = await bot.runtime.open_lobby(interaction.guild_id, interaction.channel_id, game,
                                             host, options)
    except (Refusal, IllegalAction) as exc:
        await tell(interaction, str(exc))
        return
    title = bot.adapters[game].engine.title
    payload = await bot.tables.payload(match)
    try:
        await interaction.response.send_message(**payload.send_kwargs())
    except discord.HTTPException as exc:
        # Nobody can see or join a lobby that was never posted, and it would keep the
        # channel busy until it expires: close it again, so "nothing changed" is true.
        log.warning("Could not post lobby %s (%s); closing it.", match.id, exc)
        await bot.runtime.end(match.id, host.id, can_manage=True)
        await tell(interaction, _("Discord did not take the {game} lobby, so none was opened. "
                                  "Please try /{command} new again.", game=title, command=game))
        return
    try:
        message = await interaction.original_response()
    except discord.HTTPException as exc:
        # The lobby is posted and its buttons work (they carry the match id); only its
        # message id is unknown, which later edits (expiry) would need. Say what is true.
        log.warning("Could not read back the message of lobby %s: %s", match.id, exc)
        await tell(interaction, _("Your {game} lobby is open and its buttons work. If you "
                                  "don't see it, /game status shows it again.", game=title))
        return
    await bot.runtime.set_table_message(match.id, message.id)


async def send_rules_of(interaction: discord.Interaction, adapter: GameAdapter) -> None:
    """A game's How to play, for the asker only."""
    await send_rules(interaction, _("How to play {game}", game=adapter.engine.title),
                     adapter.rules_summary, adapter.colour, footer=adapter.rules_footer)


async def send_rules(interaction: discord.Interaction, title: str | Text, text: str | Text,
                     colour: discord.Colour, footer: str | Text | None = None) -> None:
    """``/<game> rules``: the summary, for the asker only, in their language."""
    embed = discord.Embed(title=str(title), description=str(text), colour=colour)
    if footer:
        embed.set_footer(text=str(footer))
    await interaction.response.send_message(embed=embed, ephemeral=True,
                                            allowed_mentions=NO_MENTIONS)


def given(**options: Any) -> dict[str, Any]:
    """The options a ``/<game> new`` was given: those not left out (None)."""
    return {key: value for key, value in options.items() if value is not None}


class GameCommands(commands.Cog):
    """A game's slash command group: ``new`` is each game's own (its options differ);
    ``rules`` says what the lobby's How to play says."""

    def __init__(self, bot: CityhallBot, adapter: GameAdapter) -> None:
        self.bot = bot
        self.adapter = adapter

    async def open(self, interaction: discord.Interaction, options: dict[str, Any]) -> None:
        await open_lobby(interaction, self.adapter.engine.name, options)

    async def show_rules(self, interaction: discord.Interaction) -> None:
        await send_rules_of(interaction, self.adapter)
