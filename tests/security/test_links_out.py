"""Links that leave the repo: whichever part of a path is the link (a folder above the file
as much as the file itself), lessons neither reads project content through it nor writes
through it, and names the link. Links that stay inside the repo keep working.

Every case is built for real: git repos and a fake home folder in temp dirs, real
symbolic links, the CLI in-process, the committed launcher run by ``sh``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lessons_cli.harnesses import servers
from lessons_cli.mcp_tools import call_tool
from lessons_core.containment import LeavesRepo, leaving_part, require_inside
from lessons_core.delivery.hooklog import log_path
from lessons_core.store.layout import INDEX_CACHE, Layout
from lessons_core.store.project import init_project
from tests.conftest import make_repo, run, save_lesson, wired_here
from tests.hooks.conftest import call_hook

AWS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
CREDENTIALS = (
    "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
    f"aws_secret_access_key = {AWS_KEY}\nregion = eu-west-1\n"
)
RULE = "Keep imports in src/ sorted by isort."


def home() -> Path:
    """The test's home folder (a temp dir: tests/conftest.py sets HOME)."""
    return Path(os.environ["HOME"])


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder``, links not followed: a file's bytes, a link's target."""
    found: dict[str, bytes | str] = {}
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(top, name)
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                found[rel] = "-> " + os.readlink(path)
            elif path.is_file():
                found[rel] = path.read_bytes()
            else:
                found[rel] = "dir"
    return found


def new_repo(tmp_path: Path, name: str = "repo") -> Layout:
    root = make_repo(tmp_path / name, {"src/a.py": "x = 1\n", "docs/guide.md": "guide\n"})
    layout, _ = init_project(root)
    return layout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    """A git repo with .lessons/, as the working directory."""
    layout = new_repo(tmp_path)
    monkeypatch.chdir(layout.root)
    return layout


# The shared check itself.


def test_leaving_part_names_the_first_link_out_on_any_part(tmp_path: Path) -> None:
    """A link on a folder above the file is found as surely as one on the file; a link
    inside the repo passes; '..' after a link is resolved where the link leads."""
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (root / ".claude").symlink_to(outside)
    (root / "inside").symlink_to(root / "docs")
    (root / "docs" / "up").symlink_to(outside / "sub")
    assert leaving_part(".claude/settings.json", root) == (
        str(root / ".claude"),
        str(outside),
    )
    assert leaving_part(root / "inside" / "x.md", root) is None
    assert leaving_part("inside/up/../x", root) == (
        str(root / "inside" / "up"),
        str(outside / "sub"),
    )
    (root / "self").symlink_to(root)  # inside; but "self/.." is the folder above the repo
    assert leaving_part("self/../outside/x", root) == (str(root / "self" / ".."), str(tmp_path))
    assert leaving_part("docs/missing/deeper", root) is None
    assert leaving_part(tmp_path / "elsewhere", root) is not None
    with pytest.raises(LeavesRepo, match=r"\.claude is a symbolic link to .*outside the repo"):
        require_inside(root / ".claude" / "settings.json", root)


# Importers: a rule file, or the folder holding it, that links out is never read.

RULE_FORMATS = {
    "cursor": (".cursor/rules", ".mdc", "---\nglobs: src/**/*.py\n---\n"),
    "copilot": (".github/instructions", ".instructions.md", '---\napplyTo: "src/**/*.py"\n---\n'),
    "kiro": (
        ".kiro/steering",
        ".md",
        '---\ninclusion: fileMatch\nfileMatchPattern: "src/**/*.py"\n---\n',
    ),
    "claude-rules": (".claude/rules", ".md", '---\npaths:\n  - "src/**/*.py"\n---\n'),
}


def _credentials() -> Path:
    path = home() / ".aws" / "credentials"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CREDENTIALS)
    return path


@pytest.mark.parametrize("fmt", RULE_FORMATS)
def test_an_imported_rule_file_linking_out_is_not_carried(repo: Layout, fmt: str) -> None:
    """team -> ~/.aws/credentials and users -> /etc/passwd are reported as not carried,
    naming the link, and nothing of them becomes a lesson; the repo's own rule file, and
    one linked from inside the repo, are imported; no prompt brings the key back."""
    folder, suffix, front = RULE_FORMATS[fmt]
    rules = repo.root / folder
    rules.mkdir(parents=True, exist_ok=True)
    (rules / f"style{suffix}").write_text(front + "- Keep imports sorted with isort.\n")
    (repo.root / "docs" / f"shared{suffix}").write_text(front + "- Log through the logger.\n")
    (rules / f"shared{suffix}").symlink_to(repo.root / "docs" / f"shared{suffix}")
    (rules / f"team{suffix}").symlink_to(_credentials())
    (rules / f"users{suffix}").symlink_to("/etc/passwd")
    result = run("import", fmt, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    lost = {
        note["subject"]: note for note in report["not_carried"] if note["code"] == "outside-repo"
    }
    assert sorted(lost) == [f"{folder}/team{suffix}", f"{folder}/users{suffix}"]
    for name in ("team", "users"):
        detail = lost[f"{folder}/{name}{suffix}"]["detail"]
        assert f"{rules / name}{suffix} is a symbolic link to" in detail
        assert "outside the repo" in detail
    saved = b"".join(path.read_bytes() for path in repo.lessons_dir.glob("*.json"))
    assert b"Keep imports sorted" in saved
    assert b"Log through the logger" in saved
    assert AWS_KEY.encode() not in saved
    assert b"root:" not in saved
    asked = "Which aws_secret_access_key does the default aws profile use?"
    prompt = {"hook_event_name": "UserPromptSubmit", "session_id": "s", "cwd": str(repo.root),
              "prompt": asked}  # fmt: skip
    assert AWS_KEY.encode() not in call_hook("claude-code", prompt)


@pytest.mark.parametrize("fmt", RULE_FORMATS)
def test_an_import_folder_linking_out_is_refused_by_name(repo: Layout, fmt: str) -> None:
    """The format's folder (or the dot-folder above it) as a link to the home folder's:
    the import fails naming the link and writes nothing; the folder named by its own
    path outside the repo is still imported, as the user asked."""
    folder, suffix, front = RULE_FORMATS[fmt]
    top = folder.split("/")[0]
    target = home() / top
    (target / Path(folder).relative_to(top)).mkdir(parents=True)
    (target / folder[len(top) + 1 :] / f"mine{suffix}").write_text(front + "- Keep my own rule.\n")
    (repo.root / top).symlink_to(target)
    before = snapshot(repo.base)
    result = run("import", fmt)
    assert result.exit_code == 1
    assert f"{repo.root / top} is a symbolic link to {target}, outside the repo" in result.stderr
    assert snapshot(repo.base) == before
    again = run("import", fmt, str(target / folder[len(top) + 1 :]))
    assert again.exit_code == 0, again.output
    assert b"Keep my own rule" in b"".join(p.read_bytes() for p in repo.lessons_dir.glob("*.json"))


def _agentsmesh_graph(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 2, "topics": {}, "triggers": {}, "lessons": {
        "secret": {"rule": f"Use the key {AWS_KEY}.", "topics": [], "triggers": [],
                   "status": "active", "createdAt": "2026-01-01"}}}))  # fmt: skip
    return path


@pytest.mark.parametrize("link", ["file", "folder"])
def test_an_agentsmesh_graph_linking_out_is_refused_by_name(repo: Layout, link: str) -> None:
    """.agentsmesh/lessons/lessons.json, or .agentsmesh itself, linking into the home
    folder: the import names the link and writes nothing."""
    outside = _agentsmesh_graph(home() / "agentsmesh" / "lessons" / "lessons.json")
    if link == "file":
        (repo.root / ".agentsmesh" / "lessons").mkdir(parents=True)
        (repo.root / ".agentsmesh" / "lessons" / "lessons.json").symlink_to(outside)
        named = repo.root / ".agentsmesh" / "lessons" / "lessons.json"
    else:
        (repo.root / ".agentsmesh").symlink_to(home() / "agentsmesh")
        named = repo.root / ".agentsmesh"
    result = run("import", "agentsmesh", ".agentsmesh/lessons/lessons.json")
    assert result.exit_code == 1
    assert f"{named} is a symbolic link to" in result.stderr
    assert list(repo.lessons_dir.glob("*.json")) == []


# init and --remove-hooks: a harness folder linking out is never written, nor emptied.

HARNESS_FOLDERS = (
    ("claude-code", ".claude"),
    ("codex", ".codex"),
    ("gemini", ".gemini"),
    ("copilot", ".github"),
    ("copilot", ".github/hooks"),
    ("qwen", ".qwen"),
    ("cursor", ".cursor"),
)


@pytest.mark.parametrize(("harness", "folder"), HARNESS_FOLDERS)
def test_init_never_merges_hooks_into_a_harness_folder_linking_out(
    repo: Layout, harness: str, folder: str
) -> None:
    """.claude -> ~/.claude (and each harness's folder alike): init --HARNESS --mcp
    refuses, naming the link, and the user's global settings stay byte for byte."""
    target = home() / folder
    target.mkdir(parents=True)
    (repo.root / folder).parent.mkdir(parents=True, exist_ok=True)
    for name in ("settings.json", "hooks.json", "mcp.json"):
        (target / name).write_text('{"theme": "dark"}\n')
    (target / "hooks").mkdir()
    (target / "config.toml").write_text('model = "x"\n')
    (repo.root / folder).symlink_to(target)
    before = snapshot(target)
    result = run("init", f"--{harness}", "--mcp")
    assert result.exit_code == 1
    assert f"{repo.root / folder} is a symbolic link to {target}, outside the repo" in result.stderr
    assert snapshot(target) == before


def test_init_writes_through_a_harness_folder_linking_inside(repo: Layout) -> None:
    """.claude -> a folder of the repo: the hooks are merged there, the link stays."""
    (repo.root / "config" / "claude").mkdir(parents=True)
    (repo.root / ".claude").symlink_to(repo.root / "config" / "claude")
    assert run("init", "--claude-code").exit_code == 0
    assert (repo.root / ".claude").is_symlink()
    assert "hooks" in json.loads((repo.root / "config" / "claude" / "settings.json").read_text())


@pytest.mark.parametrize("settings", [".mcp.json", ".codex/config.toml", ".gemini/settings.json",
                                      ".github/mcp.json", ".qwen/settings.json"])  # fmt: skip
def test_no_mcp_server_file_is_written_through_a_link_out(repo: Layout, settings: str) -> None:
    """The file of MCP servers, or its folder, linking out: registering and removing the
    server both refuse by name, and the target is left as it was."""
    outside = home() / "mcp"
    outside.mkdir()
    top = settings.split("/", maxsplit=1)[0]
    if "/" in settings:
        (outside / Path(settings).name).write_text("")
        (repo.root / top).symlink_to(outside)
    else:
        (outside / settings).write_text("")
        (repo.root / settings).symlink_to(outside / settings)
    before = snapshot(outside)
    named = f"{repo.root / top} is a symbolic link"
    with pytest.raises(LeavesRepo, match=named):
        servers.install(repo.root, settings, "sh .lessons/run mcp")
    with pytest.raises(LeavesRepo, match=named):
        servers.uninstall(repo.root, settings)
    assert snapshot(outside) == before


def test_remove_hooks_deletes_nothing_where_a_link_out_leads(
    repo: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hooks and servers of ours in ~/.claude, ~/.codex and ~/.gemini, reached through
    links from the repo: --remove-hooks names each link and fails, and every file there
    stays, even the ones it would have emptied and deleted."""
    wired = new_repo(tmp_path, "wired")
    monkeypatch.chdir(wired.root)
    assert run("init", "--claude-code", "--codex", "--gemini", "--mcp").exit_code == 0
    for folder in (".claude", ".codex", ".gemini"):
        shutil.move(wired.root / folder, home() / folder)
        (repo.root / folder).symlink_to(home() / folder)
    before = snapshot(home())
    monkeypatch.chdir(repo.root)
    result = run("init", "--remove-hooks")
    assert result.exit_code == 1
    for folder in (".claude", ".codex", ".gemini"):
        assert f"{repo.root / folder} is a symbolic link to {home() / folder}" in result.stderr
    assert snapshot(home()) == before


def test_agent_docs_linking_out_are_never_written(repo: Layout) -> None:
    """AGENTS.md -> ~/AGENTS.md and CLAUDE.md -> .claude/CLAUDE.md with .claude linking to
    ~/.claude: both refused by name, neither target changed."""
    (home() / "AGENTS.md").write_text("# mine\n")
    (home() / ".claude").mkdir()
    (home() / ".claude" / "CLAUDE.md").write_text("# global\n")
    (repo.root / "AGENTS.md").symlink_to(home() / "AGENTS.md")
    (repo.root / ".claude").symlink_to(home() / ".claude")
    (repo.root / "CLAUDE.md").symlink_to(".claude/CLAUDE.md")
    before = snapshot(home())
    for flag in ("--agents-md", "--claude-md"):
        result = run("init", flag)
        assert result.exit_code == 1
        assert "is a symbolic link to" in result.stderr
        assert "outside the repo" in result.stderr
    assert snapshot(home()) == before


# The committed launcher writes its cache only inside the repo.


def _launch(root: Path, by_path: bool = False) -> subprocess.CompletedProcess[str]:
    """``sh .lessons/run --version``, finding lessons by $LESSONS_PYTHON, or on PATH."""
    env = {"PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
           "HOME": str(home())}  # fmt: skip
    if not by_path:
        env["LESSONS_PYTHON"] = sys.executable
    return subprocess.run(
        ["sh", str(root / ".lessons" / "run"), "--version"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_launcher_writes_nothing_through_a_store_linking_out(tmp_path: Path) -> None:
    """.lessons -> another folder's store: the launcher still runs lessons, but creates no
    local/ there and remembers nothing there."""
    outside = new_repo(tmp_path, "outside")
    shutil.rmtree(outside.local_dir)
    root = make_repo(tmp_path / "repo")
    (root / ".lessons").symlink_to(outside.base)
    done = _launch(root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("lessons, version")
    assert not outside.local_dir.exists()


def test_the_launcher_never_moves_its_cache_into_a_linked_folder(tmp_path: Path) -> None:
    """.lessons/local/launch as a link to a folder outside: mv would move the cache into
    it; nothing lands there."""
    layout = new_repo(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    Path(layout.local("launch")).symlink_to(elsewhere)
    assert _launch(layout.root).returncode == 0
    assert list(elsewhere.iterdir()) == []


def test_the_launcher_remembers_through_a_local_folder_linking_inside(tmp_path: Path) -> None:
    """.lessons/local -> a folder of the repo: the cache is written there."""
    layout = new_repo(tmp_path)
    state = layout.root / "state"
    state.mkdir()
    shutil.rmtree(layout.local_dir)
    layout.local_dir.symlink_to(state)
    assert _launch(layout.root).returncode == 0
    assert (state / "launch").read_text().splitlines()[0] == sys.executable


# The MCP server serves its own repo only.


def test_mcp_query_refuses_a_file_of_another_repo(tmp_path: Path) -> None:
    """An absolute path into another repo, or a path through a link to it: an error reply,
    no lesson of that repo, no session file written there; a nested store of the server's
    own repo still answers."""
    served = new_repo(tmp_path, "served")
    other = new_repo(tmp_path, "other")
    save_lesson(other, "code-other", "Obey the other repo.", files=("src/**",))
    (served.root / "vendor").symlink_to(other.root)
    for file in (str(other.root / "src" / "a.py"), "vendor/src/a.py"):
        reply = call_tool("lessons_query", {"file": file, "session": "s1"}, served.root)
        assert reply.is_error, reply.text
        assert "Obey" not in reply.text
    assert "not inside" in call_tool("lessons_query", {"file": str(other.root / "src/a.py")},
                                     served.root).text  # fmt: skip
    assert (
        "vendor is a symbolic link"
        in call_tool("lessons_query", {"file": "vendor/src/a.py"}, served.root).text
    )
    assert not list((other.local_dir / "sessions").glob("*"))
    nested, _ = init_project(served.root / "pkg")
    save_lesson(nested, "code-pkg", "Obey the package.", files=("src/**",))
    reply = call_tool("lessons_query", {"file": "pkg/src/b.py"}, served.root)
    assert "Obey the package." in reply.text


# Output files the user names, and review.


def test_export_and_report_refuse_an_output_through_a_link_out(repo: Layout) -> None:
    """docs -> ~/docs: export --output docs/x.md and report --html docs/x.html name the
    link and write nothing there; a file named outside the repo is the user's choice and
    is written; CLAUDE.md -> AGENTS.md is written through and stays a link."""
    save_lesson(repo, "code-sorted", RULE, files=("src/**",))
    shutil.rmtree(repo.root / "docs")
    (home() / "docs").mkdir()
    (repo.root / "docs").symlink_to(home() / "docs")
    for args in (
        ["export", "--format", "agents-md", "--output", "docs/LESSONS.md"],
        ["report", "--html", "docs/report.html"],
    ):
        result = run(*args)
        assert result.exit_code == 1, args
        assert f"{repo.root / 'docs'} is a symbolic link to" in result.stderr
    assert list((home() / "docs").iterdir()) == []
    chosen = home().parent / "chosen.md"
    assert run("export", "--format", "agents-md", "--output", str(chosen)).exit_code == 0
    assert RULE in chosen.read_text()
    (repo.root / "AGENTS.md").write_text("")
    (repo.root / "CLAUDE.md").symlink_to("AGENTS.md")
    assert run("export", "--format", "agents-md", "--output", "CLAUDE.md").exit_code == 0
    assert (repo.root / "CLAUDE.md").is_symlink()
    assert RULE in (repo.root / "AGENTS.md").read_text()


def test_review_reads_no_lesson_file_through_a_link(repo: Layout, tmp_path: Path) -> None:
    """A committed lesson replaced by a link to a copy outside the repo: review does not
    read through it (the lesson is no longer served), so it shows the file as changed
    instead of unchanged."""
    save_lesson(repo, "code-sorted", RULE, files=("src/**",))
    subprocess.run(["git", "add", "-A"], cwd=repo.root, check=True)
    subprocess.run(["git", "commit", "-qm", "lesson"], cwd=repo.root, check=True)
    path = repo.lesson_path("code-sorted")
    copy = tmp_path / "copy.json"
    shutil.copy(path, copy)
    path.unlink()
    path.symlink_to(copy)
    result = run("review", "HEAD", "--json")
    assert result.exit_code == 0, result.output
    changes = json.loads(result.stdout)["changes"]
    assert [(change["id"], change["after"]) for change in changes] == [("code-sorted", None)]
    assert "symbolic link" in json.dumps(changes[0]["findings"])


# The store's own folders, for every command that writes there, and the hook.

STORE_COMMANDS = (
    ["init"],
    ["init", "--claude-code"],
    ["add", RULE + " Now.", "--topic", "style", "--trigger-file", "src/a.py"],
    ["import", "cursor"],
    ["deprecate", "code-sorted"],
    ["rm", "code-sorted"],
    ["touch", "code-sorted"],
    ["query", "--file", "src/a.py", "--session", "s"],
)


@pytest.mark.parametrize("folder", [".lessons", ".lessons/lessons", ".lessons/local"])
def test_every_command_refuses_a_store_folder_linking_out(repo: Layout, folder: str) -> None:
    """init, add, import, deprecate, rm, touch and query each name the link and change nothing
    where it leads."""
    save_lesson(repo, "code-sorted", RULE, files=("src/**",))
    (repo.root / ".cursor" / "rules").mkdir(parents=True)
    (repo.root / ".cursor" / "rules" / "a.mdc").write_text("- Keep it short.\n")
    outside = home() / "store"
    os.rename(repo.root / folder, outside)
    (repo.root / folder).symlink_to(outside)
    before = snapshot(outside)
    for args in STORE_COMMANDS:
        result = run(*args)
        assert result.exit_code == 1, (args, result.output)
        assert f"{repo.root / folder} is a symbolic link to {outside}" in result.stderr
    assert snapshot(outside) == before


def test_the_hook_logs_one_line_for_a_store_folder_linking_out(repo: Layout) -> None:
    """.lessons/lessons -> outside: the hook says nothing and logs the link in
    .lessons/local/hook.log; with .lessons/local itself out, nothing is written at all."""
    save_lesson(repo, "code-sorted", RULE, files=("src/**",))
    outside = home() / "lessons"
    os.rename(repo.lessons_dir, outside)
    repo.lessons_dir.symlink_to(outside)
    edit = _edit(repo, "s")
    before = snapshot(outside)
    assert call_hook("claude-code", edit) == b""
    lines = log_path(repo.root).read_text().splitlines()
    assert len(lines) == 1
    assert f"{repo.lessons_dir} is a symbolic link to {outside}" in lines[0]
    assert snapshot(outside) == before
    local = home() / "local"
    os.rename(repo.local_dir, local)
    repo.local_dir.symlink_to(local)
    before = snapshot(local)
    assert call_hook("claude-code", edit) == b""
    assert snapshot(local) == before


def test_doctor_reads_no_settings_through_a_link_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """.claude and .gemini linking to the home folder's, which hold hooks of ours: doctor
    warns once for each, naming the link, instead of checking those files as the repo's."""
    root = wired_here(tmp_path, monkeypatch, "--claude-code", "--gemini", "--mcp")
    for folder in (".claude", ".gemini"):
        shutil.move(root / folder, home() / folder)
        (root / folder).symlink_to(home() / folder)
    result = run("doctor", "--json")
    checks = json.loads(result.stdout)["checks"]
    for harness, folder in (("claude-code", ".claude"), ("gemini", ".gemini")):
        named = f"{root / folder} is a symbolic link to {home() / folder}"
        said = [(c["subject"], c["status"], named in c["detail"]) for c in checks
                if folder in c["detail"]]  # fmt: skip
        assert said == [(harness, "warn", True)]


def test_the_hook_reads_no_index_cache_through_a_link(repo: Layout) -> None:
    """.lessons/local/recall-index.bin as a link to a valid index outside the repo: the
    hook does not open it, rebuilds its own in place of the link, and still answers."""
    save_lesson(repo, "code-sorted", RULE, files=("src/**",))
    assert RULE.encode() in call_hook("claude-code", _edit(repo, "s1"))
    cache = Path(repo.local(INDEX_CACHE))
    outside = home() / "index.bin"
    shutil.move(cache, outside)
    cache.symlink_to(outside)
    kept = outside.read_bytes()
    assert RULE.encode() in call_hook("claude-code", _edit(repo, "s2"))
    assert not cache.is_symlink()
    assert outside.read_bytes() == kept


def _edit(layout: Layout, session: str) -> dict[str, object]:
    return {"hook_event_name": "PreToolUse", "session_id": session, "cwd": str(layout.root),
            "tool_name": "Write", "tool_input": {"file_path": "src/a.py"}}  # fmt: skip


def test_the_launcher_reads_no_cache_through_a_link(tmp_path: Path) -> None:
    """.lessons/local/launch as a link to a record outside the repo naming another
    program: the launcher does not run it, it finds lessons itself."""
    layout = new_repo(tmp_path)
    other = tmp_path / "other.sh"
    other.write_text("#!/bin/sh\necho not lessons\n")
    other.chmod(0o755)
    record = tmp_path / "record"
    record.write_text(f"{other}\n{other}\n{other}\n")
    Path(layout.local("launch")).symlink_to(record)
    done = _launch(layout.root, by_path=True)
    assert done.stdout.startswith("lessons, version"), done.stdout


def test_an_import_never_takes_a_linked_lesson_file_for_its_own(repo: Layout) -> None:
    """A lesson file in the store that links to a copy outside, holding exactly what the
    import would write: reported as left alone, not counted as unchanged."""
    rules = repo.root / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "style.mdc").write_text("---\nglobs: src/**/*.py\n---\n- Keep imports sorted.\n")
    assert run("import", "cursor").exit_code == 0
    (path,) = repo.lessons_dir.glob("*.json")
    copy = home() / path.name
    shutil.move(path, copy)
    path.symlink_to(copy)
    report = json.loads(run("import", "cursor", "--json").stdout)
    assert report["lessons"]["unchanged"] == []
    (note,) = [n for n in report["not_carried"] if n["code"] == "existing-file-broken"]
    assert "symbolic link" in note["detail"]


def test_init_path_refuses_a_folder_of_the_repo_linking_out(repo: Layout) -> None:
    """init --path pkg with pkg -> ~/pkg: refused by name, no store created there; a
    folder named outside the repo by its own path still gets one, as asked."""
    (home() / "pkg").mkdir()
    (repo.root / "pkg").symlink_to(home() / "pkg")
    result = run("init", "--path", "pkg")
    assert result.exit_code == 1
    assert f"{repo.root / 'pkg'} is a symbolic link to {home() / 'pkg'}" in result.stderr
    assert list((home() / "pkg").iterdir()) == []
    assert run("init", "--path", str(home() / "pkg")).exit_code == 0
    assert (home() / "pkg" / ".lessons").is_dir()


def test_query_refuses_a_store_reached_through_a_link_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vendor -> another repo with its own store: query --file vendor/... --session names
    the link and neither serves that repo's lessons nor writes its session file there; the
    same file by its own path is that repo's, as typed."""
    served = new_repo(tmp_path, "served")
    other = new_repo(tmp_path, "other")
    save_lesson(other, "code-other", "Obey the other repo.", files=("src/**",))
    (served.root / "vendor").symlink_to(other.root)
    monkeypatch.chdir(served.root)
    result = run("query", "--file", "vendor/src/a.py", "--session", "s")
    assert result.exit_code == 1
    assert f"{served.root / 'vendor'} is a symbolic link to {other.root}" in result.stderr
    assert "Obey" not in result.stdout
    assert not list((other.local_dir / "sessions").glob("*"))
    direct = run("query", "--file", str(other.root / "src" / "a.py"))
    assert "Obey the other repo." in direct.stdout
