"""The persistent components (DynamicItems) on the table and in private replies, with the two
pickers whose ids they carry: the lot picker (a 4×4 grid laid out like the board, north at
the top) and the goal picker (a menu per line, then Confirm; the codes chosen so far ride in
the ids, so a half-made choice survives a restart)."""

from __future__ import annotations

from typing import Any, ClassVar

import discord

from bot.core.engine import Engine
from bot.core.i18n import Words
from bot.core.records import Match
from bot.games.cityscape import ENGINE
from bot.games.cityscape.terms import GOALS, POINTS, side_letter, side_word
from bot.games.cityscape.views import events, owing_goals, table
from bot.ui.components import offered_values
from bot.ui.items import Click, GameButton, GameItem, GameSelect
from bot.ui.screens import Screen, show_screen
from bot.ui.words import name

from .screens import my_goals_text
from .words import line_name

_ = Words("bot.games.cityscape")


class CityscapeItem:
    """What Cityscape's buttons and menus share: their ids' prefix and the engine."""

    prefix: ClassVar[str] = "ch:cs"
    engine: ClassVar[Engine] = ENGINE


# -- building -------------------------------------------------------------------------


class HeightButton(CityscapeItem, GameButton, template=":v{version}:h{height:[1-5]}"):
    """A block height on the table; opens the private lot picker for the builder."""

    # It only opens the picker, and the picker is drawn from the board as it is now, so a
    # table a frame behind (skipped under load) still serves; the move itself is tied to
    # the picker's board.
    stale = None
    turn_only = True
    version: int
    height: int

    @classmethod
    def make(cls, match_id: int, version: int, height: int, *, left: int = 1,
             row: int | None = None, chosen: bool = False) -> HeightButton:
        label = (_("{height}-high · {left} left", height=height, left=left) if not chosen
                 else _("{height}-high ✓", height=height))
        return cls.create(discord.ui.Button(
            label=label, row=row, disabled=left == 0,
            style=discord.ButtonStyle.primary if chosen else discord.ButtonStyle.secondary),
            match_id=match_id, version=version, height=height)

    def due(self, match: Match, player: str) -> str | None:
        assert match.state is not None
        view = table(match.state)
        turn = view["to_act"]
        if view["phase"] != "building":
            return _("Building has not started yet.")
        if player in turn:
            return None
        if not turn:
            return _("It's nobody's turn to build, not yours.")
        return _("It's {player}'s turn to build, not yours.", player=name(match, turn[0]))

    async def on_click(self, click: Click) -> None:
        if table(click.state)["blocks_left"][str(self.height)] == 0:
            await click.tell(_("There are no {height}-high blocks left.", height=self.height))
            return
        screen = lot_picker(click.match, self.height)
        if self.version != click.match.version:
            screen.text = _("(The table was behind; this is the board as it is now.)\n{text}",
                            text=screen.text)
        # from the table a new private reply; from the picker's own height row, that reply
        await show(click, screen)


def lot_picker(match: Match, height: int) -> Screen:
    assert match.state is not None
    view = table(match.state)
    heights = view["heights"]
    items: list[discord.ui.Item[Any]] = []
    for row, digit in enumerate("4321"):
        for column in "ABCD":
            lot = column + digit
            items.append(LotButton.make(match.id, match.version, height, lot, heights[lot],
                                        row=row))
    for h in (1, 2, 3, 4, 5):
        left = view["blocks_left"][str(h)]
        items.append(HeightButton.make(match.id, match.version, h, left=left, row=4,
                                       chosen=h == height))
    text = _("Where does your **{height}-high** block go? The lots are laid out like the "
             "board, north at the top; a number is the building's height now. "
             "Another height? Pick it in the bottom row.", height=height)
    return Screen(text, items)


class LotButton(CityscapeItem, GameButton,
                template=":v{version}:b{height:[1-5]}{lot:[A-D][1-4]}"):
    version: int
    height: int
    lot: str

    @classmethod
    def make(cls, match_id: int, version: int, height: int, lot: str, current: int = 0,
             row: int | None = None) -> LotButton:
        return cls.create(discord.ui.Button(
            label=_("{lot} · {height}", lot=lot, height=current) if current else lot, row=row,
            style=discord.ButtonStyle.primary if current else discord.ButtonStyle.secondary),
            match_id=match_id, version=version, height=height, lot=lot)

    async def on_click(self, click: Click) -> None:
        outcome = await click.play({"type": "build", "height": self.height, "lot": self.lot})
        if outcome is None:
            return
        built = events(outcome.events)[0]
        assert built["type"] == "built"  # a build reports its block first
        await show(click, Screen(_("You built a {height}-high block on {lot}; that building is "
                                   "now {building} high.", height=self.height, lot=self.lot,
                                   building=built["building"])), edit=True)


# -- secret goals ---------------------------------------------------------------------


class GoalsButton(CityscapeItem, GameButton, template=":goals"):
    """Opens the player's private goal picker, or shows their goals once set."""

    @classmethod
    def make(cls, match_id: int, row: int | None = None) -> GoalsButton:
        return cls.create(discord.ui.Button(label=_("My goals"), emoji="🎯", row=row,
                                            style=discord.ButtonStyle.success),
                          match_id=match_id)

    async def on_click(self, click: Click) -> None:
        view = table(click.state)
        open_sides = owing_goals(view, click.player)
        if view["phase"] == "goals" and open_sides:
            await show(click, goal_picker(click.match, open_sides[0], "____"), edit=False)
        else:
            await click.tell(my_goals_text(click.match, click.player))


