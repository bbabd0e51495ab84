"""Writes the field reference of docs/json_schema.md from the JSON Schemas of cmbench's files
(python/cmbench/schemas/, see cmbench.schema), so that the page and the schemas never disagree.
Run after editing a schema (from the repository root):
    PYTHONPATH=python python3 -m cmbench.docs.schema_page --write   (rewrites the reference)
    PYTHONPATH=python python3 -m cmbench.docs.schema_page --check   (exit 1 when it is stale)

The page holds one block per file kind, from a line <!--schema:KIND--> to a line <!--/schema-->:
a heading (the schema's title), the schema's description, a link to the schema file and a
table of every field: its path, its type and constraints, and its description. An object that
another schema file refers to (a run record's `context`, ...) has a table of its own after its
kind's table. Everything outside the blocks is hand-written and kept as it is: explanations of
single fields belong in the schemas' descriptions, not in the page.
"""
import argparse
import json
import os
import re
import sys

from . import ROOT
from .. import schema
from ..files import write_atomic

PAGE = os.path.join(ROOT, "docs", "json_schema.md")
BLOCK = re.compile(r"^<!--schema:(\w+)-->\n.*?^<!--/schema-->$", re.S | re.M)
KIND_OF_FILE = {os.path.basename(schema.path_of(kind)): kind for kind in schema.KINDS}


def anchor(heading):
    """The fragment GitHub gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def def_heading(name, node):
    """The heading of a shared $defs entry's table."""
    return f"The `{name}` {'array' if node.get('type') == 'array' else 'object'}"


def has_fields(node):
    """Whether a $defs entry has fields of its own to tabulate (an object's, or its items')."""
    return "properties" in node or "properties" in node.get("items", {})


def shared_defs():
    """(kind, def name) of every $defs entry with fields that another schema file refers to:
    those get a table of their own, which every reference links to."""
    shared = set()

    def visit(node):
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            file, _, pointer = ref.partition("#")
            if file and pointer.startswith("/$defs/"):
                name = pointer.split("/")[2]
                if has_fields(schema.load(KIND_OF_FILE[file])["$defs"][name]):
                    shared.add((KIND_OF_FILE[file], name))
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    for kind in schema.KINDS:
        visit(schema.load(kind))
    return shared


SHARED = shared_defs()


def link(kind, ref):
    """Markdown for a $ref that is shown as a link, or None for one that is expanded in place:
    another file (the whole kind, or one of its shared $defs) or a shared $def of this file."""
    file, _, pointer = ref.partition("#")
    target_kind = KIND_OF_FILE[file] if file else kind
    if file and not pointer:
        return f"[{schema.NOUNS[target_kind]}](#{anchor(schema.load(target_kind)['title'])})"
    parts = pointer.split("/")
    if len(parts) == 3 and (target_kind, parts[2]) in SHARED:
        heading = def_heading(parts[2], schema.load(target_kind)["$defs"][parts[2]])
        return f"[`{parts[2]}`](#{anchor(heading)})"
    return None


def target(kind, ref):
    """The schema node a $ref points to (in another kind's file or in `kind`'s own)."""
    file, _, pointer = ref.partition("#")
    node = schema.load(KIND_OF_FILE[file] if file else kind)
    for part in pointer.split("/")[1:]:
        node = node[part]
    return node


def resolve(kind, node):
    """`node` with a $ref expanded in place merged in (its own keys win: a description beside a
    $ref describes this use); a $ref shown as a link is left as it is."""
    while isinstance(node, dict) and "$ref" in node and not link(kind, node["$ref"]):
        merged = dict(target(kind, node["$ref"]))
        merged.update({k: v for k, v in node.items() if k != "$ref"})
        node = merged
    return node


def code(value):
    """A JSON value as a Markdown code span."""
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def constraints(node):
    """The constraints of a value in words, after its type ('≥ 0', 'matching `re`')."""
    found = []
    if "minimum" in node and "maximum" in node:
        found.append(f"from {node['minimum']} to {node['maximum']}")
    elif "minimum" in node:
        found.append(f"≥ {node['minimum']}")
    elif "maximum" in node:
        found.append(f"≤ {node['maximum']}")
    if "exclusiveMinimum" in node:
        found.append(f"> {node['exclusiveMinimum']}")
    if "pattern" in node:
        found.append(f"matching `{node['pattern']}`")
    if "const" in node.get("not", {}):
        found.append(f"not {code(node['not']['const'])}")
    return found


def count_of(node):
    """An array's size and uniqueness in words ('101 items', 'at least 2 items', 'no repeats')."""
    low, high = node.get("minItems"), node.get("maxItems")
    said = []
    if low is not None and low == high:
        said.append(f"{low} items")
    elif low and low > 1:
        said.append(f"at least {low} items")
    if node.get("uniqueItems"):
        said.append("no repeats")
    return f" ({', '.join(said)})" if said else ""


def non_empty(node):
    """Whether the node requires at least one character, item or property."""
    return 1 in (node.get("minLength"), node.get("minItems"), node.get("minProperties"))


def type_word(kind, word, node):
    """How the type column shows one JSON type of a node (arrays with their items, maps with
    their values)."""
    if word == "array" and "items" in node:
        return f"array{count_of(node)} of " + type_text(kind, node["items"])
    extra = node.get("additionalProperties")
    if word == "object" and isinstance(extra, dict) and "properties" not in resolve(kind, extra):
        return "object of " + type_text(kind, extra)
    return word


