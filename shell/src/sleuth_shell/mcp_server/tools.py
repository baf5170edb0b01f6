"""The four MCP tools: what they take (JSON Schema), what they do, and the markdown they return.

Each tool runs as the organization whose API key the MCP request carried (:class:`ToolCaller`):
``sleuth_ask`` creates a synchronous interaction exactly as ``POST /api/v1/interactions`` does
(billed to and attributed as that key's interactions are); the others only read that
organization's rows (:mod:`.reads`), so another organization's ID answers like an unknown one.

A problem the model can fix (a bad argument, an unknown ID, an agent failure) is a tool error
(:class:`ToolFailure`, returned as ``isError: true`` with a one-line message); an unknown tool name
is a JSON-RPC error (see :mod:`.server`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sleuth_core.ids import encode_global_id
from sleuth_shell.auth import Principal
from sleuth_shell.db.models import Interaction, Investigation, utcnow
from sleuth_shell.db.paging import PageRequest
from sleuth_shell.digests.queries import DigestRunRead, load_digest_run
from sleuth_shell.interactions.queries import load_interaction
from sleuth_shell.interactions.request import InvalidInteraction, parse_interaction_request
from sleuth_shell.interactions.service import submit_interactions
from sleuth_shell.investigations.queries import InvestigationRead, load_investigation
from sleuth_shell.investigations.queries import list_investigations as list_investigations_of
from sleuth_shell.mcp_server import reads
from sleuth_shell.runs import RunFailed
from sleuth_shell.services import Services
from sleuth_shell.statuses import INVESTIGATION, InteractionStatus
from sleuth_shell.urls import (
    alert_responder_url,
    digest_run_url,
    interaction_url,
    investigation_url,
)

__all__ = ["TOOLS", "ToolCaller", "ToolFailure", "ToolSpec"]

#: ``sleuth_list_investigations`` returns at most this many (and 20 by default).
MAX_LIST_LIMIT = 100
DEFAULT_LIST_LIMIT = 20
#: Longest alert payload quoted in full; longer ones are cut with a note.
MAX_PAYLOAD_CHARS = 20_000
#: Longest query ``sleuth_ask`` takes.
MAX_QUERY_CHARS = 10_000


class ToolFailure(Exception):
    """A tool call the model can correct or report: its ``str()`` is the tool error text."""


@dataclass(frozen=True)
class ToolCaller:
    """Who is calling and with what: the key's principal and the app's services."""

    principal: Principal
    services: Services


ToolFn = Callable[[ToolCaller, Mapping[str, Any]], Awaitable[str]]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: name, title, description, input schema, read-only or not, and its function."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    run: ToolFn


# --- formatting ----------------------------------------------------------------------------------


def _ts(value: datetime | None) -> str:
    if value is None:
        return "-"
    return value.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _fenced(text: str, info: str = "") -> str:
    """``text`` in a code fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def _link_text(text: str) -> str:
    return re.sub(r"([\[\]\\])", r"\\\1", " ".join(text.split())) or "source"


def _link_target(url: str) -> str:
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C")


def sources_markdown(sources: Sequence[Mapping[str, Any]]) -> str:
    """``Sources:`` and one line per numbered source, ``[n] [display_text](link)`` plus what kind
    of data it is and the time range it covers, when known and not a single instant ("" for no
    sources)."""
    if not sources:
        return ""
    lines = ["Sources:"]
    for n, source in enumerate(sources, start=1):
        text = _link_text(str(source.get("display_text") or ""))
        link = str(source.get("link") or "")
        line = f"[{n}] [{text}]({_link_target(link)})" if link else f"[{n}] {text}"
        details = [str(source[k]) for k in ("log_type_name",) if source.get(k)]
        start, end = source.get("start"), source.get("end")
        if (start or end) and start != end:  # a knowledge document's "range" is one instant
            details.append(f"{start or '?'} to {end or '?'}")
        if details:
            line += f" ({', '.join(details)})"
        lines.append(line)
    return "\n".join(lines)


_SOURCES_SECTION = re.compile(r"\n\nSources:\n(?:\[\d+\] [^\n]*(?:\n|$))+\Z")


def without_sources_section(result: str) -> str:
    """A stored investigation or digest result without its trailing ``Sources:`` section."""
    return _SOURCES_SECTION.sub("", result)


