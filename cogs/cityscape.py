"""Cityscape in Discord: /cityscape new and rules, the building buttons and secret goals.

Table message: block heights (with blocks left) and "My goals". A height opens, for the
player whose turn it is, a private 4x4 lot picker laid out like the board (north at the
top). Goals are chosen privately: four menus, one per line, then Confirm; the choices so far
ride in the components' custom ids, so a half-made choice survives a restart too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands

from bot.core.engine import Engine
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.cityscape import ENGINE
from bot.games.cityscape.skyline import CODE_GOALS, LINES, SIDE_NAMES, line_points, visible_count
from bot.ui.components import Components, offered_values
from bot.ui.game import GameAdapter, Notice, Picture
from bot.ui.items import Click, GameButton, GameSelect
from bot.ui.lobby import GameCommands, given
from bot.ui.words import final_line, mention, name
from cogs.settings import save_defaults

if TYPE_CHECKING:
    from bot.app import CityhallBot

CODE_POINTS = {1: "10 points", 2: "20 points", 3: "30 points", 4: "40 points",
               5: "10 points per equal-height building seen", 6: "25 points"}

RULES = """\
**Cityscape** — 2–4 players, 25 blocks (five each of heights 1–5) on a 4×4 city.
**1. Goals (secret).** Each player picks a code for each of the four lines seen from their \
side, left to right: **1–4** see exactly that many buildings (10/20/30/40), **5** see two or \
more buildings of equal height (10 per such building), **6** hold the city's tallest \
building (25).
**2. Building.** In turn, place one block of any height left on any lot, empty or on top of \
a building. No passing. The round ends when all 25 blocks stand.
**Seeing.** A building is seen when it is taller than everything in front of it; vacant lots \
are not buildings. For code 5 only, equal buildings behind each other both count, as long \
as nothing taller stands in front.
**3. Scoring.** Goals are revealed and each line that meets its code scores. Totals run \
over the rounds (one per player; four with two players) and the starting player rotates.
**Two players** each own two adjacent sides (S+W and N+E), set goals for both and score both.
Lots are A1–D4: letters are columns west→east, digits rows south→north."""


def built_words(build: dict[str, Any]) -> str:
    """A build (the move, or the view's last build) in words: "built a 3-high block on B2"."""
    return f"built a {build['height']}-high block on {build['lot']}"


def _line_name(side: str, index: int) -> str:
    lots = LINES[side][index]
    if lots[0][0] == lots[1][0]:
        return f"column {lots[0][0]}"
    return f"row {lots[0][1]}"


# -- the table ------------------------------------------------------------------------


class CityscapeAdapter(GameAdapter):
    colour = discord.Colour.from_rgb(64, 120, 200)
    rules_summary = RULES

    def table_content(self, match: Match) -> str:
        view = self.public_view(match)
        head = f"**Cityscape** · round {view['round']} of {view['rounds']}"
        if view["phase"] == "goals":
            waiting = ", ".join(mention(match, p) for p in view["to_act"])
            return (f"{head} · secret goals\nPress **My goals** to choose yours privately. "
                    f"Waiting for: {waiting}.")
        if view["phase"] == "building":
            turn = view["turn"]
            return (f"{head} · block {view['placed'] + 1} of 25\n"
                    f"{mention(match, turn)}, it's your turn: pick a block height below.")
        return f"**Cityscape** · final\n{final_line(match, view)}"

    def picture_description(self, match: Match) -> str:
        view = self.public_view(match)
        what = (f"Cityscape city, round {view.get('round')} of {view.get('rounds')}: "
                f"{view.get('placed', 0)} of 25 blocks built")
        built = view.get("last_build")
        last = f"{match.name_of(built['player'])} {built_words(built)}" if built else ""
        return self.board_words(match, what, last)

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        assert match.state is not None
        state = match.state
        items: list[discord.ui.Item[Any]] = []
        if state["phase"] == "building":
            for h in (1, 2, 3, 4, 5):
                items.append(HeightButton.make(match.id, match.version, h,
                                          left=state["blocks_left"][str(h)], row=0))
        items.append(GoalsButton.make(match.id, row=1))
        return items

    def options_text(self, match: Match) -> str:
        rounds = match.options.get("rounds")
        return (f"{rounds} round{'s' if rounds != 1 else ''}" if rounds
                else "Rounds: one per player (four with two players)")

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        notices: list[Notice] = []
        if outcome.timed_out and outcome.player is not None:
            who = name(match, outcome.player)
            action = outcome.action
            if action.get("type") == "build":
                did = built_words(action)
            else:
                did = f"chose goals for their {action.get('side')} side"
            notices.append(Notice(f"⏰ {who} ran out of time, so the computer player {did} "
                                  "for them.", fold=True))
        for event in outcome.events:
            if event["type"] != "round_scored":
                continue
            assert match.state is not None
            view = self.engine.view(match.state, None)
            lines = [f"**Round {event['round']} scored** — goals revealed:"]
            for side, result in event["sides"].items():
                codes = "-".join(str(c) for c in result["codes"])
                per_line = " + ".join(str(line["points"]) for line in result["lines"])
                lines.append(f"{side} {name(match, result['player'])}:"
                             f" {codes} → {per_line} = **{result['points']}**")
            totals = ", ".join(f"{name(match, p)} {t}"
                               for p, t in event["totals"].items())
            lines.append(f"Totals: {totals}")
            if match.state["phase"] == "over":
                lines.append(final_line(match, view))
            notices.append(Notice("\n".join(lines), [Picture(
                f"round-{event['round']}.png", "render_scoring",
                (self.named_view(match, view), event["round"]))]))
        return notices


# -- building -------------------------------------------------------------------------


class CityscapeItem:
    """What Cityscape's buttons and menus share: their ids' prefix and the engine."""

    prefix: ClassVar[str] = "ch:cs"
    engine: ClassVar[Engine] = ENGINE


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
        label = f"{height}-high · {left} left" if not chosen else f"{height}-high ✓"
        return cls.create(discord.ui.Button(
            label=label, row=row, disabled=left == 0,
            style=discord.ButtonStyle.primary if chosen else discord.ButtonStyle.secondary),
            match_id=match_id, version=version, height=height)

    def due(self, match: Match, player: str) -> str | None:
        assert match.state is not None
        turn = ENGINE.to_act(match.state)
        if match.state["phase"] != "building":
            return "Building has not started yet."
        if player in turn:
            return None
        return f"It's {name(match, turn[0]) if turn else 'nobody'}'s turn to build, not yours."

    async def on_click(self, click: Click) -> None:
        if click.state["blocks_left"][str(self.height)] == 0:
            await click.tell(f"There are no {self.height}-high blocks left.")
            return
        text, view = lot_picker(click.match, self.height)
        if self.version != click.match.version:
            text = f"(The table was behind; this is the board as it is now.)\n{text}"
        if click.in_private:
            await click.interaction.response.edit_message(content=text, view=view)
        else:
            await click.interaction.response.send_message(text, view=view, ephemeral=True)


def lot_picker(match: Match, height: int) -> tuple[str, discord.ui.View]:
    assert match.state is not None
    heights = {lot: sum(blocks) for lot, blocks in match.state["lots"].items()}
    view = Components()
    for row, digit in enumerate("4321"):
        for column in "ABCD":
            lot = column + digit
            view.add_item(LotButton.make(match.id, match.version, height, lot, heights[lot],
                                         row=row))
    for h in (1, 2, 3, 4, 5):
        left = match.state["blocks_left"][str(h)]
        view.add_item(HeightButton.make(match.id, match.version, h, left=left, row=4,
                                        chosen=h == height))
    text = (f"Where does your **{height}-high** block go? The lots are laid out like the "
            "board, north at the top; a number is the building's height now. "
            "Another height? Pick it in the bottom row.")
    return text, view


class LotButton(CityscapeItem, GameButton,
                template=":v{version}:b{height:[1-5]}{lot:[A-D][1-4]}"):
    version: int
    height: int
    lot: str

    @classmethod
    def make(cls, match_id: int, version: int, height: int, lot: str, current: int = 0,
             row: int | None = None) -> LotButton:
        return cls.create(discord.ui.Button(
            label=f"{lot} · {current}" if current else lot, row=row,
            style=discord.ButtonStyle.primary if current else discord.ButtonStyle.secondary),
            match_id=match_id, version=version, height=height, lot=lot)

    async def on_click(self, click: Click) -> None:
        outcome = await click.play({"type": "build", "height": self.height, "lot": self.lot})
        if outcome is None:
            return
        built = outcome.events[0]
        await click.interaction.response.edit_message(
            content=f"You built a {self.height}-high block on {self.lot}; that building is now "
                    f"{built['building']} high.", view=None)


# -- secret goals ---------------------------------------------------------------------


class GoalsButton(CityscapeItem, GameButton, template=":goals"):
    """Opens the player's private goal picker, or shows their goals once set."""

    @classmethod
    def make(cls, match_id: int, row: int | None = None) -> GoalsButton:
        return cls.create(discord.ui.Button(label="My goals", emoji="🎯", row=row,
                                            style=discord.ButtonStyle.success),
                          match_id=match_id)

    async def on_click(self, click: Click) -> None:
        state = click.state
        open_sides = [s for s, owner in state["sides"].items()
                      if owner == click.player and s not in state["goals"]]
        if state["phase"] == "goals" and open_sides:
            text, view = goal_picker(click.match, open_sides[0], "____")
            await click.interaction.response.send_message(text, view=view, ephemeral=True)
        else:
            await click.tell(my_goals_text(click.match, click.player))


def my_goals_text(match: Match, player: str) -> str:
    """A player's own goals with how each line scores on the board as it stands."""
    assert match.state is not None
    mine = ENGINE.view(match.state, player).get("my_goals", {})
    if not mine:
        return "You have no goals set right now."
    heights = {lot: sum(b) for lot, b in match.state["lots"].items()}
    tallest = max(heights.values())
    out = [f"**Your secret goals** (round {match.state['round']}), scored as the board "
           "stands now:"]
    for side, codes in mine.items():
        out.append(f"__{SIDE_NAMES[side].title()} side ({side})__")
        for index, code in enumerate(codes):
            line = [heights[lot] for lot in LINES[side][index]]
            points = line_points(code, line, tallest)
            out.append(f"Line {index + 1} ({_line_name(side, index)}): code {code}, "
                       f"{CODE_GOALS[code]} — you see {visible_count(line)} → {points} pts")
    return "\n".join(out)


def goal_picker(match: Match, side: str, draft: str) -> tuple[str, discord.ui.View]:
    assert match.state is not None
    round_ = match.state["round"]
    view = Components()
    for line in range(4):
        view.add_item(GoalSelect.make(match.id, round_, side, line, draft))
    view.add_item(GoalConfirm.make(match.id, round_, side, draft))
    text = (f"**Your secret goals for the {SIDE_NAMES[side]} side ({side})** — round {round_}. "
            "Choose a code for each line, left to right as you look at the city from your "
            "side, then press Confirm. Only you can see this.")
    return text, view


class GoalItem(CityscapeItem):
    """Goals are chosen by everyone at once, so a goal menu is tied to its round's goal
    setting, not to a board version that others' choices change."""

    round: int
    side: str
    draft: str

    def current(self, match: Match) -> bool:
        return bool(match.state and match.state["round"] == self.round
                    and match.state["phase"] == "goals")


class GoalSelect(GoalItem, GameSelect,
                 template=":r{round:[0-9]{1,3}}:s{side:[SWNE]}{line:[0-3]}{draft:[1-6_]{4}}"):
    bad_pick = "Pick one code from 1 to 6."
    stale = "Goal setting for that round is over."
    line: int
    code: str

    @classmethod
    def make(cls, match_id: int, round_: int, side: str, line: int, draft: str) -> GoalSelect:
        chosen = draft[line]
        options = [
            discord.SelectOption(label=f"{code} · {CODE_GOALS[code]}", value=str(code),
                                 description=CODE_POINTS[code], default=chosen == str(code))
            for code in range(1, 7)
        ]
        return cls.create(discord.ui.Select(
            placeholder=f"Line {line + 1}: {_line_name(side, line)}", options=options, row=line,
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
        text, view = goal_picker(click.match, self.side, draft)
        await click.interaction.response.edit_message(content=text, view=view)


class GoalConfirm(GoalItem, GameButton,
                  template=":r{round:[0-9]{1,3}}:g{side:[SWNE]}{draft:[1-6_]{4}}"):
    stale = "That choice belongs to an earlier stage of the game."

    @classmethod
    def make(cls, match_id: int, round_: int, side: str, draft: str) -> GoalConfirm:
        complete = "_" not in draft
        return cls.create(discord.ui.Button(
            label=f"Confirm {'-'.join(draft)}" if complete else "Confirm (choose all four)",
            style=discord.ButtonStyle.success, disabled=not complete, row=4),
            match_id=match_id, round=round_, side=side, draft=draft)

    def invalid(self) -> str | None:
        return "Choose a code for all four lines first." if "_" in self.draft else None

    async def on_click(self, click: Click) -> None:
        codes = [int(c) for c in self.draft]
        outcome = await click.play({"type": "set_goals", "side": self.side, "codes": codes})
        if outcome is None:
            return
        saved = f"Goals for the {SIDE_NAMES[self.side]} side saved: **{'-'.join(self.draft)}**."
        state = outcome.match.state
        assert state is not None
        more = [s for s, owner in state["sides"].items()
                if owner == click.player and s not in state["goals"]]
        if more and state["phase"] == "goals":
            text, view = goal_picker(outcome.match, more[0], "____")
            await click.interaction.response.edit_message(content=f"{saved}\n\n{text}",
                                                          view=view)
        else:
            await click.interaction.response.edit_message(
                content=f"{saved} They stay secret until the round is scored; "
                        "**My goals** shows them again.", view=None)


# -- slash commands -------------------------------------------------------------------


class Cityscape(GameCommands):
    cityscape = app_commands.Group(name="cityscape", description="Cityscape: build a skyline "
                                   "to match your secret goals", guild_only=True)

    @cityscape.command(name="new", description="Open a Cityscape lobby in this channel")
    @app_commands.describe(rounds="Rounds to play (default: one per player, four with two)")
    async def new(self, interaction: discord.Interaction,
                  rounds: app_commands.Range[int, 1, 12] | None = None) -> None:
        await self.open(interaction, given(rounds=rounds))

    @cityscape.command(name="rules", description="How to play Cityscape")
    async def rules(self, interaction: discord.Interaction) -> None:
        await self.show_rules(interaction)


@app_commands.command(name="cityscape", description="Default options for /cityscape new")
@app_commands.describe(rounds="Rounds to play (empty: one per player, four with two)")
async def defaults(interaction: discord.Interaction,
                   rounds: app_commands.Range[int, 1, 12] | None = None) -> None:
    await save_defaults(interaction, "cityscape", given(rounds=rounds))


async def setup(bot: CityhallBot) -> None:
    await bot.add_game(CityscapeAdapter(ENGINE),
                       (HeightButton, LotButton, GoalsButton, GoalSelect, GoalConfirm), Cityscape,
                       defaults)
