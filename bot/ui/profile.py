"""``/profile``: a player's page in a server, as a picture with its figures in words.

The figures come from ``bot.core.storage.records.profile`` (bounded reads); the picture is
drawn by a render worker (``bot/render/profile.py``, the pool's ``"profile"`` module) at
interactive priority; the alt text says the same figures in words. The answer is private
unless the asker chose ``post``; then it is posted in the server's language.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.core.i18n import Words, average_score, day, number
from bot.core.storage.records import GameFigures, Profile, RecentResult
from bot.core.storage.records import profile as read_profile
from bot.games import GAMES
from bot.render.pool import Priority

from .game import fit_description
from .replies import NO_MENTIONS, plain_name
from .uploads import Upload
from .words import join_words, slash

if TYPE_CHECKING:
    from bot.app import CityhallBot

_ = Words("bot")
_n = _.plural

log = logging.getLogger(__name__)

# The render pool's name for the module of the profile's picture (bot.games.render_pool).
PICTURES = "profile"
FILENAME = "profile.png"
# Past this many seconds of pictures queued ahead, the command is acknowledged first
# ("thinking…") and answered when the picture is drawn, within Discord's 15 minutes.
DEFER_PAST_S = 1.0


def title_of(game: str) -> str:
    record = GAMES.get(game)
    return record.engine.title if record is not None else game


def style_of(game: str) -> int:
    """A game's colour and marker on every profile: its place in the catalogue."""
    order = list(GAMES)
    return order.index(game) if game in order else len(order)


def picture_data(profile: Profile, name: str, *, single: bool) -> dict[str, Any]:
    """What ``bot.render.profile.render_profile`` draws (plain data: it travels pickled)."""
    return {
        "name": name,
        "season": profile.season,
        "single": single,
        "games": [_game_data(g) for g in profile.games],
        "recent": [{"title": title_of(r.game), "style": style_of(r.game), "won": r.won,
                    "place": r.place, "players": r.players, "score": r.score,
                    "at": r.finished_at} for r in profile.recent],
    }


def _game_data(g: GameFigures) -> dict[str, Any]:
    return {"title": title_of(g.game), "style": style_of(g.game), "games": g.games,
            "wins": g.wins, "best": g.best, "average": g.average, "rating": g.rating,
            "rated": g.rated, "start": g.start, "points": [list(p) for p in g.points]}


def alt_text(profile: Profile, name: str, *, single: bool) -> str:
    """The picture's figures in words (its attachment description, at most 1,024
    characters: the last games are left out first)."""
    games, wins = profile.total_games, profile.total_wins
    parts = [_("Profile of {name}: {games}, {wins}.", name=name,
                games=_n("{n} game", "{n} games", games), wins=_n("{n} win", "{n} wins", wins))]
    if not single and len(profile.games) > 1:
        parts.append(_("Favourite game: {title}.", title=title_of(profile.favourite)))
    for g in profile.games:
        figures = dict(title=title_of(g.game), games=_n("{n} game", "{n} games", g.games),
                       wins=_n("{n} win", "{n} wins", g.wins), best=number(g.best),
                       average=average_score(g.average))
        if g.rating is not None:
            parts.append(_("{title}: rating {rating} from {rated}; {games}, {wins}, best "
                           "score {best}, average {average}.", rating=number(g.rating),
                           rated=_n("{n} rated game", "{n} rated games", g.rated), **figures))
        else:
            parts.append(_("{title}: not rated yet; {games}, {wins}, best score {best}, "
                           "average {average}.", **figures))
    head = " ".join(parts)
    recent = [_recent_words(r) for r in profile.recent]
    while recent:
        text = f"{head} " + _("Last games: {games}.", games="; ".join(recent))
        if len(text) <= 1024:
            return text
        recent.pop()
    return fit_description(head)


def _recent_words(r: RecentResult) -> str:
    points = _n("{n} point", "{n} points", r.score)
    if r.won:
        # TRANSLATORS: one of a profile's last games in its alt text: "Big City, won, 87
        # points, Nov 29, 2026".
        return _("{title}, won, {points}, {day}", title=title_of(r.game), points=points,
                 day=day(r.finished_at))
    # TRANSLATORS: one of a profile's last games in its alt text: "Big City, place 2 of 4,
    # 60 points, Nov 28, 2026".
    return _("{title}, place {place} of {players}, {points}, {day}", title=title_of(r.game),
             place=r.place, players=r.players, points=points, day=day(r.finished_at))


def nothing_yet(name: str, game: str | None, *, own: bool) -> str:
    """The sentence for a member with no finished game (of ``game``) in the server."""
    if game is None:
        commands = join_words([slash(f"{g} new", f"bot.games.{g}") for g in GAMES])
        if own:
            return _("You have not finished a game in this server yet. Start one with "
                     "{commands}!", commands=commands)
        return _("{name} has not finished a game in this server yet.", name=plain_name(name))
    title = title_of(game)
    if own:
        return _("You have not finished a {title} game in this server yet. Start one with "
                 "{command}!", title=title, command=slash(f"{game} new", f"bot.games.{game}"))
    return _("{name} has not finished a {title} game in this server yet.",
             name=plain_name(name), title=title)


async def answer_profile(bot: CityhallBot, interaction: discord.Interaction,
                         member: discord.abc.User, game: str | None, *, post: bool) -> None:
    """Answer ``/profile``: the picture (privately, or posted with ``post``), or the
    sentence for a member with no finished game."""
    assert interaction.guild_id is not None
    own = member.id == interaction.user.id
    figures = await read_profile(bot.storage, interaction.guild_id, str(member.id), game)
    if figures is None:
        await interaction.response.send_message(
            nothing_yet(member.display_name, game, own=own), ephemeral=True,
            allowed_mentions=NO_MENTIONS)
        return
    if post:
        # Posted in the channel: its words, and the picture's, in the server's language.
        with bot.speaking_to(interaction.guild_id):
            await _send(bot, interaction, figures, member.display_name, game, post=True)
    else:
        await _send(bot, interaction, figures, member.display_name, game, post=False)


async def _send(bot: CityhallBot, interaction: discord.Interaction, figures: Profile,
                name: str, game: str | None, *, post: bool) -> None:
    single = game is not None
    described = alt_text(figures, name, single=single)
    if game is None:
        content = _("Profile of **{name}**", name=plain_name(name))
    else:
        content = _("Profile of **{name}** · {title}", name=plain_name(name),
                    title=title_of(game))
    deferred = bot.pictures.expected_wait(Priority.INTERACTIVE) > DEFER_PAST_S
    if deferred:
        await interaction.response.defer(ephemeral=not post, thinking=True)
    files: list[discord.File] = []
    try:
        png = await bot.pictures.render(PICTURES, "render_profile",
                                        picture_data(figures, name, single=single),
                                        priority=Priority.INTERACTIVE)
        files = [Upload(png, FILENAME, description=described)]
    except Exception:
        # Without its picture the page is still said, in words.
        log.exception("The profile picture could not be drawn")
        content = f"{content}\n{described}"
    kwargs: dict[str, Any] = {"files": files, "allowed_mentions": NO_MENTIONS}
    if deferred:
        await interaction.followup.send(content, **kwargs)
    else:
        await interaction.response.send_message(content, ephemeral=not post, **kwargs)
