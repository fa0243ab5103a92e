"""What the match runtime (``runtime.py``) answers with and is bounded by: an accepted move
(:class:`Outcome`), a refused one (:class:`Refusal`, :class:`StaleBoard`), and the
:class:`Limits` on what a user or a server may hold open at once."""

from __future__ import annotations

from dataclasses import dataclass, field

from .engine import JSON
from .records import Match


class Refusal(Exception):
    """A request the runtime turns down; ``str(exc)`` is a sentence for the player."""


class StaleBoard(Refusal):
    """The click came from an earlier board than the current one."""


@dataclass(frozen=True)
class Limits:
    """What one user or one server may hold open at once (abuse limits)."""

    lobbies_per_user: int = 3          # open lobbies a user hosts in one server
    matches_per_server: int = 100      # unfinished matches (lobbies included) in one server
    # unfinished matches (lobbies and running games) a user hosts in one server: a game
    # against computer players runs without anyone else, so lobbies alone cap nothing
    matches_per_user: int = 10
    lobby_seconds: float = 15 * 60     # a lobby nobody starts expires after this
    restart_grace: float = 60.0        # after a restart, nobody is timed out sooner than this


@dataclass
class Outcome:
    """One accepted move: the match as saved afterwards, and the engine's events."""

    match: Match
    player: str | None
    action: JSON
    events: list[JSON]
    by_computer: bool = False
    timed_out: bool = False
    extra: JSON = field(default_factory=dict)
