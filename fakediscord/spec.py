"""Validate requests against Discord's OpenAPI 3.1 description (openapi.json beside this file).

The spec is loaded, patched and indexed once per process (``load_spec``); one JSON Schema
2020-12 validator per operation is compiled on first use and cached.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_PATH = Path(__file__).with_name("openapi.json")
SPEC_URI = "urn:discord-api-spec"
_SNOWFLAKE_REF = "#/components/schemas/SnowflakeType"
_METHODS = ("get", "put", "post", "patch", "delete")


def _pointer_escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def _patch_spec(doc: dict[str, Any]) -> dict[str, Any]:
    """Adjust the spec where it is stricter or looser than what Discord really does.

    Each patch is a deliberate, documented normalisation; anything else the spec rejects is
    reported.
    """
    schemas: dict[str, Any] = doc["components"]["schemas"]

    # 1. Integer snowflakes. The spec types every snowflake as a decimal string, but
    #    Discord's JSON parser accepts integers too and discord.py sends them: new-file
    #    attachments are {"id": 0, ...} (file index), kept attachments use Attachment.id
    #    (int), and message_reference ids and allowed_mentions users/roles are ints.
    #    Negative numbers, floats and non-numeric strings are still rejected.
    original = schemas["SnowflakeType"]
    schemas["SnowflakeType"] = {
        "anyOf": [original, {"type": "integer", "minimum": 0, "maximum": 2**64 - 1}]
    }

    # 2. default_member_permissions on command create/update requests is typed integer in
    #    the spec, but the documentation calls it a "?string" bitfield and discord.py sends
    #    str(permissions.value). Accept a decimal string as well.
    for schema in schemas.values():
        props = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(props, dict):
            continue
        dmp = props.get("default_member_permissions")
        if isinstance(dmp, dict) and "integer" in _as_list(dmp.get("type")):
            props["default_member_permissions"] = {
                "anyOf": [dmp, {"type": "string", "pattern": "^[0-9]{1,20}$"}]
            }

    # 3. Message content: the spec allows 4000 characters on channel messages (the limit
    #    for Nitro users); the documentation says 2000 for bots, and the spec README says
    #    the documentation wins. Webhook/interaction schemas already say 2000.
    for name in ("MessageCreateRequest", "MessageEditRequestPartial", "BaseCreateMessageCreateRequest"):
        content = schemas.get(name, {}).get("properties", {}).get("content")
        if isinstance(content, dict) and content.get("maxLength") == 4000:
            content["maxLength"] = 2000
    return doc


# Keywords whose verdict Shapes.shape keeps (see there); annotations decide nothing.
_SHAPE_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "prefixItems",
    "oneOf", "anyOf", "allOf", "$ref", "const", "enum", "pattern", "minLength", "maxLength",
    "minimum", "maximum", "minItems", "maxItems", "uniqueItems", "minProperties",
    "maxProperties",
})
_ANNOTATIONS = frozenset({
    "description", "title", "format", "default", "examples", "deprecated", "readOnly",
    "writeOnly", "nullable", "discriminator", "x-discord-union", "$schema", "$id",
    "contentEncoding", "contentMediaType",
})


@dataclass(frozen=True)
class _Bounds:
    """The bounds that can judge a value found under one property name (or at a body's
    top): those of every schema that may apply to it there."""

    patterns: tuple[re.Pattern[str], ...] = ()
    lengths: tuple[int, ...] = ()
    numbers: tuple[float, ...] = ()
    items: tuple[int, ...] = ()


@dataclass
class _Collected:
    patterns: set[str] = field(default_factory=set)
    lengths: set[int] = field(default_factory=set)
    numbers: set[float] = field(default_factory=set)
    items: set[int] = field(default_factory=set)

    def add(self, other: _Collected) -> None:
        self.patterns |= other.patterns
        self.lengths |= other.lengths
        self.numbers |= other.numbers
        self.items |= other.items

    def frozen(self) -> _Bounds:
        return _Bounds(tuple(re.compile(p) for p in sorted(self.patterns)),
                       tuple(sorted(self.lengths)), tuple(sorted(self.numbers)),
                       tuple(sorted(self.items)))


# Keywords that pass a value's judgement on to other schemas for the same value (or, for
# items, to each of an array's elements under the same property name).
_SAME_PLACE = ("anyOf", "oneOf", "allOf", "items", "prefixItems")


@dataclass(frozen=True)
class Shapes:
    """What a request body's validity depends on, and nothing else: the "shape" of a body.

    Validating every request against the spec is a fifth of a Discord test's time, and most
    bodies differ from an earlier one only in their words and ids. The spec's verdict on a
    string depends only on whether it is one of the spec's ``const``/``enum`` values, which
    ``pattern``s it matches, and where its length falls among the ``minLength``/
    ``maxLength`` bounds; on a number, the same with ``minimum``/``maximum``. Only the
    schemas that can apply where the value is count: those reached from the ``properties``
    entries of its property name anywhere in the spec (through ``$ref``, ``anyOf``,
    ``oneOf``, ``allOf`` and ``items``), and every ``additionalProperties`` schema. So a
    picture's alt text is judged against the few bounds of a ``description``, not against
    every length in the spec, and alt text one letter longer keeps its shape.

    An array's verdict is every element's (``items`` judges each alone) with its length
    among the ``minItems``/``maxItems`` bounds and, for ``uniqueItems``, whether two of its
    elements are equal: so an array's shape is the set of its elements' shapes, that length
    bucket and that one yes or no, and a table with its buttons in another order shares its
    shape (unless the spec uses ``prefixItems``, which judges by position: then the
    elements' shapes in order). A shape keeps exactly that: two bodies of one shape get the
    same verdict from every schema in the spec. ``of`` returns None when the spec uses a
    keyword this does not account for (a newer spec); then every body is validated in full.
    """

    words: frozenset[str]
    numbers: frozenset[float]
    by_name: dict[str, _Bounds]  # property name -> its bounds (the fallback's included)
    top: _Bounds  # a body's top, and property names no "properties" entry has
    by_position: bool = False  # the spec has prefixItems

    @classmethod
    def of(cls, document: Mapping[str, Any]) -> Shapes | None:
        words: set[str] = set()
        numbers: set[float] = set()
        unknown: set[str] = set()
        followed: set[str] = set()
        positional: list[bool] = []
        named: dict[str, list[Any]] = {}  # property name -> the schemas it may have
        fallback: list[Any] = []  # additionalProperties schemas, and the bodies' own
        roots: list[Any] = []

        def walk(schema: Any, in_properties: bool = False) -> None:
            if isinstance(schema, list):
                for item in schema:
                    walk(item)
                return
            if not isinstance(schema, dict):
                return
            for key, value in schema.items():
                if in_properties:  # property names, not keywords
                    named.setdefault(key, []).append(value)
                    walk(value)
                    continue
                if key in ("const", "enum"):
                    for v in value if key == "enum" else [value]:
                        if isinstance(v, str):
                            words.add(v)
                        elif isinstance(v, int | float) and not isinstance(v, bool):
                            numbers.add(v)
                        elif not (isinstance(v, bool) or v is None):
                            unknown.add(key)  # an object or array to compare with
                elif key == "prefixItems":
                    positional.append(True)
                elif key == "additionalProperties" and isinstance(value, dict):
                    fallback.append(value)
                elif key == "$ref" and value not in followed:
                    followed.add(value)
                    walk(_at(document, value))
                elif key not in _SHAPE_KEYWORDS and key not in _ANNOTATIONS:
                    unknown.add(key)
                if key in ("properties", "$defs"):
                    walk(value, in_properties=True)
                elif key not in ("const", "enum", "default", "examples"):
                    walk(value)

        def schemas_in(node: Any) -> None:  # every "schema" of a parameter or a body
            if isinstance(node, dict):
                if isinstance(node.get("$ref"), str):
                    schemas_in(_at(document, node["$ref"]))
                for key, value in node.items():
                    if key == "schema":
                        roots.append(value)
                        walk(value)
                    else:
                        schemas_in(value)
            elif isinstance(node, list):
                for item in node:
                    schemas_in(item)

        # Only what requests are checked against: their bodies and parameters, and every
        # schema those refer to (the responses' schemas never see a request).
        for item in document.get("paths", {}).values():
            schemas_in(item.get("parameters", []))
            for method in _METHODS:
                operation = item.get(method, {})
                schemas_in(operation.get("parameters", []))
                schemas_in(operation.get("requestBody", {}))
        if unknown:
            return None

        def bounds_of(schemas: list[Any]) -> _Collected:
            """The bounds of these schemas and of every schema judging the same value."""
            found = _Collected()
            seen: set[str] = set()

            def visit(schema: Any) -> None:
                if isinstance(schema, list):
                    for item in schema:
                        visit(item)
                    return
                if not isinstance(schema, dict):
                    return
                ref = schema.get("$ref")
                if isinstance(ref, str) and ref not in seen:
                    seen.add(ref)
                    visit(_at(document, ref))
                if "pattern" in schema:
                    found.patterns.add(schema["pattern"])
                for key, into in (("minLength", found.lengths), ("maxLength", found.lengths),
                                  ("minimum", found.numbers), ("maximum", found.numbers),
                                  ("minItems", found.items), ("maxItems", found.items)):
                    if key in schema:
                        into.add(schema[key])
                for key in _SAME_PLACE:
                    visit(schema.get(key))

            visit(schemas)
            return found

        anywhere = bounds_of(fallback)
        top = bounds_of(roots)
        top.add(anywhere)
        by_name: dict[str, _Bounds] = {}
        for name, schemas in named.items():
            collected = bounds_of(schemas)
            collected.add(anywhere)
            by_name[name] = collected.frozen()
        return cls(frozenset(words), frozenset(numbers), by_name, top.frozen(),
                   bool(positional))

    def shape(self, body: Any) -> Any:
        def of(value: Any, bounds: _Bounds) -> Any:
            if isinstance(value, dict):
                return ("{", tuple(sorted((k, of(v, self.by_name.get(k, self.top)))
                                          for k, v in value.items())))
            if isinstance(value, list):
                n = len(value)
                elements = tuple(of(v, bounds) for v in value) if self.by_position else \
                    frozenset(of(v, bounds) for v in value)
                twins = len({_equality_key(v) for v in value}) < n
                return ("[", elements, bisect.bisect_left(bounds.items, n),
                        bisect.bisect_right(bounds.items, n), twins)
            if isinstance(value, str):
                if value in self.words:
                    return ("w", value)
                n = len(value)
                return ("s", tuple(bool(p.search(value)) for p in bounds.patterns),
                        bisect.bisect_left(bounds.lengths, n),
                        bisect.bisect_right(bounds.lengths, n))
            if isinstance(value, bool) or value is None:
                return value
            if isinstance(value, int | float):
                # "integer" includes 2.0 but not 2.5
                kind = "i" if isinstance(value, int) or value.is_integer() else "f"
                if value in self.numbers:
                    return (kind, type(value).__name__, value)
                return (kind, type(value).__name__,
                        bisect.bisect_left(bounds.numbers, value),
                        bisect.bisect_right(bounds.numbers, value))
            return ("?", repr(value))

        return of(body, self.top)


def _equality_key(value: Any) -> Any:
    """Equal for exactly the values JSON Schema's ``uniqueItems`` calls equal: 1 and 1.0
    are, 1 and true are not; objects by their members, arrays in order."""
    if isinstance(value, dict):
        return ("{", frozenset((k, _equality_key(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("[", tuple(_equality_key(v) for v in value))
    if isinstance(value, bool):
        return ("b", value)  # Python's True == 1
    return value  # Python's 1 == 1.0 too, as JSON Schema says


def _at(document: Mapping[str, Any], ref: str) -> Any:
    """The part of the document a local "$ref" ("#/components/schemas/X") names."""
    node: Any = document
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


@dataclass
class _Route:
    template: str
    regex: re.Pattern[str]
    literal_segments: int
    param_names: list[str]


@dataclass
class RouteMatch:
    template: str
    params: dict[str, str]


@dataclass
class OpenAPISpec:
    """The patched spec plus compiled, cached validators."""

    document: dict[str, Any]
    registry: Registry[Any] = field(init=False)
    _routes: list[_Route] = field(init=False, default_factory=list)
    _validators: dict[str, Draft202012Validator] = field(init=False, default_factory=dict)
    # How a body's validity is remembered (see Shapes); None: the spec uses a keyword the
    # shapes do not account for, and every body is validated in full.
    shapes: Shapes | None = field(init=False, default=None)
    # (schema pointer, shape) of bodies found valid: a body of the same shape is too.
    _valid_shapes: set[tuple[str, Any]] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        resource = Resource.from_contents(self.document, default_specification=DRAFT202012)
        self.registry = Registry().with_resource(SPEC_URI, resource)
        self.shapes = Shapes.of(self.document)
        for template in self.document["paths"]:
            names: list[str] = []
            parts = []
            literal = 0
            for segment in template.strip("/").split("/"):
                m = re.fullmatch(r"\{(\w+)\}", segment)
                if m:
                    names.append(m.group(1))
                    parts.append(r"([^/]+)")
                else:
                    literal += 1
                    parts.append(re.escape(segment))
            regex = re.compile("/" + "/".join(parts))
            self._routes.append(_Route(template, regex, literal, names))
        # Prefer literal segments over templated ones: /users/@me beats /users/{user_id}.
        self._routes.sort(key=lambda r: -r.literal_segments)

    # -- lookup -------------------------------------------------------------------------

    def match(self, path: str) -> RouteMatch | None:
        """Find the spec path template for a request path relative to /api/v10."""
        for route in self._routes:
            m = route.regex.fullmatch(path)
            if m:
                return RouteMatch(route.template, dict(zip(route.param_names, m.groups(), strict=True)))
        return None

    def operation(self, template: str, method: str) -> dict[str, Any] | None:
        item = self.document["paths"].get(template, {})
        op = item.get(method.lower())
        return op if isinstance(op, dict) else None

    def _resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            resolved: Mapping[str, Any] = self.registry.resolver().lookup(SPEC_URI + ref).contents
            return resolved
        return schema

    def _validator(self, pointer: str) -> Draft202012Validator:
        validator = self._validators.get(pointer)
        if validator is None:
            # A $ref into the registered document keeps every nested "#/components/..."
            # reference resolvable without copying the (large) components section.
            validator = Draft202012Validator({"$ref": f"{SPEC_URI}#{pointer}"}, registry=self.registry)
            self._validators[pointer] = validator
        return validator

    def response_schema_validator(self, template: str, method: str, status: int = 200) -> Draft202012Validator | None:
        """Validator for a JSON response body (used to check the fake's own realism)."""
        op = self.operation(template, method)
        if op is None or str(status) not in op.get("responses", {}):
            return None
        response = self._resolve(op["responses"][str(status)])
        if "application/json" not in response.get("content", {}):
            return None
        pointer = self._pointer(template, method, "responses", str(status), "content", "application/json", "schema")
        if response is not op["responses"][str(status)]:
            ref = op["responses"][str(status)]["$ref"][1:]
            pointer = ref + "/content/application~1json/schema"
        return self._validator(pointer)

    @staticmethod
    def _pointer(template: str, method: str, *rest: str) -> str:
        parts = ["paths", template, method.lower(), *rest]
        return "/" + "/".join(_pointer_escape(p) for p in parts)

    # -- validation ---------------------------------------------------------------------

    def validate_request(
        self,
        method: str,
        path: str,
        query: Iterable[tuple[str, str]],
        body: Any,
        *,
        has_body: bool,
        multipart: bool = False,
    ) -> list[str]:
        """Return readable violations for one request; ``path`` is relative to /api/v10."""
        route = self.match(path)
        if route is None:
            return []  # unknown routes are reported by the fake's catch-all, not here
        where = f"{method.upper()} {route.template}"
        op = self.operation(route.template, method)
        if op is None:
            return [f"{where}: method not in the spec for this path"]
        problems: list[str] = []
        params = self._parameters(route.template, method)
        checks = [("path", name, value) for name, value in route.params.items()]
        checks += [("query", name, value) for name, value in query]
        for location, name, value in checks:
            # Unknown query parameters are ignored: Discord ignores them, and they are
            # chosen by discord.py rather than by the bot under test.
            if (location, name) in params:
                pointer, schema = params[(location, name)]
                problems += self._check_param(where, location, name, value, pointer, schema)

        request_body = op.get("requestBody")
        if request_body is None:
            return problems
        content = self._resolve(request_body).get("content", {})
        if not has_body:
            if request_body.get("required"):
                problems.append(f"{where}: request body is required but none was sent")
            return problems
        media = "application/json"
        if media not in content:
            media = "multipart/form-data" if multipart and "multipart/form-data" in content else ""
        if not media:
            return [*problems, f"{where}: spec has no JSON request body for this operation"]
        pointer = self._pointer(route.template, method, "requestBody", "content", media, "schema")
        if "$ref" in request_body:
            pointer = request_body["$ref"][1:] + "/content/" + _pointer_escape(media) + "/schema"
        label = f"{where} body" + (" (multipart payload_json)" if multipart else "")
        problems += self._body_problems(pointer, label, body)
        problems += [f"{label}: {msg}" for msg in discord_limits(body)]
        return problems

    def _body_problems(self, pointer: str, label: str, body: Any) -> list[str]:
        """The schema's complaints about a body: none if a body of the same shape passed
        before (a table edit is the same shape move after move), else a full validation."""
        key = None if self.shapes is None else (pointer, self.shapes.shape(body))
        if key is not None and key in self._valid_shapes:
            return []
        validator = self._validator(pointer)
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
        if not errors and key is not None:
            self._valid_shapes.add(key)
        return [_describe(label, error) for error in errors]

    def _parameters(self, template: str, method: str) -> dict[tuple[str, str], tuple[str, Mapping[str, Any]]]:
        """(in, name) -> (JSON pointer of the parameter's schema, resolved schema)."""
        found: dict[tuple[str, str], tuple[str, Mapping[str, Any]]] = {}
        item = self.document["paths"][template]
        sources = [("parameters", item.get("parameters", [])),
                   (f"{method.lower()}/parameters", item.get(method.lower(), {}).get("parameters", []))]
        for prefix, params in sources:
            for index, raw in enumerate(params):
                if "$ref" in raw:
                    base = str(raw["$ref"])[1:]
                else:
                    base = self._pointer(template, "") + f"{prefix}/{index}"
                param = self._resolve(raw)
                if "schema" in param:
                    found[(param["in"], param["name"])] = (base + "/schema", param["schema"])
        return found

    def _check_param(self, where: str, location: str, name: str, raw: str,
                     pointer: str, schema: Mapping[str, Any]) -> list[str]:
        value = _coerce_param(raw, self._resolve(schema))
        return [
            f"{where}: {location} parameter {name}={raw!r}: {_short(error.message)}"
            for error in self._validator(pointer).iter_errors(value)
        ]


def _coerce_param(raw: str, schema: Mapping[str, Any]) -> Any:
    """Turn a query/path string into the JSON type the schema describes, when it parses."""
    types = _as_list(schema.get("type"))
    if not types and "anyOf" in schema:
        types = [t for sub in schema["anyOf"] for t in _as_list(sub.get("type"))]
    # Booleans: Discord accepts true/false in any case and 1/0; discord.py sends 1/0
    # (with_response, wait, with_components), so both spellings are normal, not quirks.
    if "boolean" in types and raw.lower() in ("true", "false", "1", "0"):
        return raw.lower() in ("true", "1")
    if "string" in types:
        return raw
    if "integer" in types and re.fullmatch(r"-?\d+", raw):
        return int(raw)
    if "number" in types:
        try:
            return float(raw)
        except ValueError:
            return raw
    return raw


def _short(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_variant_miss(error: ValidationError) -> bool:
    """True if an anyOf/oneOf branch failed only because it is the wrong variant."""
    rel = list(error.relative_path)
    if error.validator in ("enum", "const") and rel == ["type"]:
        return True  # discriminator such as {"type": 2} vs a branch for type 3
    return error.validator == "type" and not rel  # e.g. the {"type": "null"} branch


def _explain(error: ValidationError) -> ValidationError:
    """Descend through anyOf/oneOf to the error from the branch that was meant to match."""
    while error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        plausible = [errs for errs in branches.values() if not any(_is_variant_miss(e) for e in errs)]
        if len(plausible) != 1:
            break  # ambiguous or no variant fits: the union-level message is the honest one
        error = max(plausible[0], key=lambda e: len(e.absolute_path))
    return error


def _describe(label: str, error: ValidationError) -> str:
    cause = _explain(error)
    path = cause.json_path
    if cause is error and error.validator in ("anyOf", "oneOf"):
        kinds = sorted(
            {str(e.instance) for e in error.context or [] if list(e.relative_path) == ["type"]}
        )
        suffix = f" (no variant accepts type={kinds[0]})" if len(kinds) == 1 else ""
        return f"{label} at {path}: matches none of the allowed shapes{suffix}: {_short(repr(error.instance), 160)}"
    return f"{label} at {path}: {_short(cause.message)}"


def discord_limits(body: Any) -> list[str]:
    """Documented limits that the schema cannot express."""
    if not isinstance(body, dict):
        return []
    problems: list[str] = []
    targets = [body]
    if isinstance(body.get("data"), dict):  # interaction callback: the message is in data
        targets.append(body["data"])
    for target in targets:
        embeds = target.get("embeds")
        if isinstance(embeds, list):
            total = sum(_embed_chars(e) for e in embeds if isinstance(e, dict))
            if total > 6000:
                problems.append(f"embeds have {total} characters in total; Discord allows 6000")
        components = target.get("components")
        if isinstance(components, list):
            seen: dict[str, int] = {}
            for comp in iter_components(components):
                cid = comp.get("custom_id")
                if isinstance(cid, str):
                    seen[cid] = seen.get(cid, 0) + 1
            dupes = sorted(cid for cid, n in seen.items() if n > 1)
            if dupes:
                problems.append(f"duplicate component custom_id(s) {dupes}; Discord rejects the message")
    return problems


def _embed_chars(embed: Mapping[str, Any]) -> int:
    n = len(str(embed.get("title") or "")) + len(str(embed.get("description") or ""))
    for f in embed.get("fields") or []:
        if isinstance(f, dict):
            n += len(str(f.get("name") or "")) + len(str(f.get("value") or ""))
    n += len(str((embed.get("footer") or {}).get("text") or ""))
    n += len(str((embed.get("author") or {}).get("name") or ""))
    return n


def iter_components(components: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """Depth-first walk over message/modal components, including v2 layout components."""
    for comp in components:
        if not isinstance(comp, dict):
            continue
        yield comp
        for key in ("components",):
            children = comp.get(key)
            if isinstance(children, list):
                yield from iter_components(children)
        for key in ("accessory", "component"):  # section accessory, label child
            child = comp.get(key)
            if isinstance(child, dict):
                yield from iter_components([child])


@functools.cache
def load_spec() -> OpenAPISpec:
    """The process-wide spec (1.2 MB: parse and patch it only once)."""
    with SPEC_PATH.open(encoding="utf-8") as fh:
        document = json.load(fh)
    return OpenAPISpec(_patch_spec(document))

