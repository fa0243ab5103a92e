"""The fake Discord remembers which shapes of request body were valid (spec.Shapes) instead of
validating every table edit in full: that must never let an invalid request through."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from tests.fakediscord.spec import Shapes, load_spec

EDIT = "PATCH"
EDIT_PATH = "/channels/1234567890123456789/messages/1234567890123456790"


def table_edit(rng: random.Random | None = None) -> dict[str, Any]:
    """A body like the bot's table edits: words, custom ids, alt text and a kept picture."""
    r = rng or random.Random(1)
    words = " ".join(r.choice(["Ann", "Bob"]) for _ in range(r.choice([3, 40])))
    return {
        "content": words,
        "embeds": [{"title": f"Cityscape · round {r.randint(1, 4)}", "description": words,
                    "color": r.randint(0, 0xFFFFFF),
                    "fields": [{"name": "Ann", "value": str(r.randint(10, 99)), "inline": True}]}],
        "components": [{"type": 1, "components": [
            {"type": 2, "style": r.randint(1, 4), "label": f"{h} high",
             "custom_id": f"ch:cs:{r.randint(1, 10**6)}:v{r.randint(1, 300)}:h{h}"}
            for h in range(1, 5)]}],
        "attachments": [{"id": r.randint(10**17, 10**18), "description": words[:1024],
                         "filename": "table.png"}],
        "allowed_mentions": {"parse": [], "users": [str(r.randint(10**17, 10**18))]},
    }


def problems(body: dict[str, Any]) -> list[str]:
    spec = load_spec()
    return spec.validate_request(EDIT, EDIT_PATH, (), body, has_body=True)


def test_the_spec_uses_only_keywords_a_shape_accounts_for() -> None:
    """Otherwise every body is validated in full (correct, only slower)."""
    assert load_spec().shapes is not None


def test_table_edits_that_differ_in_words_and_ids_share_a_shape() -> None:
    shapes = load_spec().shapes
    assert shapes is not None
    first = table_edit(random.Random(1))
    second = copy.deepcopy(first)
    second["content"] = second["embeds"][0]["description"] = "Bob builds a tower".ljust(
        len(first["content"]), "!")
    second["attachments"][0]["description"] = second["content"][:1024]
    button = second["components"][0]["components"][0]
    button["custom_id"] = button["custom_id"].replace("ch:cs:", "ch:bc:")
    second["attachments"][0]["id"] += 1
    assert shapes.shape(first) == shapes.shape(second)


@pytest.mark.parametrize(("where", "bad"), [
    ("content", "x" * 2001),                         # over Discord's 2,000 characters
    ("custom_id", "c" * 101),                        # over 100
    ("style", 9),                                    # not a button style
    ("color", -1),                                   # below the minimum
    ("label", 5),                                    # not a string
    ("users", ["12", "12"]),                         # uniqueItems
])
def test_an_invalid_body_is_reported_after_valid_ones_of_its_kind(where: str, bad: Any) -> None:
    valid = table_edit()
    assert problems(valid) == [] and problems(valid) == []  # the second from memory
    body = copy.deepcopy(valid)
    button = body["components"][0]["components"][0]
    target = {"content": body, "custom_id": button, "style": button, "label": button,
              "color": body["embeds"][0], "users": body["allowed_mentions"]}[where]
    target[where] = bad
    assert problems(body), where


def test_bodies_of_one_shape_get_one_verdict() -> None:
    """Random table edits with lengths and numbers around the spec's bounds: whenever two
    have the same shape, the full validation agrees on both."""
    spec = load_spec()
    shapes = spec.shapes
    assert shapes is not None
    rng = random.Random(7)
    verdicts: dict[Any, bool] = {}
    agreements = 0
    for _ in range(400):
        body = table_edit(random.Random(rng.randint(1, 3)))
        button = body["components"][0]["components"][0]
        button["custom_id"] = "c" * rng.choice([1, 99, 100, 101])
        button["label"] = rng.choice(["", "x" * 80, "x" * 81, "Place"])
        button["style"] = rng.choice([0, 1, 5, 6, 1.0, 1.5])
        body["embeds"][0]["color"] = rng.choice([-1, 0, 0xFFFFFF, 0x1000000, 2.5])
        body["allowed_mentions"]["users"] = rng.choice([["1", "1"], ["1", "2"], ["01"], []])
        valid = not spec.validate_request(EDIT, EDIT_PATH, (), body, has_body=True)
        seen = verdicts.setdefault(shapes.shape(body), valid)
        assert seen == valid, body
        agreements += 1
    # shapes did repeat, valid and invalid ones: the check compared something
    assert len(verdicts) < agreements and set(verdicts.values()) == {True, False}


def test_without_the_spec_keywords_a_shape_knows_bodies_are_validated_in_full() -> None:
    document = {"components": {"schemas": {"X": {"type": "string", "contains": {}}}},
                "paths": {"/x": {"post": {"requestBody": {"content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/X"}}}}}}}}
    assert Shapes.of(document) is None
