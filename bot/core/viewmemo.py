"""The public view of the states a click is working on, built once.

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
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Protocol

from .engine import JSON

# A few clicks' worth: a click and the table refresh after it ask within milliseconds.
# Bounded so that ten thousand matches do not keep ten thousand views.
KEPT = 32


class _Views(Protocol):
    def view(self, state: JSON, viewer: str | None) -> JSON: ...


_views: OrderedDict[int, tuple[JSON, JSON]] = OrderedDict()
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


def forget_all() -> None:
    """Drop every kept view (tests that build states by hand and change them)."""
    with _lock:
        _views.clear()
