"""Select menus over more choices than Discord allows in one menu (25), page by page.

Nothing is kept in memory: the page number rides in the custom ids the caller makes, so a
paged menu works after a restart. This module only lays the components out, as plain
``discord.ui`` items; the caller wraps them in its ``DynamicItem``s (``DynamicItem(item)``
accepts any item whose custom id matches its template), which handle the clicks.

Choices are labelled A, B, … Z, AA, AB, … across all pages, so a label names one choice
however the menu is paged (a preview picture can draw the same labels).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.core.i18n import Words

_ = Words("bot")

PAGE_SIZE = 25  # Discord's limit of options in one select menu
TEXT_LIMIT = 100  # Discord's limit for an option's label, value and description


def letters(index: int) -> str:
    """0 → A, 25 → Z, 26 → AA, 27 → AB … (spreadsheet column names)."""
    if index < 0:
        raise ValueError("a label index is never negative")
    out = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        out = chr(ord("A") + rest) + out
    return out


def page_count(total: int, size: int = PAGE_SIZE) -> int:
    """How many pages ``total`` choices fill (at least one, so an empty menu has a page)."""
    return max(1, -(-total // size))


def clamp_page(page: int, total: int, size: int = PAGE_SIZE) -> int:
    return min(max(page, 0), page_count(total, size) - 1)


def page_slice(total: int, page: int, size: int = PAGE_SIZE) -> range:
    """Positions of the choices on ``page`` (after clamping it)."""
    page = clamp_page(page, total, size)
    return range(page * size, min(total, (page + 1) * size))


def page_of(position: int, size: int = PAGE_SIZE) -> int:
    """The page a choice at ``position`` is on."""
    return position // size


def shorten(text: str, limit: int = TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Choice:
    """One option of a paged menu: the value the menu sends back and what the player reads.

    ``label`` gets the choice's letter in front of it ("C · Double residence on 14+15").
    """

    value: str
    label: str
    description: str | None = None


def paged_menu(
    choices: Sequence[Choice],
    page: int,
    *,
    select_id: Callable[[int], str],
    page_id: Callable[[int], str],
    placeholder: str,
    size: int = PAGE_SIZE,
    row: int = 0,
    lettered: bool = True,
) -> list[discord.ui.Item[Any]]:
    """A select menu with the choices of ``page``, then ◀ / ▶ buttons when there is more
    than one page.

    ``select_id(page)`` and ``page_id(page)`` make the custom ids: the select's for the
    shown page, a page button's for the page it opens. Buttons that lead nowhere are shown
    disabled, so the layout does not jump from page to page.
    """
    if not choices:
        raise ValueError("a menu needs at least one choice")
    page = clamp_page(page, len(choices), size)
    pages = page_count(len(choices), size)
    options = []
    for position in page_slice(len(choices), page, size):
        choice = choices[position]
        label = f"{letters(position)} · {choice.label}" if lettered else choice.label
        if len(choice.value) > TEXT_LIMIT:
            raise ValueError(f"option value {choice.value!r} is longer than {TEXT_LIMIT}")
        options.append(discord.SelectOption(
            label=shorten(label), value=choice.value,
            description=shorten(choice.description) if choice.description else None))
    if pages > 1:
        first = letters(page * size) if lettered else str(page * size + 1)
        last_pos = min(len(choices), (page + 1) * size) - 1
        last = letters(last_pos) if lettered else str(last_pos + 1)
        # TRANSLATORS: a menu's placeholder on one of its pages: "Pick a spot (A–Y, page 1
        # of 3)".
        placeholder = _("{placeholder} ({first}–{last}, page {page} of {pages})",
                        placeholder=placeholder, first=first, last=last, page=page + 1,
                        pages=pages)
    items: list[discord.ui.Item[Any]] = [discord.ui.Select(
        custom_id=select_id(page), placeholder=shorten(placeholder, 150),
        options=options, min_values=1, max_values=1, row=row)]
    if pages > 1:
        items.append(discord.ui.Button(
            label=_("◀ Previous"), custom_id=page_id(max(page - 1, 0)), disabled=page == 0,
            style=discord.ButtonStyle.secondary, row=row + 1))
        items.append(discord.ui.Button(
            label=_("Next ▶"), custom_id=page_id(min(page + 1, pages - 1)),
            disabled=page == pages - 1, style=discord.ButtonStyle.secondary, row=row + 1))
    return items
