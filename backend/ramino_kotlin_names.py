"""The Kotlin SDK's names for the API's messages, generated from the proto
files' descriptors (``ramino.v1``): a short typealias for every message and
enum of package ``ramino.v1`` (``Hint`` for ``ramino.v1.GameOuterClass.Hint``),
so that a user never writes a generated outer class, and an ``xOrNull``
extension property for every field that has a ``hasX()`` (``optional``
scalars, message fields, oneof members): ``view.turnOrNull`` is an ``Int?``
where the generated code has ``hasTurn()`` and a ``turn`` of 0.

``make kotlin-names`` writes ``Protos.kt``; ``make lint`` runs ``--check``,
which fails when the committed file differs from what the proto gives (the
SDK is built without Python; the file is committed like ``Reasons.kt``).

    python backend/ramino_kotlin_names.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor, FileDescriptor
from ramino.v1 import game_pb2, match_pb2, rules_pb2, types_pb2

ROOT = Path(__file__).resolve().parent.parent
TARGET = "clients/kotlin/src/main/kotlin/dev/ramino/client/Protos.kt"
HEADER = (
    "// Generated from proto/ramino/v1 by backend/ramino_kotlin_names.py"
    " (make kotlin-names): do not edit."
)
FILES: tuple[FileDescriptor, ...] = (
    game_pb2.DESCRIPTOR,
    types_pb2.DESCRIPTOR,
    rules_pb2.DESCRIPTOR,
    match_pb2.DESCRIPTOR,
)

_SCALARS = {
    FieldDescriptor.TYPE_INT32: "Int",
    FieldDescriptor.TYPE_SINT32: "Int",
    FieldDescriptor.TYPE_SFIXED32: "Int",
    FieldDescriptor.TYPE_UINT32: "Int",
    FieldDescriptor.TYPE_FIXED32: "Int",
    FieldDescriptor.TYPE_INT64: "Long",
    FieldDescriptor.TYPE_SINT64: "Long",
    FieldDescriptor.TYPE_SFIXED64: "Long",
    FieldDescriptor.TYPE_UINT64: "Long",
    FieldDescriptor.TYPE_FIXED64: "Long",
    FieldDescriptor.TYPE_BOOL: "Boolean",
    FieldDescriptor.TYPE_FLOAT: "Float",
    FieldDescriptor.TYPE_DOUBLE: "Double",
    FieldDescriptor.TYPE_STRING: "String",
    FieldDescriptor.TYPE_BYTES: "com.google.protobuf.ByteString",
}

# Java packages of the files outside ramino.v1 that fields refer to.
_JAVA_PACKAGES = {"google.protobuf": "com.google.protobuf", "google.rpc": "com.google.rpc"}


def _camel(name: str, upper: bool) -> str:
    """protoc's Java name of a field: capitals after an underscore or a digit."""
    out: list[str] = []
    capital = upper
    for ch in name:
        if ch == "_":
            capital = True
            continue
        out.append(ch.upper() if capital else ch)
        capital = ch.isdigit()
    return "".join(out)


def _outer_class(f: FileDescriptor) -> str:
    """protoc's Java outer class of a file (no java_outer_classname here):
    its base name in CamelCase, with OuterClass when a type has that name."""
    base = _camel(Path(f.name).stem, upper=True)
    taken = set(f.message_types_by_name) | set(f.enum_types_by_name) | set(f.services_by_name)
    return base + "OuterClass" if base in taken else base


def _java_name(d: Descriptor | EnumDescriptor) -> str:
    """The Java class of a message or enum (nested ones by their dotted path)."""
    f = d.file
    package = f.package
    inner = d.full_name[len(package) + 1 :]
    if package == "ramino.v1":
        return f"ramino.v1.{_outer_class(f)}.{inner}"
    return f"{_JAVA_PACKAGES[package]}.{inner}"


def _type(field: FieldDescriptor) -> str:
    kind = field.message_type or field.enum_type
    return _SCALARS[field.type] if kind is None else _java_name(kind)


def _messages(d: Descriptor) -> list[Descriptor]:
    """d and its nested messages (map entries left out: they have no hasX)."""
    out = [] if d.GetOptions().map_entry else [d]
    for nested in d.nested_types:
        out += _messages(nested)
    return out


def _has_accessor(field: FieldDescriptor) -> bool:
    """Whether protoc gives the field a hasX(): singular with presence."""
    return not field.is_repeated and field.has_presence


def render() -> str:
    out = [HEADER, "package dev.ramino.client", ""]
    out += [
        "// Short names for the messages and enums of package ramino.v1 (the",
        "// generated Java classes sit in outer classes: GameOuterClass, Types,",
        "// Rules, Match). Build them with their Java builders.",
        "",
    ]
    for f in FILES:
        for d in list(f.message_types_by_name.values()) + list(f.enum_types_by_name.values()):
            out.append(f"public typealias {d.name} = {_java_name(d)}")
    out += [
        "",
        "// Each field with a hasX(), as a nullable property: null when unset",
        '// (where the generated getter answers 0, false, "" or an empty message).',
    ]
    for f in FILES:
        for top in f.message_types_by_name.values():
            for d in _messages(top):
                owner = _java_name(d) + "OrBuilder"
                for field in d.fields:
                    if not _has_accessor(field):
                        continue
                    java = _camel(field.name, upper=True)
                    prop = _camel(field.name, upper=False) + "OrNull"
                    out += [
                        "",
                        f"/** `{d.name}.{field.json_name}`, or null when it is not set. */",
                        f"public val {owner}.{prop}: {_type(field)}?",
                        f"    get() = if (has{java}()) get{java}() else null",
                    ]
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when Protos.kt is out of date")
    args = parser.parse_args(argv)
    path = ROOT / TARGET
    if args.check:
        if not path.exists() or path.read_text() != render():
            print(f"{TARGET} is out of date: run `make kotlin-names`", file=sys.stderr)
            return 1
        return 0
    path.write_text(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
