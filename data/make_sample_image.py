#!/usr/bin/env python3
"""Writes ../apps/server_page/sample.png: a pair of trousers drawn for this project in the
style of Fashion-MNIST (28x28, 8-bit grey, a light garment centred on black), the image
translate_server's page offers to classify with one click. Drawn from polygons (4x4
supersampled edges) and a fixed weave, so nothing is copied from the dataset; deterministic,
standard library only. Run it from this folder to regenerate the file."""

import struct
import zlib
from pathlib import Path

SIZE = 28
SUB = 4  # supersampling per axis, for soft edges

# The garment in pixel coordinates (x right, y down): the waist and the two legs, which part
# below the crotch and widen a little towards the hems.
WAIST = [(8.0, 1.5), (20.0, 1.5), (20.4, 11.0), (7.6, 11.0)]
LEFT_LEG = [(7.6, 10.0), (14.0, 10.0), (14.0, 11.5), (12.4, 26.5), (6.4, 26.5)]
RIGHT_LEG = [(14.0, 10.0), (20.4, 10.0), (21.6, 26.5), (15.6, 26.5), (14.0, 11.5)]
SHAPES = [WAIST, LEFT_LEG, RIGHT_LEG]


def inside(polygon, x, y):
    """Even-odd rule."""
    result = False
    for (x0, y0), (x1, y1) in zip(polygon, polygon[1:] + polygon[:1]):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            result = not result
    return result


def coverage(px, py):
    hits = 0
    for sy in range(SUB):
        for sx in range(SUB):
            x, y = px + (sx + 0.5) / SUB, py + (sy + 0.5) / SUB
            hits += any(inside(shape, x, y) for shape in SHAPES)
    return hits / (SUB * SUB)


def shade(px, py):
    """The cloth's grey: a brighter waistband, a darker crease down each leg, a faint weave."""
    value = 196
    if py < 3.5:
        value = 222
    if py >= 11 and (px in (10, 18)):
        value -= 24
    value += ((px * 7 + py * 13) % 5) * 3 - 6
    return value


def pixels():
    rows = []
    for py in range(SIZE):
        row = bytearray()
        for px in range(SIZE):
            row.append(max(0, min(255, round(coverage(px, py) * shade(px, py)))))
        rows.append(bytes(row))
    return rows


def png(rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 0, 0, 0, 0)  # 8-bit greyscale
    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 on every row
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


if __name__ == "__main__":
    out = Path(__file__).resolve().parent.parent / "apps" / "server_page" / "sample.png"
    out.write_bytes(png(pixels()))
    print(f"wrote {out}")
