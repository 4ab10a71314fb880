"""The project's own name and the words of paths are not meaningful prompt terms: they
would tie nearly every prompt to nearly every rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessons_cli import mcp_tools
from lessons_core.delivery import deliver
from lessons_core.recall.prompt_terms import project_names, prompt_terms
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from tests.conftest import run, save_lesson


@pytest.fixture
def llm(tmp_path: Path) -> Layout:
    """A project called llm (its folder and its pyproject.toml), with a rule that says
    "llm" and "plugins"."""
    root = tmp_path / "llm"
    root.mkdir()
    (root / "pyproject.toml").write_text('[build-system]\nname = "no"\n[project]\nname = "llm"\n')
    layout = init_project(root)[0]
    save_lesson(layout, "plugins-hook", "Register llm plugins through the pluggy hook.")
    return layout


def _prompted(layout: Layout, prompt: str) -> str:
    notice = deliver.on_prompt(layout, "s1", prompt, Config())
    return "" if notice is None else notice.text


def test_the_projects_name_is_not_a_shared_term(llm: Layout) -> None:
    """ "llm" and "plugins" shared with the rule: only "plugins" counts, one term, no match;
    a second real word does match."""
    assert project_names(llm) == ("llm",)
    assert _prompted(llm, "add an option to the llm plugins list") == ""
    assert "Register llm plugins" in _prompted(llm, "add a pluggy hook for plugins")


def test_path_words_are_not_shared_terms(llm: Layout) -> None:
    """`src/plugins/hook.py` shares "plugins" and "hook" with the rule by its path only:
    the file is matched by its triggers, not its words."""
    prompt = "rename the tokenizer in src/plugins/hook.py and hook.py, see https://x.io/pluggy"
    assert prompt_terms(prompt) == ["rename", "tokenizer"]
    assert _prompted(llm, "look at src/plugins/hook.py and pluggy.md") == ""


@pytest.mark.parametrize(
    ("manifest", "text", "words"),
    [
        ("package.json", json.dumps({"name": "@acme/web-kit"}), ("demo", "web", "kit")),
        ("Cargo.toml", '[package]\nname = "ripgrep"\n', ("demo", "ripgrep")),
        ("go.mod", "module github.com/acme/hugo/v2\n\ngo 1.22\n", ("demo", "hugo")),
        ("pyproject.toml", '[tool.poetry]\nname = "pydantic-ai"\n', ("demo", "pydantic", "ai")),
    ],
)
def test_the_name_comes_from_the_folder_and_the_manifest(
    tmp_path: Path, manifest: str, text: str, words: tuple[str, ...]
) -> None:
    root = tmp_path / "demo"
    root.mkdir()
    (root / manifest).write_text(text)
    assert project_names(init_project(root)[0]) == words


def test_query_and_the_mcp_tool_agree_with_the_hook(
    llm: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lessons query --prompt` and the MCP tool leave the project's name out as the
    prompt hook does."""
    monkeypatch.chdir(llm.root)
    prompt = "add an option to the llm plugins list"
    assert run("query", "--prompt", prompt).stdout == ""
    reply = mcp_tools.query({"prompt": prompt}, llm.root)
    assert "Register llm plugins" not in str(reply)
    assert "Register llm plugins" in run("query", "--prompt", "a pluggy hook for plugins").stdout
