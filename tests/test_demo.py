"""``scripts/demo``: every command it shows is printed as it must be typed, and the silent
step says why it is silent."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_prints_commands_that_run_as_shown() -> None:
    """Each `$ lessons ...` line splits, as a shell would, into the arguments the demo
    ran: the glob stays quoted (copied, it does not expand), the rule keeps its quotes;
    the hook lines carry their JSON payload; the silent call is explained."""
    lessons = Path(sys.executable).parent / "lessons"
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo")],
        env={"LESSONS": str(lessons), "PATH": "/usr/bin:/bin", "HOME": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = [line[2:] for line in done.stdout.splitlines() if line.startswith("$ ")]
    words = [shlex.split(line) for line in shown]
    assert words[1] == [
        "lessons", "add", "Never split('/') a filesystem path; use os.path.basename().",
        "--topic", "paths", "--trigger-file", "src/storage/**", "--evidence", "commit:demo",
    ]  # fmt: skip
    assert "--trigger-file 'src/storage/**'" in shown[1]
    assert words[2][2] == "Run the test suite before 'git push'; CI takes 20 minutes to say no."
    assert words[5] == ["lessons", "query", "--cmd", "cd src && git push origin main"]
    hooks = [w for w in words if w[0] == "echo"]
    assert len(hooks) == 2
    for hook in hooks:
        assert json.loads(hook[1])["tool_input"] == {"command": "git push origin main"}
        assert hook[2:] == ["|", "lessons", "hook", "claude-code"]
    assert done.stdout.rstrip().endswith(
        "(no output, and that is the answer: this session was already shown the rule, so\n"
        " the hook stays silent and the call runs)"
    )
