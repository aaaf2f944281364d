"""Content fingerprints: `xxh3:<16 hex>` by default, `fnv1a64:<16 hex>` understood."""

from __future__ import annotations

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = 0xFFFFFFFFFFFFFFFF


def fnv1a64(data: bytes) -> int:
    """Return the 64-bit FNV-1a hash of `data`."""
    value = _FNV_OFFSET
    for byte in data:
        value = ((value ^ byte) * _FNV_PRIME) & _MASK
    return value


def xxh3(data: bytes) -> int:
    """Return the 64-bit xxHash3 of `data`."""
    import xxhash

    return int(xxhash.xxh3_64_intdigest(data))


_ALGORITHMS = {"xxh3": xxh3, "fnv1a64": fnv1a64}


def fingerprint(data: bytes, algorithm: str = "xxh3") -> str:
    """Return `<algorithm>:<16 hex digits>` for `data`."""
    return f"{algorithm}:{_ALGORITHMS[algorithm](data):016x}"


def algorithm_of(stored: str) -> str | None:
    """Return the algorithm named by a stored fingerprint, or None if it is not one we know."""
    name, sep, digits = stored.partition(":")
    if not sep or name not in _ALGORITHMS or len(digits) != 16:
        return None
    try:
        int(digits, 16)
    except ValueError:
        return None
    return name


def matches(data: bytes, stored: str) -> bool:
    """Tell whether `data` has the fingerprint `stored`, using the algorithm it names."""
    name = algorithm_of(stored)
    return name is not None and fingerprint(data, name) == stored


def expect(path: object, expected: str | None, shown: str) -> None:
    """Refuse to go on unless the file at `path` still has the fingerprint the caller read.

    `expected` is a stored fingerprint, or "none" for a file that must not exist yet; None
    means the caller made no claim. Raises Conflict (exit 2) with the current fingerprint.
    """
    from pathlib import Path

    from skillwiki.errors import Conflict, InputError

    if expected is None:
        return
    if expected != "none" and algorithm_of(expected) is None:
        raise InputError(None, "--expect-fingerprint must look like xxh3:<16 hex digits> (or none)")
    try:
        data = Path(str(path)).read_bytes()
    except FileNotFoundError:
        current = "none"
    else:
        current = fingerprint(data, algorithm_of(expected) or "xxh3")
    if current != expected:
        raise Conflict(
            f"{shown}: changed since you read it (expected {expected}, now {current}); "
            "read it again, then retry"
        )
