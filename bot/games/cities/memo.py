"""Valuations shared by the Cities computer player's Minds within one decision: a hard
search values the same neighbourhoods over and over, so what one Mind works out for a
neighbourhood and outlook (``Known``) is kept in a ``Memo`` for the others, for as long as
``memo()`` lasts. A pure speed-up: every value is the one worked out afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final, TypeVar

from bot.core.engine import JSON

from .neighbourhood import Limit, Neighbourhood, Space, TilePos
from .valuation import Term

K = TypeVar("K")
V = TypeVar("V")


class Known:
    """What the Minds of one search have worked out for one neighbourhood seen with one
    outlook (the same cards, open achievements and game left): the same inputs give the
    same values, so the first Mind's are reused."""

    __slots__ = ("cards", "features", "first_pieces", "next_features", "next_pieces", "runs", "tiles",
                 "worth")

    def __init__(self) -> None:
        self.cards: dict[str, float] = {}
        self.tiles: dict[tuple[str, int | None], tuple[float, TilePos, int]] = {}
        self.features: dict[str, tuple[float, Space | None]] = {}
        self.first_pieces: dict[str, tuple[float, Space | None]] = {}
        self.runs: dict[str, list[float]] = {}
        self.next_features: dict[tuple[str, ...], tuple[str, Space | None]] = {}
        self.next_pieces: dict[tuple[str, ...], tuple[str, Space | None]] = {}
        self.worth: list[float] = []


MEMO_LIMIT: Final = 20_000
"""Neighbourhoods, outlooks and pairs of both a memo keeps at most; beyond, it starts that
table afresh (the values are worked out again, the same). A 4-player hard search meets a
few hundred pairs."""

Outlook = tuple[float, tuple[str, ...], tuple[tuple[str, int], ...]]


class Memo:
    """Valuations shared by the Minds of one decision (a hard search values the same
    neighbourhoods over and over: its play-outs start from the same table). Keyed by all
    a value depends on: the neighbourhood's JSON, in order (dict order decides ties and the
    order of sums), the size limit, and the outlook."""

    __slots__ = ("hoods", "known", "outlooks")

    def __init__(self) -> None:
        self.hoods: dict[bytes, Neighbourhood] = {}
        self.outlooks: dict[Outlook, dict[str, list[Term]]] = {}
        self.known: dict[tuple[bytes, Limit, Outlook], Known] = {}

    def hood(self, key: bytes, data: JSON) -> Neighbourhood:
        """A fresh working copy of the neighbourhood, parsed once. Its areas are found
        before the copy so that every copy shares them; a Mind finds them before any trial
        tile anyway, so the areas it grows from are the same."""
        def parsed() -> Neighbourhood:
            hood = Neighbourhood.from_state(data)
            hood.areas("W")
            return hood

        return _kept(self.hoods, key, parsed).copy()

    def terms_for(self, outlook: Outlook, make: Callable[[], dict[str, list[Term]]]) -> dict[str, list[Term]]:
        return _kept(self.outlooks, outlook, make)

    def known_for(self, key: tuple[bytes, Limit, Outlook]) -> Known:
        return _kept(self.known, key, Known)


def _kept(table: dict[K, V], key: K, make: Callable[[], V]) -> V:
    """``table[key]``, made and kept the first time; a full table starts afresh."""
    found = table.get(key)
    if found is None:
        if len(table) >= MEMO_LIMIT:
            table.clear()
        found = table[key] = make()
    return found


# Per thread and task: the bot decides in a pool of threads.
_MEMO: ContextVar[Memo | None] = ContextVar("cities_memo", default=None)


@contextmanager
def memo() -> Iterator[None]:
    """Share valuations among every Mind made inside (one decision: nothing outlives it,
    so a long-running bot does not grow)."""
    token = _MEMO.set(_MEMO.get() or Memo())
    try:
        yield
    finally:
        _MEMO.reset(token)


def _recall(table: dict[K, V] | None, key: K, work: Callable[[], V]) -> V:
    """``work()``, looked up in ``table`` first (and kept there) when there is one."""
    if table is None:
        return work()
    found = table.get(key)
    if found is None:
        found = table[key] = work()
    return found

