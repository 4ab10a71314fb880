"""Secret detection for capture, and masking for anything written to a local log.

Capture uses Yelp's detect-secrets with its named detectors (cloud keys, tokens, private
keys, credentials in URLs, password assignments), then ``secret_shapes`` for what those do
not name: passwords on command lines and in words, provider tokens detect-secrets does
not know, and credentials hidden by format characters, spaces or base64. Its entropy
detectors are left out: they fire on ordinary identifiers and would refuse honest rules.
``mask_secrets`` uses a small set of patterns because it runs in the hook, where importing
detect-secrets would cost more than the hook itself; ``mask_thoroughly`` adds
``secret_shapes`` for the telemetry log, which is only written when telemetry is on.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from lessons_core.authoring import secret_shapes

_ENTROPY_PLUGINS = frozenset({"Base64HighEntropyString", "HexHighEntropyString"})


class SecretFinding(NamedTuple):
    field: str
    kind: str


def find_secrets(fields: dict[str, str]) -> list[SecretFinding]:
    """Named detectors over each field's lines; one finding per field and kind."""
    return find_secrets_in([fields])[0]


def find_secrets_in(batch: list[dict[str, str]]) -> list[list[SecretFinding]]:
    """``find_secrets`` for each of many field sets at once (setting detect-secrets up
    costs more than scanning a lesson)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class  # noqa: PLC0415 (heavy: detect-secrets)
    from detect_secrets.core.scan import scan_line  # noqa: PLC0415 (heavy: detect-secrets)
    from detect_secrets.settings import transient_settings  # noqa: PLC0415 (heavy: detect-secrets)

    detectors: list[Any] = list(get_mapping_from_secret_type_to_class().values())
    plugins: list[dict[str, str]] = [
        {"name": str(cls.__name__)} for cls in detectors if cls.__name__ not in _ENTROPY_PLUGINS
    ]

    def kinds_of(text: str) -> list[str]:
        lines = dict.fromkeys([*text.splitlines(), *secret_shapes.normalised(text).splitlines()])
        # A placeholder is no credential: postgres://user:password@host in a doc.
        named = {
            s.type
            for line in lines
            for s in scan_line(line)
            if not secret_shapes.is_placeholder(s.secret_value or "")
        }
        return sorted(named) or secret_shapes.kinds(text)

    seen: dict[str, list[str]] = {}  # lessons share triggers and topics: each text once
    results: list[list[SecretFinding]] = []
    with transient_settings({"plugins_used": plugins}):
        for fields in batch:
            found: list[SecretFinding] = []
            for name, text in fields.items():
                if text not in seen:
                    seen[text] = kinds_of(text)
                found.extend(SecretFinding(field=name, kind=kind) for kind in seen[text])
            results.append(found)
    return results


# Patterns for masking: provider tokens, key=value secrets, credentials in URLs, PEM blocks.
# Masking runs in the hook on text of any length (a failed command, a log line), so every
# pattern is linear: a match may only start where a run of its characters starts (a
# lookbehind, not ``\b``, which would also let it start inside a run such as "a.a.a..." and
# rescan the rest from every position) or at a fixed word (``password``), and a quantifier
# that backtracks is bounded.
_RUN = "(?<![A-Za-z0-9_-])"
_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----.*?"
            r"(?:-----END [A-Z ]{0,40}PRIVATE KEY-----|$)",
            re.S,
        ),
        "[private key]",
    ),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "[aws key]"),
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), "[token]"),
    (re.compile(_RUN + r"(?:glpat|glptt|gldt)-[A-Za-z0-9_-]{20,}"), "[token]"),
    (re.compile(_RUN + r"sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"), "[token]"),
    (re.compile(_RUN + r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"), "[token]"),
    (re.compile(_RUN + r"xox[abposr]-[A-Za-z0-9-]{10,}"), "[token]"),
    (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), "[token]"),
    (re.compile(_RUN + r"pypi-[A-Za-z0-9_-]{50,}"), "[token]"),
    (re.compile(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b"), "[token]"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), "[token]"),
    (
        re.compile(_RUN + r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        "[jwt]",
    ),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}"), r"\1 [secret]"),
    (
        re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,30}://)[^/\s:@]+:[^@\s/]+@"),
        r"\1[credentials]@",
    ),
    (
        re.compile(
            r"(?i)((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)"
            r"[\w.-]{0,100}\s*[:=]\s*)(['\"]?)[^\s'\"]{3,}\2"
        ),
        r"\1\2[secret]\2",
    ),
    (re.compile(r"(?i)(--?(?:password|token|api-key|secret)[= ])\S+"), r"\1[secret]"),
)


def mask_secrets(text: str) -> str:
    """Replace anything that looks like a credential with a placeholder."""
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    return text


def mask_thoroughly(text: str) -> str:
    """``secret_shapes.mask`` after ``mask_secrets``: also passwords on command lines and
    in words, and credentials split, hidden by format characters or base64-encoded. Costs
    more than ``mask_secrets``, so only the opt-in telemetry log uses it."""

    return secret_shapes.mask(mask_secrets(text))
