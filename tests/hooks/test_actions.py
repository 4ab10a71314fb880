"""What a tool call reads, changes or runs, repo-relative: ``lessons_core.delivery.actions``."""

from __future__ import annotations

from lessons_core.delivery import actions
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.matching.shell_command import parse
from lessons_core.store.layout import Layout


def test_a_shell_command_reads_and_writes_repo_files(project: Layout) -> None:
    """Reads and writes named in a command become repo-relative, from the session's
    folder; a folder searched and a file outside the repo are dropped. The action carries
    the command's one parse."""
    top = project.top
    command = "sed -n 1,20p src/a.py && cat x.txt > /tmp/out"
    action = actions.running(project, top, command)
    assert action == ToolAction(command=command, shell=parse(command), reads=("src/a.py", "x.txt"))
    assert actions.running(project, top, "rg VALUE src").reads == ()
    heredoc = actions.running(project, f"{top}/src", "cat > new.py <<'EOF'\nx = 1\nEOF")
    assert heredoc.writes == ("src/new.py",)
    assert heredoc.changes == ("src/new.py",)
    assert heredoc.files == ()  # the command, not a file, names the call


def test_reads_and_changes_of_paths(project: Layout) -> None:
    """A read tool reads its files, an edit tool changes them; outside, nothing."""
    assert actions.reading(project, project.top, f"{project.top}/src/a.py").reads == ("src/a.py",)
    assert actions.reading(project, project.top, "/etc/passwd") == ToolAction()
    changed = actions.changing(project, project.top, "src/a.py", content={"x": 1})
    assert changed == ToolAction(files=("src/a.py",), content={"x": 1})
    assert actions.running(project, project.top, "  ") == ToolAction()


def test_a_file_both_read_and_written_is_a_change(project: Layout) -> None:
    """``cp a b`` reads a and writes b; ``sort -o f f`` style reads of a written file are
    not read-only."""
    action = ToolAction(command="x", reads=("src/a.py", "b"), writes=("b",))
    assert action.read_only == ("src/a.py",)
