"""What a player reads on a private chooser: every option's label and description and every
button's label, for tests that check menus use the pictures' words (issue 10, item 6)."""

from __future__ import annotations

import re

from fakediscord.models import FakeMessage

# "[1, 0]", "(3, 4)", "(-1,2)": a position in the engine's grid, which no picture shows.
COORDINATES = re.compile(r"[\[(]\s*-?\d+\s*,\s*-?\d+\s*[\])]")


def option_texts(message: FakeMessage) -> list[str]:
    """Labels and descriptions of every menu option, and labels of every button."""
    texts: list[str] = []
    for component in message.iter_components():
        if component.get("type") == 2 and component.get("label"):
            texts.append(str(component["label"]))
        for option in component.get("options") or []:
            texts.append(str(option["label"]))
            if option.get("description"):
                texts.append(str(option["description"]))
    return texts


def coordinates_in(message: FakeMessage) -> list[str]:
    """The texts of ``message``'s components that name a raw grid position."""
    return [text for text in option_texts(message) if COORDINATES.search(text)]
