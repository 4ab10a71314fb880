"""Just enough PNG decoding to look at a browser screenshot's pixels (8-bit RGB/RGBA)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {2: 3, 6: 4}  # colour type -> bytes per pixel at 8 bits


def read_rows(path: Path) -> tuple[int, int, list[bytes]]:
    """(width, height, unfiltered rows) of a non-interlaced 8-bit RGB or RGBA PNG."""
    data = path.read_bytes()
    if not data.startswith(_SIGNATURE):
        raise ValueError(f"{path} is not a PNG")
    position, idat, header = len(_SIGNATURE), b"", b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in _CHANNELS or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}")
    pixel = _CHANNELS[colour]
    raw = zlib.decompress(idat)
    stride = width * pixel
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for x in range(stride):
            left = line[x - pixel] if x >= pixel else 0
            up = previous[x]
            corner = previous[x - pixel] if x >= pixel else 0
            line[x] = (line[x] + _predict(kind, left, up, corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def _predict(kind: int, left: int, up: int, corner: int) -> int:
    if kind == 0:
        return 0
    if kind == 1:
        return left
    if kind == 2:
        return up
    if kind == 3:
        return (left + up) // 2
    estimate = left + up - corner
    distances = (abs(estimate - left), abs(estimate - up), abs(estimate - corner))
    return (left, up, corner)[distances.index(min(distances))]


def distinct_colours(path: Path, step: int = 4) -> int:
    """How many different pixel values a grid of every ``step``-th pixel holds."""
    width, _, rows = read_rows(path)
    pixel = len(rows[0]) // width
    seen = {
        row[x * pixel : x * pixel + pixel] for row in rows[::step] for x in range(0, width, step)
    }
    return len(seen)
