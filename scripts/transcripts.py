"""A whole game of each game as the channel shows it: ``docs/transcripts/<game>.md``.

Plays one seeded two-player game (Ann and Bob, clicking what the computer player would
choose) of each game through the fake Discord (fakediscord) and writes, in order,
every public message and every edit of one (its text, ``[picture: <alt text>]`` for each
picture, its buttons and menus), each ping, and Ann's private replies and clicks, marked as
private. Long stretches of ordinary turns are abbreviated to a note. Run from the repo
root: ``PYTHONPATH=. python scripts/transcripts.py [game ...]``.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from fakediscord import FakeDiscord
from fakediscord.models import FLAG_LOADING, FakeMessage
from tests.harness import cityhall_bot
from tests.whole_games import PLAY, open_game

OUT = Path(__file__).resolve().parent.parent / "docs" / "transcripts"
GAMES = {  # game: (title, lobby options, seed)
    "cityscape": ("Cityscape", {"rounds": 2}, 3),
    "bigcityz": ("Big Cityz", {}, 6),
    "bigcity": ("Big City", {}, 8),
    "cities": ("Cities", {}, 9),
}
HEAD_PINGS = 6  # turns shown in full at the start of a game
TAIL_PINGS = 3  # and at its end
MOVED = "This board moved further down ⬇️"


@dataclass
class Item:
    at: float  # wall-clock seconds
    order: int  # ties: the order they were collected in
    kind: str  # "command", "click", "public", "ping", "private"
    text: str


def when(version: dict[str, Any], message: FakeMessage) -> float:
    stamp: datetime = version.get("edited_at") or message.created_at
    return stamp.timestamp()


def readable(text: str, names: dict[str, str], at: float) -> str:
    """Discord markup as a reader sees it: mentions as names, countdowns as words."""
    text = re.sub(r"<@!?(\d+)>", lambda m: "@" + names.get(m[1], "someone"), text)

    def countdown(m: re.Match[str]) -> str:
        seconds = int(m[1]) - at
        if seconds < 90:
            return f"in {max(0, round(seconds))} seconds ⏱"
        minutes = round(seconds / 60)
        return f"in {minutes} minutes ⏱"
    return re.sub(r"<t:(\d+):R>", countdown, text)


def controls(components: list[dict[str, Any]]) -> str:
    shown = []
    for row in components:
        for comp in row.get("components", []):
            if comp.get("type") == 2:
                label = str(comp.get("label") or "")
                emoji = (comp.get("emoji") or {}).get("name")
                label = f"{emoji} {label}".strip() if emoji else label
                shown.append(f"[{label}]" + (" (greyed out)" if comp.get("disabled") else ""))
            elif comp.get("type") in (3, 5, 6, 7, 8):
                options = comp.get("options") or []
                chosen = [str(o.get("label")) for o in options if o.get("default")]
                what = f" — {', '.join(chosen)}" if chosen else \
                    f", {len(options)} choice{'s' if len(options) != 1 else ''}" if options else ""
                shown.append(f"[menu: {comp.get('placeholder') or 'choose'}{what}]")
    return " ".join(shown)


def quoted(version: dict[str, Any], names: dict[str, str], at: float) -> str:
    lines = []
    content = readable(str(version.get("content") or ""), names, at)
    lines += content.splitlines()
    for embed in version.get("embeds") or []:
        for part in (embed.get("title"), embed.get("description")):
            if part:
                lines += readable(str(part), names, at).splitlines()
        for field in embed.get("fields") or []:
            lines.append(f"**{field.get('name')}:** "
                         + readable(str(field.get("value")), names, at).replace("\n", " · "))
    for attachment in version.get("attachments") or []:
        description = attachment[2] if len(attachment) > 2 else None
        lines.append(f"[picture: {readable(description or '(no description!)', names, at)}]")
    buttons = controls(version.get("components") or [])
    if buttons:
        lines.append(buttons)
    return "\n".join("> " + line if line else ">" for line in lines)


def clicked(ix: Any) -> str | None:
    """What a click or a menu pick was, in the words of the message it was made on."""
    data = ix.payload.get("data") or {}
    custom_id = data.get("custom_id")
    message = ix.payload.get("message") or {}
    for row in message.get("components") or []:
        for comp in row.get("components", []):
            if comp.get("custom_id") != custom_id:
                continue
            if comp.get("type") == 2:
                return f"clicks **{comp.get('label')}**"
            values = data.get("values") or []
            picked = [str(o.get("label")) for o in comp.get("options") or []
                      if o.get("value") in values]
            return f"picks **{', '.join(picked) or ', '.join(values)}**"
    return None


def collect(fake: FakeDiscord, names: dict[str, str], follow: str) -> list[Item]:
    items: list[Item] = []
    offset = time.time() - time.monotonic()
    for ix in fake.interactions.values():
        user = str(ix.user["id"])
        if ix.type == 2:
            data = ix.payload["data"]
            words = [data["name"]]
            options = data.get("options") or []
            while options and options[0].get("type") in (1, 2):
                words.append(options[0]["name"])
                options = options[0].get("options") or []
            words += [f"{o['name']}:{o['value']}" for o in options]
            items.append(Item(ix.created + offset, len(items), "command",
                              f"*{names[user]} used* `/{' '.join(words)}`"))
        elif ix.type == 3 and user == follow:
            what = clicked(ix)
            if what:
                items.append(Item(ix.created + offset, len(items), "click",
                                  f"🔒 *{names[user]} {what}*"))
    for message in fake.channel_messages(fake.channel_id, include_deleted=True):
        if message.ephemeral and message.ephemeral_user_id != follow:
            continue
        versions = [*message.history, message.snapshot()]
        first = True
        for version in versions:
            if int(version.get("flags") or 0) & FLAG_LOADING:
                continue
            at = when(version, message)
            body = quoted(version, names, at)
            if message.ephemeral:
                head = (f"🔒 *Only {names[follow]} sees:*" if first
                        else f"🔒 *{names[follow]}'s private message changes to:*")
                kind = "private"
            elif "your move" in str(version.get("content")) or "left for your move" in str(
                    version.get("content")):
                head = "**Cityhall** *(a ping; removed when the next one is sent)*:" \
                    if message.deleted else "**Cityhall** *(a ping)*:"
                kind = "ping"
            elif first:
                head, kind = "**Cityhall:**", "public"
            elif version.get("content") == MOVED:
                head, kind = "**Cityhall** *(edits the earlier table: no picture, no " \
                             "buttons)*:", "moved"
            elif version.get("embeds"):
                head, kind = "**Cityhall** *(edits the lobby)*:", "public"
            else:
                head, kind = "**Cityhall** *(edits the table)*:", "public"
            items.append(Item(at, len(items), kind, f"{head}\n{body}"))
            first = False
    return sorted(items, key=lambda i: (i.at, i.order))


def kept(items: list[Item]) -> list[str]:
    """Everything up to the HEAD_PINGS-th ping and from TAIL_PINGS pings before the end;
    between them only what stays in the channel (scoring, reveals, round ends) and the
    table's edit that follows it, the rest summed up in a note."""
    pings = [n for n, i in enumerate(items) if i.kind == "ping"]
    if len(pings) <= HEAD_PINGS + TAIL_PINGS + 2:
        return [i.text for i in items]
    head_end, tail_start = pings[HEAD_PINGS], pings[-TAIL_PINGS]
    out = [i.text for i in items[:head_end]]
    skipped: list[Item] = []

    def note() -> None:
        if not skipped:
            return
        turns = sum(1 for i in skipped if i.kind == "ping")
        edits = sum(1 for i in skipped if i.kind == "public")
        private = sum(1 for i in skipped if i.kind in ("private", "click"))
        out.append(f"*… {turns} more turns like these: {edits} edits of the table, "
                   f"{turns} pings (each replacing the last), {private} private messages "
                   f"and clicks of Ann's …*")
        skipped.clear()

    for item in items[head_end:tail_start]:
        stays = item.kind == "moved" or (item.kind == "public"
                                         and item.text.startswith("**Cityhall:**"))
        if stays:
            note()
            out.append(item.text)
        else:
            skipped.append(item)
    note()
    out += [i.text for i in items[tail_start:]]
    return out


