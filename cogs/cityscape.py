"""Cityscape in Discord: /cityscape new and rules, the building buttons and secret goals.

Table message: block heights (with blocks left) and "My goals". A height opens, for the
player whose turn it is, a private 4x4 lot picker laid out like the board (north at the
top). Goals are chosen privately: four menus, one per line, then Confirm; the choices so far
ride in the components' custom ids, so a half-made choice survives a restart too.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.cityscape import ENGINE
from bot.games.cityscape.skyline import CODE_GOALS, LINES, SIDE_NAMES, line_points, visible_count
from bot.ui.components import Components, offered_values
from bot.ui.game import GameAdapter, Notice, Picture
from bot.ui.lobby import open_lobby, send_rules
from bot.ui.play import current_board, guarded, play, seated
from bot.ui.replies import tell
from bot.ui.words import mention, name, winner_line

if TYPE_CHECKING:
    from bot.app import CityhallBot

MATCH = r"ch:cs:(?P<match>[0-9]{1,15})"
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
        assert match.state is not None
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
        return f"**Cityscape** · final\n{_final_line(match, view)}"

    def picture_description(self, match: Match) -> str:
        view = self.public_view(match)
        what = (f"Cityscape city, round {view.get('round')} of {view.get('rounds')}: "
                f"{view.get('placed', 0)} of 25 blocks built")
        built = view.get("last_build")
        last = (f"{match.name_of(built['player'])} built a {built['height']}-high block on "
                f"{built['lot']}") if built else ""
        return self.board_words(match, what, last)

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        assert match.state is not None
        state = match.state
        items: list[discord.ui.Item[Any]] = []
        if state["phase"] == "building":
            for h in (1, 2, 3, 4, 5):
                items.append(HeightButton(match.id, match.version, h,
                                          left=state["blocks_left"][str(h)], row=0))
        items.append(GoalsButton(match.id, row=1))
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
                did = f"built a {action['height']}-high block on {action['lot']}"
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
                lines.append(_final_line(match, view))
            notices.append(Notice("\n".join(lines), [Picture(
                f"round-{event['round']}.png", "render_scoring",
                (self.named_view(match, view), event["round"]))]))
        return notices


def _final_line(match: Match, view: dict[str, Any]) -> str:
    return winner_line(match, view.get("winners") or [], view.get("scores") or {})


# -- building -------------------------------------------------------------------------


class HeightButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=MATCH + r":v(?P<version>[0-9]{1,9}):h(?P<height>[1-5])"):
    """A block height on the table; opens the private lot picker for the builder."""

    def __init__(self, match_id: int, version: int, height: int, *, left: int = 1,
                 row: int | None = None, chosen: bool = False) -> None:
        label = f"{height}-high · {left} left" if not chosen else f"{height}-high ✓"
        super().__init__(discord.ui.Button(
            label=label, row=row, disabled=left == 0,
            style=discord.ButtonStyle.primary if chosen else discord.ButtonStyle.secondary,
            custom_id=f"ch:cs:{match_id}:v{version}:h{height}"))
        self.match_id, self.version, self.height = match_id, version, height

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HeightButton:
        return cls(int(match["match"]), int(match["version"]), int(match["height"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.match_id)
        if found is None:
            return
        match, player = found
        state = match.state
        assert state is not None
        # A height button only opens the picker, and the picker is drawn from the board as
        # it is now, so a table a frame behind (skipped under load) still serves; the move
        # itself is tied to the picker's board.
        if state["phase"] != "building" or player not in ENGINE.to_act(state):
            turn = ENGINE.to_act(state)
            who = name(match, turn[0]) if turn else "nobody"
            await tell(interaction, f"It's {who}'s turn to build, not yours."
                       if state["phase"] == "building" else "Building has not started yet.")
            return
        if state["blocks_left"][str(self.height)] == 0:
            await tell(interaction, f"There are no {self.height}-high blocks left.")
            return
        text, view = lot_picker(match, self.height)
        if self.version != match.version:
            text = f"(The table was behind; this is the board as it is now.)\n{text}"
        message = interaction.message
        if message is not None and message.flags.ephemeral:
            await interaction.response.edit_message(content=text, view=view)
        else:
            await interaction.response.send_message(text, view=view, ephemeral=True)


def lot_picker(match: Match, height: int) -> tuple[str, discord.ui.View]:
    assert match.state is not None
    heights = {lot: sum(blocks) for lot, blocks in match.state["lots"].items()}
    view = Components()
    for row, digit in enumerate("4321"):
        for column in "ABCD":
            lot = column + digit
            view.add_item(LotButton(match.id, match.version, height, lot, heights[lot], row=row))
    for h in (1, 2, 3, 4, 5):
        left = match.state["blocks_left"][str(h)]
        view.add_item(HeightButton(match.id, match.version, h, left=left, row=4,
                                   chosen=h == height))
    text = (f"Where does your **{height}-high** block go? The lots are laid out like the "
            "board, north at the top; a number is the building's height now. "
            "Another height? Pick it in the bottom row.")
    return text, view


class LotButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                template=MATCH + r":v(?P<version>[0-9]{1,9}):b(?P<height>[1-5])(?P<lot>[A-D][1-4])"):
    def __init__(self, match_id: int, version: int, height: int, lot: str,
                 current: int = 0, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(
            label=f"{lot} · {current}" if current else lot, row=row,
            style=discord.ButtonStyle.primary if current else discord.ButtonStyle.secondary,
            custom_id=f"ch:cs:{match_id}:v{version}:b{height}{lot}"))
        self.match_id, self.version, self.height, self.lot = match_id, version, height, lot

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LotButton:
        return cls(int(match["match"]), int(match["version"]), int(match["height"]), match["lot"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.match_id)
        if found is None:
            return
        match, player = found
        outcome = await play(interaction, match, player,
                             {"type": "build", "height": self.height, "lot": self.lot},
                             expected_version=self.version)
        if outcome is None:
            return
        built = outcome.events[0]
        await interaction.response.edit_message(
            content=f"You built a {self.height}-high block on {self.lot}; that building is now "
                    f"{built['building']} high.", view=None)


# -- secret goals ---------------------------------------------------------------------


class GoalsButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=MATCH + r":goals"):
    """Opens the player's private goal picker, or shows their goals once set."""

    def __init__(self, match_id: int, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label="My goals", emoji="🎯", row=row,
                                           style=discord.ButtonStyle.success,
                                           custom_id=f"ch:cs:{match_id}:goals"))
        self.match_id = match_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GoalsButton:
        return cls(int(match["match"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.match_id)
        if found is None:
            return
        match, player = found
        assert match.state is not None
        open_sides = [s for s, owner in match.state["sides"].items()
                      if owner == player and s not in match.state["goals"]]
        if match.state["phase"] == "goals" and open_sides:
            text, view = goal_picker(match, open_sides[0], "____")
            await interaction.response.send_message(text, view=view, ephemeral=True)
        else:
            await tell(interaction, my_goals_text(match, player))


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
        view.add_item(GoalSelect(match.id, round_, side, line, draft))
    view.add_item(GoalConfirm(match.id, round_, side, draft))
    text = (f"**Your secret goals for the {SIDE_NAMES[side]} side ({side})** — round {round_}. "
            "Choose a code for each line, left to right as you look at the city from your "
            "side, then press Confirm. Only you can see this.")
    return text, view


def _goal_check(round_: int):  # type: ignore[no-untyped-def]
    def still_valid(match: Match) -> bool:
        return bool(match.state and match.state["round"] == round_
                    and match.state["phase"] == "goals")
    return still_valid


class GoalSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                 template=MATCH + r":r(?P<round>[0-9]{1,3}):s(?P<side>[SWNE])(?P<line>[0-3])"
                                  r"(?P<draft>[1-6_]{4})"):
    def __init__(self, match_id: int, round_: int, side: str, line: int, draft: str) -> None:
        chosen = draft[line]
        options = [
            discord.SelectOption(label=f"{code} · {CODE_GOALS[code]}", value=str(code),
                                 description=CODE_POINTS[code], default=chosen == str(code))
            for code in range(1, 7)
        ]
        super().__init__(discord.ui.Select(
            placeholder=f"Line {line + 1}: {_line_name(side, line)}", options=options, row=line,
            min_values=1, max_values=1,
            custom_id=f"ch:cs:{match_id}:r{round_}:s{side}{line}{draft}"))
        self.match_id, self.round, self.side, self.line, self.draft = (
            match_id, round_, side, line, draft)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GoalSelect:
        return cls(int(match["match"]), int(match["round"]), match["side"], int(match["line"]),
                   match["draft"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.match_id)
        if found is None:
            return
        match = found[0]
        values = offered_values(self.item) or []
        if len(values) != 1 or values[0] not in ("1", "2", "3", "4", "5", "6"):
            await tell(interaction, "Pick one code from 1 to 6.")
            return
        if not _goal_check(self.round)(match):
            await current_board(interaction, match, "Goal setting for that round is over.")
            return
        draft = self.draft[: self.line] + values[0] + self.draft[self.line + 1:]
        text, view = goal_picker(match, self.side, draft)
        await interaction.response.edit_message(content=text, view=view)


class GoalConfirm(discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=MATCH + r":r(?P<round>[0-9]{1,3}):g(?P<side>[SWNE])(?P<draft>[1-6_]{4})"):
    def __init__(self, match_id: int, round_: int, side: str, draft: str) -> None:
        complete = "_" not in draft
        super().__init__(discord.ui.Button(
            label=f"Confirm {'-'.join(draft)}" if complete else "Confirm (choose all four)",
            style=discord.ButtonStyle.success, disabled=not complete, row=4,
            custom_id=f"ch:cs:{match_id}:r{round_}:g{side}{draft}"))
        self.match_id, self.round, self.side, self.draft = match_id, round_, side, draft

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GoalConfirm:
        return cls(int(match["match"]), int(match["round"]), match["side"], match["draft"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self._handle)

    async def _handle(self, interaction: discord.Interaction) -> None:
        found = await seated(interaction, self.match_id)
        if found is None:
            return
        match, player = found
        if "_" in self.draft:
            await tell(interaction, "Choose a code for all four lines first.")
            return
        codes = [int(c) for c in self.draft]
        outcome = await play(interaction, match, player,
                             {"type": "set_goals", "side": self.side, "codes": codes},
                             still_valid=_goal_check(self.round))
        if outcome is None:
            return
        saved = f"Goals for the {SIDE_NAMES[self.side]} side saved: **{'-'.join(self.draft)}**."
        state = outcome.match.state
        assert state is not None
        more = [s for s, owner in state["sides"].items()
                if owner == player and s not in state["goals"]]
        if more and state["phase"] == "goals":
            text, view = goal_picker(outcome.match, more[0], "____")
            await interaction.response.edit_message(content=f"{saved}\n\n{text}", view=view)
        else:
            await interaction.response.edit_message(
                content=f"{saved} They stay secret until the round is scored; "
                        "**My goals** shows them again.", view=None)


# -- slash commands -------------------------------------------------------------------


class Cityscape(commands.Cog):
    cityscape = app_commands.Group(name="cityscape", description="Cityscape: build a skyline "
                                   "to match your secret goals", guild_only=True)

    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot

    @cityscape.command(name="new", description="Open a Cityscape lobby in this channel")
    @app_commands.describe(rounds="Rounds to play (default: one per player, four with two)")
    async def new(self, interaction: discord.Interaction,
                  rounds: app_commands.Range[int, 1, 12] | None = None) -> None:
        options = {} if rounds is None else {"rounds": rounds}
        await open_lobby(interaction, ENGINE.name, options)

    @cityscape.command(name="rules", description="How to play Cityscape")
    async def rules(self, interaction: discord.Interaction) -> None:
        await send_rules(interaction, "How to play Cityscape", RULES, CityscapeAdapter.colour)


async def setup(bot: CityhallBot) -> None:
    await bot.add_game(CityscapeAdapter(ENGINE),
                       (HeightButton, LotButton, GoalsButton, GoalSelect, GoalConfirm),
                       Cityscape(bot))
