"""One JSON-RPC message as it arrives on the wire (a stdio line or an HTTP body), checked before the SDK sees it,
and the error, in our own words, for one it would drop or answer with its parser's internals (stdio and HTTP).

A message the SDK's own parser takes goes straight through (the fast path). Only a message it refuses is looked
at again, to say what was wrong: not UTF-8, not JSON, nested too deep, a batch, a wrong "jsonrpc", no method,
params that are not an object, a lone surrogate escape, an id that is neither a string nor an integer.
Every such message that carries an id is answered with that id, and one whose id cannot be determined (not JSON,
an id that is neither a string nor a number, no id at all) with id null, as JSON-RPC 2.0 has it; only a broken
response (to a request of the server's) has nothing to answer: stdio drops it with a log line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import mcp_types
from pydantic import ValidationError

from scratchpad_core.limits import Limits

from .calls import clipped

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# The SDK's JSON parser takes a message nested at most this many levels deep (the envelope object is level 1).
MAX_DEPTH = 201
KEPT_BYTES = 64 * 1024  # what is kept of each end of a message too long to hold, to find its id in
NO_ID = object()  # no id to be found (not JSON, an id of the wrong type, none at all): answered with id null
A_RESPONSE = object()  # a broken response to one of the server's requests: never answered over stdio
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte-order mark, which some writers put ahead of a message
LINE_ADVICE = "Send one JSON-RPC message per line."  # stdio's framing
BODY_ADVICE = "Send one JSON-RPC message as the request body."  # HTTP's
SURROGATE = re.compile("[\ud800-\udfff]")  # after json.loads, any surrogate left in a str is a lone one
_ID_VALUE = rb'(-?\d{1,40}|"(?:[^"\\]|\\.){0,512}")'  # a string or integer id, as JSON
# The top-level id of a message that cannot be parsed whole (cut, too long, not JSON): right after the opening
# brace (or "jsonrpc" and "method"), or its last key, just before the closing brace that ends the message. A nested
# "id" (in the arguments) is neither: it is followed by a brace closing an inner object, or by more of the message.
LEADING_ID = re.compile(
    rb'\A(?:\xef\xbb\xbf)?\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,128}"\s*,)*\s*"id"\s*:\s*'
    + _ID_VALUE
    + rb"(?=\s*[,}])"
)
TRAILING_ID = re.compile(rb'[{,]\s*"id"\s*:\s*' + _ID_VALUE + rb"\s*\}\s*\Z")


def max_message_bytes(limits: Limits) -> int:
    """Just above the largest allowed write: its content may grow six-fold as JSON (control characters as \\u00XX).
    The bound of an HTTP body and of a stdio line alike."""
    return 6 * limits.max_file_bytes + 64 * 1024


@dataclass(frozen=True)
class Refusal:
    """A message refused before the SDK saw it: the JSON-RPC error to answer with, if it had an id."""

    request_id: Any  # the id as sent (a string or a number), NO_ID (answered with null) or A_RESPONSE
    code: int
    message: str

    @property
    def answerable(self) -> bool:
        """Whether a transport free to stay silent (stdio) answers it: all but a broken response."""
        return self.request_id is not A_RESPONSE

    @property
    def has_id(self) -> bool:
        return self.request_id is not NO_ID and self.request_id is not A_RESPONSE

    def payload(self) -> dict[str, Any]:
        request_id = self.request_id if self.has_id else None
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": self.code, "message": self.message}}

    def encoded(self) -> bytes:
        """Compact JSON; ASCII-escaped, so an id holding a lone surrogate goes back exactly as it was sent."""
        return json.dumps(self.payload(), separators=(",", ":"), ensure_ascii=True).encode()


Checked = mcp_types.JSONRPCMessage | list[Refusal]


def check(data: bytes, advice: str = LINE_ADVICE) -> Checked:
    """The message in `data`, or the refusals to answer it with (one per request with an id, else one with id
    null); `advice` ends a parse error: how the transport frames a message."""
    try:
        message = mcp_types.jsonrpc_message_adapter.validate_json(data, by_name=False)
    except ValidationError:
        return diagnose(data, advice)
    if isinstance(message, mcp_types.JSONRPCNotification) and b'"id"' in data:
        return diagnose(data, advice)  # a request whose id the SDK's parser ignored (1.5, true): it would go unanswered
    return message


def oversized(head: bytes, tail: bytes, size: int | None, bound: int) -> list[Refusal]:
    """A message longer than the bound, of which its first and last bytes were kept (as much as arrived: the tail
    of one refused part way is not its end). `size`: its length in bytes, when known (read through, or declared)."""
    length = f"is {size:,} bytes, over the" if size is not None else "is more than the"
    message = (
        f"Invalid Request: the message {length} {bound:,} bytes one message may hold "
        "(6 x SCRATCHPAD_MAX_FILE_BYTES + 64 KiB). Nothing was run; send less in one call."
    )
    return [Refusal(found_id(head, tail), INVALID_REQUEST, message)]


def diagnose(data: bytes, advice: str = LINE_ADVICE) -> Checked:
    """Why the SDK's parser refused `data`, in our words (or the message, where only that parser minded)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        detail = f"byte 0x{data[error.start]:02x} at offset {error.start} is not UTF-8"
        return [Refusal(found_id(data, data), PARSE_ERROR, f"Parse error: {detail}. Send the message as UTF-8 JSON.")]
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        return [Refusal(found_id(data, data), INVALID_REQUEST, too_deep())]
    except ValueError as error:
        reason = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
        where = f" at line {error.lineno} column {error.colno}" if isinstance(error, json.JSONDecodeError) else ""
        message = f"Parse error: not valid JSON ({reason}{where}). {advice}"
        return [Refusal(found_id(data, data), PARSE_ERROR, message)]
    if isinstance(value, list):
        return batch(value)
    if not isinstance(value, dict):
        return [Refusal(NO_ID, INVALID_REQUEST, f"Invalid Request: {_kind(value)}, not a JSON-RPC message.")]
    refusal = refuse(value)
    if refusal is not None:
        return [refusal]
    try:  # only the SDK's parser minded (e.g. a message nested deeper than it takes): parse what json took
        return mcp_types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        message = "Invalid Request: not a JSON-RPC 2.0 request, notification or response."
        return [Refusal(answer_to(value), INVALID_REQUEST, message)]


