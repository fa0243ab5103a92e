"""The bot's own process never loads Pillow or the fonts: every picture is drawn in a render
worker, and the ~6 MB they take belong in the worker's memory, not in the bot's share of a
small VPS's (docs/performance.md, 1 Dec). The running bot is checked too, in
tests/test_noughts_game.py; here, everything it imports and an animation's reply."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

from bot.render.animated import Animation

ROOT = Path(__file__).resolve().parent.parent

# Everything `python -m bot run` imports, every cog, then a render worker's reply as the
# pool reads it: a finished game's animation is the one reply that is not plain bytes.
_BOT_SIDE = textwrap.dedent("""
    import importlib, pickle, pkgutil, sys
    import bot.__main__, bot.app, cogs
    for module in pkgutil.walk_packages(cogs.__path__, "cogs."):
        importlib.import_module(module.name)
    reply = pickle.loads(sys.stdin.buffer.read())
    assert reply[2].filename == "game.gif"
    drawing = ("PIL", "bot.render.kit", "bot.render.fonts", "bot.render.animation")
    print(sorted(m for m in sys.modules if m.split(".")[0] == "PIL" or m in drawing))
""")


def test_the_bot_process_loads_no_drawing_code() -> None:
    reply = pickle.dumps(("ok", 7, Animation(b"GIF89a", 24, 15000, 480), 0.4, 0.4),
                         pickle.HIGHEST_PROTOCOL)
    run = subprocess.run([sys.executable, "-c", _BOT_SIDE], input=reply, cwd=ROOT,
                         capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr.decode()
    assert run.stdout.decode().strip() == "[]"
