"""Answers from the logs: what exactly the asked services logged in the asked window.

`answer_from_logs` counts the asked levels (errors by default) for exactly the asked services and
window and lists the distinct messages with their counts and first and last times; an empty
window says so and when the service last logged such lines, or, when no level was asked and the
window holds warnings, lists those. "Since the deploy" windows start at
the last deploy marker in the logs. Causes are never guessed here: "why" questions go to the
root-cause engine (:mod:`sleuth_shell.agents.rca`), and when it finds no failure to explain the
answer says that no cause is established.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from sleuth_core.language import TimeWindow
from sleuth_shell.agents.base import AgentResult, LogMessageCount
from sleuth_shell.agents.embedded_run import (
    ERROR_LEVELS,
    EmbeddedRun,
    code,
    describe,
    inline,
    levels_phrase,
    marker_target,
    plural,
    services_phrase,
    totals,
    ts,
)
from sleuth_shell.question import Question

__all__ = ["DEFAULT_LOOKBACK", "answer_from_logs"]

DEFAULT_LOOKBACK = timedelta(hours=24)
#: Distinct messages counted (the claim check reads as many back) and listed.
_DISTINCT = 200
_LISTED = 8
_WARNINGS = ("WARNING",)


async def answer_from_logs(
    run: EmbeddedRun,
    asked: Question,
    window: TimeWindow | None,
    services: Sequence[str],
) -> AgentResult:
    """Counts and distinct messages for exactly the asked services and window (module doc)."""
    ctx = run.ctx
    levels = asked.levels or ERROR_LEVELS
    scope = list(services) or None
    if asked.since_deploy:
        lookback = TimeWindow(ctx.now - timedelta(days=7), ctx.now, "deploys")
        deploys = [
            r
            for r in await run.deploy_lines(lookback)
            if "rolled back" not in r.message.lower()
            and (not scope or marker_target(r) in scope or any(s in r.message for s in scope))
        ]
        if deploys:
            window = TimeWindow(deploys[-1].timestamp, ctx.now, "since deploy")
    window = window or TimeWindow(ctx.now - DEFAULT_LOOKBACK, ctx.now, "default")
    who = services_phrase(scope)
    span = f"between {ts(window.start)} and {ts(window.end)}"
    level_words = levels_phrase(levels)
    every = await run.top(window, scope, levels, limit=_DISTINCT)
    top = every[:_LISTED]
    cite = run.cite_logs(
        window, scope, levels, f"{level_words.capitalize()} from {describe(scope)}"
    )
    total = sum(m.count for m in every)
    parts: list[str] = []
    no_cause = (
        "**No change in the data explains this**, and no cause is established: the root-cause "
        "analysis of the logs, metrics and change records finds no failure beginning in this "
        "window. "
        if asked.intent == "cause"
        else ""
    )
    if no_cause and not top:
        parts.append(no_cause.strip())
    if not top and asked.levels is None:
        # No errors where none were asked for by level ("anything off in the past half
        # hour?"): what the window holds of warnings is the answer, said first.
        warned = await run.top(window, scope, _WARNINGS, limit=_DISTINCT)
        if warned:
            none_cite = cite
            cite = run.cite_logs(window, scope, _WARNINGS, f"Warnings from {describe(scope)}")
            total = sum(m.count for m in warned)
            first = (
                f"{who} logged no {level_words} {span} {none_cite}, but "
                f"{plural(total, 'warning')} ({plural(len(warned), 'distinct message')}) "
                f"{cite}: " + "; ".join(_listed(m, scope) for m in warned[:3]) + "."
            )
            parts.append(first[0].upper() + first[1:] if first[0] != "*" else first)
            parts.append(_listing(warned[:_LISTED], cite))
            return run.result("\n\n".join(parts))
    if not top:
        counts = totals(await run.counts(window, scope))
        lines = sum(sum(row.values()) for row in counts.values())
        first = f"{who} logged no {level_words} {span} {cite}."
        if lines:
            count_cite = run.cite_logs(window, scope, None, f"All lines from {describe(scope)}")
            first += f" It logged {plural(lines, 'line')} in all {count_cite}."
        parts.append(first[0].upper() + first[1:] if first[0] != "*" else first)
        bounds = await ctx.logs.time_bounds(ctx.org_id)
        if bounds is not None:
            ever = TimeWindow(bounds[0], bounds[1] + timedelta(seconds=1), "stored")
            history = await run.top(ever, scope, levels, limit=20)
            if history:
                last = max(history, key=lambda m: m.last_seen)
                ever_cite = run.cite_logs(
                    ever,
                    scope,
                    levels,
                    f"{level_words.capitalize()} from {describe(scope)}, all stored",
                )
                noun = "error" if levels == ERROR_LEVELS else level_words.rstrip("s")
                # In the same paragraph: when the window is empty, when it last happened is the
                # answer's other half.
                parts[-1] += (
                    f" The last {noun} {who} logged was at {ts(last.last_seen)}: "
                    f"{code(last.message)} {ever_cite}."
                )
            else:
                ever_cite = run.cite_logs(
                    ever,
                    scope,
                    levels,
                    f"{level_words.capitalize()} from {describe(scope)}, all stored",
                )
                parts[-1] += (
                    f" {who[0].upper() + who[1:]} has logged no {level_words} in the stored "
                    f"logs, which run from {ts(bounds[0])} to {ts(bounds[1])} {ever_cite}."
                )
        return run.result("\n\n".join(parts))
    distinct = len(every)
    summary = no_cause + (
        f"{span[0].upper()}{span[1:]}, {who} logged {plural(total, level_words.rstrip('s'))}"
        f" ({plural(distinct, 'distinct message')}) {cite}: "
        + "; ".join(_listed(m, scope) for m in top[:3])
        + "."
    )
    return run.result("\n\n".join([*parts, summary, _listing(top, cite)]))


def _listed(m: LogMessageCount, scope: Sequence[str] | None) -> str:
    """One distinct message in the first sentence: its text and count (and service)."""
    return f"{code(m.message)} {plural(m.count, 'time')}" + (
        "" if scope and len(scope) == 1 else f" from **{inline(m.service, 100)}**"
    )


def _listing(top: Sequence[LogMessageCount], cite: str) -> str:
    """The distinct messages, each with its count and first and last time."""
    items = [
        f"- **{inline(m.service, 100)}** {m.level} {code(m.message)}: "
        f"{plural(m.count, 'time')}, first {ts(m.first_seen)}, last {ts(m.last_seen)}"
        for m in top
    ]
    return f"**Distinct messages** {cite}\n\n" + "\n".join(items)
