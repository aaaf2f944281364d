"""The answer to a line of the client's that is no JSON-RPC request: a parse error or an
invalid request, with the request's id where it can be read, as JSON-RPC 2.0 says."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError, RequestId
from pydantic import ValidationError


def unreadable(error: Exception) -> JSONRPCError | None:
    """The answer to a line of the client's that is no JSON-RPC request, `error` being why the
    SDK's stdio transport could not read it: not JSON (or JSON its parser refuses: a lone
    surrogate, nesting too deep, a number too long), a parse error, with the request's id when
    `_outline` can read it (else null); JSON but no request (no method, a method that is no
    string, an array: MCP sends no batches), an invalid request, with its id when it has one.
    None: a blank line, or what reads as a response (a response is never answered)."""
    found = error.errors() if isinstance(error, ValidationError) else []
    if not found or found[0]["type"] == "json_invalid":
        return _parse_error(found[0] if found else None)
    message = next((item["input"] for item in found if isinstance(item["input"], dict)), {})
    if _is_response(message):
        return None
    problem = ErrorData(
        code=INVALID_REQUEST, message="Invalid request: not a JSON-RPC 2.0 request with a method"
    )
    return JSONRPCError(jsonrpc="2.0", id=_request_id(message.get("id")), error=problem)


def _parse_error(invalid: Mapping[str, Any] | None) -> JSONRPCError | None:
    """The answer to a line that is not JSON: `invalid` is the validation error the JSON
    parser's refusal became (None: no such detail)."""
    line = invalid["input"] if invalid is not None else None
    if isinstance(line, str) and not line.strip():
        return None
    members = _outline(line) if isinstance(line, str) else {}
    if _is_response(members):
        return None
    why = str(invalid["msg"]).removeprefix("Invalid JSON: ") if invalid is not None else "not JSON"
    said = f"Parse error: the line cannot be read as JSON ({why})"
    problem = ErrorData(code=PARSE_ERROR, message=said)
    return JSONRPCError(jsonrpc="2.0", id=_request_id(members.get("id")), error=problem)


def _is_response(members: Mapping[str, object]) -> bool:
    """Whether a message's members make it a response (a result or an error, no method)."""
    return "method" not in members and ("result" in members or "error" in members)


def _request_id(given: object) -> RequestId | None:
    """A request's id, read from its JSON text (`_outline`) or as parsed: a string or an
    integer; anything else (a boolean, a fraction, an integer too long to read) is none."""
    if isinstance(given, _Scalar):
        try:
            given = json.loads(given.text)
        except ValueError:
            return None
    return given if isinstance(given, int | str) and not isinstance(given, bool) else None


@dataclass(frozen=True)
class _Scalar:
    """A member's value as its JSON text: a string, a number or a literal."""

    text: str


# The tokens of a JSON text: a string (escapes and all), a run of opening brackets, a run of
# closing ones, a colon or comma, or a run of anything else (a number, a literal, junk). Every
# repeat is possessive: a string left open fails at once, not after giving back each letter.
_TOKEN = re.compile(
    r'\s*+(?:("[^"\\]*+(?:\\.[^"\\]*+)*+")|([{\[]++)|([}\]]++)|([:,])|([^\s"{}\[\]:,]++))'
)
MAX_TOKENS = 10_000  # of a refused line, read for its id: 20 ms at most


def _outline(line: str) -> dict[str, _Scalar | None]:
    """The members of the outer object of a line the JSON parser refused, read as far as its
    tokens go (MAX_TOKENS at most), in one pass, nesting counted and not followed: each key,
    with its value when that is a string, a number or a literal (None: an object or array).
    A line nested too deep, with a number too long or a lone surrogate, or broken after its
    id, still tells its id and whether it is a request."""
    members: dict[str, _Scalar | None] = {}
    depth, key, expecting, position = 0, "", "key", 0
    for _ in range(MAX_TOKENS):
        token = _TOKEN.match(line, position)
        if token is None or token.end() == position:
            break
        position, kind = token.end(), token.lastindex or 0
        text = token.group(kind)
        if depth == 0 and text != "{":
            break
        if kind == 2:
            if depth == 1:
                key, expecting = _member(members, key, expecting, kind, text)
            depth += len(text)
        elif kind == 3:
            depth -= len(text)
            if depth < 1:
                break
        elif depth == 1:
            key, expecting = _member(members, key, expecting, kind, text)
    return members


def _member(
    members: dict[str, _Scalar | None], key: str, expecting: str, kind: int, text: str
) -> tuple[str, str]:
    """One token of the outer object (`kind`: 1 a string, 2 opening brackets, 4 a colon or
    comma, 5 other text), a value put in `members`: the key read last and what comes next."""
    if kind == 1 and expecting == "key":
        return _key(text), ":"
    if text == ":" and expecting == ":":
        return key, "value"
    if expecting == "value" and kind in (1, 2, 5):
        members[key] = None if kind == 2 else _Scalar(text)
        return key, ""
    return key, "key" if text == "," else expecting


def _key(text: str) -> str:
    """A key as its JSON string says it ("" if it cannot be read)."""
    try:
        return str(json.loads(text))
    except ValueError:
        return ""
