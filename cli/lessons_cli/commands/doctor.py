"""``lessons doctor``: whether the wired hooks will really run here, and the fix if not."""

from __future__ import annotations

import os

import click

from lessons_cli.checks import OK
from lessons_cli.doctor import diagnose, exit_code
from lessons_cli.output import echo_json
from lessons_core.store.layout import find_layout


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print every check as JSON.")
def doctor_command(as_json: bool) -> None:
    """Check that every wired harness will run the hooks here; exit 1 if one would not.

    Looks at the store (it validates, the cached index is fresh), the launcher
    .lessons/run (it finds an install of lessons from this environment, so the agent's
    shell can run it too) and, for each harness wired in this repo, its settings and the
    switches outside the repo that make a harness skip hooks without a word (Claude
    Code's disableAllHooks, Codex's project and hook trust, Gemini CLI's folder trust
    and hook settings). Each problem comes with its fix.

    \b
    Example:
      lessons doctor
      lessons doctor --json
    """
    layout = find_layout()
    checks = diagnose(layout, dict(os.environ))
    code = exit_code(checks)
    if as_json:
        echo_json(
            {"root": str(layout.root), "ok": code == 0, "checks": [c.to_dict() for c in checks]}
        )
    else:
        click.echo(f"lessons doctor: {layout.root}")
        for check in checks:
            click.echo(f"  {check.status.upper():<5} {check.subject:<12} {check.detail}")
            if check.status != OK and check.fix:
                click.echo(f"  {'':<5} {'':<12} fix: {check.fix}")
    if code:
        raise SystemExit(code)
