"""records.NamedTuple behaves like typing.NamedTuple for the records the hook reads."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

from lessons_core.records import NamedTuple


class Point(NamedTuple):
    """A record with a default, a method and a property."""

    x: int
    y: int = 0

    def total(self) -> int:
        return self.x + self.y

    @property
    def label(self) -> str:
        return f"{self.x}/{self.y}"


def test_fields_defaults_and_access() -> None:
    """Positional, keyword and default arguments; fields by name and by index."""
    point = Point(1, y=2)
    assert (point.x, point.y, point[0], point[1]) == (1, 2, 1, 2)
    assert Point(3) == (3, 0)
    assert Point(x=4) == Point(4, 0)
    assert Point._fields == ("x", "y")
    assert Point._field_defaults == {"y": 0}
    assert Point.__doc__ == "A record with a default, a method and a property."


def test_methods_properties_and_helpers() -> None:
    """Class-body methods and properties survive; _replace, _make, _asdict, repr work."""
    point = Point(1, 2)
    assert point.total() == 3
    assert point.label == "1/2"
    assert point._replace(y=5) == Point(1, 5)
    assert isinstance(point._replace(y=5), Point)
    assert Point._make([7, 8]) == Point(7, 8)
    assert point._asdict() == {"x": 1, "y": 2}
    assert repr(point) == "Point(x=1, y=2)"
    assert pickle.loads(pickle.dumps(point)) == point
    x, y = point
    assert (x, y) == (1, 2)


def test_wrong_arguments_are_errors() -> None:
    """A missing field, an unknown field or too many values raise, as typing's do."""
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, z=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, 3)  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        Point(1)._replace(z=2)  # type: ignore[call-arg]


def test_records_do_not_import_typing() -> None:
    """Defining and using a record leaves typing unloaded."""
    code = (
        "import sys\nbefore = set(sys.modules)\nfrom lessons_core.records import NamedTuple\n"
        "class R(NamedTuple):\n    a: int\n    b: str = ''\n"
        "assert R(1)._replace(b='x') == (1, 'x')\nprint('typing' in set(sys.modules) - before)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_subclass_keeps_the_fields_and_rules_are_checked() -> None:
    """A subclass adds methods and keeps the fields; a field without a default after one
    with a default, or an underscore name, is refused, as typing refuses them."""

    class Labelled(Point):
        def describe(self) -> str:
            return f"point {self.label}"

    assert Labelled(1, 2).describe() == "point 1/2"
    assert Labelled(1, 2) == (1, 2)
    with pytest.raises(TypeError):

        class Broken(NamedTuple):
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(ValueError):

        class Hidden(NamedTuple):
            _a: int  # type: ignore[misc]
