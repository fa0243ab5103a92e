"""Stepping through a game's stored action log: the replay contract, shared.

A game starts exactly as the runtime starts it (``engine.new(players, options, seed)``)
and each stored action is applied in order, as ``python -m bot replay`` applies them
(``bot/tools/replay.py``): an action the rules refuse is noted on its step and the game
goes on without it. Step 0 is the start; step ``k`` is the game after the ``k``-th action,
so a frame's board, ``engine.view(step.state, None)``, is what the replay runner gives for
the first ``k`` actions.

Pure: no Discord, no Pillow, no I/O. The engine is passed in (``bot.core`` imports no
game): ``GAMES[name].engine`` or the adapter's ``engine``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .engine import JSON, Engine, IllegalAction

Logged = tuple[str | None, JSON]
"""One stored action: who took it (None for a timer's own action) and the action, as
``Storage.actions(match_id)`` gives them."""


@dataclass(frozen=True)
class Step:
    """The game after one action of the log (``index`` 0: the start, before any)."""

    index: int
    player: str | None
    action: JSON | None
    state: JSON
    events: list[JSON] = field(default_factory=list)
    error: str | None = None
    """The rules' sentence when this action was refused (the state is then unchanged)."""


def start(engine: Engine, players: Sequence[str], options: JSON, seed: int) -> JSON:
    """The game's first state, as the runtime's ``start`` makes it (IllegalAction on bad
    options or seats)."""
    return engine.new(list(players), options, seed)


def advance(engine: Engine, step: Step, player: str | None, action: JSON) -> Step:
    """The step after ``step`` when ``player`` takes ``action``; a refused action is a step
    that keeps the state and says why."""
    try:
        state, events = engine.apply(step.state, player, action)
    except IllegalAction as exc:
        return Step(step.index + 1, player, action, step.state, [], str(exc))
    return Step(step.index + 1, player, action, state, list(events))


def steps(engine: Engine, players: Sequence[str], options: JSON, seed: int,
          actions: Sequence[Logged]) -> Iterator[Step]:
    """Step 0 (the start), then one step per action of ``actions``, lazily."""
    step = Step(0, None, None, start(engine, players, options, seed))
    yield step
    for player, action in actions:
        step = advance(engine, step, player, action)
        yield step


def final_state(engine: Engine, players: Sequence[str], options: JSON, seed: int,
                actions: Sequence[Logged]) -> JSON:
    """The state after every action of ``actions``: a finished game's last state, which its
    archive does not keep when the moves replay to it (``Storage.final_state``)."""
    step = Step(0, None, None, start(engine, players, options, seed))
    for player, action in actions:
        step = advance(engine, step, player, action)
    return step.state


def board(engine: Engine, step: Step) -> JSON:
    """The public table at ``step``: the replay contract's ``state`` for those actions."""
    return engine.view(step.state, None)


def round_of(view: JSON) -> int | None:
    """The round a public view is in, for games that count rounds (a ``round`` number in
    their view: Cities, Cityscape, Big Cityz); None for those that do not (Big City) and
    before the first round (Cities' round 0, the set-up)."""
    value: Any = view.get("round")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    return None


def round_starts(rounds: Sequence[int | None],
                 indexes: Sequence[int] | None = None) -> list[tuple[int, int]]:
    """``(round, first step)`` for each round, given the rounds of steps in order (``round_of``
    of their boards; ``indexes`` says which steps, every one from 0 by default): where
    "jump to round" lands. Empty for a game without rounds or one that never left its
    first round."""
    starts: list[tuple[int, int]] = []
    for index, number in zip(indexes if indexes is not None else range(len(rounds)), rounds,
                             strict=True):
        if number is not None and (not starts or number != starts[-1][0]):
            starts.append((number, index))
    return starts if len(starts) > 1 else []


class Replay:
    """A finished game's log held for stepping back and forth.

    Every ``EVERY``-th step is kept once worked out (a checkpoint), and the latest step
    asked for: any step is then at most ``EVERY - 1`` moves from a kept one, so stepping
    either way costs a few moves, and a long game held costs a tenth of its states (all of
    a Cities game's 237 states are about 6 MB; states are never changed in place, so
    keeping one costs no copy)."""

    EVERY = 10

    def __init__(self, engine: Engine, players: Sequence[str], options: JSON, seed: int,
                 actions: Sequence[Logged]) -> None:
        self.engine = engine
        self.actions = list(actions)
        first = Step(0, None, None, start(engine, players, options, seed))
        self._kept: dict[int, Step] = {0: first}
        self._frontier = 0  # the furthest step worked out so far
        self._latest = first
        self._rounds: list[tuple[int, int]] | None = None

    @property
    def last(self) -> int:
        """The last step's index: the number of actions in the log."""
        return len(self.actions)

    def known(self, index: int) -> bool:
        """Whether step ``index`` and the rounds are at hand (asking for them replays no
        move then)."""
        return self._rounds is not None and (index == self._latest.index or index in self._kept)

    @property
    def rounds_known(self) -> bool:
        """Whether ``rounds`` is at hand (it replays every move the first time)."""
        return self._rounds is not None

    def prepare(self, index: int) -> Step:
        """Step ``index``, with the rounds worked out too: what a viewer needs first (run it
        off the event loop when ``known`` says it is not)."""
        self.rounds()
        return self.step(index)

    def step(self, index: int) -> Step:
        """Step ``index`` (0 to ``last``); IndexError outside that."""
        if not 0 <= index <= self.last:
            raise IndexError(index)
        at = self._kept[min(index, self._frontier) // self.EVERY * self.EVERY]
        latest = self._latest
        if at.index < latest.index <= index:
            at = latest
        while at.index < index:
            player, action = self.actions[at.index]
            at = advance(self.engine, at, player, action)
            if at.index % self.EVERY == 0:
                self._kept[at.index] = at
            self._frontier = max(self._frontier, at.index)
        self._latest = at
        return at

    def board(self, index: int) -> JSON:
        return board(self.engine, self.step(index))

    def _walk(self) -> list[Step]:
        """Every step, first to last (the checkpoints kept on the way, as by ``step``)."""
        every = [self._kept[0]]
        for player, action in self.actions:
            at = every[-1]
            nxt = self._kept.get(at.index + 1) if at.index + 1 <= self._frontier else None
            every.append(nxt or advance(self.engine, at, player, action))
            if (at.index + 1) % self.EVERY == 0:
                self._kept[at.index + 1] = every[-1]
        self._frontier = self.last
        return every

    def rounds(self) -> list[tuple[int, int]]:
        """``(round, first step)`` of each round (empty for a game without rounds).

        Rounds only go up, so the steps where one begins are found by halving: a game of
        R rounds and N moves looks at about R·log2(N) boards, not N (a view can take a
        millisecond: all of Cities' 236 took a quarter of a second)."""
        if self._rounds is None:
            every = self._walk()  # every step for a moment: halving jumps about
            seen: dict[int, int | None] = {}

            def at(index: int) -> int | None:
                if index not in seen:
                    seen[index] = round_of(board(self.engine, every[index]))
                return seen[index]

            def split(lo: int, hi: int) -> None:
                if at(lo) != at(hi) and hi - lo > 1:
                    mid = (lo + hi) // 2
                    split(lo, mid)
                    split(mid, hi)

            split(0, self.last)
            self._rounds = round_starts([seen[i] for i in sorted(seen)], sorted(seen))
        return self._rounds

    def round_at(self, index: int) -> int | None:
        """The round step ``index`` belongs to (None for a game without rounds)."""
        return round_at(self.rounds(), index)


def round_at(rounds: Sequence[tuple[int, int]], index: int) -> int | None:
    """The round step ``index`` belongs to, given ``(round, first step)`` of each round."""
    found = None
    for number, first in rounds:
        if first <= index:
            found = number
    return found
