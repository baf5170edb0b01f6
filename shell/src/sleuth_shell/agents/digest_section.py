"""A digest section written by the embedded agent.

`digest_section` reports over the window the prompt names (default: the 24 hours before ``now``):
volume, errors per service, the busiest error hour, top errors, deploys and rollbacks recorded in
the logs, and a related runbook. The section body is returned without a heading (the digest adds
it). Every figure cites the query that counted it (the busiest hour its own hour), so the claim
check (`sleuth_shell.agents.claims.verify`, run by the agent) reads each one back.
"""

from __future__ import annotations

from datetime import timedelta

from sleuth_core.language import TimeWindow, match_services, parse_window, terms
from sleuth_shell.agents.base import AgentResult
from sleuth_shell.agents.embedded_run import (
    CHANGE_MARKER,
    ERROR_LEVELS,
    EmbeddedRun,
    code,
    counts_table,
    deploy_line,
    errors_of,
    inline,
    plural,
    runbook_block,
    services_phrase,
    totals,
    ts,
)
from sleuth_shell.agents.log_answer import DEFAULT_LOOKBACK

__all__ = ["digest_section"]


async def digest_section(run: EmbeddedRun, section: str, prompt: str) -> AgentResult:
    """Report on one digest section (see the module doc)."""
    ctx = run.ctx
    text = f"{section}\n{prompt}"
    window = parse_window(text, ctx.now) or TimeWindow(
        ctx.now - DEFAULT_LOOKBACK, ctx.now, "default"
    )
    known = await run.services()
    services = match_services(text, known) or None
    parts: list[str] = []
    if known:
        table = totals(await run.counts(window, services))
        scope = services_phrase(services)
        counts_cite = run.cite_logs(
            window,
            services,
            None,
            f"Log counts for {inline(', '.join(services or ['all services']))}",
        )
        total = sum(sum(row.values()) for row in table.values())
        errors = sum(errors_of(row) for row in table.values())
        warnings = sum(row.get("WARNING", 0) for row in table.values())
        parts.append(
            f"From {ts(window.start)} to {ts(window.end)}, {scope} logged "
            f"{plural(total, 'line')}: {plural(errors, 'error')} and "
            f"{plural(warnings, 'warning')} {counts_cite}."
        )
        if table:
            parts.append(counts_table(table))
        if errors:
            errors_cite = run.cite_logs(window, services, ERROR_LEVELS, "Errors")
            histogram = await run.histogram(window, 3600, services, ERROR_LEVELS)
            if histogram:
                peak_start, peak = max(histogram, key=lambda item: (item[1], -item[0].timestamp()))
                # The hour is cited as its own log query, so its count can be read back.
                hour = TimeWindow(
                    max(peak_start, window.start),
                    min(peak_start + timedelta(hours=1), window.end),
                    "busiest hour",
                )
                hour_cite = run.cite_logs(hour, services, ERROR_LEVELS, "Errors that hour")
                parts.append(
                    f"The busiest hour for errors began at {ts(hour.start)} with "
                    f"{plural(peak, 'error')} {hour_cite} of the window's {errors} {errors_cite}."
                )
            top = await run.top(window, services, ERROR_LEVELS, 5)
            items = [
                f"{i}. **{inline(m.service, 100)}** {code(m.message)} — "
                f"{plural(m.count, 'time')}, {ts(m.first_seen)} to {ts(m.last_seen)}"
                for i, m in enumerate(top, start=1)
            ]
            parts.append(f"**Top errors** {errors_cite}\n\n" + "\n".join(items))
        changes = await run.deploy_lines(window)
        if changes:
            changes_cite = run.cite_logs(
                window, None, None, "Deploys and rollbacks", text=CHANGE_MARKER
            )
            items = [deploy_line(c) for c in changes]
            parts.append(f"**Deploys and rollbacks** {changes_cite}\n\n" + "\n".join(items))
    else:
        parts.append("No logs are stored for this organization yet.")
    hits = await run.search(text, limit=1)
    wanted = set(terms(text))
    if hits and wanted & set(terms(hits[0].title)):
        parts.append("Relevant runbook: " + runbook_block(run, hits[0], text, terms(text)))
    return run.result("\n\n".join(parts))
