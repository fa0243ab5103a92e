"""What a finished game's animation is, as the bot receives it from a render worker.

The drawing is in ``bot/render/animation.py``, which needs Pillow; the bot's own process
only names that module and unpickles this result, so it never loads Pillow and its fonts
(about 9 MB of the bot's memory, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass

ANIMATION = "bot.render.animation"  # the module a render worker draws it with
# Discord takes 8 MiB of attachments per message (a server without boosts), the table
# picture and any news picture included: the animation keeps to 6 MiB.
MAX_BYTES = 8 * 1024 * 1024
BUDGET_BYTES = 6 * 1024 * 1024


@dataclass(frozen=True)
class Animation:
    data: bytes
    frames: int
    milliseconds: int
    width: int

    filename = "game.gif"
