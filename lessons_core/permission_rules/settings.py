"""``lessons export --format claude-permissions``: enforced command rules as Claude Code
``permissions.deny`` entries in ``.claude/settings.json``.

Claude Code refuses a denied command itself, before any hook runs and in every
permission mode, so an enforced rule holds even where the lessons hook is not wired.

Only ``permissions.deny`` changes, and in it only the entries this export wrote before
(recorded, per settings file, in ``.lessons/claude-permissions.json``, committed with the
settings, so a re-run on any clone replaces them instead of adding them again). Every
other byte of the file stays: the new array is written over the old one's span
(``json_spans``) with the items a person wrote kept as written, and the result is parsed
again and compared with the old document, key by key, before the file is replaced
atomically. An entry a person wrote that equals one of ours is left theirs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from lessons_core.containment import is_within
from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, read_regular, read_store_file, write_target
from lessons_core.jsonio import dumps
from lessons_core.permission_rules.json_spans import JsonSpanError, Node, line_indent, parse
from lessons_core.permission_rules.translate import translate
from lessons_core.store.files import Graph, load_graph
from lessons_core.store.layout import Layout

DEFAULT_SETTINGS = ".claude/settings.json"
RECORD = "claude-permissions.json"  # under .lessons/
MAX_SETTINGS_BYTES = 1 << 20


class Untranslated(NamedTuple):
    lesson_id: str
    pattern: str
    reason: str


class PermissionsExport(NamedTuple):
    """What an export did: the settings file, each deny rule and the lesson it is for,
    the triggers that do not translate and why, the rules added and removed."""

    settings: str  # relative to the repo root
    rules: tuple[tuple[str, str], ...]
    untranslated: tuple[Untranslated, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]


class SettingsError(LessonsError):
    """A settings file that cannot be edited safely; the message names it and the fix."""


def enforced_rules(graph: Graph) -> tuple[list[tuple[str, str]], list[Untranslated]]:
    """(rule, lesson id) for every command trigger of an active enforced lesson that
    translates, and the others with the reason; by lesson id."""
    rules: list[tuple[str, str]] = []
    untranslated: list[Untranslated] = []
    for lesson in sorted(graph.active(), key=lambda x: x.id):
        if not lesson.enforce:
            continue
        for pattern in lesson.triggers.commands:
            done = translate(pattern)
            if done.reason is not None:
                untranslated.append(Untranslated(lesson.id, pattern, done.reason))
            rules += [(rule, lesson.id) for rule in done.rules if (rule, lesson.id) not in rules]
    return rules, untranslated


def export_permissions(layout: Layout, output: Path | None = None) -> PermissionsExport:
    """Write the deny rules into ``output`` (default ``.claude/settings.json`` of the
    repo), which must lie inside the repo, every part of its path."""
    root = layout.root
    target = Path(os.path.abspath(output if output is not None else root / DEFAULT_SETTINGS))
    if not is_within(str(target), os.path.abspath(root)):
        raise SettingsError(
            f"{target} is outside the repo {root}; lessons writes Claude Code's project "
            f"settings inside it only, e.g. {DEFAULT_SETTINGS}"
        )
    relative = target.relative_to(os.path.abspath(root)).as_posix()
    path = write_target(target, root)
    rules, untranslated = enforced_rules(load_graph(layout))
    record = _read_record(layout)
    before = record.get(relative, [])
    text = _read_settings(path)
    wanted = list(dict.fromkeys(rule for rule, _ in rules))
    new_text, added, removed = edit_deny(text, set(before), wanted, str(path))
    if new_text is not None and new_text != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, new_text.encode())
    if added:  # the entries of ours_before still wanted are among them, written again
        record[relative] = list(added)
    else:
        record.pop(relative, None)
    _write_record(layout, record)
    return PermissionsExport(
        relative,
        tuple(rules),
        tuple(untranslated),
        tuple(rule for rule in added if rule not in before),
        tuple(rule for rule in removed if rule not in added),
    )


def edit_deny(
    text: str | None, ours_before: set[str], wanted: list[str], name: str
) -> tuple[str | None, tuple[str, ...], tuple[str, ...]]:
    """``text`` (a settings document; None for no file) with ``permissions.deny`` holding
    its entries but those in ``ours_before``, then each of ``wanted`` it lacks; the new
    text, the entries added and those removed. ``SettingsError`` for a document that is
    not a JSON object, or whose ``permissions`` or ``deny`` has another type."""
    if text is None:
        if not wanted:
            return None, (), ()
        document = {"permissions": {"deny": wanted}}
        return json.dumps(document, indent=2) + "\n", tuple(wanted), ()
    try:
        old = json.loads(text)
        tree = parse(text)
    except (ValueError, JsonSpanError) as err:
        raise SettingsError(
            f"{name} is not valid JSON ({err}); fix it, then export again"
        ) from None
    if not isinstance(old, dict):
        raise _unfit(name, f"holds a JSON {type(old).__name__}, not an object")
    permissions = tree.member("permissions")
    deny = permissions.member("deny") if permissions is not None else None
    if permissions is not None and permissions.kind != "object":
        raise SettingsError(f'{name}: "permissions" is not an object; fix it, then export again')
    if deny is not None and deny.kind != "array":
        raise SettingsError(f'{name}: "permissions.deny" is not a list; fix it, then export again')
    items = deny.items if deny is not None else []
    values = [json.loads(text[item.start : item.end]) for item in items]
    ours = [isinstance(value, str) and value in ours_before for value in values]
    kept = [text[item.start : item.end] for item, mine in zip(items, ours, strict=True) if not mine]
    removed = tuple(v for v, mine in zip(values, ours, strict=True) if mine)
    present = {v for v, mine in zip(values, ours, strict=True) if isinstance(v, str) and not mine}
    added = tuple(rule for rule in wanted if rule not in present)
    entries = kept + [json.dumps(rule) for rule in added]
    if not added and len(kept) == len(items):  # nothing to change: not a byte rewritten
        return text, (), ()
    new_text = _with_deny(text, tree, permissions, deny, entries)
    _same_but_deny(old, json.loads(new_text), name)
    return new_text, added, removed


def _unfit(name: str, what: str) -> SettingsError:
    return SettingsError(f"{name} {what}; fix it by hand, then export again")


def _with_deny(
    text: str, tree: Node, permissions: Node | None, deny: Node | None, entries: list[str]
) -> str:
    """``text`` with the deny array holding ``entries``: written over the old array, or
    added as the last member of ``permissions`` (of a new ``permissions`` object when
    there is none), indented as the file is."""
    unit = _indent_unit(text, tree)
    if deny is not None:
        array = _array(entries, line_indent(text, deny.start), unit)
        return text[: deny.start] + array + text[deny.end :]
    if permissions is not None:
        indent = _member_indent(text, permissions, unit)
        return _insert_member(text, permissions, f'"deny": {_array(entries, indent, unit)}', indent)
    indent = _member_indent(text, tree, unit)
    array = _array(entries, indent + unit, unit)
    member = f'"permissions": {{\n{indent}{unit}"deny": {array}\n{indent}}}'
    return _insert_member(text, tree, member, indent)


def _member_indent(text: str, holder: Node, unit: str) -> str:
    """The indentation of ``holder``'s members: that of its last one, or one level
    deeper than the object's own line."""
    if holder.members:
        return line_indent(text, holder.members[-1][1].start)
    return line_indent(text, holder.start) + unit