def batch(items: list[Any]) -> list[Refusal]:
    """JSON-RPC batches are not part of MCP (removed in 2025-06-18): each request in one gets its own error."""
    message = "Invalid Request: batches (JSON arrays) are not supported; send each message on its own."
    answers = [Refusal(answer_to(item), INVALID_REQUEST, message) for item in items if isinstance(item, dict)]
    return [refusal for refusal in answers if refusal.has_id] or [Refusal(NO_ID, INVALID_REQUEST, message)]


def refuse(message: dict[str, Any]) -> Refusal | None:
    """The first rule a parsed JSON object breaks as a JSON-RPC message, or None."""
    request_id = answer_to(message)
    if depth(message) > MAX_DEPTH:
        return Refusal(request_id, INVALID_REQUEST, too_deep())
    if "id" in message and surrogate_at(message["id"], "id") is not None:
        return Refusal(request_id, INVALID_REQUEST, lone_surrogate("Invalid Request", "id"))
    if message.get("jsonrpc") != "2.0":
        return Refusal(request_id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0".')
    if "method" not in message and ("result" in message or "error" in message):
        return Refusal(
            request_id, INVALID_REQUEST, "Invalid Request: a response that is not a valid JSON-RPC response."
        )
    if not isinstance(message.get("method"), str):
        return Refusal(request_id, INVALID_REQUEST, 'Invalid Request: "method" must be a string naming the method.')
    if surrogate_at(message["method"], "method") is not None:
        return Refusal(request_id, INVALID_REQUEST, lone_surrogate("Invalid Request", "method"))
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return Refusal(request_id, INVALID_PARAMS, f'Invalid params: "params" must be an object, not {_kind(params)}.')
    where = surrogate_at(params, "params")
    if where is not None:
        return Refusal(request_id, INVALID_PARAMS, lone_surrogate("Invalid params", where))
    if message.get("id") is not None and not _is_request_id(message["id"]):
        text = f'Invalid Request: "id" must be a string or an integer, not {_kind(message["id"])}.'
        return Refusal(request_id, INVALID_REQUEST, text)
    return None


def answer_to(message: Any) -> Any:
    """The id to answer a message with (any JSON string or number it carries as its id), NO_ID (none to be found)
    or A_RESPONSE (a response: nothing to answer)."""
    if not isinstance(message, dict):
        return NO_ID
    if "method" not in message and ("result" in message or "error" in message):
        return A_RESPONSE
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int, float)):
        return NO_ID
    return request_id


def found_id(head: bytes, tail: bytes) -> Any:
    """The top-level id of a message that cannot be parsed whole, from its first bytes (an id ahead of its params)
    or its last (an id as its last key); else NO_ID."""
    match = LEADING_ID.match(head[:KEPT_BYTES]) or TRAILING_ID.search(tail[-KEPT_BYTES:])
    if match is None:
        return NO_ID
    try:
        return json.loads(match.group(1))
    except ValueError:
        return NO_ID


def depth(value: Any) -> int:
    """How many levels of arrays and objects `value` nests (a scalar: 0), without recursing."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if level <= MAX_DEPTH:
            stack.extend((child, level + 1) for child in children)
    return deepest


def surrogate_at(value: Any, where: str) -> str | None:
    """Where in `value` a string (or an object's key) holds a lone surrogate, e.g. params.arguments.path."""
    for path, text in _strings(value, where):
        if SURROGATE.search(text):
            return path
    return None


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    stack = [(value, path)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, str):
            yield at, item
        elif isinstance(item, dict):
            for key, child in item.items():
                yield f"{at} (a key)", key
                name = "?" if SURROGATE.search(key) else clipped(key, 64)
                stack.append((child, f"{at}.{name}"))
        elif isinstance(item, list):
            stack.extend((child, f"{at}[{index}]") for index, child in enumerate(item))


def lone_surrogate(kind: str, where: str) -> str:
    return (
        f"{kind}: {where} holds a lone surrogate escape (a \\ud800-\\udfff escape without its pair), "
        "which is not Unicode text. Nothing was run; send valid UTF-8 or escape pairs."
    )


def too_deep() -> str:
    return f"Invalid Request: JSON nested deeper than {MAX_DEPTH} levels. Nothing was run; send flat arguments."


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _is_request_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _kind(value: Any) -> str:
    kinds = {list: "an array", dict: "an object", str: "a string", bool: "a boolean", type(None): "null"}
    return kinds.get(type(value), "a number")
