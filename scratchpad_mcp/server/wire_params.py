"""Why the SDK refused a request's params: it answers INVALID_PARAMS with "Invalid request parameters" and no data
(a bad tools/call name, arguments that are not an object, a request before initialize, ...). Each transport puts
in its place which field broke which rule, from the request it still holds."""

from __future__ import annotations

import json
import re
from typing import Any

from mcp_types import methods
from pydantic import ValidationError

from .calls import clipped

VAGUE = "Invalid request parameters"  # the SDK's text, which names nothing
LEGACY = "2025-11-25"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"  # where a 2026-07-28 request names its revision
UNION_TAGS = {"str", "int", "float", "bool", "dict", "list", "none"}  # pydantic's names for the branches of a union


def is_vague(code: int, message: str) -> bool:
    return code == -32602 and message == VAGUE


def explained(method: str, params: Any, *, initialized: bool | None = None) -> str:
    """The error text for a request whose params the SDK refused without saying why; initialized: whether the
    connection has had its initialize answered (None: the transport does not know, e.g. stateless HTTP)."""
    name = clipped(method, 64)
    meta = params.get("_meta") if isinstance(params, dict) else None
    named = meta.get(VERSION_KEY) if isinstance(meta, dict) else None
    version = named if isinstance(named, str) else LEGACY
    try:
        methods.validate_client_request(method, version, params)
    except ValidationError as error:
        return f"Invalid params for {name}: {problems(error)}. Nothing was run; fix the params and retry."
    except (KeyError, ValueError):  # a method or revision the schema does not know: nothing more to tell
        pass
    if initialized is False and method != "initialize":
        return (
            f"Not initialized: {name} came before initialize. Send initialize first, then "
            "notifications/initialized (or, on 2026-07-28, name the revision in each request's _meta)."
        )
    return f"Invalid params for {name}: they do not fit its schema. Nothing was run; fix them and retry."


def problems(error: ValidationError) -> str:
    """Each broken field once, e.g. `params.name: Field required` or `params._meta.progressToken: Input should be
    a valid string or integer`, without pydantic's union and class names."""
    seen: dict[str, list[str]] = {}
    for detail in error.errors():
        parts = [str(part) for part in detail["loc"] if str(part).lower() not in UNION_TAGS]
        where = ".".join(part for part in parts if not re.search(r"[\[\](),]", part)) or "params"
        message = re.sub(r" or instance of \w+", "", detail["msg"])
        if message not in seen.setdefault(where, []):
            seen[where].append(message)
    shown = [f"{where}: {joined(messages)}" for where, messages in list(seen.items())[:4]]
    return "; ".join(shown) + ("; ..." if len(seen) > 4 else "")


def joined(messages: list[str]) -> str:
    """One field's messages: a union's "Input should be a valid string" and "... integer" read as one."""
    lead = "Input should be a valid "
    if len(messages) > 1 and all(message.startswith(lead) for message in messages):
        return lead + " or ".join(message[len(lead) :] for message in messages)
    return "; ".join(messages)


def rewritten(body: bytes, method: str, params: Any) -> bytes:
    """An HTTP response body with the SDK's vague INVALID_PARAMS error explained; any other body as it was."""
    try:
        reply = json.loads(body)
    except ValueError:
        return body
    error = reply.get("error") if isinstance(reply, dict) else None
    if not isinstance(error, dict) or not is_vague(error.get("code", 0), error.get("message", "")):
        return body
    reply["error"] = {"code": error["code"], "message": explained(method, params)}
    return json.dumps(reply, separators=(",", ":"), ensure_ascii=False).encode()
