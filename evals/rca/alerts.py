"""Raw alert bodies as monitoring tools send them (Alertmanager, Datadog, Grafana, generic)."""

from __future__ import annotations

import zlib
from datetime import datetime
from typing import Any

from evals.rca.kit import iso


def alert(
    title: str, service: str, fired: datetime, severity: str, payload: dict[str, Any]
) -> dict[str, Any]:
    return {
        "title": title,
        "service": service,
        "fired_at": iso(fired),
        "severity": severity,
        "payload": payload,
    }


def alertmanager(
    name: str,
    service: str,
    fired: datetime,
    severity: str,
    summary: str,
    description: str,
    expr: str,
    **labels: str,
) -> dict[str, Any]:
    all_labels = {
        "alertname": name,
        "service": service,
        "severity": severity,
        "env": "prod",
        **labels,
    }
    return alert(
        summary,
        service,
        fired,
        severity,
        {
            "version": "4",
            "status": "firing",
            "receiver": "sleuth-oncall",
            "groupKey": f'{{}}:{{alertname="{name}"}}',
            "groupLabels": {"alertname": name},
            "commonLabels": all_labels,
            "commonAnnotations": {"summary": summary, "description": description},
            "externalURL": "https://alertmanager.example.com",
            "alerts": [
                {
                    "status": "firing",
                    "labels": all_labels,
                    "annotations": {"summary": summary, "description": description},
                    "startsAt": iso(fired),
                    "endsAt": "0001-01-01T00:00:00Z",
                    "generatorURL": "https://prometheus.example.com/graph?g0.expr="
                    + expr.replace(" ", "+"),
                    "fingerprint": f"{zlib.crc32(f'{name}/{service}'.encode()):08x}",
                }
            ],
        },
    )


def datadog(
    title: str,
    service: str,
    fired: datetime,
    severity: str,
    query: str,
    value: float,
    threshold: float,
    tags: list[str],
) -> dict[str, Any]:
    return alert(
        title,
        service,
        fired,
        severity,
        {
            "id": f"{int(fired.timestamp() * 1000)}",
            "title": f"[Triggered] {title}",
            "alert_type": "error" if severity in ("critical", "high") else "warning",
            "alert_transition": "Triggered",
            "date": int(fired.timestamp() * 1000),
            "priority": "P1" if severity == "critical" else "P2",
            "body": f"{title}\n\n{query} = {value} (threshold {threshold})",
            "query": query,
            "tags": ",".join([f"service:{service}", "env:prod", *tags]),
            "link": "https://app.datadoghq.example/monitors/4412981",
            "org": {"id": "88213", "name": "prod"},
        },
    )


def grafana(
    title: str,
    service: str,
    fired: datetime,
    severity: str,
    panel: str,
    value: str,
    **labels: str,
) -> dict[str, Any]:
    all_labels = {"alertname": title, "service": service, "severity": severity, **labels}
    return alert(
        title,
        service,
        fired,
        severity,
        {
            "receiver": "sleuth",
            "status": "firing",
            "orgId": 1,
            "title": f"[FIRING:1] {title}",
            "state": "alerting",
            "message": f"**Firing**\n\nValue: {value}\nLabels: "
            + ", ".join(f"{k}={v}" for k, v in all_labels.items()),
            "alerts": [
                {
                    "status": "firing",
                    "labels": all_labels,
                    "annotations": {"panel": panel},
                    "startsAt": iso(fired),
                    "valueString": value,
                    "dashboardURL": "https://grafana.example.com/d/svc-overview",
                }
            ],
        },
    )


def generic(
    title: str, service: str, fired: datetime, severity: str, details: dict[str, Any]
) -> dict[str, Any]:
    return alert(
        title,
        service,
        fired,
        severity,
        {
            "title": title,
            "service": service,
            "severity": severity,
            "timestamp": iso(fired),
            **details,
        },
    )