def _insert_member(text: str, holder: Node, member: str, indent: str) -> str:
    """``text`` with ``member`` (``"key": value``) added last to the object ``holder``."""
    if holder.members:
        last = holder.members[-1][1]
        return text[: last.end] + f",\n{indent}{member}" + text[last.end :]
    closing = line_indent(text, holder.start)
    return text[: holder.start] + f"{{\n{indent}{member}\n{closing}}}" + text[holder.end :]


def _array(entries: list[str], indent: str, unit: str) -> str:
    """A JSON array of ``entries`` (JSON texts), one a line, for a line indented ``indent``."""
    if not entries:
        return "[]"
    inner = f",\n{indent}{unit}".join(entries)
    return f"[\n{indent}{unit}{inner}\n{indent}]"


def _indent_unit(text: str, tree: Node) -> str:
    """The indentation one level adds in this file (that of the top object's first
    member), two spaces when it does not say."""
    if tree.members:
        first = tree.members[0][1]
        if "\n" in text[tree.start : first.start]:
            return line_indent(text, first.start) or "  "
    return "  "


def _same_but_deny(old: dict[str, Any], new: Any, name: str) -> None:
    """Refuse to write unless ``new`` is ``old`` with only ``permissions.deny`` changed."""

    def without_deny(document: Any) -> Any:
        if not isinstance(document, dict):
            return document
        rest = dict(document)
        permissions = rest.get("permissions")
        if isinstance(permissions, dict):
            rest["permissions"] = {k: v for k, v in permissions.items() if k != "deny"}
            if not rest["permissions"] and "permissions" not in old:
                del rest["permissions"]
        return rest

    if without_deny(new) != without_deny(old):
        raise SettingsError(
            f"{name}: the edit would change more than permissions.deny; nothing was written "
            "(please report this file's layout)"
        )


def _read_settings(path: Path) -> str | None:
    try:
        data = read_regular(path, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise SettingsError(f"{path}: {err.strerror}; it must be a plain file") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SettingsError(f"{path} is not UTF-8 text; fix it, then export again") from None


def _read_record(layout: Layout) -> dict[str, list[str]]:
    """The entries each settings file got from the last export (``RECORD``)."""
    path = layout.under(RECORD)
    try:
        data = json.loads(read_store_file(path))
    except FileNotFoundError:
        return {}
    except ValueError:
        raise SettingsError(
            f"{path} is not valid JSON; delete it (the next export then adds its rules "
            "again beside any it wrote before), or restore it from git"
        ) from None
    deny = data.get("deny") if isinstance(data, dict) else None
    if not isinstance(deny, dict):
        return {}
    return {
        str(file): [rule for rule in rules if isinstance(rule, str)]
        for file, rules in deny.items()
        if isinstance(rules, list)
    }


def _write_record(layout: Layout, record: dict[str, list[str]]) -> None:
    path = layout.under(RECORD)
    if not record and not os.path.exists(path):
        return
    atomic_write(path, dumps({"deny": record}))
