"""Provider adapters: a raw webhook body in, an :class:`AlertEvent` out (INTEGRATIONS 1-4, 8.2).

:func:`parse_alert` is the single entry point. Each adapter requires only what its provider
always sends (PagerDuty ``event.event_type``, Opsgenie ``action`` and ``alert.alertId``, ...) and
raises :class:`~sleuth_core.errors.InvalidAlertPayload` naming the missing member otherwise;
everything else is optional and read defensively.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from sleuth_core.errors import InvalidAlertPayload
from sleuth_core.intake._values import (
    body_digest,
    first_text,
    first_time,
    get,
    labels,
    load_json,
    match_text,
    obj,
    text,
    texts,
    title_of,
)
from sleuth_core.intake.event import AlertEvent, AlertKind, AlertSource
from sleuth_core.intake.generic import parse_generic
from sleuth_core.intake.monitoring import is_alert_group, parse_alert_group

_Adapter = Callable[[dict[str, Any], str, Mapping[str, str], datetime, str], AlertEvent]

UNTITLED = "Untitled alert"


def parse_alerts(
    source: str,
    body: bytes | str,
    *,
    received_at: datetime,
    headers: Mapping[str, str] | None = None,
) -> tuple[AlertEvent, ...]:
    """Read one webhook delivery of ``source``: the alerts it carries, in order.

    ``source`` is ``PROVIDER_A``..``PROVIDER_D``, ``ALERTMANAGER``, ``GRAFANA`` or ``GENERIC``.
    A provider delivery is one alert; an Alertmanager or Grafana delivery one per entry of its
    ``alerts`` (:mod:`.monitoring`). A body that is not its provider's shape (a PagerDuty body on
    an Opsgenie subscription, a monitoring tool's own JSON) is read as generic JSON
    (:func:`~sleuth_core.intake.generic.parse_generic`), and so is every ``GENERIC`` body; a JSON
    array is read as one generic alert per object in it. ``received_at`` (aware) is used when
    the body has no readable time; ``headers`` (any case) supply PagerDuty's ``X-Webhook-Id``.

    Raises :class:`~sleuth_core.errors.InvalidAlertPayload` only for a body that is not JSON, JSON
    that is neither an object nor an array of objects, and an unknown source.

    >>> from datetime import UTC, datetime
    >>> [e.title for e in parse_alerts("GENERIC", '{"event": {"data": {"title": "Disk full"}}}',
    ...                                 received_at=datetime(2026, 1, 1, tzinfo=UTC))]
    ['Disk full']
    """
    if source not in _ADAPTERS and source not in _GROUPED and source != "GENERIC":
        raise InvalidAlertPayload(f"Unknown webhook type: {source}")
    value, raw = load_json(body)
    digest = body_digest(body)
    if isinstance(value, list):
        items = [item for item in value if isinstance(item, dict)]
        if len(items) != len(value):
            raise InvalidAlertPayload(
                f"{source} payload must be a JSON object or an array of objects"
            )
        return tuple(
            replace(parse_generic(item, own, received_at, f"{digest}:{index}"), body=own)
            for index, (item, own) in enumerate((item, _item_text(item)) for item in items)
        )
    if not isinstance(value, dict):
        raise InvalidAlertPayload(f"{source} payload must be a JSON object")
    if source in _GROUPED:
        if is_alert_group(value):
            return parse_alert_group(_GROUPED[source], value, received_at)
        return (parse_generic(value, raw, received_at, digest),)
    adapter = _ADAPTERS.get(source)
    if adapter is not None:
        lowered = {key.lower(): given for key, given in (headers or {}).items()}
        try:
            return (adapter(value, raw, lowered, received_at, digest),)
        except InvalidAlertPayload:
            pass  # not this provider's shape: read it as any JSON
    return (parse_generic(value, raw, received_at, digest),)


def parse_alert(
    source: str,
    body: bytes | str,
    *,
    received_at: datetime,
    headers: Mapping[str, str] | None = None,
) -> AlertEvent:
    """The first alert of :func:`parse_alerts` (a delivery of a one-alert provider is one alert).

    Raises :class:`~sleuth_core.errors.InvalidAlertPayload` as :func:`parse_alerts` does, and
    for a delivery that carries no alert (an empty array).
    """
    events = parse_alerts(source, body, received_at=received_at, headers=headers)
    if not events:
        raise InvalidAlertPayload(f"{source} payload carries no alert")
    return events[0]


def _item_text(item: Mapping[str, Any]) -> str:
    return json.dumps(item, ensure_ascii=False)


_GROUPED: dict[str, AlertSource] = {"ALERTMANAGER": "ALERTMANAGER", "GRAFANA": "GRAFANA"}


def _missing(source: str, member: str) -> InvalidAlertPayload:
    return InvalidAlertPayload(f"{source} payload has no {member}")


# PROVIDER_A: PagerDuty V3 ---------------------------------------------------------------------


def _pagerduty(
    payload: dict[str, Any], raw: str, headers: Mapping[str, str], now: datetime, digest: str
) -> AlertEvent:
    source: AlertSource = "PROVIDER_A"
    event = payload.get("event")
    if not isinstance(event, dict):
        raise _missing(source, '"event" object')
    event_type = text(event.get("event_type"))
    if not event_type:
        raise _missing(source, "event.event_type")
    data = obj(event.get("data"))
    is_incident_event = event_type.startswith("incident.")
    # incident data is the incident itself; notes and other kinds point at it in data.incident
    incident = data if text(data.get("type")) == "incident" else obj(data.get("incident"))
    incident_id = text(incident.get("id"))
    kind: AlertKind
    if event_type == "incident.triggered":
        kind = "new_alert"
    elif is_incident_event:
        kind = "lifecycle"
    else:
        kind = "ignored"
    if kind != "ignored" and not incident_id:
        raise _missing(source, "incident id (event.data.id or event.data.incident.id)")
    identity = incident_id or text(data.get("id")) or text(event.get("id")) or digest
    title = title_of(
        incident.get("title"), incident.get("summary"), data.get("summary"), fallback=UNTITLED
    )
    description = text(data.get("content")) if text(data.get("type")) == "incident_note" else ""
    service = first_text(
        get(incident, "service", "summary"),
        get(event, "agent", "summary")
        if text(get(event, "agent", "type")) == "service_reference"
        else None,
    )
    priority = text(get(incident, "priority", "summary"))
    urgency = text(incident.get("urgency"))
    teams = texts(incident.get("teams"), "summary")
    fields = [
        ("description", description),
        ("service", service),
        ("severity", priority or urgency),
        ("tags", ", ".join(teams)),
        ("urgency", urgency),
        ("priority", priority),
        ("status", text(incident.get("status"))),
        ("escalation_policy", text(get(incident, "escalation_policy", "summary"))),
        ("event_type", event_type),
    ]
    return AlertEvent(
        source=source,
        kind=kind,
        event_type=event_type,
        title=title,
        description=description,
        service=service,
        severity=priority or urgency,
        tags=teams,
        dedup_key=f"{source}:{identity}",
        delivery_id=first_text(event.get("id"), headers.get("x-webhook-id")) or digest,
        occurred_at=first_time(event.get("occurred_at"), incident.get("created_at")) or now,
        url=first_text(incident.get("html_url")) or None,
        match_text=match_text(title, fields, raw),
    )


# PROVIDER_B: Opsgenie -------------------------------------------------------------------------


def _opsgenie(
    payload: dict[str, Any], raw: str, headers: Mapping[str, str], now: datetime, digest: str
) -> AlertEvent:
    source: AlertSource = "PROVIDER_B"
    action = text(payload.get("action"))
    if not action:
        raise _missing(source, "action")
    alert = payload.get("alert")
    if not isinstance(alert, dict):
        raise _missing(source, '"alert" object')
    alert_id = text(alert.get("alertId"))
    if not alert_id:
        raise _missing(source, "alert.alertId")
    kind: AlertKind = "new_alert" if action == "Create" else "lifecycle"
    title = title_of(alert.get("message"), alert.get("alias"), fallback=UNTITLED)
    description = text(alert.get("description"))
    service = text(alert.get("entity"))
    severity = text(alert.get("priority"))
    tags = texts(alert.get("tags"))
    fields = [
        ("description", description),
        ("service", service),
        ("severity", severity),
        ("tags", ", ".join(tags)),
        ("note", text(alert.get("note"))),
        ("source", text(alert.get("source"))),
        ("alias", text(alert.get("alias"))),
        ("teams", ", ".join(texts(alert.get("teams")))),
        ("details", ", ".join(labels(alert.get("details")))),
        ("integration_source", text(get(payload, "source", "name"))),
        ("action", action),
    ]
    # the time of this action: creation for Create, the last update for anything later
    times = (alert.get("createdAt"), alert.get("updatedAt"))
    return AlertEvent(
        source=source,
        kind=kind,
        event_type=action,
        title=title,
        description=description,
        service=service,
        severity=severity,
        tags=tags,
        dedup_key=f"{source}:{alert_id}",
        delivery_id=digest,
        occurred_at=first_time(*(times if kind == "new_alert" else reversed(times))) or now,
        url=None,
        match_text=match_text(title, fields, raw),
    )


# PROVIDER_C: FireHydrant ----------------------------------------------------------------------


def _firehydrant(
    payload: dict[str, Any], raw: str, headers: Mapping[str, str], now: datetime, digest: str
) -> AlertEvent:
    source: AlertSource = "PROVIDER_C"
    data = payload.get("data")
    if not isinstance(data, dict):
        raise _missing(source, '"data" object')
    event = payload.get("event")
    operation_name = text(get(event, "operation"))
    operation = operation_name.upper()
    resource_type = text(get(event, "resource_type"))
    if isinstance(event, dict) and resource_type != "incident":
        return _firehydrant_other(data, raw, now, digest, operation_name, resource_type)
    incident = data.get("incident")
    if not isinstance(incident, dict):
        raise _missing(source, "data.incident object")
    incident_id = text(incident.get("id"))
    if not incident_id:
        raise _missing(source, "data.incident.id")
    milestone = text(incident.get("current_milestone"))
    kind: AlertKind
    if isinstance(event, dict):
        kind = "new_alert" if operation == "CREATED" else "lifecycle"
        event_type = f"{operation or 'UNKNOWN'} incident"
    else:  # no event block: a started incident is new (the incident dedup absorbs repeats)
        kind = "new_alert" if milestone == "started" else "lifecycle"
        event_type = f"incident {milestone or 'unknown'}"
    title = title_of(incident.get("name"), incident.get("summary"), fallback=UNTITLED)
    description = first_text(incident.get("description"), incident.get("summary"))
    service = ", ".join(
        texts(incident.get("services"), "name") or texts(incident.get("impacts"), "name")
    )
    severity = text(get(incident, "severity", "slug")) or text(incident.get("severity"))
    tags = texts(incident.get("tags"))
    fields = [
        ("description", description),
        ("service", service),
        ("severity", severity),
        ("tags", ", ".join(tags)),
        ("summary", text(incident.get("summary"))),
        ("customer_impact_summary", text(incident.get("customer_impact_summary"))),
        ("priority", text(get(incident, "priority", "slug"))),
        ("labels", ", ".join(labels(incident.get("labels")))),
        ("milestone", milestone),
    ]
    start = (incident.get("started_at"), incident.get("created_at"))
    occurred = (
        first_time(*start)
        if kind == "new_alert"
        else first_time(incident.get("updated_at"), *start)
    )
    return AlertEvent(
        source=source,
        kind=kind,
        event_type=event_type,
        title=title,
        description=description,
        service=service,
        severity=severity,
        tags=tags,
        dedup_key=f"{source}:{incident_id}",
        delivery_id=digest,
        occurred_at=occurred or now,
        url=None,
        match_text=match_text(title, fields, raw),
    )


def _firehydrant_other(
    data: Mapping[str, Any],
    raw: str,
    now: datetime,
    digest: str,
    operation: str,
    resource_type: str,
) -> AlertEvent:
    """A delivery about something other than an incident (change events, Signals alerts)."""
    source: AlertSource = "PROVIDER_C"
    # the resource is data itself (change_event) or its only object member (data.alert, ...)
    members = [value for value in data.values() if isinstance(value, dict)]
    resource = data if "id" in data or len(members) != 1 else members[0]
    title = title_of(resource.get("summary"), resource.get("name"), fallback=UNTITLED)
    identity = text(resource.get("id")) or digest
    return AlertEvent(
        source=source,
        kind="ignored",
        event_type=f"{operation or 'UNKNOWN'} {resource_type or 'unknown'}",
        title=title,
        description=first_text(resource.get("description"), resource.get("body")),
        service="",
        severity="",
        tags=(),
        dedup_key=f"{source}:{identity}",
        delivery_id=digest,
        occurred_at=first_time(
            resource.get("starts_at"), resource.get("started_at"), resource.get("created_at")
        )
        or now,
        url=None,
        match_text=match_text(title, [], raw),
    )


# PROVIDER_D: Rootly ---------------------------------------------------------------------------

_ROOTLY_NEW = {"incident.created", "alert.created"}


def _rootly(
    payload: dict[str, Any], raw: str, headers: Mapping[str, str], now: datetime, digest: str
) -> AlertEvent:
    source: AlertSource = "PROVIDER_D"
    event = payload.get("event")
    if not isinstance(event, dict):
        raise _missing(source, '"event" object')
    event_type = text(event.get("type"))
    if not event_type:
        raise _missing(source, "event.type")
    data = obj(payload.get("data"))
    data_id = text(data.get("id"))
    kind: AlertKind
    if event_type in _ROOTLY_NEW:
        kind = "new_alert"
    elif event_type.startswith("incident.") and not event_type.startswith("incident.scheduled."):
        kind = "lifecycle"
    else:
        kind = "ignored"
    if kind != "ignored" and not data_id:
        raise _missing(source, "data.id")
    # sub-resources of an incident (post-mortems, ...) carry its id as data.incident_id
    identity = (text(data.get("incident_id")) if kind == "ignored" else "") or data_id or digest
    is_alert = event_type.startswith("alert.")
    title = title_of(
        data.get("summary") if is_alert else data.get("title"),
        data.get("title"),
        data.get("summary"),
        fallback=UNTITLED,
    )
    description = "" if is_alert else text(data.get("summary"))
    service = ", ".join(texts(data.get("services"), "name", "slug"))
    severity = first_text(
        get(data, "severity", "name"), get(data, "severity", "slug"), data.get("severity")
    )
    tags = labels(data.get("labels"))
    fields = [
        ("description", description),
        ("service", service),
        ("severity", severity),
        ("tags", ", ".join(tags)),
        ("status", text(data.get("status"))),
        ("source", text(data.get("source"))),
        ("environments", ", ".join(texts(data.get("environments"), "name", "slug"))),
        ("external_id", text(data.get("external_id"))),
        ("event_type", event_type),
    ]
    event_id = text(event.get("id"))
    # event.id is documented per event; the vendor samples reuse one across event types, so the
    # resource id is part of the delivery identity (a retry repeats both)
    delivery_id = f"{event_id}:{data_id}" if event_id and data_id else event_id or digest
    issued = event.get("issued_at")
    occurred = (
        first_time(data.get("started_at"), issued)
        if kind == "new_alert"
        else first_time(issued, data.get("started_at"))
    )
    return AlertEvent(
        source=source,
        kind=kind,
        event_type=event_type,
        title=title,
        description=description,
        service=service,
        severity=severity,
        tags=tags,
        dedup_key=f"{source}:{identity}",
        delivery_id=delivery_id,
        occurred_at=occurred or now,
        url=first_text(data.get("url"), data.get("external_url")) or None,
        match_text=match_text(title, fields, raw),
    )


_ADAPTERS: dict[str, _Adapter] = {
    "PROVIDER_A": _pagerduty,
    "PROVIDER_B": _opsgenie,
    "PROVIDER_C": _firehydrant,
    "PROVIDER_D": _rootly,
}
