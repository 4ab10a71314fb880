"""Secret detection for capture, and masking for anything written to a local log.

Capture uses Yelp's detect-secrets with its named detectors (cloud keys, tokens, private
keys, credentials in URLs, password assignments). Its entropy detectors are left out: they
fire on ordinary identifiers and would refuse honest rules. Masking uses a small set of
patterns because it runs in the hook, where importing detect-secrets would cost ~80 ms.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

_ENTROPY_PLUGINS = frozenset({"Base64HighEntropyString", "HexHighEntropyString"})


class SecretFinding(NamedTuple):
    field: str
    kind: str


def find_secrets(fields: dict[str, str]) -> list[SecretFinding]:
    """Named detectors over each field's lines; one finding per field and kind."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import transient_settings

    detectors: list[Any] = list(get_mapping_from_secret_type_to_class().values())
    plugins: list[dict[str, str]] = [
        {"name": str(cls.__name__)} for cls in detectors if cls.__name__ not in _ENTROPY_PLUGINS
    ]
    found: list[SecretFinding] = []
    with transient_settings({"plugins_used": plugins}):
        for name, text in fields.items():
            kinds = sorted({s.type for line in text.splitlines() for s in scan_line(line)})
            kinds = kinds or _extra_kinds(text)
            found.extend(SecretFinding(field=name, kind=kind) for kind in kinds)
    return found


# Patterns for masking: provider tokens, key=value secrets, credentials in URLs, PEM blocks.
_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)", re.S
        ),
        "[private key]",
    ),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "[aws key]"),
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), "[token]"),
    (re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"), "[token]"),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), "[token]"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), "[token]"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), "[jwt]"),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}"), r"\1 [secret]"),
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^@\s/]+@"), r"\1[credentials]@"),
    (
        re.compile(
            r"(?i)\b([\w.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)"
            r"[\w.-]*\s*[:=]\s*)(['\"]?)[^\s'\"]{3,}\2"
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


def _extra_kinds(text: str) -> list[str]:
    """Tokens detect-secrets does not name (Anthropic/OpenAI keys, Google API keys, JWTs)."""
    masked = mask_secrets(text)
    if masked == text:
        return []
    return ["Credential-like value"]