async def transcript(game: str) -> str:
    title, options, seed = GAMES[game]
    async with FakeDiscord(rate_limit_scale=0.1) as fake:
        ann = await fake.add_member("Ann")
        bob = await fake.add_member("Bob")
        users = {str(ann["id"]): ann, str(bob["id"]): bob}
        names = {**{u: str(m["username"]) for u, m in users.items()}, fake.bot_user["id"]: "Cityhall"}
        with tempfile.TemporaryDirectory() as folder:
            async with cityhall_bot(fake, Path(folder) / "db.sqlite3") as bot:
                match_id = await open_game(fake, bot, game, ann, [bob], 0, options, seed)
                await PLAY[game](fake, bot, match_id, users, lambda: None)
                await fake.wait_until(lambda: not [m for m in fake.channel_messages(
                    fake.channel_id, ephemeral=False) if "your move" in m.content] or None,
                    10.0, "the last ping removed")
        items = collect(fake, names, str(ann["id"]))
        left = len(fake.channel_messages(fake.channel_id, ephemeral=False))
        posted = len(fake.channel_messages(fake.channel_id, ephemeral=False,
                                           include_deleted=True))
    parts = [
        f"# {title}: a whole game, as the channel shows it",
        "",
        f"Generated by `scripts/transcripts.py` (seed {seed}): Ann and Bob play a two-player "
        "game by clicking through the fake Discord, each choosing what the computer player "
        "would. Every public message and every edit of one is shown in order, with each "
        "picture's alt text as `[picture: …]` and its buttons in brackets; 🔒 marks what "
        "only Ann sees (her private replies and her clicks). Countdowns are shown as "
        "\"in N minutes ⏱\". Long stretches of ordinary turns are summed up in a note.",
        "",
        f"At the end **{left} messages** are left in the channel ({posted} were posted; the "
        "others were pings, each removed by the next).",
        "",
    ]
    for text in kept(items):
        parts += [text, ""]
    return "\n".join(parts)


async def main(games: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for game in games:
        text = await transcript(game)
        path = OUT / f"{game}.md"
        path.write_text(text, encoding="utf-8")
        print(f"{path}: {len(text):,} characters")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:] or list(GAMES)))