def type_text(kind, node):
    """A field's type and constraints in words: 'integer ≥ 0', 'number or null', ..."""
    if isinstance(node, dict) and "$ref" in node and link(kind, node["$ref"]):
        return link(kind, node["$ref"])
    node = resolve(kind, node)
    if "const" in node:
        return code(node["const"])
    if "enum" in node:
        return " | ".join(code(v) for v in node["enum"])
    if "type" not in node:
        return " or ".join(type_text(kind, alt) for alt in node.get("anyOf", [])) or "any"
    # Constraints bind the value, not null: 'integer ≥ 1 or null'.
    words = node["type"] if isinstance(node["type"], list) else [node["type"]]
    text = " or ".join(type_word(kind, w, node) for w in words if w != "null")
    text = " ".join((["non-empty"] if non_empty(node) else []) + [text] + constraints(node))
    return text + " or null" if "null" in words else text


def cell(text):
    """Text for a Markdown table cell (| escaped)."""
    return text.replace("|", "\\|")  # a bare | would end the table cell


def field_rows(kind, node, prefix=""):
    """(field, type, description) of every field under the object `node`, depth first in the
    schema's order; `<name>` stands for the names of an open map, `[]` for array items."""
    node = resolve(kind, node)
    rows = []
    required = set(node.get("required", []))
    for name, sub in node.get("properties", {}).items():
        field = prefix + name
        kind_text = type_text(kind, sub) + (", required" if name in required else "")
        rows.append((field, kind_text, description(kind, sub)))
        rows += child_rows(kind, sub, field)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and node.get("properties"):  # named fields and any others
        rows.append((prefix + "<name>", type_text(kind, extra), description(kind, extra)))
    return rows


def description(kind, node):
    """A field's description; for one that links to a table without its own, the first
    sentence of the table's."""
    text = resolve(kind, node).get("description", "")
    linked = target(kind, node["$ref"]).get("description", "") if "$ref" in node else ""
    if not text and linked:
        text = linked.split(". ")[0].rstrip(".") + "."
    return text


def child_rows(kind, sub, field):
    """The rows under one field: its object's fields, an open map's values, array items."""
    if "$ref" in sub and link(kind, sub["$ref"]):
        return []
    sub = resolve(kind, sub)
    rows = field_rows(kind, sub, field + ".")
    for alt in sub.get("anyOf", []):
        if not ("$ref" in alt and link(kind, alt["$ref"])):
            rows += field_rows(kind, alt, field + ".")
    extra = sub.get("additionalProperties")
    if isinstance(extra, dict) and "properties" in resolve(kind, extra):
        rows.append((field + ".<name>", type_text(kind, extra),
                     resolve(kind, extra).get("description", "")))
        rows += field_rows(kind, extra, field + ".<name>.")
    if isinstance(sub.get("items"), dict) and not link(kind, sub["items"].get("$ref", "#")):
        rows += field_rows(kind, sub["items"], field + "[].")
    return rows


def table(rows):
    """The Markdown lines of a field table from (field, type, description) rows."""
    lines = ["| Field | Type | Description |", "|---|---|---|"]
    lines += [f"| `{field}` | {cell(kind_text)} | {cell(text)} |" for field, kind_text, text in rows]
    return lines


def rows_of_def(kind, name):
    """The field rows of a shared $defs entry of `kind`'s schema."""
    node = schema.load(kind)["$defs"][name]
    return field_rows(kind, node["items"], "[].") if node.get("type") == "array" \
        else field_rows(kind, node)


def block(kind):
    """The generated block of one file kind, markers included."""
    doc = schema.load(kind)
    source = os.path.relpath(schema.path_of(kind), ROOT)
    lines = [f"<!--schema:{kind}-->", "", f"## {doc['title']}", "", doc["description"], "",
             f"Schema: [{source}](../{source}).", ""]
    lines += table(field_rows(kind, doc))
    for name, node in doc.get("$defs", {}).items():
        if (kind, name) in SHARED:
            lines += ["", f"### {def_heading(name, node)}", "", node.get("description", ""), ""]
            lines += table(rows_of_def(kind, name))
    return "\n".join(lines + ["", "<!--/schema-->"])


def render(page):
    """The page with every schema block regenerated; ValueError when a kind has no block or
    more than one."""
    found = BLOCK.findall(page)
    for kind in schema.KINDS:
        if found.count(kind) != 1:
            raise ValueError(f"{PAGE}: needs exactly one <!--schema:{kind}--> block, has "
                             f"{found.count(kind)}")
    return BLOCK.sub(lambda m: block(m.group(1)), page)


def main():
    """Command line: --write rewrites the schema blocks of docs/json_schema.md, --check exits 1
    when they are stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the schema blocks")
    mode.add_argument("--check", action="store_true", help="fail if the page is stale")
    args = parser.parse_args()
    with open(PAGE, encoding="utf-8") as f:
        current = f.read()
    try:
        page = render(current)
    except ValueError as error:
        sys.exit(str(error))
    if args.check:
        if page != current:
            sys.exit(f"not current (run python3 -m cmbench.docs.schema_page --write): "
                     f"{os.path.relpath(PAGE, ROOT)}")
        return
    write_atomic(PAGE, page)


if __name__ == "__main__":
    main()
