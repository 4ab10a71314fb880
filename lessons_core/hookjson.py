"""JSON for the hook path: the standard library's own C parser and encoder, without the
``json`` package around them.

``import json`` costs a hook ~6 ms (its decoder imports ``re``, and ``re`` imports
``enum`` and ``functools``), and orjson costs more (it imports ``dataclasses``, ``uuid``
and ``datetime``). The work itself is done by the C module ``_json`` either way; this
module drives it directly with the settings ``json.loads`` and ``json.dumps`` use, so
results are the same (``tests/test_hookjson.py`` checks that on generated documents).
Where ``_json`` is missing (not CPython), the ``json`` package is used.

Strict JSON only: ``NaN`` and ``Infinity`` are refused on reading and writing, like the
rest of the tool's files.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar

_WHITESPACE = " \t\n\r"


class DecodeError(ValueError):
    """Not a JSON document; the message says where."""


def _refuse_constant(name: str) -> Any:
    raise DecodeError(f"{name} is not JSON")


class _Context:
    """The settings the C scanner reads off a ``json.JSONDecoder``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_refuse_constant)
    memo: ClassVar[dict[str, str]] = {}


try:
    import _json

    # typeshed wants a JSONDecoder; the scanner reads only the attributes above.
    _scan: Callable[[str, int], tuple[Any, int]] | None = _json.make_scanner(_Context())  # type: ignore[arg-type]
    _encode_ascii = _json.encode_basestring_ascii
    _encode = _json.encode_basestring
except (ImportError, AttributeError):  # pragma: no cover (CPython always has _json)
    _scan = None


def loads(text: str | bytes) -> Any:
    """Parse one JSON document (UTF-8 bytes or text), as ``json.loads`` does."""
    if isinstance(text, bytes):
        text = text.decode("utf-8-sig" if text.startswith(b"\xef\xbb\xbf") else "utf-8")
    if _scan is None:  # pragma: no cover
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as stop:
        raise DecodeError(f"expecting a value at character {stop.value}") from None
    except ValueError as err:  # json.JSONDecodeError is not imported here: same meaning
        raise DecodeError(str(err)) from None
    finally:
        _Context.memo.clear()
    if text[end:].strip(_WHITESPACE):
        raise DecodeError(f"extra data at character {end}")
    return value


def dumps(value: Any, *, ascii_only: bool = False) -> str:
    """Compact JSON (``separators=(",", ":")``), keys in their order, no NaN."""
    if _scan is None:  # pragma: no cover
        import json

        return json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"), allow_nan=False)
    encoder = _json.make_encoder(
        {},  # markers: catches a value that contains itself
        _unknown,
        _encode_ascii if ascii_only else _encode,
        None,  # indent
        ":",
        ",",
        False,  # sort_keys
        False,  # skipkeys
        False,  # allow_nan
    )
    return "".join(encoder(value, 0))


def _unknown(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
