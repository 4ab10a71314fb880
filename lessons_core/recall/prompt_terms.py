"""The words of a prompt that can tie it to a rule's wording.

Common English never does (``matching.words.meaningful``). Nor does the project's own
name: in simonw/llm almost every prompt and every rule says "llm", so two rules sharing
"llm" and one other word with a prompt would be shown on nearly every prompt. Nor do the
words of a path or a URL: "fix src/llm/cli.py" shares "src", "cli" and "py" with every
rule that names a file there, while the file itself is matched by its triggers
(``prompt_files``). Both are left out of the terms that prompt matches count and BM25
scores; keyword triggers still read the whole prompt.

The project's names are the store's folder name and the name its package manifest
gives (``pyproject.toml``, ``package.json``, ``Cargo.toml``, ``go.mod``), read with
``str`` methods: a prompt hook parses no TOML.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from lessons_core.fsutil import NotRegularFile, read_regular
from lessons_core.matching.words import meaningful, tokens
from lessons_core.recall.types import MAX_PROMPT_CHARS

if TYPE_CHECKING:
    from lessons_core.store.layout import Layout

# Manifest, the section headers whose ``name = "..."`` names the project.
_TOML_NAMES = {
    "pyproject.toml": ("[project]", "[tool.poetry]"),
    "Cargo.toml": ("[package]", "[workspace.package]"),
}
_MANIFEST_BYTES = 200_000  # a manifest larger than this is not read


def prompt_terms(prompt: str | None, project: tuple[str, ...] = ()) -> list[str]:
    """The meaningful terms of ``prompt`` outside its paths and URLs, without the
    ``project``'s own name words."""
    if not prompt:
        return []
    words = [word for word in prompt[:MAX_PROMPT_CHARS].split() if not _path_like(word)]
    ignored = set(project)
    return [term for term in meaningful(tokens(" ".join(words))) if term not in ignored]


def _path_like(word: str) -> bool:
    """A path (``src/x.py``, ``./x``), a file name (``cli.py``) or a URL."""
    core = word.strip("`'\"()[]{}<>,;:!?*")
    if "://" in core or "/" in core:
        return True
    head, dot, tail = core.rpartition(".")
    return bool(dot and head and tail and tail.isalnum() and not tail.isdigit())


def project_names(layout: Layout) -> tuple[str, ...]:
    """The name words of the project at ``layout.root`` (see the module docstring)."""
    names = [os.path.basename(os.path.normpath(layout.top))]
    for manifest, sections in _TOML_NAMES.items():
        names.append(_toml_name(_text(layout, manifest), sections))
    names.append(_package_json_name(_text(layout, "package.json")))
    names.append(_go_module(_text(layout, "go.mod")))
    words = (term for name in names if name for term in tokens(name))
    return tuple(dict.fromkeys(term for term in words if len(term) > 1))


def _text(layout: Layout, name: str) -> str:
    try:
        data = read_regular(os.path.join(layout.top, name))  # never through a link
    except (NotRegularFile, OSError):
        return ""
    return data[:_MANIFEST_BYTES].decode("utf-8", "replace")


def _toml_name(text: str, sections: tuple[str, ...]) -> str:
    """``name = "x"`` in one of ``sections``."""
    inside = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            inside = stripped.split("#", 1)[0].strip() in sections
        elif inside and stripped.startswith("name") and "=" in stripped:
            key, _eq, value = stripped.partition("=")
            if key.strip() == "name":
                return value.strip().strip("\"'")
    return ""


def _package_json_name(text: str) -> str:
    """package.json's top-level ``name``, its ``@scope/`` off."""
    if not text:
        return ""
    try:
        data = json.loads(text)
    except ValueError:
        return ""
    name = data.get("name") if isinstance(data, dict) else None
    return name.rsplit("/", 1)[-1] if isinstance(name, str) else ""


def _go_module(text: str) -> str:
    """The last part of go.mod's module path (``github.com/x/tool`` -> ``tool``)."""
    for line in text.splitlines():
        if line.startswith("module "):
            parts = line.split()[1].strip('"').rstrip("/").split("/")
            major = len(parts) > 1 and parts[-1][:1] == "v" and parts[-1][1:].isdigit()
            return parts[-2] if major else parts[-1]  # github.com/x/tool/v2: tool
    return ""
