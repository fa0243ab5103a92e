"""Big Cityz in Discord: /bigcityz new and rules, placing a city, objections, reveals.

The table shows the city to place by name only; its facts stay in the engine until the
reveal. The player on turn presses **Place** and chooses, privately, among exactly the legal
squares (a menu) or Replace / There's no free square (buttons). Then the table offers
**Objection** and **No objection** to everyone who may still object, with the closing time
shown live; the reveal follows as a picture of the city card's back.
"""

from __future__ import annotations

import time
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands

from bot.core.engine import Engine
from bot.core.records import Match
from bot.core.runtime import Outcome
from bot.games.bigcityz import ENGINE
from bot.games.bigcityz.board import RISK_POINTS, risk_slots, short_name, slot_of
from bot.games.bigcityz.content import statement as statement_of
from bot.ui.components import Components
from bot.ui.game import LEVEL_WORDS, GameAdapter, Notice, Picture
from bot.ui.items import Click, GameButton, GameSelect
from bot.ui.lobby import GameCommands, given
from bot.ui.words import final_line, mention, name, plural
from cogs.settings import save_defaults

if TYPE_CHECKING:
    from bot.app import CityhallBot

FOOTER = ("City facts: see bot/data/bigcityz/SOURCES.md (GeoNames CC BY 4.0, OpenFlights ODbL, "
          "Wikipedia CC BY-SA).")

RULES = """\
**Big Cityz** — 2–6 players, city trivia. First to **36** points; the round is finished so \
everyone has had as many turns.
**Your turn.** A city is drawn and named. Put it on a square of a statement board you think \
is right: a **green** square if the statement is true of the city, a **red** one if false \
(the rarer answer pays more, 1–6). Or on a **risk field** between two boards: green if both \
statements are true, red if both are false (8 points, −2 if wrong).
**Replace.** First you may replace a board holding 3 cities (or 2 while its neighbouring risk \
fields hold 2): its cities leave and you must place on the new board. When no board can be \
replaced you may say **There's no free square**: right if no free square would have been \
correct (8, −2 if wrong).
**Objections.** Everyone else has two veto markers for the whole game. After a placement \
each may object once: if the placement is right each objector loses 3, if wrong each gains 3 \
and the player scores nothing. Markers are spent either way.
**Reveal.** The card is turned: right scores the square's points. Scores never go below 0."""


def card_stamp(state: dict[str, Any]) -> int:
    """Changes with every city drawn: ties an objection to the card it was meant for."""
    return len(state["city_pile"])


def placement_text(state: dict[str, Any], placement: dict[str, Any]) -> str:
    """What the placer did, as a phrase after their name (or "You"): "put it on board 2,
    Coast: green 5 (true)", "put it on the risk field between boards 1 and 2: red 8 (both
    false)" (the rulebook's words: a risk field lies between two statement boards). The colour is said with what it means, since a colour alone
    fails colour-blind players and "put it Green 5 on Coast" does not read."""
    if placement.get("kind") == "no_free_square" or placement.get("type") == "no_free_square":
        return "said “There's no free square”"
    colour = str(placement.get("color", ""))
    if "risk" in placement:
        first, second = str(placement["risk"]).split("-")
        meaning = "both true" if colour == "green" else "both false"
        return (f"put it on the risk field between boards {first} and {second}: {colour} "
                f"{RISK_POINTS} ({meaning})")
    slot = placement.get("slot")
    statement = placement.get("statement") or slot_of(state, int(slot or 1))["statement"]
    meaning = "true" if colour == "green" else "false"
    return (f"put it on board {slot}, {short_name(str(statement))}: {colour} "
            f"{placement.get('points')} ({meaning})")


# -- the table ------------------------------------------------------------------------