def goal_picker(match: Match, side: str, draft: str) -> Screen:
    assert match.state is not None
    round_ = table(match.state)["round"]
    items: list[discord.ui.Item[Any]] = [
        GoalSelect.make(match.id, round_, side, line, draft) for line in range(4)]
    items.append(GoalConfirm.make(match.id, round_, side, draft))
    text = _("**Your secret goals for the {side} side ({letter})** — round {round}. "
             "Choose a code for each line, left to right as you look at the city from your "
             "side, then press Confirm. Only you can see this.", side=side_word(side),
             letter=side_letter(side), round=round_)
    return Screen(text, items)


class GoalItem(CityscapeItem):
    """Goals are chosen by everyone at once, so a goal menu is tied to its round's goal
    setting, not to a board version that others' choices change."""

    round: int
    side: str
    draft: str

    def current(self, match: Match) -> bool:
        if match.state is None:
            return False
        view = table(match.state)
        return view["round"] == self.round and view["phase"] == "goals"


class GoalSelect(GoalItem, GameSelect,
                 template=":r{round:[0-9]{1,3}}:s{side:[SWNE]}{line:[0-3]}{draft:[1-6_]{4}}"):
    # The English of the refusals below, said in the clicker's language by ``invalid`` and
    # ``stale_reason`` (``stale`` not None: a goal menu can go stale).
    bad_pick = "Pick one code from 1 to 6."
    stale = "Goal setting for that round is over."
    line: int
    code: str

    def invalid(self) -> str | None:
        return None if self.read_pick() else _("Pick one code from 1 to 6.")

    def stale_reason(self) -> str:
        return _("Goal setting for that round is over.")

    @classmethod
    def make(cls, match_id: int, round_: int, side: str, line: int, draft: str) -> GoalSelect:
        chosen = draft[line]
        options = [
            discord.SelectOption(label=_("{code} · {goal}", code=code, goal=GOALS[code]),
                                 value=str(code), description=str(POINTS[code]),
                                 default=chosen == str(code))
            for code in range(1, 7)
        ]
        return cls.create(discord.ui.Select(
            placeholder=_("Line {number}: {name}", number=line + 1, name=line_name(side, line)),
            options=options, row=line,
            min_values=1, max_values=1),
            match_id=match_id, round=round_, side=side, line=line, draft=draft)

    def read_pick(self) -> bool:
        values = offered_values(self.item) or []
        if len(values) != 1 or values[0] not in ("1", "2", "3", "4", "5", "6"):
            return False
        self.code = values[0]
        return True

    async def on_click(self, click: Click) -> None:
        draft = self.draft[: self.line] + self.code + self.draft[self.line + 1:]
        await show(click, goal_picker(click.match, self.side, draft), edit=True)


class GoalConfirm(GoalItem, GameButton,
                  template=":r{round:[0-9]{1,3}}:g{side:[SWNE]}{draft:[1-6_]{4}}"):
    stale = "That choice belongs to an earlier stage of the game."  # said by stale_reason

    def stale_reason(self) -> str:
        return _("That choice belongs to an earlier stage of the game.")

    @classmethod
    def make(cls, match_id: int, round_: int, side: str, draft: str) -> GoalConfirm:
        complete = "_" not in draft
        return cls.create(discord.ui.Button(
            label=(_("Confirm {codes}", codes="-".join(draft)) if complete
                   else _("Confirm (choose all four)")),
            style=discord.ButtonStyle.success, disabled=not complete, row=4),
            match_id=match_id, round=round_, side=side, draft=draft)

    def invalid(self) -> str | None:
        return _("Choose a code for all four lines first.") if "_" in self.draft else None

    async def on_click(self, click: Click) -> None:
        codes = [int(c) for c in self.draft]
        outcome = await click.play({"type": "set_goals", "side": self.side, "codes": codes})
        if outcome is None:
            return
        saved = _("Goals for the {side} side saved: **{codes}**.", side=side_word(self.side),
                  codes="-".join(self.draft))
        assert outcome.match.state is not None
        view = table(outcome.match.state)
        more = owing_goals(view, click.player)
        if more and view["phase"] == "goals":
            screen = goal_picker(outcome.match, more[0], "____")
            screen.text = f"{saved}\n\n{screen.text}"
        else:
            screen = Screen(_("{saved} They stay secret until the round is scored; "
                              "**My goals** shows them again.", saved=saved))
        await show(click, screen, edit=True)


DYNAMIC_ITEMS: tuple[type[GameItem[Any]], ...] = (
    HeightButton, LotButton, GoalsButton, GoalSelect, GoalConfirm)


async def show(click: Click, screen: Screen, *, edit: bool | None = None) -> None:
    """Answer the click with a private screen (``bot.ui.screens.show_screen``): ``edit`` the
    private message it came from, or send a new one; by default, whichever it came from."""
    await show_screen(click.interaction, click.match.id, screen, DYNAMIC_ITEMS, None, edit=edit)
