"""Finding components in stored messages."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from .models import FakeMessage
from .spec import iter_components

BUTTON = 2
SELECT_TYPES = (3, 5, 6, 7, 8)  # string, user, role, mentionable, channel selects
COMPONENT_NAMES = {1: "action row", 2: "button", 3: "string select", 4: "text input",
                   5: "user select", 6: "role select", 7: "mentionable select",
                   8: "channel select", 9: "section", 10: "text display", 11: "thumbnail",
                   12: "media gallery", 13: "file", 14: "separator", 17: "container",
                   18: "label", 19: "file upload"}


def _components_of(message: FakeMessage | dict[str, Any] | Iterable[Any]) -> list[Any]:
    if isinstance(message, FakeMessage):
        return message.components
    if isinstance(message, dict):
        return list(message.get("components") or [])
    return list(message)


def buttons(message: FakeMessage | dict[str, Any] | Iterable[Any]) -> list[dict[str, Any]]:
    """All buttons, in display order, inside action rows, sections and containers."""
    return [c for c in iter_components(_components_of(message)) if c.get("type") == BUTTON]


def find_button(
    message: FakeMessage | dict[str, Any] | Iterable[Any],
    label: str | None = None,
    custom_id_prefix: str | None = None,
) -> dict[str, Any]:
    """The one button matching ``label`` and/or ``custom_id_prefix``; AssertionError if not one."""
    found = [
        b for b in buttons(message)
        if (label is None or b.get("label") == label)
        and (custom_id_prefix is None or str(b.get("custom_id", "")).startswith(custom_id_prefix))
    ]
    if len(found) != 1:
        listing = [(b.get("label"), b.get("custom_id")) for b in buttons(message)]
        raise AssertionError(
            f"expected exactly one button with label={label!r} custom_id_prefix="
            f"{custom_id_prefix!r}, found {len(found)}; buttons are {listing}"
        )
    return found[0]


def find_component(
    message: FakeMessage | dict[str, Any] | Iterable[Any], custom_id: str
) -> dict[str, Any] | None:
    for comp in iter_components(_components_of(message)):
        if comp.get("custom_id") == custom_id:
            return comp
    return None


def describe_components(message: FakeMessage | dict[str, Any] | Iterable[Any]) -> str:
    parts = []
    for comp in iter_components(_components_of(message)):
        if "custom_id" in comp:
            kind = COMPONENT_NAMES.get(comp.get("type", 0), f"type {comp.get('type')}")
            parts.append(f"{kind} {comp['custom_id']!r}")
    return ", ".join(parts) or "no interactive components"


def normalise_components(components: Iterable[Any]) -> list[dict[str, Any]]:
    """Components as Discord returns them: numbered ``id``s and filled-in defaults."""
    copied = copy.deepcopy([c for c in components if isinstance(c, dict)])
    taken = {c["id"] for c in iter_components(copied) if isinstance(c.get("id"), int)}
    next_id = 1
    for comp in iter_components(copied):
        if not isinstance(comp.get("id"), int):
            while next_id in taken:
                next_id += 1
            comp["id"] = next_id
            taken.add(next_id)
        if comp.get("type") in SELECT_TYPES:
            comp.setdefault("min_values", 1)
            comp.setdefault("max_values", 1)
        elif comp.get("type") == 17:  # container
            comp.setdefault("accent_color", None)
            comp.setdefault("spoiler", False)
    return copied
