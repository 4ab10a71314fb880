"""``lessons server``: the hook server, the warm process that answers hooks (Linux)."""

from __future__ import annotations

import time

import click
import orjson

from lessons_cli import hook_client
from lessons_cli.output import echo_json


@click.group("server")
def server_group() -> None:
    """Look at or stop the hook server (Linux).

    Hooks start it themselves: after a hook of this install answered in its own
    process, it starts one in the background, and the next hooks hand their calls to
    it, which saves them loading lessons anew on every tool call. It keeps no state
    between calls (each reads the store and the session files as a hook's own process
    does), serves only your own user, and exits after 15 minutes without a call, when
    its code changes, or when stopped here. LESSONS_HOOK_SERVER=0 in the harness's
    environment turns it off (docs/performance.md).

    \b
    Example:
      lessons server status
      lessons server stop
    """


@server_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def status_command(as_json: bool) -> None:
    """Say whether this install's hook server runs, and since when.

    \b
    Example:
      lessons server status
      lessons server status --json
    """
    reply = hook_client.request(hook_client.STATUS)
    status = orjson.loads(reply) if reply else None
    if as_json:
        echo_json(
            {"enabled": hook_client.enabled(), "running": status is not None, **(status or {})}
        )
        return
    if status is None:
        why = "" if hook_client.enabled() else f" (turned off: {hook_client.SWITCH})"
        click.echo(f"no hook server runs for this install{why}; hooks answer in their own process")
        return
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(status["started"]))
    click.echo(
        f"hook server {status['pid']} runs since {since}, {status['requests']} requests so "
        f"far\n  python:  {status['python']}\n  package: {status['package']}"
    )


@server_group.command("stop")
def stop_command() -> None:
    """Stop this install's hook server; the next hook answers in its own process and
    starts a new one.

    \b
    Example:
      lessons server stop
    """
    stopped = hook_client.request(hook_client.STOP) is not None
    click.echo("hook server stopped" if stopped else "no hook server runs for this install")