def _interaction_text(row: Interaction, public_url: str, *, include_sources: bool) -> str:
    parts = [
        f"# Interaction {row.id}",
        f"- Status: {row.status}\n- Asked: {_ts(row.created_at)}\n- Completed: "
        f"{_ts(row.completed_at)}\n- URL: {interaction_url(public_url, row.id)}",
        f"## Question\n\n{row.question}",
    ]
    if row.status == InteractionStatus.COMPLETED:
        parts.append(f"## Answer\n\n{row.content or ''}")
        if include_sources and row.sources:
            parts.append(sources_markdown(row.sources))
    elif row.error:
        parts.append(f"## Error\n\n{row.error}")
    else:
        parts.append("No answer yet.")
    return "\n\n".join(parts)


def _investigation_text(found: InvestigationRead, public_url: str, *, include_sources: bool) -> str:
    row = found.row
    gid = encode_global_id(reads.INVESTIGATION_TYPE, row.id)
    facts = [
        f"- ID: {gid}",
        f"- Status: {row.status}",
        f"- Team: {found.team_name or '-'}",
        f"- Created: {_ts(row.created_at)}",
        f"- Started: {_ts(row.started_at)}",
        f"- Completed: {_ts(row.completed_at)}",
        f"- URL: {investigation_url(public_url, gid)}",
    ]
    if row.alert_responder_id is not None:
        agent_gid = encode_global_id(reads.ALERT_RESPONDER_TYPE, row.alert_responder_id)
        facts.append(f"- Alert agent: {agent_gid} ({alert_responder_url(public_url, agent_gid)})")
    payload = found.event_payload or ""
    note = ""
    if len(payload) > MAX_PAYLOAD_CHARS:
        note = (
            f"\n\n(The payload is {len(payload)} characters; the first {MAX_PAYLOAD_CHARS} shown.)"
        )
        payload = payload[:MAX_PAYLOAD_CHARS]
    parts = [
        f"# Investigation: {row.name}",
        "\n".join(facts),
        f"## Alert\n\n{_fenced(payload) if payload else '(no payload)'}{note}",
        f"## Investigation prompt\n\n{row.prompt}",
    ]
    result = row.result if include_sources else without_sources_section(row.result)
    if result:
        parts.append(f"## Result\n\n{result}")
    elif row.status in INVESTIGATION.unfinished:
        parts.append("## Result\n\nNot finished yet.")
    if row.error:
        parts.append(f"## Error\n\n{row.error}")
    return "\n\n".join(parts)


def _digest_run_text(found: DigestRunRead, public_url: str, *, include_sources: bool) -> str:
    run, digest = found.run, found.digest
    digest_gid = encode_global_id(reads.DIGEST_TYPE, digest.id)
    run_gid = encode_global_id(reads.DIGEST_RUN_TYPE, run.id)
    parts = [
        f"# Digest run: {digest.name}",
        f"- ID: {run_gid}\n- Digest: {digest_gid}\n- Status: {run.status}\n- Scheduled for: "
        f"{_ts(run.scheduled_runtime)}\n- Completed: {_ts(run.completed_at)}\n- URL: "
        f"{digest_run_url(public_url, digest_gid, run_gid)}",
    ]
    for item in run.results or []:
        section = str(item.get("section", ""))
        prompt = str(item.get("prompt", ""))
        result = str(item.get("result", ""))
        if not include_sources:
            result = without_sources_section(result)
        parts.append(f"## {section}\n\n_Prompt: {' '.join(prompt.split())}_\n\n{result}")
    if not run.results:
        parts.append("No results yet.")
    if run.error:
        parts.append(f"## Error\n\n{run.error}")
    return "\n\n".join(parts)


def _list_line(row: Investigation, public_url: str) -> str:
    gid = encode_global_id(reads.INVESTIGATION_TYPE, row.id)
    agent = (
        encode_global_id(reads.ALERT_RESPONDER_TYPE, row.alert_responder_id)
        if row.alert_responder_id is not None
        else "-"
    )
    return (
        f"- **{' '.join(row.name.split())}** ({row.status}), created {_ts(row.created_at)}, "
        f"completed {_ts(row.completed_at)}\n  ID: {gid}; alert agent: {agent}; "
        f"URL: {investigation_url(public_url, gid)}"
    )


# --- the tools -----------------------------------------------------------------------------------