class BigCityzAdapter(GameAdapter):
    colour = discord.Colour.from_rgb(214, 120, 40)
    rules_summary = RULES
    rules_footer = FOOTER
    # A hard Big Cityz computer also knows more cities (bot/games/bigcityz/levels.RECALL).
    level_words = MappingProxyType(
        {**LEVEL_WORDS, "hard": "Knows more cities than normal and thinks ahead"})

    def due_words(self, match: Match) -> tuple[str, str]:
        if match.state is not None and ENGINE.timeout_action(match.state) is not None:
            # the objection window: nobody has a move to make, only a say
            return "object to the placement, or let it stand,", "objections close"
        return super().due_words(match)

    def table_content(self, match: Match) -> str:
        assert match.state is not None
        state = match.state
        view = self.public_view(match)
        head = f"**Big Cityz** · round {view['round']}"
        city = (view.get("city") or {}).get("name", "")
        if state["phase"] == "place":
            turn = view["turn"]
            replaced = " (on the new board)" if state.get("replaced_slot") else ""
            return (f"{head}\n🏙️ **{city}** — {mention(match, turn)}, where does it go{replaced}?"
                    " Press **Place**.")
        if state["phase"] == "veto":
            placement = state["placement"] or {}
            waiting = ", ".join(mention(match, p) for p in view["to_act"]) or "nobody"
            deadline = int((match.turn_started_at or time.time()) + view["veto_seconds"])
            return (f"{head}\n🏙️ **{city}** — {name(match, placement.get('player', ''))} "
                    f"{placement_text(state, placement)}.\nObjections close <t:{deadline}:R>."
                    f" Waiting for: {waiting}.")
        return f"**Big Cityz** · final\n{final_line(match, view)}"

    def picture_description(self, match: Match) -> str:
        view = self.public_view(match)
        city = (view.get("city") or {}).get("name", "")
        what = f"Big Cityz boards, round {view.get('round')}"
        if city and view.get("phase") != "over":
            what += f"; the city in play: {city}"
        reveal = view.get("last_reveal")
        last = (f"{match.name_of(reveal['player'])} placed {reveal['city'].get('name', 'a city')}"
                f", {'right' if reveal['right'] else 'wrong'}") if reveal else ""
        return self.board_words(match, what, last)

    def table_items(self, match: Match) -> list[discord.ui.Item[Any]]:
        assert match.state is not None
        state = match.state
        if state["phase"] == "place":
            return [PlaceButton.make(match.id, match.version)]
        if state["phase"] == "veto":
            stamp = card_stamp(state)
            return [VetoButton.make(match.id, stamp, "veto"), VetoButton.make(match.id, stamp, "noveto")]
        return []

    def options_text(self, match: Match) -> str:
        seconds = match.options.get("veto_seconds", 20)
        knowledge = KNOWLEDGE_WORDS.get(match.options.get("ai_level", "normal"), "normal")
        return f"Objection window: {seconds} s · computer knowledge: {knowledge}"

    def stats_suffix(self, extra: dict[str, int]) -> str:
        raised = extra.get("objections", 0)
        if not raised:
            return ""
        return f", {raised} objection{'s' if raised != 1 else ''} ({extra.get('objections_justified', 0)} justified)"

    def notices(self, match: Match, outcome: Outcome) -> list[Notice]:
        assert match.state is not None
        notices: list[Notice] = []
        if outcome.timed_out and outcome.player is not None:
            kind = outcome.action.get("type")
            did = {"veto": "objected", "no_veto": "did not object",
                   "replace": f"replaced board {outcome.action.get('slot')}",
                   "no_free_square": "said “There's no free square”"}.get(str(kind), "placed the city")
            notices.append(Notice(f"⏰ {name(match, outcome.player)} ran out of time, so the "
                                  f"computer player {did} for them.", fold=True))
        view = None
        for event in outcome.events:
            if event["type"] != "reveal":
                continue
            view = view or self.named_view(match, self.engine.view(match.state, None))
            notices.append(Notice(self._reveal_text(match, event),
                                  [Picture("reveal.png", "render_reveal", (view,))]))
        if match.state["phase"] == "over" and notices:
            notices[-1].text += "\n" + final_line(match, self.public_view(match))
        return notices

    def _reveal_text(self, match: Match, event: dict[str, Any]) -> str:
        city = event["city"]["name"]
        placer = event["player"]
        verdict = "✅ right" if event["right"] else "❌ wrong"
        facts = ", ".join(
            f"{_short(c['statement'])}: {'true' if c['true'] else 'false'}" for c in event["checked"])
        lines = [f"**{city}** — {name(match, placer)}: {verdict} ({facts})."]
        changes = [f"{name(match, p)} {'+' if d > 0 else ''}{d}"
                   for p, d in event["points"].items() if d]
        if event["objectors"]:
            lines.append("Objected: " + ", ".join(name(match, p) for p in event["objectors"]) + ".")
        lines.append("Points: " + (", ".join(changes) if changes else "none") + ".")
        return "\n".join(lines)


def _short(statement: str) -> str:
    from bot.games.bigcityz.content import SHORT_NAMES

    return SHORT_NAMES.get(statement, statement)


# -- placing --------------------------------------------------------------------------


class BigCityzItem:
    """What Big Cityz's buttons and menus share: their ids' prefix and the engine."""

    prefix: ClassVar[str] = "ch:bz"
    engine: ClassVar[Engine] = ENGINE


