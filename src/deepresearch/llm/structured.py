"""The structured-output ladder used by every JSON step (role, plan, judge, queries, report).

1. ask with the step's JSON schema (models that can constrain decoding do);
2. strip ``<think>`` blocks *before* parsing;
3. extract the JSON (fenced block, then the first balanced object/array), then ``json-repair``;
4. validate with the step's pydantic model; on failure one retry that shows the model its error.
The caller owns the last rung, a deterministic fallback, because only it knows what keeps the run
going; it learns why through :attr:`Structured.error`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import json_repair
from pydantic import BaseModel, ValidationError

from deepresearch.errors import ModelError, ModelNotAvailableError
from deepresearch.llm.base import ChatModel, Message
from deepresearch.llm.thinking import strip_thinking
from deepresearch.untrusted import strip_tool_calls

T = TypeVar("T", bound=BaseModel)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass
class Structured(Generic[T]):
    """What a structured step produced: a value, or ``None`` with the reason in ``error``;
    ``dropped`` counts broken list items left out of the value (see :func:`parse_salvaged`)."""

    value: T | None
    error: str | None = None
    attempts: int = 0
    raw: list[str] = field(default_factory=list)
    dropped: int = 0


def extract_json(text: str) -> Any:
    """Parse the JSON a model meant, from clean JSON, a fenced block, or JSON inside prose."""
    for candidate in _candidates(text):
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    for candidate in _candidates(text):
        repaired = json_repair.loads(candidate)
        if isinstance(repaired, dict | list) and repaired:
            return repaired
    raise ValueError("no JSON object found in the answer")


def parse_as(output_type: type[T], text: str, *, strip_think: bool = True) -> T:
    """Parse and validate ``text`` as ``output_type`` (see :func:`parse_salvaged`)."""
    return parse_salvaged(output_type, text, strip_think=strip_think)[0]


def parse_salvaged(output_type: type[T], text: str, *, strip_think: bool = True) -> tuple[T, int]:
    """Parse and validate ``text``; return the value and how many broken list items were dropped.

    An answer cut off by ``max_tokens`` ends in a half-written item that ``json-repair`` closes
    without its required fields; when every validation error lies inside items of top-level
    lists, those items are dropped and the rest kept, as long as no list is left empty.
    Raises ValueError (no JSON) or ValidationError (nothing to salvage).
    """
    cleaned = strip_tool_calls(strip_thinking(text) if strip_think else text)
    data = extract_json(cleaned)
    if isinstance(data, list) and _wants_object_with_list(output_type):
        data = {_first_list_field(output_type): data}
    try:
        return output_type.model_validate(data), 0
    except ValidationError as exc:
        kept, dropped = _without_broken_items(data, exc)
        if not dropped:
            raise
        return output_type.model_validate(kept), dropped


def ask_structured(
    model: ChatModel,
    messages: list[Message],
    output_type: type[T],
    *,
    step: str,
    max_tokens: int,
    strip_think: bool = True,
) -> Structured[T]:
    """Run the ladder. Model failures other than a missing model become ``error``, not raises."""
    schema = output_type.model_json_schema()
    result: Structured[T] = Structured(value=None)
    conversation = list(messages)
    for attempt in (1, 2):
        result.attempts = attempt
        try:
            text = model.complete(conversation, step=step, schema=schema, max_tokens=max_tokens).text
        except ModelNotAvailableError:
            raise
        except ModelError as exc:
            result.error = f"model call failed: {exc}"
            return result
        result.raw.append(text)
        try:
            result.value, result.dropped = parse_salvaged(output_type, text, strip_think=strip_think)
            result.error = None
            return result
        except (ValueError, ValidationError) as exc:
            result.error = _short_error(exc)
        conversation = [*messages, Message("assistant", text[:2000]), _correction(result.error)]
    return result


def _candidates(text: str) -> list[str]:
    found = [m.group(1).strip() for m in _FENCE.finditer(text)]
    found.append(text.strip())
    found.extend(_balanced_spans(text))
    return [c for c in found if c]


def _balanced_spans(text: str) -> list[str]:
    spans: list[str] = []
    for opener, closer in (("{", "}"), ("[", "]")):
        start = text.find(opener)
        if start >= 0:
            spans.append(_balanced_from(text, start, opener, closer))
    return spans


def _balanced_from(text: str, start: int, opener: str, closer: str) -> str:
    depth, in_string, escaped = 0, False, False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            escaped = char == "\\" and not escaped
            in_string = not (char == '"' and not escaped)
            continue
        if char == '"':
            in_string = True
        elif char == opener:
            depth += 1
        elif char == closer:
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    return text[start:]


def _without_broken_items(data: Any, exc: ValidationError) -> tuple[Any, int]:
    """``data`` without the top-level list items that ``exc`` blames; ``0`` dropped when an error
    lies elsewhere or a list would be left empty."""
    if not isinstance(data, dict):
        return data, 0
    broken: dict[str, set[int]] = {}
    for error in exc.errors():
        loc = error["loc"]
        if len(loc) < 2 or not isinstance(data.get(loc[0]), list) or not isinstance(loc[1], int):
            return data, 0
        broken.setdefault(str(loc[0]), set()).add(loc[1])
    kept = dict(data)
    for name, indexes in broken.items():
        kept[name] = [item for i, item in enumerate(data[name]) if i not in indexes]
        if not kept[name]:
            return data, 0
    return kept, sum(len(indexes) for indexes in broken.values())


def _wants_object_with_list(output_type: type[BaseModel]) -> bool:
    fields = output_type.model_fields
    return len(fields) >= 1 and _first_list_field(output_type) != ""


def _first_list_field(output_type: type[BaseModel]) -> str:
    for name, info in output_type.model_fields.items():
        if getattr(info.annotation, "__origin__", None) is list:
            return name
    return ""


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[:3]
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in first)
    return str(exc)[:300]


def _correction(error: str | None) -> Message:
    return Message(
        "user",
        f"Your previous answer was not valid: {error}. "
        "Reply again with only the JSON object that matches the schema, no prose.",
    )
