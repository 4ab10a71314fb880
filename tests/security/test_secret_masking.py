"""Masking: every token, key, password and connection string is replaced, in linear time,
in the failure nudge the hook prints, in the hook log and in the telemetry log."""

from __future__ import annotations

import json

import pytest

from lessons_core.authoring.secrets import mask_secrets
from lessons_core.delivery.hooklog import MAX_LINE_CHARS, log_path
from lessons_core.jsonio import dumps
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.telemetry import log as telemetry
from tests.conftest import save_lesson
from tests.hooks.conftest import call_hook
from tests.security.conftest import checked_answer, within
from tests.security.secret_corpus import SECRET_SHAPES

H = "claude-code"

# One credential of each kind masking knows, as it appears in a command or a log line.
SECRETS = {
    "aws key": "AKIAIOSFODNN7EXAMPLE",
    "github": "ghp_" + "a1B2c3D4e5" * 4,
    "github fine-grained": "github_pat_" + "11ABCDEFG0" * 4,
    "gitlab": "glpat-" + "x1Y2z3W4v5U6t7S8r9Q0",
    "openai": "sk-proj-" + "Ab3dEf6hIj9lMn" * 3,
    "anthropic": "sk-ant-api03-" + "Zx8Cv7Bn6Mq5" * 4,
    "stripe": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "slack": "xoxb-" + "1234567890-abcdefghij",
    "npm": "npm_" + "a1b2c3d4e5f6" * 3,
    "pypi": "pypi-AgEIcHlwaS5vcmc" + "CJDEwMWUxYjYtNTM0" * 4,
    "sendgrid": "SG." + "a" * 22 + "." + "b" * 43,
    "google": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_provider_tokens_are_masked_wherever_they_sit(kind: str) -> None:
    """A provider token alone, in a header, in an argument or after '=' never survives."""
    token = SECRETS[kind]
    for text in (token, f"curl -H 'X-Auth: {token}' x", f"deploy {token} now", f"KEY={token}"):
        masked = mask_secrets(text)
        assert token not in masked, (kind, masked)
        assert token[6:20] not in masked, (kind, masked)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("export DB_PASSWORD=hunter2hunter2", "hunter2hunter2"),
        ("psql --password s3cr3t-pw", "s3cr3t-pw"),
        ("config.api_key: 'abc123def456'", "abc123def456"),
        ("Authorization: Bearer abcdefghijklmnop1234", "abcdefghijklmnop1234"),
        ("postgres://admin:hunter2secret@db.internal/prod", "hunter2secret"),
        ("mongodb+srv://svc:Pa55word@cluster0.example.net/app", "Pa55word"),
        ("Server=db;User Id=sa;Password=Tr0ub4dor;", "Tr0ub4dor"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAK\n-----END RSA PRIVATE KEY-----", "MIIE"),
    ],
)
def test_passwords_keys_and_connection_strings_are_masked(text: str, secret: str) -> None:
    """key=value secrets, bearer tokens, URL credentials and PEM blocks are replaced."""
    assert secret not in mask_secrets(text)


def test_ordinary_text_is_left_alone() -> None:
    """Commands and paths without credentials come back unchanged."""
    for text in ("pnpm test:e2e --filter web", "src/api/token_store.py", "cd $(pwd) && ls -la"):
        assert mask_secrets(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "a." * 100_000,
        "token" * 40_000,
        "eyJ-" * 50_000,
        "a." * 100_000 + "://",
        "x://u:" * 30_000,
        'password="' * 20_000,
        "-----BEGIN " * 20_000,
        "bearer " * 30_000,
        "sk-" * 60_000,
    ],
    ids=lambda text: repr(text[:10]),
)
def test_masking_is_linear_on_adversarial_text(text: str) -> None:
    """200 kB built to make a backtracking pattern rescan itself is masked within a second."""
    within(1.0, lambda: mask_secrets(text))


NO_TARGET = "Exit code 2\nmake: *** No rule to make target 'release'.  Stop."


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_failure_nudge_from_the_real_hook_never_quotes_a_token(
    kind: str, project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed call carrying a token: the hook nudges with a trigger free of it, or, when
    the trigger itself would quote the token, not at all."""
    monkeypatch.chdir(project.root)
    token = SECRETS[kind]
    failures = [
        ("Bash", {"command": f"make release --token {token}"}, "^make release"),
        ("Bash", {"command": f"{token} deploy now"}, None),
        ("Bash", {"command": f"cd web && {token} release"}, None),
        ("Write", {"file_path": str(project.root / "config" / f"{token}.env")}, None),
    ]
    for number, (tool, tool_input, trigger) in enumerate(failures):
        data = {"hook_event_name": "PostToolUseFailure", "session_id": f"s{number}",
                "cwd": str(project.root), "tool_name": tool, "tool_input": tool_input,
                "error": NO_TARGET}  # fmt: skip
        text = checked_answer(H, "PostToolUseFailure", call_hook(H, data))
        if trigger is None:
            assert text is None
        else:
            assert text is not None
            assert trigger in text
            assert token[6:20] not in text


def test_hook_log_line_is_masked_flat_and_bounded(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An event name with a newline, a forged entry, a token and 100 kB of noise, on a
    call that fails: one log line, no token, nothing forged, at most 500 characters."""
    monkeypatch.chdir(project.root)
    token = SECRETS["github"]
    event = f"PreToolUse\n2026-01-01T00:00:00 forged entry {token}\x1b[31m" + "x" * 100_000
    # Lessons read from outside the repo through a link: refused, logged with the event.
    outside = project.root.parent / "elsewhere"
    project.lessons_dir.rename(outside)
    project.lessons_dir.symlink_to(outside)
    data = {"hook_event_name": event, "cwd": str(project.root), "tool_name": "Bash"}
    assert call_hook(H, data) == b""
    lines = log_path(project.root).read_text().splitlines()
    assert len(lines) == 1
    assert token not in lines[0]
    assert "\x1b" not in lines[0]
    assert "LeavesRepo" in lines[0]
    assert len(lines[0]) <= len("2026-01-01T00:00:00 ") + MAX_LINE_CHARS


def test_telemetry_masks_every_token_before_writing(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With telemetry on, the recall and failure records the real hook appends for calls
    carrying each kind of credential, and each shape of the secret corpus, hold none of
    them."""
    monkeypatch.chdir(project.root)
    project.config_path.write_bytes(dumps(Config(telemetry=True).to_dict()))
    save_lesson(project, "deploy-smoke", "Run the smoke check first.", commands=("deploy",))
    calls = [f"deploy --token {token}" for token in SECRETS.values()]
    calls += ["DB_URL=postgres://admin:hunter2secret@db/prod deploy", "deploy -p Tr0ub4dor"]
    calls += [f"deploy {shape.text}" for shape in SECRET_SHAPES.values()]
    for number, command in enumerate(calls):
        for event in ("PreToolUse", "PostToolUseFailure"):
            data = {"hook_event_name": event, "session_id": f"s{number}",
                    "cwd": str(project.root), "tool_name": "Bash",
                    "tool_input": {"command": command}}  # fmt: skip
            call_hook(H, data)
    log = telemetry.log_path(project).read_text()
    records = [json.loads(line) for line in log.splitlines()]
    assert [r["kind"] for r in records].count("recall") == len(calls)
    assert [r["kind"] for r in records].count("failure") == len(calls)
    for secret in [*SECRETS.values(), "hunter2secret"]:
        assert secret[6:20] not in log, secret
    assert [kind for kind, shape in SECRET_SHAPES.items() if shape.secret in log] == []
