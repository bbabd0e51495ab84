"""The JSON Schemas of the files cmbench reads and writes, and validation against them.

    from cmbench import schema
    schema.validate(record, "run")     # SchemaViolation (a ValueError) naming kind and path
    schema.load("results")             # a schema as a dict

Kinds (KINDS): "run" (a run record, cmbench.run/1), "results" (a campaign's results.json,
cmbench.results/1), "campaign" (a campaign file), "reference" (a self-converged reference-cache
file), "names" (display-name overrides). The schemas are <kind>.schema.json in SCHEMAS_DIR,
draft 2020-12, and docs/json_schema.md is generated from them (cmbench.docs.schema_page).

They live inside the package (python/cmbench/schemas/) so that an installed cmbench finds them
beside this module, as the build tree's linked package does; the repository's schemas/ is a link
to that folder, so there is one copy.

Beyond the schemas, validate checks what JSON Schema cannot say: run keys are unique in a
results file (merge and compare refuse a run recorded twice), a shard's index is at most its
count, and a reference cache's output table is rectangular. Integers are JSON integers (2.0 is
not a count: cmbench writes counts without a fraction, and its campaign reader refuses one), and
numbers are finite (cmbench writes null, never NaN or infinities).
"""
import functools
import json
import math
import os

import jsonschema

SCHEMAS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")
KINDS = ("run", "results", "campaign", "reference", "names")
NOUNS = {"run": "run record", "results": "results file", "campaign": "campaign file",
         "reference": "reference-cache file", "names": "names file"}


class SchemaViolation(ValueError):
    """A document that is not a valid file of its kind: `kind`, the JSON `path` of the first
    violation ("runs/3/status"; "" for the document itself) and `reason`."""

    def __init__(self, kind, path, reason):
        self.kind, self.path, self.reason = kind, path, reason
        super().__init__(f"not a valid {NOUNS[kind]}: {path or '(the document)'}: {reason}")


def _is_integer(checker, value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(checker, value):
    return _is_integer(checker, value) or (isinstance(value, float) and math.isfinite(value))


_BASE = jsonschema.Draft202012Validator
Validator = jsonschema.validators.extend(
    _BASE, type_checker=_BASE.TYPE_CHECKER.redefine_many(
        {"integer": _is_integer, "number": _is_number}))


def path_of(kind):
    """The path of the JSON Schema file of a kind ("run", "results", ...)."""
    return os.path.join(SCHEMAS_DIR, kind + ".schema.json")


@functools.lru_cache(maxsize=None)
def load(kind):
    """The schema of `kind` (one of KINDS) as a dict; do not modify it."""
    if kind not in KINDS:
        raise ValueError(f"unknown file kind {kind!r} (known: {', '.join(KINDS)})")
    with open(path_of(kind), encoding="utf-8") as f:
        return json.load(f)


def _without_dialect(kind):
    # jsonschema picks the validator class of a referenced schema by its $schema, which would
    # drop this module's type checks inside every $ref to another file: the copies validated
    # against name no dialect (all are draft 2020-12).
    return {k: v for k, v in load(kind).items() if k != "$schema"}


@functools.lru_cache(maxsize=None)
def _validator(kind):
    # Schemas refer to each other by $id ("run.schema.json#/$defs/context"): all of them are in
    # the store, so nothing is fetched.
    store = {load(k)["$id"]: _without_dialect(k) for k in KINDS}
    resolver = jsonschema.RefResolver.from_schema(store[load(kind)["$id"]], store=store)
    return Validator(store[load(kind)["$id"]], resolver=resolver)


def _offending_key(error):
    """The member an object-level error is about (a missing or unexpected key), or None."""
    instance, value = error.instance, error.validator_value
    if error.validator == "required":
        return next((k for k in value if k not in instance), None)
    if error.validator == "dependentRequired":
        return next((d for k, deps in value.items() if k in instance
                     for d in deps if d not in instance), None)
    if error.validator == "additionalProperties" and value is False:
        known = error.schema.get("properties", {})
        return next((k for k in instance if k not in known), None)
    if "propertyNames" in error.relative_schema_path:
        return instance
    return None


def _path(error):
    parts = list(error.absolute_path)
    key = _offending_key(error)
    if key is not None:
        parts.append(key)
    return parts


def _reason(error):
    if error.validator is None:  # a `false` schema: a member that must not be there
        return "not allowed here"
    # Messages start with the offending value, which may be a whole metrics block: cut it short.
    shown = repr(error.instance)
    if error.message.startswith(shown) and len(shown) > 60:
        return shown[:57] + "..." + error.message[len(shown):]
    return error.message


def _most_specific(error):
    # anyOf and friends report one error with the alternatives' errors as context: the deepest
    # of those says what is wrong (a type mismatch only when nothing else does).
    while error.context:
        error = max(error.context, key=lambda e: (len(_path(e)), e.validator != "type"))
    return error


def _schema_violations(doc, kind):
    errors = [_most_specific(e) for e in _validator(kind).iter_errors(doc)]
    return [(_path(e), _reason(e)) for e in errors]


def _unique_keys(runs):
    first = {}
    for i, run in enumerate(runs):
        j = first.setdefault(run["key"], i)
        if j != i:
            yield ["runs", i, "key"], f"{run['key']!r} repeats runs/{j}/key (a run is recorded twice)"


def _results_extras(doc):
    yield from _unique_keys(doc["runs"])
    shard = doc["shard"]
    if shard and shard["index"] > shard["count"]:
        yield ["shard", "index"], f"{shard['index']} is past the count {shard['count']}"


def _reference_extras(doc):
    width = len(doc["outputs"][0])
    for i, row in enumerate(doc["outputs"]):
        if len(row) != width:
            yield ["outputs", i], f"has {len(row)} values where outputs/0 has {width}"
    times = len(doc["grid"])
    if times % 2 == 0:
        yield ["grid"], f"has {times} times: an even number of intervals needs an odd count"
    if len(doc["outputs"]) != times:
        yield ["outputs"], f"has {len(doc['outputs'])} rows for {times} grid times"
    if len(doc["interval_errors"]) != times - 1:
        yield ["interval_errors"], f"has {len(doc['interval_errors'])} bounds for {times - 1} intervals"


_EXTRAS = {"results": _results_extras, "reference": _reference_extras}


def violations(doc, kind):
    """Every violation of `doc` as a `kind` file, as (path, reason), in the order of the schema's
    fields and of array items (runs/3 before runs/10, a run's status before its metrics); the
    checks beyond the schema only for a document the schema accepts."""
    found = _schema_violations(doc, kind)
    if not found and kind in _EXTRAS:
        found = list(_EXTRAS[kind](doc))
    return [("/".join(str(p) for p in parts), reason) for parts, reason in found]


def validate(doc, kind):
    """Raises SchemaViolation for the first violation (see violations) of `doc` as a `kind`
    file; returns None for a valid document."""
    found = violations(doc, kind)
    if found:
        raise SchemaViolation(kind, *found[0])
