"""A temp git repo wired with `lessons init --copilot`, driven by the real Copilot CLI.

`bash scripts/test` installs the pinned client into ./.e2e and unpacks its app into
./.e2e/copilot-cache. The client runs offline (`COPILOT_OFFLINE`) against
`fake_chat_completions.FakeModel` on a free loopback port, with its home and config in
temp folders. A repo's `.github/hooks/*.json` load only in a trusted folder: `-p` runs
pass `--trust-folder`; a resumed session (which refuses that flag) relies on the
`trustedFolders` list Copilot keeps in `$COPILOT_HOME/config.json`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.fake_chat_completions import MAX_PROMPT_TOKENS, FakeModel
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import ClientProject, open_project, released

E2E = Path(__file__).resolve().parents[2] / ".e2e"
COPILOT = E2E / "node_modules" / ".bin" / "copilot"
COPILOT_CACHE = E2E / "copilot-cache"
# A model Copilot knows, so it offers its usual tools (bash, create, edit, view, ...).
MODEL = "gpt-4.1"
RUN = ("--allow-all-tools", "--no-auto-update", "--output-format", "json")


@dataclass
class CopilotProject(ClientProject[FakeModel]):
    def env(self) -> dict[str, str]:
        """The client's environment: offline, temp home, the unpacked app from the cache,
        and this interpreter's install findable by the hook."""
        return self.client_env(
            ("COPILOT", "GH_", "GITHUB"),
            self.on_path,
            COPILOT_HOME=str(self.home / ".copilot"),
            XDG_CACHE_HOME=str(COPILOT_CACHE),
            COPILOT_OFFLINE="true",
            COPILOT_AUTO_UPDATE="false",
            COPILOT_PROVIDER_BASE_URL=f"{self.server.url}/v1",
            COPILOT_PROVIDER_API_KEY="dummy",
            COPILOT_MODEL=MODEL,
            COPILOT_PROVIDER_MAX_PROMPT_TOKENS=str(MAX_PROMPT_TOKENS),
        )

    def copilot(self, prompt: str, *args: str) -> list[dict[str, Any]]:
        """Run `copilot -p PROMPT ...`; return its JSON events (one per line)."""
        done = self.run_client([str(COPILOT), "-p", prompt, *RUN, *args], self.env())
        return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]

    def trust_in_config(self) -> None:
        """Trust the repo the way Copilot remembers it: `trustedFolders` in config.json."""
        config = self.home / ".copilot" / "config.json"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({"trustedFolders": [str(self.root)]}))

    def doctor_says(self) -> list[str]:
        """The statuses of `lessons doctor`'s Copilot checks, run with the client's home."""
        return [str(c["status"]) for c in self.doctor_checks(self.env(), "copilot")[1]]

    def client_log(self) -> str:
        """Everything the client logged under its home (hook errors land there)."""
        logs = sorted((self.home / ".copilot" / "logs").glob("*.log"))
        return "".join(path.read_text(errors="replace") for path in logs)


def session_id(events: list[dict[str, Any]]) -> str:
    """The session id in the final `result` event of a `--output-format json` run."""
    (result,) = [e for e in events if e.get("type") == "result"]
    return str(result["sessionId"])


def make_copilot_project(tmp_path: Path) -> CopilotProject:
    """A git repo with two lessons, wired with `lessons init --copilot`; close its server."""
    fake = FakeModel(scenarios={}, probe=released(tmp_path))
    return open_project(CopilotProject, tmp_path, fake, "--copilot")


def bash_call(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run it"})


def edit_call(root: Path, old: str, new: str) -> ToolCall:
    path = str(root / "src" / "app.py")
    return ToolCall("edit", {"path": path, "old_str": old, "new_str": new})
