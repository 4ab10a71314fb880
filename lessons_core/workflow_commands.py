"""GitHub Actions workflow commands (``::error file=...::message``), escaped.

A workflow command's message and properties are escaped the way GitHub's own toolkit
(``@actions/core``) escapes them: ``%``, CR and LF in both, and ``:`` and ``,`` in a
property too, so a file name or a rule holding them cannot end the command early or
start another one.
"""

from __future__ import annotations


def annotation(level: str, message: str, **properties: str | int | None) -> str:
    """``::LEVEL k=v,...::MESSAGE``, each part escaped; a property given None is left out."""
    props = ",".join(
        f"{key}={escape_property(str(value))}"
        for key, value in properties.items()
        if value is not None
    )
    return f"::{level} {props}::{escape_data(message)}"


def escape_data(text: str) -> str:
    """Escape a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