class PlaceButton(BigCityzItem, GameButton, template=":v{version}:place"):
    stale = "That board is out of date."
    turn_only = True
    version: int

    @classmethod
    def make(cls, match_id: int, version: int) -> PlaceButton:
        return cls.create(discord.ui.Button(label="Place", emoji="📍",
                                            style=discord.ButtonStyle.primary),
                          match_id=match_id, version=version)

    def due(self, match: Match, player: str) -> str | None:
        assert match.state is not None
        turn = ENGINE.to_act(match.state)
        placing = match.state["phase"] == "place"
        if placing and player in turn:
            return None
        return (f"It's {name(match, turn[0])}'s turn to place, not yours." if turn and placing
                else "Nobody is placing right now.")

    async def on_click(self, click: Click) -> None:
        text, view = chooser(click.match, click.player)
        await click.interaction.response.send_message(text, view=view, ephemeral=True)


def _mark(colour: str, risk: bool = False) -> str:
    """The badge the board draws on a square, with its word and colour: the ✓/✗ and the
    word carry the meaning for players who cannot tell green from red."""
    if colour == "green":
        return "✓✓ both true" if risk else "✓ true"
    return "✗✗ both false" if risk else "✗ false"


def target_option(state: dict[str, Any], action: dict[str, Any]) -> tuple[str, str]:
    """A free square as the board shows it: (label, description) for the menu, e.g.
    ("✓ true 5 (green) · board 2, Coast", "Is located on a coast")."""
    colour = str(action.get("color", ""))
    if "risk" in action:
        first, second = risk_slots(str(action["risk"]))
        names = " & ".join(short_name(str(slot_of(state, s)["statement"]))
                           for s in (first, second))
        label = (f"{_mark(colour, risk=True)} {RISK_POINTS} ({colour}) · risk field between "
                 f"boards {first} and {second}, {names}")
        return label, f"Right: {RISK_POINTS} points; wrong: −2"
    slot = int(action["slot"])
    statement = str(slot_of(state, slot)["statement"])
    label = (f"{_mark(colour)} {action.get('points')} ({colour}) · board {slot}, "
             f"{short_name(statement)}")
    return label, str(statement_of(statement).get("text", ""))


def action_label(state: dict[str, Any], action: dict[str, Any], label: str) -> str:
    """A Replace button names the board as the picture does: number and short name."""
    if action.get("type") == "replace":
        slot = int(action["slot"])
        return f"Replace board {slot} ({short_name(str(slot_of(state, slot)['statement']))})"
    return label


def chooser(match: Match, player: str) -> tuple[str, discord.ui.View]:
    """The private choice: a menu of every free square, and Replace / No free square."""
    assert match.state is not None
    legal = ENGINE.legal(match.state, player)
    view = Components()
    places = [(i, a) for i, a in enumerate(legal) if a.action["type"] == "place"]
    if places:
        view.add_item(PlaceSelect.make(
            match.id, match.version, [(i, target_option(match.state, a.action)) for i, a in places]))
    for i, a in enumerate(legal):
        if a.action["type"] != "place":
            view.add_item(ActionButton.make(match.id, match.version, i,
                                            action_label(match.state, a.action, a.label)))
    city = (ENGINE.view(match.state, None).get("city") or {}).get("name", "the city")
    note = (" You replaced a board, so it goes on the new one." if match.state.get("replaced_slot")
            else "")
    return f"Where does **{city}** go?{note}", view


class ChoiceItem(BigCityzItem):
    """The private chooser's menu and buttons: a move by its index in ``legal``."""

    stale: ClassVar[str | None] = "That choice belongs to an earlier board."
    version: int

    async def choose(self, click: Click, index: int) -> None:
        legal = await click.legal()
        if not 0 <= index < len(legal):
            await click.tell("That isn't one of your choices right now.")
            return
        action = legal[index].action
        outcome = await click.play(action)
        if outcome is None:
            return
        assert outcome.match.state is not None
        if action["type"] == "replace":
            text, view = chooser(outcome.match, click.player)
            await click.interaction.response.edit_message(
                content=f"Board {action['slot']} replaced.\n{text}", view=view)
        else:
            did = placement_text(outcome.match.state, action)
            await click.interaction.response.edit_message(content=f"You {did}.", view=None)


class PlaceSelect(ChoiceItem, GameSelect, template=":v{version}:pick"):
    @classmethod
    def make(cls, match_id: int, version: int,
             places: list[tuple[int, tuple[str, str]]]) -> PlaceSelect:
        # At most 16 squares and 8 risk fields are ever free, within Discord's 25.
        options = [discord.SelectOption(label=label[:100], value=str(i),
                                        description=description[:100] or None)
                   for i, (label, description) in places[:25]]
        return cls.create(discord.ui.Select(placeholder="Put it on…", options=options, row=0),
                          match_id=match_id, version=version)

    async def on_click(self, click: Click) -> None:
        await self.choose(click, self.number)


