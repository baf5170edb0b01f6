"""Alertmanager and Grafana Alerting webhooks: one delivery is a group, one alert per entry.

Both post the same structure (Alertmanager ``version: "4"``, Grafana's webhook contact point
``version: "1"`` with a few more keys): ``groupKey``, ``status``, ``commonLabels``,
``externalURL`` and ``alerts[]``, each with ``status``, ``labels``, ``annotations``, ``startsAt``,
``endsAt``, ``generatorURL`` and (since 2020) ``fingerprint``. See docs/alert-intake.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

from sleuth_core.intake._values import first_text, first_time, match_text, obj, text, title_of
from sleuth_core.intake.event import AlertEvent, AlertKind, AlertSource

__all__ = ["is_alert_group", "parse_alert_group", "prometheus_expression"]

_SERVICE_LABELS = ("service", "job", "app")


def is_alert_group(payload: Mapping[str, Any]) -> bool:
    """Whether ``payload`` has the shape both tools send: an ``alerts`` array of objects.

    >>> is_alert_group({"alerts": [{"labels": {}}]}), is_alert_group({"alerts": "x"})
    (True, False)
    """
    alerts = payload.get("alerts")
    return (
        isinstance(alerts, list)
        and bool(alerts)
        and all(isinstance(alert, dict) for alert in alerts)
    )


def prometheus_expression(generator_url: str) -> str | None:
    """The PromQL of a Prometheus graph link (its ``g0.expr``), else ``None``.

    >>> prometheus_expression("http://prom:9090/graph?g0.expr=vector%28666%29&g0.tab=1")
    'vector(666)'
    >>> prometheus_expression("https://grafana.example/alerting/grafana/abc/view") is None
    True
    """
    try:
        query = parse_qs(urlsplit(generator_url).query)
    except ValueError:
        return None
    values = query.get("g0.expr") or query.get("expr")
    expression = values[0].strip() if values else ""
    return expression or None


def _labels_identity(labels: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        {str(k): text(v) for k, v in labels.items()}, sort_keys=True, separators=(",", ":")
    )
    return "labels:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def parse_alert_group(
    source: AlertSource, payload: dict[str, Any], received_at: datetime
) -> tuple[AlertEvent, ...]:
    """One :class:`AlertEvent` per entry of ``payload["alerts"]`` (see :func:`is_alert_group`).

    Title: ``annotations.summary``, else ``labels.alertname`` (else the group's ``title``);
    service: label ``service``, ``job`` or ``app``; severity: label ``severity``; dedup key the
    ``fingerprint`` (a hash of the labels when an older Alertmanager sends none); a ``resolved``
    alert is a lifecycle event. The delivery id is the alert's identity, status and start, so a
    group sent again with an alert already reported answers that alert from its record.
    """
    group_key = text(payload.get("groupKey"))
    group_status = text(payload.get("status"))
    entries = [entry for entry in payload.get("alerts") or [] if isinstance(entry, dict)]
    group = {key: value for key, value in payload.items() if key != "alerts"}
    events: list[AlertEvent] = []
    for entry in entries:
        labels = obj(entry.get("labels"))
        annotations = obj(entry.get("annotations"))
        status = text(entry.get("status")) or group_status or "firing"
        kind: AlertKind = "lifecycle" if status.lower() == "resolved" else "new_alert"
        title = title_of(
            annotations.get("summary"),
            labels.get("alertname"),
            payload.get("title"),
            fallback="Untitled alert",
        )
        service = first_text(*(labels.get(name) for name in _SERVICE_LABELS))
        severity = text(labels.get("severity"))
        fingerprint = text(entry.get("fingerprint"))
        identity = fingerprint or _labels_identity(labels)
        starts = first_time(entry.get("startsAt"))
        ends = first_time(entry.get("endsAt"))
        occurred = (ends if kind == "lifecycle" else starts) or starts or received_at
        generator_url = text(entry.get("generatorURL")) or None
        body = json.dumps({**group, "alerts": [entry]}, ensure_ascii=False)
        fields = [
            ("status", status),
            ("service", service),
            ("severity", severity),
            *((f"label.{k}", text(v)) for k, v in sorted(labels.items())),
            *((f"annotation.{k}", text(v)) for k, v in sorted(annotations.items())),
            ("value", text(entry.get("valueString"))),
            ("receiver", text(payload.get("receiver"))),
        ]
        events.append(
            AlertEvent(
                source=source,
                kind=kind,
                event_type=f"alert {status}",
                title=title,
                description=first_text(annotations.get("description"), annotations.get("message")),
                service=service,
                severity=severity,
                tags=tuple(f"{k}:{text(v)}" for k, v in sorted(labels.items()) if text(v)),
                dedup_key=f"{source}:{identity}"[:255],
                delivery_id=f"{identity}:{status}:{text(entry.get('startsAt'))}"[:255],
                occurred_at=occurred,
                url=first_text(entry.get("dashboardURL"), entry.get("panelURL"), generator_url)
                or None,
                match_text=match_text(title, fields, body),
                group_key=group_key,
                generator_url=generator_url,
                expression=prometheus_expression(generator_url) if generator_url else None,
                body=body,
            )
        )
    return tuple(events)
