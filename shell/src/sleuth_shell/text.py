"""Reading runbooks and alert payloads: passages of markdown, and an alert's fields.

Language itself (tokens, stems, stopwords, time expressions, service names) is
:mod:`sleuth_core.language`; this module cuts markdown into passages from markdown-it's block
tokens (`split_passages`: headings ATX and setext, paragraphs, lists, tables, fenced ``` and
``~~~`` and indented code, quotes) and picks the passage that best matches a question
(`best_passage`), and reads an alert's title, service, severity and time from a raw payload
(`extract_alert`). Everything here is a pure function of its arguments, memoised on the text in
bounded LRU caches (a changed text is a new key, so a cache can never serve a stale result).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt

from sleuth_core.intake import prometheus_expression
from sleuth_core.language import (
    DOCUMENT_CACHE_SIZE,
    TEXT_CACHE_SIZE,
    parse_timestamp,
    stem,
    terms,
)

__all__ = [
    "Passage",
    "best_passage",
    "extract_alert",
    "split_passages",
]

_ISO_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?"
    r"(?:\s?(?:Z|UTC|[+-]\d{2}:?\d{2}))?)?"
)
_MD = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


# --- passages -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    """A block of a markdown document under its heading: ``kind`` is ``paragraph``, ``list``,
    ``table``, ``code`` (``text`` keeps its fence; ``code`` holds the code alone), ``quote`` or
    ``html``."""

    heading: str
    text: str
    index: int
    kind: str = "paragraph"
    code: str = ""


_KINDS = {
    "paragraph_open": "paragraph",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "blockquote_open": "quote",
    "fence": "code",
    "code_block": "code",
    "html_block": "html",
}


def split_passages(markdown: str) -> list[Passage]:
    """Split a markdown document into its top-level blocks, each under its heading.

    >>> doc = "Intro\\n=====\\n\\nText.\\n\\n~~~\\nkubectl get pods\\n~~~\\n\\n    indented code\\n"
    >>> [(p.kind, p.code or p.text) for p in split_passages(doc)]
    [('paragraph', 'Text.'), ('code', 'kubectl get pods'), ('code', 'indented code')]
    >>> {p.heading for p in split_passages(doc)}
    {'Intro'}
    """
    return list(_split_passages(markdown))


@functools.lru_cache(maxsize=DOCUMENT_CACHE_SIZE)
def _split_passages(markdown: str) -> tuple[Passage, ...]:
    lines = markdown.splitlines()
    passages: list[Passage] = []
    heading = ""
    tokens = _MD.parse(markdown)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.level != 0:
            i += 1
            continue
        if token.type == "heading_open":
            heading = tokens[i + 1].content.strip() if i + 1 < len(tokens) else ""
            i += 1
            continue
        kind = _KINDS.get(token.type)
        if kind is not None and token.map is not None:
            text = "\n".join(lines[token.map[0] : token.map[1]]).strip("\n")
            code = token.content.strip("\n") if kind == "code" else ""
            if text.strip():
                passages.append(Passage(heading, text, len(passages), kind, code))
        i += 1
    return tuple(passages)


def _stems(words: Iterable[str]) -> set[str]:
    return {stem(w) for w in words}


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _text_stems(text: str) -> frozenset[str]:
    """The stems of `terms` of ``text``."""
    return frozenset(stem(w) for w in terms(text))


def best_passage(
    markdown: str,
    query_terms: Sequence[str],
    *,
    max_chars: int = 900,
    prefer: Sequence[str] = (),
) -> tuple[str, str]:
    """The heading and text of the passage of ``markdown`` that best matches ``query_terms``.

    A passage scores one point per distinct query term (stemmed) it contains, half a point per term
    in its section heading (not the document's title) and 0.75 when its heading contains one of the
    ``prefer`` words (e.g. ``mitigation``); ties go to the earlier passage. The chosen passage is
    extended with the following passages under the same heading while it stays under ``max_chars``.
    With no matching term the document's first passage is returned.
    """
    passages = split_passages(markdown)
    if not passages:
        return "", ""
    wanted = _stems(query_terms)
    preferred = {word.lower() for word in prefer}
    title = next((line for line in markdown.splitlines() if line.strip()), "").strip()
    best, best_score = passages[0], 0.0
    for passage in passages:
        is_title = title.startswith("# ") and passage.heading == title.lstrip("#").strip()
        heading_terms = set() if is_title else set(terms(passage.heading))
        heading_stems = frozenset() if is_title else _text_stems(passage.heading)
        score = len(wanted & _text_stems(passage.text)) + 0.5 * len(wanted & heading_stems)
        if score and heading_terms & preferred:
            score += 0.75
        if score > best_score:
            best, best_score = passage, score
    text = best.text
    for following in passages[best.index + 1 :]:
        if following.heading != best.heading or len(text) + len(following.text) + 2 > max_chars:
            break
        text = f"{text}\n\n{following.text}"
    if len(text) > max_chars:
        cut = text.rfind("\n", 0, max_chars)
        text = text[: cut if cut > max_chars // 2 else max_chars].rstrip() + " …"
    return best.heading, text


# --- alerts -------------------------------------------------------------------------------------

_TITLE_KEYS = ("title", "summary", "alertname", "name", "subject", "message", "description")
_SERVICE_KEYS = ("service", "service_name", "app", "application", "component", "job", "host")
_SEVERITY_KEYS = ("severity", "priority", "level", "urgency")
_TIME_KEYS = (
    "startsat",
    "starts_at",
    "started_at",
    "triggered_at",
    "fired_at",
    "created_at",
    "timestamp",
    "time",
    "date",
    "event_time",
)


#: Dotted or slashed label keys that name the service (OpenTelemetry, Kubernetes conventions).
_SERVICE_LABEL_KEYS = frozenset(
    {
        "service.name",
        "k8s.deployment.name",
        "app.kubernetes.io/name",
        "kube_deployment",
    }
)


def _walk(value: Any, key: str = "") -> Iterable[tuple[str, Any]]:
    """Every leaf of ``value`` with the key it sits under (its last dict key, lowercased; a
    service label key spelled with dots, ``service.name``, as ``service``; another dotted key by
    its last segment)."""
    if isinstance(value, dict):
        for name, item in value.items():
            lowered = str(name).lower()
            if lowered in _SERVICE_LABEL_KEYS:
                lowered = "service"
            yield from _walk(item, lowered.rsplit(".", 1)[-1])
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, key)
    else:
        yield key, value


def extract_alert(payload: str) -> dict[str, Any]:
    """Pick the alert's title, service, severity and time out of a raw payload (JSON or text).

    Returns ``{"title": str|None, "service": str|None, "severity": str|None, "time":
    datetime|None, "expression": str|None, "text": str}`` where ``text`` joins every string value
    (the payload itself when it is not JSON) and ``expression`` is the alert's own query: an
    ``expression`` or ``expr`` member, else the ``g0.expr`` of a ``generatorURL`` (Prometheus
    alerts through Alertmanager). Keys are matched case-insensitively on the last path segment;
    the first match in document order wins.
    """
    found: dict[str, Any] = {"title": None, "service": None, "severity": None, "time": None}
    expression: str | None = None
    generated: str | None = None
    try:
        data = json.loads(payload)
    except (ValueError, TypeError):
        data = None
    strings: list[str] = []
    if isinstance(data, dict | list):
        for key, value in _walk(data):
            if isinstance(value, str):
                strings.append(value)
            if value is None or isinstance(value, bool):
                continue
            if found["title"] is None and key in _TITLE_KEYS and isinstance(value, str):
                found["title"] = value.strip() or None
            elif found["service"] is None and key in _SERVICE_KEYS and isinstance(value, str):
                found["service"] = value.strip() or None
            elif found["severity"] is None and key in _SEVERITY_KEYS:
                found["severity"] = str(value).strip() or None
            elif found["time"] is None and key in _TIME_KEYS:
                found["time"] = parse_timestamp(str(value))
            elif expression is None and key in ("expression", "expr") and isinstance(value, str):
                expression = value.strip() or None
            elif generated is None and key == "generatorurl" and isinstance(value, str):
                generated = prometheus_expression(value)
        text = "\n".join(strings)
    else:
        text = payload
    if found["time"] is None and (m := _ISO_RE.search(text)) is not None:
        found["time"] = parse_timestamp(m[0])
    found["expression"] = expression or generated
    found["text"] = text
    return found
