"""Question understanding: what an on-call question asks, read without a model.

`understand(text, now, services)` returns a `Question`: the time window it names, the services it
names (full names, base names, plural/singular, explicit aliases), the log levels it asks about,
whether it asks for the window "since the deploy" (resolved by the agent from the logs), and its
intent: ``fact`` (a value, threshold, owner), ``how-to`` (a procedure or command), ``errors`` (what
was logged), ``cause`` ("why", "root cause") or ``count`` ("how many").

The time window and the service names are read by :mod:`sleuth_core.language`
(`parse_window`, `match_services`); ``since the deploy`` sets `Question.since_deploy` (the window
is resolved by the caller). Severity words of an alert ("critical", "warning") are not log-level
filters: a level is asked only when it qualifies what was logged ("critical errors", "warnings in
the logs", "logged warnings", "was warning about"); "failing over" is a procedure, not a failure.
A question ending "..., why?" asks for the cause. "Anything weird / off" or "any problems" about a
named service asks the logs; a question about what a service throws that asks what only a runbook
says (what a code means, who approves, what to tell someone, what severity an outage is), with no
time named, is a ``fact``.

`expand_shorthand(text)` first writes out what on-call engineers abbreviate when they type fast
(``yday``/``yest`` for yesterday, ``errs``, ``cmd``, ``msgs``, ``w/``, ``b4``, ``whats``), drops
the approximation marks before a time (``~15:05``, ``approx 15:05``, "since about 15:05" is
"since 15:05"); a word joined to another by a hyphen (``yard-svc``) is a name and is left as it
is.

Pure: the clock is passed in; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from sleuth_core.language import TimeWindow, match_services, parse_window

__all__ = ["Intent", "Question", "expand_shorthand", "told_first", "understand"]

_SINCE_DEPLOY = re.compile(
    r"\bsince\s+(?:the\s+)?(?:last\s+|latest\s+)?(?:deploy(?:ment)?|release|rollout)\b",
    re.IGNORECASE,
)

#: Shorthand words and what they stand for (whole words only, never part of a hyphenated name).
_SHORTHAND = {
    "yday": "yesterday",
    "yest": "yesterday",
    "ystday": "yesterday",
    "errs": "errors",
    "err": "error",
    "cmd": "command",
    "cmds": "commands",
    "msg": "message",
    "msgs": "messages",
    "b4": "before",
    "w/": "with",
    "w/o": "without",
    "whats": "what's",
    "whos": "who's",
    "hows": "how's",
    "wheres": "where's",
    "whens": "when's",
}
_SHORTHAND_WORD = re.compile(
    r"(?<![\w/-])("
    + "|".join(re.escape(k) for k in sorted(_SHORTHAND, key=len, reverse=True))
    + r")(?![\w/-])",
    re.IGNORECASE,
)
#: An approximation mark before a time or number ("~15:05", "approx. 15:05", "ca. 15:05").
_APPROX = re.compile(r"(?:~|≈|\bapprox(?:\.|imately)?\s*|\bca\.\s*|\bcirca\s+)(?=\d)", re.I)
_SINCE_ABOUT = re.compile(
    r"\b(since|from|after|before|until)\s+(?:about|around|roughly|approximately)\s+(?=\d)", re.I
)


_SPACES = re.compile(r"[^\S\n]+")
_LINE_BREAKS = re.compile(r" ?\n[\s]*")


def expand_shorthand(text: str) -> str:
    r"""``text`` with on-call shorthand written out (see the module doc), and its white space
    tidied: stripped, each run of spaces one space, each line break one ``\n`` (the readings
    after this one split on white space, and a run of thousands of spaces would make them
    retry at each of its positions).

    >>> expand_shorthand("settlement-batch errs yday since ~02:30 w/ the cmd?")
    'settlement-batch errors yesterday since 02:30 with the command?'
    >>> expand_shorthand("whats the yard-svc cmd")
    "what's the yard-svc command"
    >>> expand_shorthand("   what  is the\t retry limit? \n\n  and who approves?  ")
    'what is the retry limit?\nand who approves?'
    """
    text = _LINE_BREAKS.sub("\n", _SPACES.sub(" ", text)).strip()
    text = _SHORTHAND_WORD.sub(lambda m: _SHORTHAND[m[1].lower()], text)
    text = _APPROX.sub("", text)
    return _SINCE_ABOUT.sub(lambda m: f"{m[1]} ", text)


Intent = Literal["fact", "how-to", "errors", "cause", "count"]

# --- levels and intent --------------------------------------------------------------------------

_ERRORS = ("ERROR", "CRITICAL")
_LOG_NOUN = r"(?:lines?|logs?|log lines|messages?|entries|events|records?|errors?)"
_LEVEL_WORDS = (
    (re.compile(rf"\b(?:critical|fatal)\s+{_LOG_NOUN}\b", re.IGNORECASE), ("CRITICAL",)),
    (
        re.compile(
            r"\b(?:error(?:s|ing)?|exceptions?|fail(?:ures?|ing|ed)(?!\s+over\b(?!\s+and\s+over))|5xxs?|"
            r"5\d\d(?:s|'s)?)\b",
            re.I,
        ),
        _ERRORS,
    ),
    (
        re.compile(
            rf"\bwarnings\b|\bwarning\s+{_LOG_NOUN}\b|\blogged\s+(?:\w+\s+)?warnings?\b|"
            r"\bwarn(?:s)?\b(?!\w)|\b(?:is|was|were|been|be|kept|keeps|started)\s+warning\b|"
            r"\bwarning\s+(?:about|of|that)\b",
            re.IGNORECASE,
        ),
        ("WARNING",),
    ),
    (re.compile(rf"\bdebug\s+{_LOG_NOUN}|\bdebug\b(?!\s+mode)", re.IGNORECASE), ("DEBUG",)),
    (re.compile(rf"\binfo\s+{_LOG_NOUN}", re.IGNORECASE), ("INFO",)),
)
_CAUSE = re.compile(
    r"^\s*why\b|\broot[- ]cause\b|\bwhat\s+(?:caused|broke|triggered)\b|\bcause\s+of\b|"
    r"\breason\s+(?:for|why)\b|\bwhy\s+(?:is|are|was|were|did|does|do)\b|"
    r"\bwhat(?:'s|\s+is|\s+was)\s+(?:the\s+)?cause\b|"
    r"(?:,|\s[-\u2013\u2014])\s*(?:but\s+|and\s+)?why\s*\??\s*$",
    re.IGNORECASE,
)
_COUNT = re.compile(
    r"\bhow\s+many\b|\bcount\b|\bnumber\s+of\b|\bhow\s+often\s+did\b", re.IGNORECASE
)
_HOW_TO = re.compile(
    r"^\s*(?:how\s+(?:do|to|can|should|would)|what(?:'s| is)\s+the\s+(?:procedure|process|steps?|"
    r"command)|which\s+command|steps\s+to)\b",
    re.IGNORECASE,
)
_LOGGED = re.compile(
    r"\b(?:log(?:s|ged)?|report(?:ed)?|throw\w*|errors|warnings|exceptions|"
    r"fail(?:ed|ing|ures)(?!\s+over\b(?!\s+and\s+over))|"
    r"timeouts|timed out|5xx|incidents?|outages?|went wrong|happen(?:ed|ing)|broken|down|"
    r"any(?:thing)?\s+(?:off|weird|wrong|unusual|odd|strange|funny|bad)|"
    r"(?:any|some)\s+(?:issues|problems|trouble)|complain(?:s|ed|ing)|acting up|misbehav\w*)\b",
    re.IGNORECASE,
)

#: What only a runbook answers: what a code means, who approves or gets paged, what to do or to
#: tell someone, what severity a kind of outage is. Asked about what a service throws, with no
#: time named ("doc-convert throwing DC-204 - what is it and what reason do we give the
#: filer?"), it is a catalog question.
_CATALOG_ASK = re.compile(
    r"\bwhat\s+(?:is|does)\s+(?:it|that|this)\b|\bwhat\s+does\s+[^?]{1,40}?\s+mean\b|"
    r"\bmeaning\b|\bwho(?:'s|\s+else)?\s+(?:approves|owns|gets|should|do|does|to|is|has|must|"
    r"can|signs|we|on[- ]call)\b|\bwhat(?:'s|\s+is)\s+the\s+(?:command|procedure|steps?|fix)\b|"
    r"\bhow\s+(?:do|should|can)\s+(?:i|we)\b|\bwhat\s+(?:reason|action|steps?)\b|"
    r"\bwhat\s+(?:do|should|must)\s+(?:we|i)\s+(?:do|tell|give|say|run)\b|"
    r"\b(?:what|which)\s+(?:sev|severity|priority)\b",
    re.IGNORECASE,
)


#: A situation told first ("acmepay still down at the deadline - ...", "kiosk throwing E-17,
#: ...") and what is asked about it.
_TOLD = re.compile(
    r"^\s*(?P<told>\S[^?:;]{1,119}?)(?P<separator>:\s+|\s+[-\u2013\u2014]\s+|,\s+)(?P<asked>\S.*)$",
    re.S,
)


def told_first(text: str) -> tuple[str, str, str] | None:
    """``(told, separator, asked)`` when ``text`` tells something (a situation, a topic: up to
    120 characters with no "?", ":" or ";") before a colon, a dash or a comma and then goes on;
    else None. The one reading of that shape: the intent (a situation then a runbook's fact) and
    the catalog answer (a topic written before every part) both start from it.

    >>> told_first("records-db failover: who approves?")
    ('records-db failover', ': ', 'who approves?')
    >>> told_first("what is the retry limit?") is None
    True
    """
    m = _TOLD.match(text)
    return None if m is None else (m["told"], m["separator"], m["asked"])


_ASKS = re.compile(
    r"\?|\b(?:what|what's|which|who|who's|whom|whose|how|when|where)\b", re.IGNORECASE
)
_REFERS = re.compile(r"\b(?:it|its|they|them|their|this|that|these|those|one|ones)\b", re.I)
_WORD = re.compile(r"[a-z][a-z-]{2,}", re.IGNORECASE)
_ASK_WORDS = frozenset(
    [
        "what",
        "what's",
        "which",
        "who",
        "who's",
        "whom",
        "whose",
        "how",
        "when",
        "where",
        "are",
        "is",
        "was",
        "were",
        "the",
        "a",
        "an",
        "and",
        "for",
        "of",
        "on",
        "in",
        "at",
        "to",
        "do",
        "does",
        "did",
        "we",
        "our",
        "they",
        "it",
        "its",
    ]
)


def _asks_the_catalog_about_a_situation(text: str) -> bool:
    """Whether ``text`` tells a situation first and then asks, in words of its own, for what a
    runbook says ("acmepay still down at the deadline - settlement desk number? and pager
    handle for payments"): what is asked names nothing that was logged and does not refer back
    to it ("orders-worker throwing errors, what are they?" asks the logs)."""
    found = told_first(text)
    if found is None:
        return False
    asked = found[2]
    if (
        not _ASKS.search(asked)
        or _LOGGED.search(asked)
        or _REFERS.search(asked)
        or _ASKS_WHAT_HAPPENED.search(asked)
    ):
        return False
    return any(w.lower() not in _ASK_WORDS for w in _WORD.findall(asked))


#: What the data answers, not a runbook: which change, deploy or service is behind it
#: ("payments-api down - which deploy?", "errors spiking, which service is the culprit?").
_ASKS_WHAT_HAPPENED = re.compile(
    r"\b(?:deploy\w*|releas\w*|commit\w*|chang\w*|roll(?:ed|out)\w*|ship\w*|culprit|caus\w*|"
    r"why|broke|service)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Question:
    """What a question asks (see the module doc)."""

    text: str
    intent: Intent
    window: TimeWindow | None
    services: list[str] = field(default_factory=list)
    levels: tuple[str, ...] | None = None
    since_deploy: bool = False

    @property
    def about_logs(self) -> bool:
        """True when the answer should come from the logs."""
        return self.intent in ("errors", "cause", "count")


def understand(
    text: str,
    now: datetime,
    services: Iterable[str] = (),
    aliases: Mapping[str, str] | None = None,
) -> Question:
    """Read ``text`` at ``now`` against the organization's ``services`` (see the module doc)."""
    known = list(services)
    named = match_services(text, known, aliases)
    window = parse_window(text, now)
    since_deploy = _SINCE_DEPLOY.search(text) is not None
    levels: tuple[str, ...] | None = None
    for pattern, found in _LEVEL_WORDS:
        if pattern.search(text):
            levels = found
            break
    logged = _LOGGED.search(text) is not None
    intent: Intent
    if _CAUSE.search(text):
        intent = "cause"
    elif _COUNT.search(text) and (logged or window is not None):
        intent = "count"
    elif _HOW_TO.search(text):
        intent = "how-to"
    elif (
        window is None
        and not since_deploy
        and (_CATALOG_ASK.search(text) or _asks_the_catalog_about_a_situation(text))
    ):
        intent = "fact"
    elif (logged and (named or window is not None or since_deploy)) or (window and named):
        intent = "errors"
    else:
        intent = "fact"
    return Question(text, intent, window, named, levels, since_deploy)
