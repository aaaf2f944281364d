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
