"""Protocol-buffer wire format, read by hand (no protobuf import).

In:  the bytes of one serialized message and a byte range of it.
Out: `read_varint(b, p)` -> (value, offset after it); `iter_fields(b, p, end)` yields
     (field number, wire type, start, stop, varint value or None) per field, raising
     ValueError on a malformed message. The TensorBoard event reader and the W&B
     datastore reader both decode their records with these.
"""
from __future__ import annotations


def read_varint(b: bytes, p: int) -> tuple[int, int]:
    """The base-128 varint at b[p]: (value, offset just after it)."""
    r = 0
    s = 0
    while True:
        c = b[p]
        p += 1
        r |= (c & 0x7F) << s
        if c < 0x80:
            return r, p
        s += 7
        if s > 63:
            raise ValueError("varint too long")


def iter_fields(b: bytes, p: int, end: int):
    """Yield (field, wiretype, start, stop, varint_value) for each field in b[p:end]."""
    while p < end:
        key, p = read_varint(b, p)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, q = read_varint(b, p)
            yield f, wt, p, q, v
        elif wt == 1:
            q = p + 8
            yield f, wt, p, q, None
        elif wt == 2:
            n, p = read_varint(b, p)
            q = p + n
            yield f, wt, p, q, None
        elif wt == 5:
            q = p + 4
            yield f, wt, p, q, None
        else:
            raise ValueError(f"wire type {wt}")
        if q > end:
            raise ValueError("field runs past its message")
        p = q
