"""The base of every game's buttons and menus: a custom id declared once, and the checks a
click passes before the game's own handler sees it.

A game's item declares its custom id as a template after the game's prefix, with a typed
slot per value it carries::

    class LotButton(CityscapeItem, GameButton,
                    template=":v{version}:b{height:[1-5]}{lot:[A-D][1-4]}"):
        height: int
        lot: str

That one line is the regular expression discord.py routes clicks by (so a button posted
before a restart still finds its class), the parser that sets ``self.version``,
``self.height`` and ``self.lot`` (annotated ``int`` or ``str``), and the formatter
``custom_id_for`` that builds the id. ``{match_id}`` (up to 15 digits) always follows the
prefix; ``{version}`` is up to 9 digits unless said otherwise; a slot is ``{name:regex}``,
and ``[…]`` marks an optional part, absent when its values are None.

A click then goes through the shared path (``bot/ui/play.py``), in this order, each step
answering a refused click with one sentence and changing nothing:

1. the match is being played, and the clicker has a seat (unless ``for_anyone``);
2. the click's own content makes sense (``invalid``: a menu's pick, a half-made choice);
3. it belongs to the board as it is (``current``; by default the ``version`` it carries),
   else ``stale`` is said, with the current board (or only said: ``stale_shows_board``);
4. the clicker is due, for items that are ``turn_only`` (``due``, in the game's words).

Only then the item's ``on_click`` runs with a ``Click``, whose ``play`` ties the move to
the same board check (``expected_version`` or ``still_valid``). The whole callback is
``guarded``, which publishes what it committed, so no handler has to remember either.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeVar

import discord

from bot.core.engine import JSON, Engine, LegalAction, slow_legal
from bot.core.i18n import Text, Words
from bot.core.records import Match
from bot.core.runtime import Outcome

from .components import Components, one_offered_number
from .leftovers import let_go_of_view
from .play import current_board, guarded, play, running, seated
from .replies import tell
from .words import name

_ = Words("bot")
_l = _.lazy

ItemT = TypeVar("ItemT", bound=discord.ui.Item[Any])

MATCH_ID = r"[0-9]{1,15}"
VERSION = r"[0-9]{1,9}"
_DEFAULTS = {"match_id": MATCH_ID, "version": VERSION}
# A slot: ``{name}`` or ``{name:regex}``, the regex free to hold braces of its own.
_NAME = re.compile(r"[a-z_][a-z0-9_]*")


@dataclass(frozen=True)
class _Slot:
    name: str
    pattern: str
    number: bool


@dataclass(frozen=True)
class _Optional:
    parts: tuple[str | _Slot, ...]


Part = str | _Slot | _Optional


class IdTemplate:
    """A custom id's shape: literal text, typed slots and optional parts (see the module's
    docstring). ``types`` maps each slot to ``int`` or ``str``."""

    def __init__(self, text: str, types: dict[str, type]) -> None:
        self.text = text
        self.parts = self._parse(text, types)
        self.slots = [p for p in self._flat(self.parts) if isinstance(p, _Slot)]
        self.regex = re.compile(self._regex(self.parts))

    def _parse(self, text: str, types: dict[str, type]) -> tuple[Part, ...]:
        parts: list[Part] = []
        stack: list[list[Part]] = [parts]
        i = 0
        while i < len(text):
            char = text[i]
            if char == "{":
                end, depth = i + 1, 1
                while depth:
                    if end == len(text):
                        raise ValueError(f"unclosed slot in {text!r}")
                    depth += {"{": 1, "}": -1}.get(text[end], 0)
                    end += 1
                body = text[i + 1:end - 1]
                slot_name, _colon, pattern = body.partition(":")
                if not _NAME.fullmatch(slot_name):
                    raise ValueError(f"bad slot name {slot_name!r} in {text!r}")
                pattern = pattern or _DEFAULTS.get(slot_name, "")
                if not pattern:
                    raise ValueError(f"slot {slot_name!r} in {text!r} needs a pattern")
                kind = types.get(slot_name)
                if kind not in (int, str):
                    raise TypeError(f"slot {slot_name!r} needs an int or str annotation")
                stack[-1].append(_Slot(slot_name, pattern, kind is int))
                i = end
                continue
            if char == "[":
                if len(stack) > 1:
                    raise ValueError(f"optional parts do not nest: {text!r}")
                stack.append([])
            elif char == "]":
                if len(stack) == 1:
                    raise ValueError(f"unopened ']' in {text!r}")
                inner = stack.pop()
                stack[-1].append(_Optional(tuple(p for p in inner if not isinstance(p, _Optional))))
            else:
                stack[-1].append(char)
            i += 1
        if len(stack) != 1:
            raise ValueError(f"unclosed '[' in {text!r}")
        return self._joined(parts)

    @classmethod
    def _joined(cls, parts: Iterable[Part]) -> tuple[Part, ...]:
        # Runs of literal characters as one string: every button sent formats its id, and
        # a picker sends twenty at a time.
        out: list[Part] = []
        for part in parts:
            if isinstance(part, _Optional):
                part = _Optional(tuple(p for p in cls._joined(part.parts)
                                       if not isinstance(p, _Optional)))
            if isinstance(part, str) and out and isinstance(out[-1], str):
                out[-1] += part
            else:
                out.append(part)
        return tuple(out)

    @staticmethod
    def _flat(parts: Iterable[Part]) -> Iterable[str | _Slot]:
        for part in parts:
            if isinstance(part, _Optional):
                yield from part.parts
            else:
                yield part

    def _regex(self, parts: Iterable[Part]) -> str:
        out = []
        for part in parts:
            if isinstance(part, _Slot):
                out.append(f"(?P<{part.name}>{part.pattern})")
            elif isinstance(part, _Optional):
                out.append(f"(?:{self._regex(part.parts)})?")
            else:
                out.append(re.escape(part))
        return "".join(out)

    def format(self, values: dict[str, object]) -> str:
        missing = {s.name for s in self.slots} - set(values)
        if missing:
            raise TypeError(f"custom id {self.text!r} needs {sorted(missing)}")
        return self._format(self.parts, values)

    def _format(self, parts: Iterable[Part], values: dict[str, object]) -> str:
        out = []
        for part in parts:
            if isinstance(part, _Slot):
                value = values[part.name]
                out.append("" if value is None else str(value))
            elif isinstance(part, _Optional):
                inner = [p for p in part.parts if isinstance(p, _Slot)]
                if all(values[s.name] is not None for s in inner):
                    out.append(self._format(part.parts, values))
            else:
                out.append(part)
        return "".join(out)

    def parse(self, custom_id: str) -> dict[str, int | str | None] | None:
        """The slots' values (ints where annotated so; None for an empty or absent one), or
        None if ``custom_id`` is not of this shape."""
        found = self.regex.fullmatch(custom_id)
        if found is None:
            return None
        values: dict[str, int | str | None] = {}
        for slot in self.slots:
            text = found[slot.name]
            values[slot.name] = (None if text is None or (slot.number and not text)
                                 else int(text) if slot.number else text)
        return values


def _annotations(cls: type) -> dict[str, type]:
    """The slot types a class declares: ``int`` or ``str`` (``int | None`` counts as int)."""
    found: dict[str, type] = {}
    for klass in reversed(cls.__mro__):
        for key, value in vars(klass).get("__annotations__", {}).items():
            text = value if isinstance(value, str) else getattr(value, "__name__", "")
            text = text.replace(" ", "")
            if text in ("int", "int|None"):
                found[key] = int
            elif text in ("str", "str|None"):
                found[key] = str
    return found


@dataclass
class Click:
    """A click that passed its item's checks: who, on which match, and the move's guard."""

    interaction: discord.Interaction
    match: Match
    player: str
    engine: Engine
    guard: dict[str, Any]

    @property
    def state(self) -> JSON:
        assert self.match.state is not None
        return self.match.state

    @property
    def in_private(self) -> bool:
        """Whether the click came from a private (ephemeral) message, which the answer then
        replaces instead of sending another."""
        message = self.interaction.message
        return message is not None and message.flags.ephemeral

    async def tell(self, text: str | Text) -> None:
        await tell(self.interaction, text)

    async def legal(self) -> list[LegalAction]:
        """The clicker's legal moves (the move is checked against this list's index);
        off the event loop for a game whose list takes milliseconds (``slow_legal``)."""
        if slow_legal(self.engine):
            return await asyncio.to_thread(self.engine.legal, self.state, self.player)
        return self.engine.legal(self.state, self.player)

    async def play(self, action: JSON) -> Outcome | None:
        """The move, tied to the board the click was made on; None after a refusal."""
        return await play(self.interaction, self.match, self.player, action, **self.guard)


class GameItem(discord.ui.DynamicItem[ItemT], template=r"(?!)"):
    """A button or menu of a game (see the module's docstring). A game's items share a
    mixin giving ``prefix`` (``ch:<game>``), ``engine`` and, where the game words it,
    ``turn_refusal``."""

    prefix: ClassVar[str]
    engine: ClassVar[Engine]
    id_template: ClassVar[IdTemplate]

    for_anyone: ClassVar[bool] = False
    # Texts (``_l``), said in the clicker's language; a plain str is said as it is.
    stale: ClassVar[str | Text | None] = _l("That button belongs to an earlier board.")
    stale_shows_board: ClassVar[bool] = True
    turn_only: ClassVar[bool] = False

    match_id: int

    def __init_subclass__(cls, *, template: str | None = None, **kwargs: Any) -> None:
        if template is None:
            # an abstract base (GameButton, GameSelect): nothing to route
            super(discord.ui.DynamicItem, cls).__init_subclass__(**kwargs)
            return
        cls.id_template = IdTemplate(f"{cls.prefix}:{{match_id}}{template}",
                                     {"match_id": int, **_annotations(cls)})
        super().__init_subclass__(template=cls.id_template.regex, **kwargs)

    def __init__(self, item: ItemT) -> None:
        super().__init__(item)
        values = self.id_template.parse(self.custom_id)
        if values is None:
            raise ValueError(f"{self.custom_id!r} is not a {type(self).__name__} id")
        for key, value in values.items():
            setattr(self, key, value)

    @classmethod
    def custom_id_for(cls, **values: object) -> str:
        return cls.id_template.format(values)

    @classmethod
    def on(cls, match: Match, **values: object) -> str:
        """The id for ``match`` as it is now: its id, and its version if the id has one."""
        if any(slot.name == "version" for slot in cls.id_template.slots):
            values.setdefault("version", match.version)
        return cls.custom_id_for(match_id=match.id, **values)

    @classmethod
    def create(cls, item: ItemT, **values: object) -> Self:
        """``item`` (a plain Button or Select) with this class's custom id for ``values``."""
        item.custom_id = cls.custom_id_for(**values)  # type: ignore[attr-defined]
        # The id was just made from ``values``: set them as parsing it back would, without
        # the parse (discord.py still checks the id against the template).
        made = cls.__new__(cls)
        discord.ui.DynamicItem.__init__(made, item)
        for slot in cls.id_template.slots:
            value = values.get(slot.name)
            if slot.number:
                value = None if value is None or value == "" else int(value)  # type: ignore[call-overload]
            elif value is not None:
                value = str(value)
            setattr(made, slot.name, value)
        return made

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> Self:
        # The item as the message carries it: a menu keeps the options it offered, which a
        # pick is checked against.
        return cls(item)  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await guarded(interaction, self._run)
        finally:
            let_go_of_view(self)

    async def _run(self, interaction: discord.Interaction) -> None:
        click = await self.check(interaction)
        if click is not None:
            await self.on_click(click)

    async def check(self, interaction: discord.Interaction) -> Click | None:
        """The click, or None after its one sentence of refusal."""
        if self.for_anyone:
            match = await running(interaction, self.match_id)
            if match is None:
                return None
            player = str(interaction.user.id)
        else:
            found = await seated(interaction, self.match_id)
            if found is None:
                return None
            match, player = found
        problem = self.invalid()
        if problem is not None:
            await tell(interaction, problem)
            return None
        if self.stale is not None and not self.current(match):
            if self.stale_shows_board:
                await current_board(interaction, match, self.stale_reason())
            else:
                await tell(interaction, self.stale_reason())
            return None
        if self.turn_only:
            refusal = self.due(match, player)
            if refusal is not None:
                await tell(interaction, refusal)
                return None
        return Click(interaction, match, player, self.engine, self.guard())

    async def on_click(self, click: Click) -> None:
        raise NotImplementedError

    # -- what subclasses may change ------------------------------------------------------

    def invalid(self) -> str | Text | None:
        """What is wrong with the click itself, if anything (a forged or half-made pick)."""
        return None

    def current(self, match: Match) -> bool:
        """Whether the click belongs to the match as it is now: by default, the board
        version the id carries, if it carries one."""
        version = getattr(self, "version", None)
        return version is None or version == match.version

    def stale_reason(self) -> str:
        """Why a click on an earlier board is refused: ``stale``, unless the item says
        more precisely what it was tied to."""
        return str(self.stale) if self.stale is not None else ""

    def guard(self) -> dict[str, Any]:
        """How ``Click.play`` ties the move to the board: the same test as ``current``."""
        version = getattr(self, "version", None)
        if version is not None:
            return {"expected_version": version}
        check: Callable[[Match], bool] = self.current
        return {"still_valid": check}

    def due(self, match: Match, player: str) -> str | None:
        """Why ``player`` may not act now, or None if they are due."""
        assert match.state is not None
        if player in self.engine.to_act(match.state):
            return None
        return self.turn_refusal(match, player)

    def turn_refusal(self, match: Match, player: str) -> str:
        assert match.state is not None
        turn = self.engine.to_act(match.state)
        if not turn:
            return _("It's nobody's turn, not yours.")
        return _("It's {name}'s turn, not yours.", name=name(match, turn[0]))


class GameButton(GameItem[discord.ui.Button[Any]]):
    """A game's button."""


class GameSelect(GameItem[discord.ui.Select[Any]]):
    """A game's menu. By default its pick is one number among the options the message
    offered, read into ``number`` before the board is checked."""

    bad_pick: ClassVar[str | Text] = _l("Pick one of the choices in the menu.")
    number: int

    def read_pick(self) -> bool:
        """Read the pick into attributes; False when it is not one the menu offered."""
        number = one_offered_number(self.item)
        if number is None:
            return False
        self.number = number
        return True

    def invalid(self) -> str | Text | None:
        return None if self.read_pick() else self.bad_pick


AnyGameItem = GameItem[Any]


def wrap(item: discord.ui.Item[Any], classes: Iterable[type[AnyGameItem]]) -> AnyGameItem:
    """The game item for a plain button or menu, by its custom id."""
    custom_id = str(getattr(item, "custom_id", ""))
    for cls in classes:
        if cls.id_template.regex.fullmatch(custom_id):
            return cls(item)
    raise ValueError(f"no component handles {custom_id!r}")


def components(items: Iterable[discord.ui.Item[Any]],
               classes: Iterable[type[AnyGameItem]]) -> Components:
    """Plain items as the game items that handle them, ready to send."""
    view = Components()
    kinds = tuple(classes)
    for item in items:
        view.add_item(item if isinstance(item, GameItem) else wrap(item, kinds))
    return view
