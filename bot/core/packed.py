"""Unfinished matches with their states kept packed until read (issue 25: 10,000 matches).

A decoded game state is 5-20 KB of dicts and lists (18 KB on average over the four games),
and after a restart most unfinished matches are not clicked for minutes or hours. So a
match restored from the database keeps its state as it was committed, the JSON text (3 KB
on average) compressed (about 1 KB), and decodes it the first time anyone reads
``match.state``. The decoded states of the most recently read matches are kept
(``DecodedStates``, a bounded LRU); a state pushed out of it is packed again (the text of
what was committed: the runtime only ever holds committed states) and decoded again on
its next read. Memory is then the packed states plus at most ``limit`` decoded ones,
however many matches are clicked. Only the event loop reads a live match's state; a
worker thread is given a copy (``copy.copy``), which decodes for itself and is not
counted.

``PackedMatch`` is a ``Match`` (same fields, same equality); only ``state`` is a property.
States are replaced whole, never changed in place (bot/core/runtime.py), so a state
someone still holds stays valid after its match packed it away.
"""

from __future__ import annotations

import json
import zlib
from collections import OrderedDict
from dataclasses import fields
from typing import Any

from .records import Match

JSON = dict[str, Any]

# Level 1 with a 16 KB window and small tables: ~60 µs a state, 1 KB from 3 (level 6 saves
# 10 % more for half again the time).
_LEVEL, _WBITS, _MEMLEVEL = 1, 14, 6


def pack_text(text: str) -> bytes:
    packer = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WBITS, _MEMLEVEL)
    return packer.compress(text.encode()) + packer.flush()


def unpack_text(packed: bytes) -> str:
    return zlib.decompress(packed, _WBITS).decode()


def state_text(state: JSON) -> str:
    """A state as it is saved (``Storage.save``)."""
    return json.dumps(state, separators=(",", ":"))


class DecodedStates:
    """The matches whose states are decoded now, most recently read last; past ``limit``
    the least recently read one is packed again."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self._matches: OrderedDict[int, PackedMatch] = OrderedDict()
        self.decoded = 0  # states decoded so far (a count for tests and the measurements)
        self.packed = 0  # states packed again when pushed out

    def __len__(self) -> int:
        return len(self._matches)

    def touch(self, match: PackedMatch) -> None:
        key = id(match)
        if key in self._matches:
            self._matches.move_to_end(key)
            return
        self._matches[key] = match
        while len(self._matches) > self.limit:
            _key, oldest = self._matches.popitem(last=False)
            oldest.pack_away()
            self.packed += 1

    def drop(self, match: PackedMatch) -> None:
        self._matches.pop(id(match), None)


class PackedMatch(Match):
    """A match whose ``state`` may be kept packed (the committed JSON, compressed) until
    it is read. ``cache`` (set by the runtime on the matches it keeps) bounds how many are
    decoded at once; a match without one (a copy, a match read once) keeps what it decodes.
    """

    # (A property over the dataclass field: Match.__init__ sets it through the setter.)
    @property
    def state(self) -> JSON | None:
        d = self.__dict__
        state: JSON | None = d.get("_state")
        if state is None:
            packed = d.get("_packed")
            if packed is None:
                return None
            state = d["_state"] = json.loads(unpack_text(packed))
            cache = d.get("_cache")
            if cache is not None:
                cache.decoded += 1
        cache = d.get("_cache")
        if cache is not None:
            cache.touch(self)
        return state

    @state.setter
    def state(self, value: JSON | None) -> None:
        d = self.__dict__
        d["_state"] = value
        d["_packed"] = None
        cache = d.get("_cache")
        if cache is not None and value is not None:
            cache.touch(self)

    @classmethod
    def restored(cls, text: str | None, **fields: Any) -> PackedMatch:
        """A match read from the database with its state's committed text, kept packed."""
        match = cls(**fields)
        if text is not None:
            match.__dict__["_packed"] = pack_text(text)
        return match

    @property
    def has_state(self) -> bool:
        d = self.__dict__
        return d.get("_state") is not None or d.get("_packed") is not None

    @property
    def is_decoded(self) -> bool:
        return self.__dict__.get("_state") is not None

    def keep_in(self, cache: DecodedStates | None) -> None:
        """Count this match's decoded state in ``cache`` (None: keep it decoded)."""
        d = self.__dict__
        old = d.get("_cache")
        if old is not None and old is not cache:
            old.drop(self)
        d["_cache"] = cache
        if cache is not None and d.get("_state") is not None:
            cache.touch(self)

    def saved_text(self) -> str | None:
        """The state as ``Storage.save`` writes it, without decoding a packed one."""
        d = self.__dict__
        state = d.get("_state")
        if state is not None:
            return state_text(state)
        packed = d.get("_packed")
        return None if packed is None else unpack_text(packed)

    def pack_away(self) -> None:
        """Keep the state packed only (its next read decodes it again)."""
        d = self.__dict__
        state = d.get("_state")
        if state is None:
            return
        packed = d.get("_packed")
        if packed is None:
            packed = pack_text(state_text(state))
        if d.get("_state") is state:  # not replaced by a commit meanwhile
            d["_packed"] = packed
            d["_state"] = None

    def __eq__(self, other: object) -> bool:
        # As Match's, field by field, and equal to a plain Match with the same fields.
        if not isinstance(other, Match):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(Match))

    __hash__ = None  # type: ignore[assignment]  # as Match's: mutable, so not hashable

    def __copy__(self) -> PackedMatch:
        # A copy shares the (immutable) state and its packed text, but is not counted in
        # the runtime's cache: it is short-lived, and must not stand in for the live match.
        new = PackedMatch.__new__(PackedMatch)
        new.__dict__.update(self.__dict__)
        new.__dict__["_cache"] = None
        return new


def state_of(match: Match) -> str | None:
    """``match.state`` as saved, without decoding it when it is packed."""
    if isinstance(match, PackedMatch):
        return match.saved_text()
    return None if match.state is None else state_text(match.state)


def has_state(match: Match) -> bool:
    """Whether the match has a state (a started game), without decoding it."""
    return match.has_state if isinstance(match, PackedMatch) else match.state is not None
