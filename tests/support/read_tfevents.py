#!/usr/bin/env python3
"""Reads a TensorBoard event file without TensorFlow or TensorBoard (neither is packaged by
Debian): TFRecords checked with their masked CRC-32C, Event and Summary protocol buffers
decoded by hand, written independently of the C++ reader. Prints one line per scalar,
"tag<TAB>step<TAB>wall time<TAB>value" (the float32 value to 9 significant digits); exits 1
with a message on a bad record."""
import struct
import sys


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def fields(message):
    """Yields (number, wire type, value) of a protocol buffer."""
    at = 0

    def varint():
        nonlocal at
        value, shift = 0, 0
        while True:
            byte = message[at]
            at += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7

    while at < len(message):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            yield number, wire, varint()
        elif wire == 1:
            yield number, wire, message[at:at + 8]
            at += 8
        elif wire == 2:
            size = varint()
            yield number, wire, message[at:at + size]
            at += size
        elif wire == 5:
            yield number, wire, message[at:at + 4]
            at += 4
        else:
            raise ValueError("wire type %d" % wire)


def scalars(path):
    data = open(path, "rb").read()
    at, out, record = 0, [], 0
    while at < len(data):
        record += 1
        header = data[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[at + 8:at + 12])
        if masked(header) != length_crc:
            sys.exit("%s: record %d: bad length checksum" % (path, record))
        event = data[at + 12:at + 12 + length]
        (event_crc,) = struct.unpack("<I", data[at + 12 + length:at + 16 + length])
        if masked(event) != event_crc:
            sys.exit("%s: record %d: bad event checksum" % (path, record))
        at += 16 + length
        wall_time, step, summaries = 0.0, 0, []
        for number, wire, value in fields(event):
            if number == 1 and wire == 1:
                (wall_time,) = struct.unpack("<d", value)
            elif number == 2 and wire == 0:
                step = value
            elif number == 5 and wire == 2:
                summaries.append(value)
        for summary in summaries:
            for number, wire, value in fields(summary):
                if number != 1 or wire != 2:
                    continue
                tag, simple = None, None
                for part, part_wire, part_value in fields(value):
                    if part == 1 and part_wire == 2:
                        tag = part_value.decode("utf-8")
                    elif part == 2 and part_wire == 5:
                        (simple,) = struct.unpack("<f", part_value)
                if simple is not None:
                    out.append({"tag": tag, "step": step, "wall_time": wall_time, "value": simple})
    return out


if __name__ == "__main__":
    for scalar in scalars(sys.argv[1]):
        print("%s\t%d\t%r\t%.9g" % (scalar["tag"], scalar["step"], scalar["wall_time"], scalar["value"]))
