"""The contract every game engine keeps.

Engines are pure: plain JSON-serialisable state in, new state out, no discord, Pillow or
I/O. The match runtime, the replay runner, the simulator and the tests all drive a game
only through these functions, so a game that keeps this contract plugs into everything.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from .i18n import Words

# Engines say nothing themselves: a refusal is a Text, said in the reader's language when
# the cog turns it into a string.
_ = Words("bot")
_l = _.lazy

JSON = dict[str, Any]
"""A JSON-serialisable dict: states, actions, events and views are all of this shape."""


def as_json(typed: Mapping[str, object]) -> JSON:
    """A game's typed view (``bot/games/<game>/views.py``) as the plain JSON it is, for code
    that takes any game's view (the adapter's ``named_view``, the renderers): the same
    object, untouched."""
    return cast(JSON, typed)


class IllegalAction(Exception):
    """A move the rules refuse. ``str(exc)`` is one sentence a player can read."""


@dataclass(frozen=True)
class LegalAction:
    """One move a player may make now: exactly what ``apply`` accepts, and a short label."""

    action: JSON
    label: str


@dataclass(frozen=True)
class Result:
    """Final standings: running totals per player and the (possibly shared) winners."""

    scores: dict[str, int]
    winners: list[str]
    extra: JSON = field(default_factory=dict)


class Engine(Protocol):
    """What the runtime needs of a game. ``state`` is never mutated in place."""

    name: str
    title: str
    min_players: int
    max_players: int
    # The shape of the states ``new`` and ``apply`` return. Saved states carry it; one saved
    # with an older number is brought up to date through the engine's optional
    # ``upgrade_state(state, from_version) -> state`` (one step: from_version to
    # from_version + 1) before it is used. See ``upgrade_state`` below and docs/upgrades.md.
    state_version: int

    def new(self, players: list[str], options: JSON, seed: int) -> JSON:
        """A fresh game; options are validated here (IllegalAction on a bad one)."""
        ...

    def to_act(self, state: JSON) -> list[str]:
        """Players who may act now, in seat order (several at once in secret phases)."""
        ...

    def legal(self, state: JSON, player: str) -> list[LegalAction]:
        """Every move ``player`` may make now; empty when it is not their move."""
        ...

    def apply(self, state: JSON, player: str | None, action: JSON) -> tuple[JSON, list[JSON]]:
        """The new state and the events it produced; raises IllegalAction, state unchanged.

        ``player`` is None for actions nobody takes (a timer running out).
        """
        ...

    def view(self, state: JSON, viewer: str | None) -> JSON:
        """What ``viewer`` may see; ``None`` is the public table. Secrets stay out."""
        ...

    def result(self, state: JSON) -> Result | None:
        """Final scores and winners, or None while the game runs."""
        ...

    def timeout_action(self, state: JSON) -> tuple[str | None, JSON] | None:
        """What happens when the turn timer runs out, or None to let the computer player
        (``bot.core.levels``, normal level) move for the slowest player (the default for
        turn-based games)."""
        ...


def check_seats(engine: Engine, players: Sequence[str], options: JSON,
                known: Collection[str]) -> None:
    """What a new game is refused for first, worded alike in Big Cityz and Cityscape: too few
    or too many players, a player in two seats, an option the game does not know."""
    if not engine.min_players <= len(players) <= engine.max_players:
        raise IllegalAction(_l("{title} is for {fewest} to {most} players.",
                               title=engine.title, fewest=engine.min_players,
                               most=engine.max_players))
    if len(set(players)) != len(players):
        raise IllegalAction(_l("Each player can take only one seat."))
    unknown = set(options) - set(known)
    if unknown:
        raise IllegalAction(_l("{title} has no option {option}.", title=engine.title,
                               option=repr(sorted(unknown)[0])))


def timer_seconds(engine: Engine, state: JSON) -> float | None:
    """A game's own time limit for the current phase (a veto window), if it sets one.

    Engines may define ``timer_seconds(state) -> float | None``; without it, or when it
    returns None, the server's turn time applies.
    """
    own = getattr(engine, "timer_seconds", None)
    return None if own is None else own(state)


def slow_legal(engine: Engine) -> bool:
    """Whether listing a player's moves can take tens of milliseconds (an engine sets
    ``slow_legal = True``; Big City's placements): the bot then lists them in a worker
    thread. For every other engine it is cheaper on the event loop itself, where it holds
    the loop for well under a millisecond instead of taking the GIL from it in 5 ms turns."""
    return bool(getattr(engine, "slow_legal", False))


class StateVersionError(Exception):
    """A saved state this code cannot use; ``str(exc)`` says why in a clause."""


def upgrade_state(engine: Engine, state: JSON, from_version: int) -> JSON:
    """``state``, saved at ``from_version``, brought up to ``engine.state_version``.

    Engines upgrade one version at a time (``upgrade_state(state, v)`` returns the state at
    ``v + 1``) so that each step is written once, when its change is made, and never has to
    be revised; a state several versions behind goes through every step in turn. A state
    from a newer Cityhall (the admin went back to an older version) is refused rather than
    guessed at: StateVersionError.
    """
    current = engine.state_version
    if from_version > current:
        raise StateVersionError(f"its state was saved by a newer Cityhall ({engine.title} "
                                f"state version {from_version}; this one knows up to "
                                f"{current})")
    if from_version == current:
        return state
    step: Callable[[JSON, int], JSON] | None = getattr(engine, "upgrade_state", None)
    if step is None:
        raise StateVersionError(f"{engine.title} has no upgrade from state version "
                                f"{from_version} to {current}")
    for version in range(from_version, current):
        state = step(state, version)
    return state
