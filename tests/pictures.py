"""What a picture says: every string the drawing kit drew for it, for tests to read."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from bot.render import kit


def drawn(renderer: ModuleType, draw: Callable[[], bytes]) -> tuple[bytes, list[kit.DrawnText]]:
    """The PNG ``draw`` returns and the text drawn for it. The renderer's cached layers are
    emptied first, so text they hold is drawn (and seen) again."""
    for value in vars(renderer).values():
        clear = getattr(value, "cache_clear", None)
        if callable(clear):
            clear()
    with kit.recording_text() as texts:
        data = draw()
    return data, texts


def words(texts: list[kit.DrawnText]) -> str:
    """All drawn strings in one, for ``in`` checks."""
    return "\n".join(t.text for t in texts)
