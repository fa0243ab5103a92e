"""The fake Discord remembers which shapes of request body were valid (spec.Shapes) instead of
validating every table edit in full: that must never let an invalid request through."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from fakediscord.spec import Shapes, load_spec

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


def test_a_table_with_its_buttons_reordered_keeps_its_shape() -> None:
    """An array is judged element by element: the order of a row's buttons, or of the users
    mentioned, does not change its shape (its length, against the spec's bounds, does)."""
    shapes = load_spec().shapes
    assert shapes is not None
    first = table_edit(random.Random(1))
    second = copy.deepcopy(first)
    second["components"][0]["components"].reverse()
    assert shapes.shape(first) == shapes.shape(second)
    second["allowed_mentions"]["users"] = ["1234567890", "2345678901"]
    third = copy.deepcopy(second)
    third["allowed_mentions"]["users"].reverse()
    assert shapes.shape(third) == shapes.shape(second)
    # two equal mentions are not the shape of two different ones (uniqueItems)
    third["allowed_mentions"]["users"] = ["1234567890", "1234567890"]
    assert shapes.shape(third) != shapes.shape(second)
    # nor a fifth button: five is a bound (the most a row holds)
    fourth = copy.deepcopy(first)
    row = fourth["components"][0]["components"]
    row.append(dict(row[0]))
    assert shapes.shape(fourth) != shapes.shape(first)


@pytest.mark.parametrize(("where", "bad"), [
    ("content", "x" * 2001),                         # over Discord's 2,000 characters
    ("custom_id", "c" * 101),                        # over 100
    ("style", 9),                                    # not a button style
    ("color", -1),                                   # below the minimum
    ("label", 5),                                    # not a string
    ("users", ["12", "12"]),                         # uniqueItems
    ("users", [str(n) for n in range(101)]),         # over 100 (maxItems)
    ("row", 6),                                      # six buttons in a row of five
])
def test_an_invalid_body_is_reported_after_valid_ones_of_its_kind(where: str, bad: Any) -> None:
    valid = table_edit()
    assert problems(valid) == [] and problems(valid) == []  # the second from memory
    body = copy.deepcopy(valid)
    button = body["components"][0]["components"][0]
    if where == "row":
        row = body["components"][0]["components"]
        row[:] = [dict(button, custom_id=f"b{n}") for n in range(bad)]
        assert problems(body), where
        return
    target = {"content": body, "custom_id": button, "style": button, "label": button,
              "color": body["embeds"][0], "users": body["allowed_mentions"]}[where]
    target[where] = bad
    assert problems(body), where


# Values around the spec's bounds for the parts of a table edit; each body changes one or
# two of them from a valid edit, so that a shape too coarse to tell two of them apart meets
# both (an edit invalid in five places at once would hide which one decides).
CHANGES: dict[str, list[Any]] = {
    "custom_id": ["c", "c" * 99, "c" * 100, "c" * 101],
    "label": ["", "x" * 80, "x" * 81, "Place"],
    "style": [0, 1, 5, 6, 1.0, 1.5, True],
    "color": [-1, 0, 0xFFFFFF, 0x1000000, 2.5, 1.0],
    "users": [["1", "1"], ["1", "2"], ["01"], [], ["2", "1", "2"],
              [str(n) for n in range(100)], [str(n) for n in range(101)], ["1", 1],
              ["1", "1.0"], [1, 1.0], [1, True]],
    "row": [0, 1, 2, 4, 5, 6],  # buttons in the row, some of them the same button twice
}


def changed(rng: random.Random, what: str) -> dict[str, Any]:
    body = table_edit()
    button = body["components"][0]["components"][0]
    value = rng.choice(CHANGES[what])
    if what == "row":
        body["components"][0]["components"] = [
            dict(button, custom_id=f"b{rng.choice([n, 0])}") for n in range(value)]
    elif what == "users":
        body["allowed_mentions"]["users"] = list(value)
    elif what == "color":
        body["embeds"][0]["color"] = value
    else:
        button[what] = value
    return body


def test_bodies_of_one_shape_get_one_verdict() -> None:
    """Table edits changed one part at a time around the spec's bounds (lengths, numbers,
    equal items, items past a maximum): whenever two have the same shape, the full
    validation agrees on both."""
    spec = load_spec()
    shapes = spec.shapes
    assert shapes is not None
    rng = random.Random(7)
    verdicts: dict[Any, tuple[bool, dict[str, Any]]] = {}
    agreements = 0
    for _ in range(500):
        what = rng.choice(sorted(CHANGES))
        body = changed(rng, what)
        valid = not spec.validate_request(EDIT, EDIT_PATH, (), body, has_body=True)
        seen, first = verdicts.setdefault(shapes.shape(body), (valid, body))
        assert seen == valid, (what, first, body)
        agreements += 1
    # shapes did repeat, valid and invalid ones: the check compared something
    assert len(verdicts) < agreements / 2
    assert {valid for valid, _ in verdicts.values()} == {True, False}


def test_twins_in_an_array_are_the_items_json_schema_calls_equal() -> None:
    """The shape's "two equal items" is ``uniqueItems``' own judgement, for every kind of
    value: 1 and 1.0 are equal, 1 and true are not, objects by their members."""
    from jsonschema import Draft202012Validator

    unique = Draft202012Validator({"uniqueItems": True})
    shapes = load_spec().shapes
    assert shapes is not None
    values: list[Any] = [1, 1.0, True, False, 0, 0.0, "1", None, 2.5, [1], [1.0], [True],
                         {"a": 1}, {"a": 1.0}, {"a": True}, {"b": 1}, [1, 2], [2, 1],
                         {"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": 2, "b": 1}]
    rng = random.Random(3)
    for _ in range(300):
        items = [rng.choice(values) for _ in range(rng.choice([2, 3]))]
        twins = shapes.shape(items)[-1]
        assert twins == (not unique.is_valid(items)), items


def test_without_the_spec_keywords_a_shape_knows_bodies_are_validated_in_full() -> None:
    document = {"components": {"schemas": {"X": {"type": "string", "contains": {}}}},
                "paths": {"/x": {"post": {"requestBody": {"content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/X"}}}}}}}}
    assert Shapes.of(document) is None
