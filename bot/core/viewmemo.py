"""The public view of the states a click is working on, and a player's legal moves in
them, built once.

A click reads its match's public view many times: the cog's text and buttons, the private
screen, the table's alt text, the picture's named view. Each is a full ``engine.view``,
and a Cities view scores every neighbourhood (about 1.7 ms), so a Cities move built the
same view four to six times. Here the last few views are kept, each beside the state it
was built from, and given out again while that very state object is asked about.

That is sound because a state is never changed in place: ``engine.apply`` returns a new
state and the runtime replaces ``match.state`` with it, so the same object means the same
view. The state is held beside its view, so its identity cannot be taken by another
object while the entry lives. A view given out is shared: callers read it and never change
it (every renaming, ``bot.ui.game.rename_players``, copies).

A player's legal moves are kept the same way, per state and player: a Big City click
listed them up to four times (the click's check, the map, the picker, the screen after;
0.8 ms each on average, 3 ms late in a game). The list given out is a copy; its
``LegalAction`` items are frozen and their actions are only read.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Protocol

from .engine import JSON, LegalAction

# A few clicks' worth: a click and the table refresh after it ask within milliseconds.
# Bounded so that ten thousand matches do not keep ten thousand views.
KEPT = 32
# Fewer lists of moves: a late Big City turn's is ~240 KB (460 placements and builds).
KEPT_MOVES = 16


class _Views(Protocol):
    def view(self, state: JSON, viewer: str | None) -> JSON: ...


class _Moves(Protocol):
    def legal(self, state: JSON, player: str) -> list[LegalAction]: ...


_views: OrderedDict[int, tuple[JSON, JSON]] = OrderedDict()
_moves: OrderedDict[tuple[int, str], tuple[JSON, list[LegalAction]]] = OrderedDict()
# Private screens are built in threads (off the event loop) as well as on it.
_lock = threading.Lock()


def public_view(engine: _Views, state: JSON) -> JSON:
    """``engine.view(state, None)``, built once while ``state`` is among the last few asked."""
    key = id(state)
    with _lock:
        found = _views.get(key)
        if found is not None and found[0] is state:
            _views.move_to_end(key)
            return found[1]
    view = engine.view(state, None)
    with _lock:
        _views[key] = (state, view)
        _views.move_to_end(key)
        while len(_views) > KEPT:
            _views.popitem(last=False)
    return view


def kept_moves(state: JSON, player: str) -> list[LegalAction] | None:
    """The moves :func:`legal_moves` kept for ``state`` and ``player``, or None: a caller
    that would list them off the event loop need not go there for a kept list."""
    with _lock:
        found = _moves.get((id(state), player))
        if found is None or found[0] is not state:
            return None
        _moves.move_to_end((id(state), player))
        return list(found[1])


def legal_moves(engine: _Moves, state: JSON, player: str) -> list[LegalAction]:
    """``engine.legal(state, player)``, listed once while ``state`` is among the last few
    asked about; a new list each call (callers may extend or sort their own)."""
    kept = kept_moves(state, player)
    if kept is not None:
        return kept
    moves = engine.legal(state, player)
    key = (id(state), player)
    with _lock:
        _moves[key] = (state, list(moves))
        _moves.move_to_end(key)
        while len(_moves) > KEPT_MOVES:
            _moves.popitem(last=False)
    return moves


def forget_all() -> None:
    """Drop every kept view and list of moves (tests that build states by hand and change
    them)."""
    with _lock:
        _views.clear()
        _moves.clear()
