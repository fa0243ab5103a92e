"""Words every game's messages share: a seat's name, a mention, a count, the winner line.

The four cogs once each had their own copies, which drifted apart ("1 points" in three
games, "1 point" in one); keeping them here gives every game the same sentence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from babel.lists import format_list

from bot.core.i18n import ENGLISH, PSEUDO, Text, Words, cldr, current, pseudo, translations
from bot.core.records import Match

from .game import seat_name
from .replies import plain_name

_ = Words("bot")
_n = _.plural


def plural(n: int, word: str) -> str:
    """``3 points``, ``1 point``: the count with an English word, plural unless exactly one.
    English grammar only: a sentence in a catalog says its counts with ``_n`` instead."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def join_words(words: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``; in the current language as CLDR lists them
    (``A, B und C``, ``A, B et C``). English keeps its list without the serial comma."""
    if len(words) <= 1:
        return "".join(words)
    language = current()
    if language in (ENGLISH, PSEUDO):
        # TRANSLATORS: English's list ("A, B and C"); other languages join lists by CLDR's
        # rules and do not use this sentence.
        return _("{first} and {last}", first=", ".join(words[:-1]), last=words[-1])
    return format_list(list(words), locale=cldr(language))


def slash(command: str, domain: str = "bot") -> str:
    """``/game status`` as the reader's Discord lists it: each word of a slash command as the
    catalogs name it (a game's own commands in its catalog, ``domain``), so that a sentence
    names the command the reader will find. English, and words no catalog renames, as
    they are."""
    language = current()
    if language == PSEUDO:
        return pseudo("/" + command)  # looks foreign, as the sentence around it does
    words = command.split()
    said = [_command_word(word, last=i == len(words) - 1, language=language,
                          domains=tuple(dict.fromkeys((domain, "bot"))))
            for i, word in enumerate(words)]
    return "/" + " ".join(said)


def _command_word(word: str, *, last: bool, language: str, domains: tuple[str, ...]) -> str:
    # Every word before the last is a group's; the last may be a command or a group
    # ("/settings defaults").
    kinds = ("command_name", "group_name") if last else ("group_name",)
    for domain in domains:
        catalog = translations(domain, language)
        for kind in kinds:
            said = catalog.pgettext(kind, word)
            if said != word:
                return said
    return word


def name(match: Match, player: str) -> str:
    """A seat's name as literal text, with the picture's "Ann (2)" for a repeated name."""
    return plain_name(seat_name(match, player))


def mention(match: Match, player: str) -> str:
    """A human seat pinged (where the message allows pings); a computer seat by name."""
    seat = match.seat(player)
    if seat is None or seat.cpu:
        return name(match, player)
    return f"<@{player}>"


def winner_line(match: Match, winners: Sequence[str], scores: Mapping[str, int], *,
                tie_break: str | Text | None = None) -> str:
    """The game's last word: who won, with how many points.

    ``tie_break`` says what decided it when a winner's total is shared by a loser (Cities
    breaks ties on achievement points); it is only said when that happened. No winners (a
    view read before the end) gives no line rather than a "Shared win" naming nobody.
    """
    if not winners:
        return ""
    score = scores.get(winners[0], 0)
    names = join_words([mention(match, w) for w in winners])
    level = any(scores.get(p) == score for p in scores if p not in winners)
    if tie_break and level:
        if len(winners) == 1:
            return _n("🏆 {names} wins with {n} point, ahead on the tie-break ({tie_break})!",
                      "🏆 {names} wins with {n} points, ahead on the tie-break ({tie_break})!",
                      score, names=names, tie_break=tie_break)
        return _n("🏆 Shared win: {names} with {n} point each, ahead on the tie-break "
                  "({tie_break})!",
                  "🏆 Shared win: {names} with {n} points each, ahead on the tie-break "
                  "({tie_break})!", score, names=names, tie_break=tie_break)
    if len(winners) == 1:
        return _n("🏆 {names} wins with {n} point!", "🏆 {names} wins with {n} points!", score,
                  names=names)
    return _n("🏆 Shared win: {names} with {n} point each!",
              "🏆 Shared win: {names} with {n} points each!", score, names=names)


def final_line(match: Match, view: Mapping[str, Any]) -> str:
    """``winner_line`` for a public view's winners and scores (before the end: no line)."""
    return winner_line(match, view.get("winners") or [], view.get("scores") or {})