class ActionButton(ChoiceItem, GameButton, template=":v{version}:a{index:[0-9]{1,3}}"):
    """Replace board N / There's no free square: the index of the move in ``legal``."""

    index: int

    @classmethod
    def make(cls, match_id: int, version: int, index: int, label: str) -> ActionButton:
        return cls.create(discord.ui.Button(label=label[:80], row=1,
                                            style=discord.ButtonStyle.secondary),
                          match_id=match_id, version=version, index=index)

    async def on_click(self, click: Click) -> None:
        await self.choose(click, self.index)


# -- objections -----------------------------------------------------------------------


class VetoButton(BigCityzItem, GameButton,
                 template=":c{stamp:[0-9]{1,4}}:{answer:veto|noveto}"):
    """Objection / No objection. Tied to the city card, not the board version, so one
    player's answer does not make the others' buttons outdated."""

    stale = "The objections for that city are closed."
    stale_shows_board = False
    stamp: int
    answer: str

    @classmethod
    def make(cls, match_id: int, stamp: int, answer: str) -> VetoButton:
        label, style = (("Objection", discord.ButtonStyle.danger) if answer == "veto"
                        else ("No objection", discord.ButtonStyle.secondary))
        return cls.create(discord.ui.Button(label=label, style=style,
                                            emoji="✋" if answer == "veto" else "👍"),
                          match_id=match_id, stamp=stamp, answer=answer)

    def current(self, match: Match) -> bool:
        return bool(match.state and match.state["phase"] == "veto"
                    and card_stamp(match.state) == self.stamp)

    async def on_click(self, click: Click) -> None:
        outcome = await click.play({"type": "veto" if self.answer == "veto" else "no_veto"})
        if outcome is None:
            return
        left = outcome.match.state["vetoes"][click.player] if outcome.match.state else 0
        await click.tell(f"Objection raised. You have {plural(left, 'veto marker')} left."
                         if self.answer == "veto"
                         else "No objection from you this time; your markers are kept.")


# -- slash commands -------------------------------------------------------------------


# The engine's knowledge option (``ai_level``: how many city facts every computer player
# knows) is shown as "computer knowledge", so it is not taken for the strategy level each
# computer seat has in the lobby. Its values, and so every saved option, stay easy, normal
# and hard; only the words players see changed.
KNOWLEDGE_WORDS = {"easy": "less (about half the facts)", "normal": "normal (3 facts in 4)",
                   "hard": "more (9 facts in 10)"}
KNOWLEDGE_CHOICES = [app_commands.Choice(name=words[0].upper() + words[1:], value=value)
                     for value, words in KNOWLEDGE_WORDS.items()]
KNOWLEDGE_HELP = "How many city facts the computer players know"


def new_options(veto_seconds: int | None, computer_knowledge: str | None) -> dict[str, Any]:
    """The game options ``/bigcityz new`` (and ``/settings defaults bigcityz``) stand for."""
    return given(veto_seconds=veto_seconds, ai_level=computer_knowledge)


class BigCityz(GameCommands):
    bigcityz = app_commands.Group(name="bigcityz", description="Big Cityz: city trivia with "
                                  "risk fields and vetoes", guild_only=True)

    @bigcityz.command(name="new", description="Open a Big Cityz lobby in this channel")
    @app_commands.describe(veto_seconds="Seconds to object after each placement (default 20)",
                           computer_knowledge=f"{KNOWLEDGE_HELP} (default normal)")
    @app_commands.choices(computer_knowledge=KNOWLEDGE_CHOICES)
    async def new(self, interaction: discord.Interaction,
                  veto_seconds: app_commands.Range[int, 5, 120] | None = None,
                  computer_knowledge: str | None = None) -> None:
        await self.open(interaction, new_options(veto_seconds, computer_knowledge))

    @bigcityz.command(name="rules", description="How to play Big Cityz")
    async def rules(self, interaction: discord.Interaction) -> None:
        await self.show_rules(interaction)


@app_commands.command(name="bigcityz", description="Default options for /bigcityz new")
@app_commands.describe(veto_seconds="Seconds to object after each placement (empty: 20)",
                       computer_knowledge=f"{KNOWLEDGE_HELP} (empty: normal)")
@app_commands.choices(computer_knowledge=KNOWLEDGE_CHOICES)
async def defaults(interaction: discord.Interaction,
                   veto_seconds: app_commands.Range[int, 5, 120] | None = None,
                   computer_knowledge: str | None = None) -> None:
    await save_defaults(interaction, "bigcityz", new_options(veto_seconds, computer_knowledge))


async def setup(bot: CityhallBot) -> None:
    await bot.add_game(BigCityzAdapter(ENGINE),
                       (PlaceButton, PlaceSelect, ActionButton, VetoButton), BigCityz, defaults)
