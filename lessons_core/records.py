"""``NamedTuple`` for the records a hook reads, without importing ``typing``.

Importing ``typing`` (which pulls in ``re``, ``collections``, ``functools`` and
``contextlib``) costs a hook about as much as starting Python itself (~8 ms on a 2-core
VM, measured whole-process), and a hook needs nothing from it at run time but the
``class Hit(NamedTuple): ...`` syntax. So modules the hook imports take ``NamedTuple``
from here: type checkers see ``typing.NamedTuple`` itself, and at run time the class
below builds the same kind of class: a tuple subclass with a property per field, keyword
and default arguments, ``_fields``, ``_field_defaults``, ``_make``, ``_replace``,
``_asdict`` and a readable ``repr``. Methods and properties in the class body are kept.
``overload`` is here for the same reason.

Modules on the hook path also write ``TYPE_CHECKING = False`` instead of importing it from
``typing``; type checkers treat any name ``TYPE_CHECKING`` as true.
"""

from __future__ import annotations

TYPE_CHECKING = False

__all__ = ["NamedTuple", "overload"]

if TYPE_CHECKING:
    from typing import NamedTuple, overload
else:

    def overload(function):
        """``typing.overload`` at run time: the last definition, the real one, wins."""
        return function

    # operator.py itself costs a hook ~0.5 ms; its itemgetter is _operator's.
    try:
        from _operator import itemgetter as _itemgetter
    except ImportError:  # an interpreter without CPython's built-in module
        from operator import itemgetter as _itemgetter

    class _RecordType(type):
        """Turns ``class X(NamedTuple): a: int = 1`` into a tuple subclass, as typing does."""

        def __new__(mcs, name, bases, namespace):
            if namespace.get("_root", False) or _Record not in bases:
                # The base itself, or a plain subclass of a record (typing.NamedTuple's
                # subclasses keep their fields and add none either).
                namespace.setdefault("__slots__", ())
                return super().__new__(mcs, name, bases, namespace)
            fields = tuple(namespace.get("__annotations__", {}))
            defaults = {field: namespace[field] for field in fields if field in namespace}
            for field in fields:
                if field.startswith("_"):
                    raise ValueError(f"field names cannot start with an underscore: {field}")
            if list(defaults) != list(fields[len(fields) - len(defaults) :]):
                raise TypeError(f"{name}: a field without a default follows one with a default")
            body = {
                key: value
                for key, value in namespace.items()
                if key not in defaults and key not in ("__annotations__", "__qualname__")
            }
            body.update(
                __slots__=(),
                _fields=fields,
                _field_defaults=defaults,
                __match_args__=fields,
                __qualname__=namespace.get("__qualname__", name),
            )
            for number, field in enumerate(fields):
                body[field] = property(_itemgetter(number), doc=f"Field {number}: {field}")
            return type.__new__(_RecordType, name, (_Record,), body)

    class _Record(tuple, metaclass=_RecordType):
        _root = True
        __slots__ = ()
        _fields: tuple[str, ...] = ()
        _field_defaults = {}  # noqa: RUF012 (each record class sets its own)

        def __new__(cls, *args, **kwargs):
            fields = cls._fields
            if len(args) > len(fields):
                raise TypeError(f"{cls.__name__} takes {len(fields)} fields, got {len(args)}")
            if not kwargs and len(args) == len(fields):
                return tuple.__new__(cls, args)
            values = list(args)
            for field in fields[len(args) :]:
                if field in kwargs:
                    values.append(kwargs.pop(field))
                elif field in cls._field_defaults:
                    values.append(cls._field_defaults[field])
                else:
                    raise TypeError(f"{cls.__name__} is missing the field {field!r}")
            if kwargs:
                raise TypeError(f"{cls.__name__} has no field {next(iter(kwargs))!r}")
            return tuple.__new__(cls, values)

        @classmethod
        def _make(cls, iterable):
            values = tuple(iterable)
            if len(values) != len(cls._fields):
                raise TypeError(f"{cls.__name__} takes {len(cls._fields)} fields")
            return tuple.__new__(cls, values)

        def _replace(self, **changes):
            values = [
                changes.pop(field, value) for field, value in zip(self._fields, self, strict=True)
            ]
            if changes:
                raise ValueError(f"{type(self).__name__} has no field {next(iter(changes))!r}")
            return tuple.__new__(type(self), values)

        def _asdict(self):
            return dict(zip(self._fields, self, strict=True))

        def __repr__(self):
            shown = ", ".join(
                f"{field}={value!r}" for field, value in zip(self._fields, self, strict=True)
            )
            return f"{type(self).__name__}({shown})"

        def __getnewargs__(self):
            return tuple(self)

    NamedTuple = _Record