def _string(args: Mapping[str, Any], name: str) -> str | None:
    value = args.get(name)
    return value if isinstance(value, str) else None


async def ask(caller: ToolCaller, args: Mapping[str, Any]) -> str:
    """``sleuth_ask``: a synchronous interaction, answered now."""
    query = _string(args, "query") or ""
    if len(query) > MAX_QUERY_CHARS:
        raise ToolFailure(f"Invalid query: at most {MAX_QUERY_CHARS} characters")
    principal, services = caller.principal, caller.services
    try:
        request = parse_interaction_request({"question": query}, utcnow())
    except InvalidInteraction as exc:
        raise ToolFailure(f"Invalid query: {exc.detail}") from None
    async with services.sessions() as session:
        try:
            submitted = await submit_interactions(
                session,
                services,
                org_id=principal.org_id,
                team_id=principal.team_id,
                api_key_id=principal.key_id,
                api_key=principal.api_key,
                request=request,
                now=utcnow(),
            )
        except InvalidInteraction as exc:
            raise ToolFailure(exc.detail) from None
        except RunFailed as exc:
            raise ToolFailure(str(exc)) from None
    row, answer = submitted.rows[0], submitted.answer
    assert answer is not None  # a synchronous request always has its answer (or RunFailed)
    url = interaction_url(services.settings.public_url, row.id)
    parts = [answer.content.strip()]
    if answer.sources:
        parts.append(sources_markdown(answer.sources))
    parts.append(f"Interaction: {url}")
    return "\n\n".join(parts)


async def fetch_context(caller: ToolCaller, args: Mapping[str, Any]) -> str:
    """``sleuth_fetch_context``: the content behind a Sleuth URL or ID."""
    value = _string(args, "url") or ""
    include_sources = bool(args.get("include_sources", False))
    ref = reads.parse_reference(value)
    if ref is None:
        raise ToolFailure(
            f"Not a Sleuth interaction, investigation or digest run URL or ID: {value[:200]}"
        )
    org_id = caller.principal.org_id
    public_url = caller.services.settings.public_url
    async with caller.services.sessions() as session:
        if ref.kind == "interaction":
            row = await load_interaction(session, org_id, str(ref.key))
            if row is not None:
                return _interaction_text(row, public_url, include_sources=include_sources)
        elif ref.kind == "investigation":
            found = await load_investigation(session, org_id, int(ref.key))
            if found is not None:
                return _investigation_text(found, public_url, include_sources=include_sources)
        else:
            run = await load_digest_run(session, org_id, int(ref.key), ref.digest_pk)
            if run is not None:
                return _digest_run_text(run, public_url, include_sources=include_sources)
    thing = ref.kind.replace("_", " ")
    raise ToolFailure(f"No {thing} found for {value[:200]} in this organization")


async def list_investigations(caller: ToolCaller, args: Mapping[str, Any]) -> str:
    """``sleuth_list_investigations``: the newest investigations, optionally filtered."""
    status = _string(args, "status")
    agent_id = _string(args, "alert_responder_id")
    limit = args.get("limit", DEFAULT_LIST_LIMIT)
    agent_pk = None
    if agent_id is not None:
        agent_pk = reads.parse_alert_responder_id(agent_id)
        if agent_pk is None:
            raise ToolFailure(f"Invalid alert_responder_id: {agent_id[:200]}")
    async with caller.services.sessions() as session:
        found = await list_investigations_of(
            session,
            caller.principal.org_id,
            PageRequest(limit=int(limit)),
            status=status,
            agent_id=agent_pk,
        )
    rows = [item.row for item in found.items]
    public_url = caller.services.settings.public_url
    filters = [f"status {status}"] if status else []
    if agent_id:
        filters.append(f"alert agent {agent_id}")
    where = f" ({', '.join(filters)})" if filters else ""
    if not rows:
        return f"No investigations{where}."
    plural = "s" if len(rows) != 1 else ""
    head = f"{len(rows)} most recent investigation{plural}{where}, newest first:"
    return "\n".join([head, "", *(_list_line(row, public_url) for row in rows)])


