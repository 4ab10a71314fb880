"""Capture refuses secrets: a provider token, password or connection string in the rule,
the rationale or the evidence stops `lessons add` with the field named, and nothing is
written."""

from __future__ import annotations

import pytest

from lessons_core.store.layout import Layout
from tests.conftest import lesson_count, run
from tests.security.test_secret_masking import SECRETS

RULE = "Deploy the billing service with the release script only."
CREDENTIALS = {
    **SECRETS,
    "password": "export DB_PASSWORD=hunter2hunter2",
    "connection string": "postgres://admin:hunter2secret@db.internal/prod",
    "odbc": "Server=db;User Id=sa;Password=Tr0ub4dor;",
    "bearer": "Authorization: Bearer abcdefghijklmnop1234",
}  # a PEM key block is refused as rationale in tests/test_capture_guards.py


def add_with(field: str, secret: str) -> list[str]:
    """`lessons add` arguments with ``secret`` placed in ``field``."""
    args = [RULE, "--topic", "deploy", "--trigger-keyword", "billing"]
    if field == "rule":
        args[0] = f"Deploy billing with {secret} only."
    elif field == "rationale":
        args += ["--rationale", f"The script reads {secret} itself."]
    else:
        args += ["--evidence", secret]
    return args


@pytest.mark.parametrize("field", ["rule", "rationale", "evidence"])
@pytest.mark.parametrize("kind", sorted(CREDENTIALS))
def test_capture_refuses_a_secret_in_any_field(repo: Layout, kind: str, field: str) -> None:
    """Exit 1, 'looks like a secret' with the field, the fix, and no lesson file."""
    result = run("add", *add_with(field, CREDENTIALS[kind]))
    assert result.exit_code == 1, (kind, field, result.stdout)
    assert "what looks like a secret would be committed" in result.stderr
    assert f"({field}" in result.stderr
    assert "fix: remove the credential" in result.stderr
    assert result.stdout == ""
    assert lesson_count(repo) == 0
