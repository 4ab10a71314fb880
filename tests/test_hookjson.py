"""hookjson parses and writes exactly what the json module does, without importing it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_core import hookjson

_FLOATS = st.floats(allow_nan=False, allow_infinity=False)
_SCALARS = st.none() | st.booleans() | st.integers() | st.text() | _FLOATS
DOCUMENTS = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=20,
)


@given(DOCUMENTS)
def test_dumps_matches_the_json_module(value: object) -> None:
    """Compact output equals json.dumps with the same settings, ASCII or not."""
    compact = {"separators": (",", ":"), "allow_nan": False}
    assert hookjson.dumps(value) == json.dumps(value, ensure_ascii=False, **compact)  # type: ignore[arg-type]
    assert hookjson.dumps(value, ascii_only=True) == json.dumps(value, **compact)  # type: ignore[arg-type]


@given(DOCUMENTS, st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_loads_reads_back_what_json_writes(value: object, space: str) -> None:
    """Text and UTF-8 bytes, with surrounding white space, parse as json.loads parses them."""
    text = space + json.dumps(value, indent=1) + space
    assert hookjson.loads(text) == json.loads(text)
    assert hookjson.loads(text.encode("utf-8", "surrogatepass")) == json.loads(text)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "{", "[1,]", '{"a":1,}', "[1] [2]", "NaN", "[Infinity]", "-Infinity", '"\x01"'],
)
def test_loads_refuses_what_is_not_strict_json(text: str) -> None:
    """Empty, truncated, trailing data, NaN/Infinity and raw control characters: ValueError."""
    with pytest.raises(ValueError):
        hookjson.loads(text)


def test_a_byte_order_mark_is_skipped() -> None:
    """UTF-8 with a BOM (some editors write one) still parses."""
    assert hookjson.loads(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}


def test_dumps_refuses_nan_and_unknown_types() -> None:
    """NaN is not JSON, and an object it does not know is an error, not a repr."""
    with pytest.raises(ValueError):
        hookjson.dumps([float("nan")])
    with pytest.raises(TypeError):
        hookjson.dumps({"a": object()})


def test_importing_it_imports_no_json_package() -> None:
    """The point of the module: json (and the re it imports) stay unloaded."""
    code = "import sys; before = set(sys.modules); import lessons_core.hookjson as h; "
    code += "h.loads('[1]'); h.dumps({'a': 1}); new = set(sys.modules) - before; "
    code += "print(sorted(m for m in ('json', 're', 'typing') if m in new))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