async def investigation(caller: ToolCaller, args: Mapping[str, Any]) -> str:
    """``sleuth_investigation``: one investigation, with the alert and its full result."""
    value = _string(args, "id") or ""
    ref = reads.parse_reference(value)
    if ref is None or ref.kind != "investigation":
        raise ToolFailure(f"Not an investigation ID or URL: {value[:200]}")
    async with caller.services.sessions() as session:
        found = await load_investigation(session, caller.principal.org_id, int(ref.key))
    if found is None:
        raise ToolFailure(f"No investigation found for {value[:200]} in this organization")
    return _investigation_text(found, caller.services.settings.public_url, include_sources=True)


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            name="sleuth_ask",
            title="Ask Sleuth",
            description=(
                "Ask Sleuth, the on-call investigation assistant, a question about your production "
                "systems: it searches the organization's runbooks and knowledge base and its logs, "
                "traces and metrics, and answers in markdown with numbered citations [1], [2] and "
                "a Sources list. Use it for questions such as 'why are checkout requests failing "
                "since 14:00?', 'what does the payments runbook say about retries?' or 'which "
                "deploy preceded the error spike in orders?'. Each call runs the agent now (it can "
                "take a while), is billed as one interaction to the API key's organization, and "
                "returns the interaction's URL, which sleuth_fetch_context can read again later. "
                "To read an existing investigation, interaction or digest, use the other tools "
                "instead."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": MAX_QUERY_CHARS,
                        "description": "The question, in plain language, with any service "
                        "names, error messages and time ranges you know.",
                    }
                },
                "required": ["query"],
                "additionalProperties": False,
            },
            read_only=False,
            run=ask,
        ),
        ToolSpec(
            name="sleuth_fetch_context",
            title="Read a Sleuth page",
            description=(
                "Read what is behind a Sleuth link or ID: an interaction (the question and "
                "Sleuth's answer), an investigation (the alert that started it and the analysis) "
                "or a digest run (each section's report). Pass the URL exactly as it was shared "
                "(for example https://sleuth.example.com/investigations/<id>), or a bare ID. "
                "Use it when a user pastes a Sleuth link or an earlier answer gave one. Set "
                "include_sources to also get the numbered sources the result cites. Costs "
                "nothing; reads only."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "url": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": reads.MAX_REFERENCE_LENGTH,
                        "description": "A Sleuth page or API URL (/interactions/<id>, "
                        "/investigations/<id>, /digests/<id>/runs/<run_id>) or a bare interaction, "
                        "investigation or digest run ID.",
                    },
                    "include_sources": {
                        "type": "boolean",
                        "default": False,
                        "description": "Also list the sources the result cites (default false).",
                    },
                },
                "required": ["url"],
                "additionalProperties": False,
            },
            read_only=True,
            run=fetch_context,
        ),
        ToolSpec(
            name="sleuth_list_investigations",
            title="List Sleuth investigations",
            description=(
                "List the organization's most recent investigations (automatic analyses Sleuth's "
                "alert agents ran on incoming alerts), newest first: name, status, times, ID and "
                "URL of each. Use it to see what has been alerting, e.g. before digging into an "
                "incident; filter by status (e.g. COMPLETED) or by the alert agent that ran them. "
                "Read one in full with sleuth_investigation. Costs nothing; reads only."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "status": {
                        "type": "string",
                        "enum": list(INVESTIGATION.values),
                        "description": "Only investigations in this status.",
                    },
                    "alert_responder_id": {
                        "type": "string",
                        "minLength": 1,
                        "description": "Only investigations of this alert agent (its ID, as "
                        "listed with each investigation).",
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_LIST_LIMIT,
                        "default": DEFAULT_LIST_LIMIT,
                        "description": f"How many to return (1-{MAX_LIST_LIMIT}, "
                        f"default {DEFAULT_LIST_LIMIT}).",
                    },
                },
                "additionalProperties": False,
            },
            read_only=True,
            run=list_investigations,
        ),
        ToolSpec(
            name="sleuth_investigation",
            title="Read a Sleuth investigation",
            description=(
                "Read one investigation in full: its status, the alert payload that started it, "
                "the investigation prompt, and Sleuth's analysis with its numbered sources. Pass "
                "the investigation's ID (from sleuth_list_investigations) or its URL. Costs "
                "nothing; reads only."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "id": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": reads.MAX_REFERENCE_LENGTH,
                        "description": "The investigation's ID or URL.",
                    }
                },
                "required": ["id"],
                "additionalProperties": False,
            },
            read_only=True,
            run=investigation,
        ),
    )
}
"""The tools, by name."""
