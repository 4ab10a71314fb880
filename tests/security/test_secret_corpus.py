"""The secret guard measured: every credential shape of the corpus refused at capture and
masked in the telemetry log, and no ordinary rule refused. The figures are printed (run
with ``-s`` to see them) and asserted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessons_core.authoring import secret_shapes
from lessons_core.authoring.guards import CaptureDraft, check_secrets
from lessons_core.authoring.secrets import mask_thoroughly
from lessons_core.errors import CaptureRefused
from lessons_core.store.config import Config
from lessons_core.store.model import Triggers
from lessons_core.store.project import init_project
from lessons_core.telemetry import log as telemetry
from tests.security.conftest import within
from tests.security.secret_corpus import SECRET_SHAPES, TRICKY_RULES, Ordinary, ordinary_rules

RULE = "Deploy the billing service with the release script only."


def refused(draft: CaptureDraft) -> bool:
    try:
        check_secrets(draft)
    except CaptureRefused as refusal:
        return refusal.code == "secret"
    return False


def as_draft(item: Ordinary) -> CaptureDraft:
    """An ordinary lesson as `lessons add` would get it: every trigger text is tried as
    a command pattern and as a keyword (what the guard reads is the text)."""
    return CaptureDraft(
        rule=item.rule,
        topics=("general",),
        triggers=Triggers(commands=item.triggers, keywords=item.triggers),
        rationale=item.rationale,
    )


def test_corpus_figures(tmp_path: Path) -> None:
    """Secrets refused N/N in the rule and in a command trigger, masked in the telemetry
    records N/N, ordinary rules falsely refused 0/N."""
    assert len(SECRET_SHAPES) >= 50
    ordinary = ordinary_rules()
    assert len(ordinary) >= 200
    assert sum(1 for item in ordinary if item.source.startswith("bench:")) == 576

    in_rule = [k for k, s in SECRET_SHAPES.items() if refused(_with_rule(s.text))]
    in_trigger = [k for k, s in SECRET_SHAPES.items() if refused(_with_command(s.text))]

    layout, _ = init_project(tmp_path)
    config = Config(telemetry=True)
    for shape in SECRET_SHAPES.values():
        assert telemetry.record_recall(
            layout, config, event="PreToolUse", key=shape.text, candidates=["x"],
            delivered=["x"], tokens=1, session="s", about="command", action=shape.text,
        )  # fmt: skip
    records = [json.loads(line) for line in telemetry.log_path(layout).read_text().splitlines()]
    assert len(records) == len(SECRET_SHAPES)
    masked = [
        kind
        for (kind, shape), record in zip(SECRET_SHAPES.items(), records, strict=True)
        if shape.secret not in record["key"] and shape.secret not in record["action"]
    ]
    false_refusals = [item.source for item in ordinary if refused(as_draft(item))]

    total = len(SECRET_SHAPES)
    print(
        f"\nsecrets refused in the rule {len(in_rule)}/{total}, "
        f"in a command trigger {len(in_trigger)}/{total}; "
        f"masked in telemetry {len(masked)}/{total}; "
        f"ordinary rules falsely refused {len(false_refusals)}/{len(ordinary)} "
        f"({len(TRICKY_RULES)} written to sit next to a credential)"
    )
    assert sorted(set(SECRET_SHAPES) - set(in_rule)) == []
    assert sorted(set(SECRET_SHAPES) - set(in_trigger)) == []
    assert sorted(set(SECRET_SHAPES) - set(masked)) == []
    assert false_refusals == []


def _with_rule(text: str) -> CaptureDraft:
    return CaptureDraft(
        rule=f"Deploy billing with {text} only.",
        topics=("deploy",),
        triggers=Triggers(keywords=("billing",)),
    )


def _with_command(text: str) -> CaptureDraft:
    return CaptureDraft(rule=RULE, topics=("deploy",), triggers=Triggers(commands=(text,)))


@pytest.mark.parametrize(
    "text",
    [
        "a b " * 50_000,
        "ghp_ " + "a1 " * 60_000,
        "eyJ" * 60_000,
        "eyJa " * 40_000,
        "A" * 200_000,
        "QUJD" * 50_000,
        "password=" * 20_000,
        "a=a&" * 50_000,
        "password is " * 15_000,
        "mysql -p " * 20_000,
        "mysql " * 35_000,
        "curl -u " * 25_000,
        "docker login " * 16_000,
        "curl -u a:" * 20_000,
        "sshpass -p x " * 15_000,
        "x://u:" * 30_000,
        "\u200b" * 100_000 + "ghp_",
        "ｇ" * 100_000,
    ],
    ids=lambda text: repr(text[:12]),
)
def test_detection_and_masking_are_linear_on_adversarial_text(text: str) -> None:
    """200 kB built to make a scan rescan itself is judged and masked within 2 s each."""
    within(2.0, lambda: secret_shapes.kinds(text))
    within(2.0, lambda: mask_thoroughly(text))
