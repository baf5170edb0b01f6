"""The root-cause engine in four stages: onsets, episode, suspects, verdict (see
:mod:`sleuth_core.rca`).

`find_onsets` reads when each service began failing (errors, metrics), `find_episode` the failure
episode the alert is about and its first failing service, `rank_suspects` scores every change
against the failure, and `decide` gives the verdict, its category and the hypotheses weighed;
`analyze` runs the four in order. The patterns here name generic failure mechanisms and outside
causes, never one incident's services or messages.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from functools import lru_cache
from itertools import compress, pairwise, repeat
from operator import ge, itemgetter

from sleuth_core.language import EARLIEST_INSTANT
from sleuth_core.rca.model import (
    Alert,
    Analysis,
    Category,
    Change,
    Confidence,
    ErrorSignature,
    Evidence,
    Hypothesis,
    MetricPoints,
    Onset,
    Suspect,
)
from sleuth_core.rca.signals import (
    change_point,
    change_terms,
    compound_hits,
    message_template,
    metric_change_point,
    minutes,
    relatedness,
    signature_terms,
    words_of,
)
from sleuth_core.stacktrace import parse_stack

__all__ = [
    "LIKELY_AT",
    "STRONG_AT",
    "Episode",
    "OnsetStage",
    "altered_mechanisms",
    "analyze",
    "changed_lines",
    "decide",
    "find_episode",
    "find_onsets",
    "inert",
    "mechanisms",
    "rank_suspects",
    "renames_only",
    "retuned_settings",
    "stack_frames",
]

#: Least relatedness for a change verdict (one rare compound identifier of the failure reaches it).
LIKELY_AT = 0.5
#: Relatedness from which a change verdict, on the failing service, is CONFIRMED.
STRONG_AT = 0.65
#: How long after the onset a change is still taken as "at the onset" when the onset is exact.
_SLACK = timedelta(seconds=30)
#: A related change this close before the onset, on a failing service, gains relatedness.
_PROXIMITY = timedelta(minutes=15)
_PROXIMITY_GAIN = 0.06
_COMPOUND_GAIN = 1.5
_MIN_ERRORS = 5
_MIN_NEW_ERRORS = 4
#: A new message is a burst when its rate over its own span is this many times its rate over the
#: whole look-back ...
_BURST_RATIO = 3.0
#: ... and, at that rate, the silence before its first sighting had at most ``exp(-_BURST_SILENCE)``
#: (1%) chance: sparse steady noise absent from the baseline by chance fails.
_BURST_SILENCE = 4.6
_BURST_FLOOR = timedelta(minutes=5)
#: How far before the alert's own failure another service's onset may lie and still belong to the
#: same failure episode (without a dependency linking them).
_EPISODE_GAP = timedelta(hours=1)
#: Onsets this close are one moment (a metric's step, an error bucket).
_SAME_BUCKET = timedelta(minutes=5)
#: Evidence gained (on the ``s / (s + 3)`` scale) by a change altering a mechanism the failure
#: shows, by retuning that mechanism's number, and by changing a file or function of its stack.
_MECHANISM_GAIN = 1.2
_RETUNE_GAIN = 1.5
_FRAME_GAIN = 2.0
#: A deploy rolled back after the onset, the errors stopping with the rollback.
_ROLLBACK_GAIN = 3.0
#: A deploy with nothing to read, on the failing service this soon before the onset.
_OPAQUE_NEAR = timedelta(minutes=10)
_OPAQUE_GAIN = 2.5
#: A flag or setting changed on the failing service just before it failed on its settings.
_CONFIG_GAIN = 2.5
#: A flag or setting switched this soon before an exact onset: time points at it.
_SWITCHED_NEAR = timedelta(minutes=10)
#: A change on the first failing service that went live (plus this for its rollout) long enough
#: before the onset to have caused this many of the failure's errors at the failure's own rate,
#: and caused none, keeps this share of its relatedness when another related change went live
#: within this time of the onset (the chance of such a silence is e^-5).
_GOING_LIVE = timedelta(minutes=5)
_QUIET_ERRORS = 5.0
_QUIET_SHARE = 0.6
#: A change that alters no mechanism the failure shows keeps this share of its word relatedness.
_SURFACE_ONLY = 0.75
#: An outside cause this strong is overruled only by a change altering the failure's mechanism.
_STRONG_OUTSIDE = 2.5
#: A failure that shows only in a metric: how long before the alert, and how far from baseline.
_METRIC_ONLY_WINDOW = timedelta(hours=6)
_METRIC_ONLY_RATIO = 1.5
_FAILURE_METRIC = re.compile(
    r"lag|iops|mem|heap|rss|disk|inode|fd|conn|pool|queue|backlog|latency|duration|p9\d|error|"
    r"5xx|fail|timeout|util|saturation|cpu|thread|evict|oom|restart|throttl|wait|full|usage"
)
#: Words of a question or alert title that name no failure.
_GENERIC_ASK = frozenset(
    [
        *[
            "failing",
            "fail",
            "failed",
            "error",
            "errors",
            "down",
            "slow",
            "broken",
            "today",
            "what",
            "when",
            "where",
            "which",
        ],
        *[
            "there",
            "were",
            "why",
            "alert",
            "high",
            "firing",
            "fired",
            "outage",
            "incident",
            "investigate",
            "root",
            "cause",
        ],
    ]
)
#: Errors that stopped this long before the alert (and longer than they lasted) have recovered.
_RECOVERED_QUIET = timedelta(minutes=15)
#: A fatal configuration error: a handful of these is a failure, not noise.
_CONFIG_ERROR = re.compile(
    r"\bconfig(?:uration)?\b|missing required|invalid (?:setting|value|option|config)|"
    r"unknown (?:option|setting|key)|environment variable|\benv(?:ironment)? var|must be set|"
    r"not set\b|\bfatal\b",
    re.IGNORECASE,
)
_FATAL_LEVELS = frozenset({"CRITICAL", "FATAL"})
#: A setting that is missing or invalid (`_CONFIG_ERROR` without the bare level word "fatal", which
#: many a database or runtime prefixes to any error).
_CONFIG_WORDS = re.compile(_CONFIG_ERROR.pattern.replace(r"|\bfatal\b", ""), re.IGNORECASE)
#: Series that measure how full a resource is.
_RESOURCE_METRIC = re.compile(
    r"mem|heap|rss|cpu|conn|pool|queue|lag|backlog|disk|iops|inode|fd|thread|saturation|util|"
    r"evict|oom"
)
#: A failure that says a resource ran out.
_EXHAUSTION = re.compile(
    r"out of memory|\boom|exhaust|too many (?:connections|open files|clients)|no space left|"
    r"connection slots|"
    r"disk (?:is )?full|quota|saturat|queue (?:is )?full|backlog|pool (?:is )?full|"
    r"replication lag|throttl|watermark|low on (?:disk|memory|space)|free space|wraparound|"
    r"inodes?\b|outofmemory|memoryerror|cannot allocate memory|file descriptors|"
    r"not accepting (?:commands|connections|writes)|connection limit|max_connections|"
    r"\b(?:disk|volume|filesystem|storage)\s+(?:usage\s+|used\s+)?(?:at\s+)?(?:9\d|100)(?:\.\d+)?\s*%",
    re.IGNORECASE,
)

_TLS = re.compile(
    r"x509|certificate (?:has )?expired|certificate verify failed|ssl(?:error)?|tls handshake|"
    r"handshake fail|cert(?:ificate)? (?:is )?not valid|unknown authority|self.signed",
    re.IGNORECASE,
)
_DNS = re.compile(
    r"nxdomain|servfail|no such host|name resolution|could not resolve|getaddrinfo|"
    r"temporary failure in name|dns (?:lookup|resolution|timeout|error|fail)|resolv\w* fail",
    re.IGNORECASE,
)
#: Input a service rejects for its shape or values (bad records, not a bad handler).
_BAD_INPUT = re.compile(
    r"does not match|could not be parsed|cannot be parsed|unable to parse|fail(?:ed)? to parse|"
    r"could not parse|cannot parse|invalid (?:date|format|"
    r"character|encoding|utf-?8|byte sequence)|schema (?:violation|mismatch|validation fail)|"
    r"malformed|unparseable|unexpected (?:end of input|character|column count)|wrong format|"
    r"\binput\b[^\n.]{0,20}\bis (?:invalid|malformed|corrupt)|invalid input|"
    r"\bfails? (?:the |its )?(?:format|validation|schema)\b",
    re.IGNORECASE,
)
#: A datastore full at its memory limit with eviction off: it refuses writes until it is freed.
_STORE_FULL = re.compile(
    r"maxmemory|used memory\s*>|oom command not allowed|noeviction|out of memory storing|"
    r"memory limit reached|evictions? (?:is |are )?(?:off|disabled)",
    re.IGNORECASE,
)
#: A flag or setting that changes how much work is sent at once (a burst it makes itself).
_FANOUT = re.compile(
    r"\bbatch|all at once|\bat once\b|in one go|parallel|concurren|fan.?out|\bbulk\b|"
    r"simultaneous|every \w+ of|burst|prefetch|eager",
    re.IGNORECASE,
)
#: A change must have shipped this soon before the onset to explain rejected input.
_BAD_INPUT_LEAD = timedelta(hours=1)
#: An outside party that is down: unavailable, refusing or timing out.
_UNAVAILABLE = re.compile(
    r"\b50[234]\b|service unavailable|bad gateway|gateway time-?out|connection refused|"
    r"connection reset|no route to host|network is unreachable|timed out|deadline exceeded|"
    r"unavailable",
    re.IGNORECASE,
)
#: A message about one data item (a record, an offset, an event ...) and an id or number of it.
_DATA_ITEM = re.compile(
    r"\b(?:record|offset|message|event|row|entry|document|file|payload|item)s?\b", re.IGNORECASE
)
_ID = re.compile(r"\w*\d\w*")
#: How often a message must recur to be more than a handful (rejections, a batch's errors).
_REPEATS = 10
#: How often the very same message (its ids and offsets included) must recur to be one item
#: failing again and again: distinct items never give the same ids five times.
_SAME_REPEATS = 5
_NEIGHBOUR = re.compile(r"noisy neighbou?r|cpu steal|steal time|throttl", re.IGNORECASE)
_POISON = re.compile(
    r"poison|dead.letter|unparseable|malformed|cannot deserializ|failed to deserializ|"
    r"deserializ\w* (?:error|fail)|invalid (?:record|payload|message)|redeliver",
    re.IGNORECASE,
)
_STATUS = re.compile(
    r"status|outage|incident|degraded|disruption|impair|elevated error|partial|investigating|"
    r"service issue|major|identified|monitoring",
    re.IGNORECASE,
)
_STATUS_UPDATE = re.compile(
    r"\b(?:investigating|identified|monitoring|resolved|update)\b\s*[:-]", re.IGNORECASE
)
_REGION = re.compile(
    r"\b(?:[a-z]{2}-[a-z]+-\d|availability zone|region|zone [a-z]|az[- ]?\d)\b", re.IGNORECASE
)
_HOST = re.compile(
    r"\b(?:[a-z0-9-]+\.)+(?:com|io|net|org|cloud|dev|co|example|app|ai|us|eu|uk|de)\b",
    re.IGNORECASE,
)


def _outside_hosts(text: str) -> list[str]:
    """The host names ``text`` addresses (lowercased), not code module paths: a host whose path
    leads to code (``github.com/org/repo/pkg.(*Client).Do(...)``, ``.../client.go:37``) names
    where code came from, not a party called.

    >>> _outside_hosts("504 from api.maps.example/v2/route at github.com/acme/api/x.go:3")
    ['api.maps.example']
    """
    out = []
    for m in _HOST.finditer(text):
        path = _MODULE_PATH.match(text, m.end())
        if path is None or not _CODE_IN_PATH.search(path.group(0)):
            out.append(m.group(0).lower())
    return out


_MODULE_PATH = re.compile(r"(?:/[\w.@~()*+-]+)+")
_CODE_IN_PATH = re.compile(r"\.(?:go|java|kt|py|rb|rs|js|ts|scala|cs)\b|\.\(|\.[A-Za-z_]\w*\(")


#: A container killed at its own memory limit (the node is fine: the workload outgrew it).
_CONTAINER_OOM = re.compile(
    r"oom.?kill|out of memory|exit code 137|memory limit|signal 9\b|sigkill", re.IGNORECASE
)
#: A warning that a resource is running out ahead of its limit.
_RUNNING_OUT = re.compile(
    r"must be \w+ within|approaching (?:its |the )?(?:limit|maximum|capacity|wraparound)|"
    r"nearly (?:full|exhausted)|running (?:out|low)|will (?:run out|be exhausted)|"
    r"to avoid (?:a )?(?:database )?(?:shutdown|wraparound)|low (?:disk|memory) space",
    re.IGNORECASE,
)
#: A host's clock out of sync (the platform's events, chrony/ntpd, a node problem detector).
_CLOCK = re.compile(
    r"clock (?:skew|drift|offset|unsynchroni[sz]ed|not synchroni[sz]ed)|unsynchroni[sz]ed|"
    r"no selectable sources|ntp (?:source|server|sync)\w*|time ?sync\w* (?:lost|fail)|"
    r"clock ?skew",
    re.IGNORECASE,
)
_CLOCK_METRIC = re.compile(r"timex_offset|clock_?(?:skew|offset|drift)|ntp_?offset|time_?offset")
#: Things judged by the clock: expired or not yet valid tokens, signatures, certificates.
_TIME_VALIDITY = re.compile(
    r"expired|not yet valid|not valid (?:before|yet)|clock|skew|\biat\b|\bnbf\b|too early|"
    r"in the future",
    re.IGNORECASE,
)
_QUIET_LEVELS = frozenset({"DEBUG", "INFO", "NOTICE", "WARN", "WARNING"})
#: How long before a caller's onset a called service's few new errors still mark its own.
_CALLEE_LEAD = timedelta(minutes=30)
#: How far before an onset the alert or question states ("since ~15:05") the failure it names may
#: have begun: a stated time is approximate.
_STATED_MARGIN = timedelta(minutes=15)
#: How long before the onset a clock can have been drifting (its skew grows until checks fail).
_CLOCK_LEAD = timedelta(hours=6)
#: A network monitor's word that a link or a device went down (``ifOperStatus down``, a port
#: or an uplink "is down", a device unreachable).
_LINK_DOWN = re.compile(
    r"\bifOperStatus\W+down\b|\b(?:port|interface|link|uplink)\b[^\n]{0,80}?\bis down\b"
    r"|\bdevice\b[^\n]{0,80}?\bis (?:down|unreachable)\b"
    # Equipment losing power, or no longer answering the monitor's probes.
    r"|\bbreaker\b[^\n]{0,40}?\btripped\b|\bde-?energi[sz]ed\b|on ?battery\b"
    r"|\bpower (?:lost|loss|failure|outage|cut)\b|\bping (?:lost|failed)\b",
    re.IGNORECASE,
)
#: A host the failing service cannot reach on the network (no route, unreachable, its
#: connection lost or not coming back).
_UNREACHABLE = re.compile(
    r"no route to host|\bunreachable\b|EHOSTUNREACH|ENETUNREACH|connection (?:lost|reset)"
    r"|lost connection|reconnect(?:ion)? failed|keepalive timeout|disconnected",
    re.IGNORECASE,
)
#: How far from the onset a link going down still marks it.
_LINK_WINDOW = timedelta(minutes=10)
_NODE_NAME = re.compile(r"\b[Nn]ode\s+([\w.-]*\d[\w.-]*)")
#: Words of a series counting the demand a service receives (requests, calls, hits, visitors,
#: concurrent users), however its exporter spells the rest (``http_requests_per_second``,
#: ``http.server.request.rate``, ``requests``, ``trace.http.request.hits``).
_DEMAND_WORDS = frozenset(
    {
        "request",
        "requests",
        "req",
        "reqs",
        "rps",
        "qps",
        "traffic",
        "ingress",
        "inbound",
        "incoming",
        "received",
        "arrival",
        "arrivals",
        "visitors",
        "hits",
        "throughput",
        "concurrent",
        "online",
    }
)
#: Words of a series measuring something else about the demand (its latency, its failures, its
#: size) or the demand a service sends out (client calls to others).
_NOT_DEMAND_WORDS = frozenset(
    {
        "duration",
        "latency",
        "error",
        "errors",
        "fail",
        "failed",
        "failure",
        "failures",
        "ms",
        "seconds",
        "size",
        "bytes",
        "timeout",
        "timeouts",
        "reject",
        "rejected",
        "retry",
        "retries",
        "evict",
        "evicted",
        "wait",
        "drop",
        "dropped",
        "client",
        "outbound",
        "upstream",
        "ratio",
        "pct",
        "percent",
    }
)
#: Demand words that say the direction themselves (``readings_received``: what arrives).
_INBOUND_WORDS = frozenset(
    [
        "ingress",
        "inbound",
        "incoming",
        "received",
        "arrival",
        "arrivals",
        "visitors",
        "concurrent",
        "online",
    ]
)
#: Words that may come before another demand word: the protocol, the server, the exporter.
_SERVER_WORDS = frozenset(
    [
        "http",
        "https",
        "grpc",
        "rpc",
        "api",
        "server",
        "servlet",
        "web",
        "app",
        "service",
        "svc",
        "trace",
        "inbound",
        "ingress",
        "incoming",
        "total",
        "nginx",
        "envoy",
        "istio",
        "haproxy",
        "traefik",
        "kong",
        "gateway",
        "lb",
    ]
)
_PERCENTILE = re.compile(r"^p\d\d$")
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_TEXT_DATE = re.compile(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? (\d{1,2}),? (\d{4})\b"
    r"|\b(\d{4})-(\d{2})-(\d{2})(?!\d)",
    re.IGNORECASE,
)


def _volume_metric(name: str) -> bool:
    """Whether a series counts the demand a service receives, from the words of its name (a
    histogram's ``_count`` of requests is one, whatever unit its buckets are in).

    >>> [_volume_metric(n) for n in ("http_requests_per_second", "http.server.request.rate",
    ...  "requests", "http_request_duration_p99_ms", "http_server_requests_seconds_count",
    ...  "http_client_requests_total", "vendor_requests_per_second", "concurrent_players")]
    [True, True, True, False, True, False, False, True]
    """
    words = [w for w in re.split(r"[^a-z0-9]+", _snake(name)) if w]
    first = next((i for i, w in enumerate(words) if w in _DEMAND_WORDS), None)
    if first is None:
        return False
    if words[first] not in _INBOUND_WORDS and not _SERVER_WORDS.issuperset(words[:first]):
        return False  # ``vendor_requests_per_second``: the calls a service makes to a party
    if words[-1] == "count" and ({"request", "requests"} & set(words)):
        return "client" not in words
    return not (_NOT_DEMAND_WORDS.intersection(words) or any(map(_PERCENTILE.match, words)))


#: Label keys and values that say a series counts failed or refused requests, not demand.
_OUTCOME_KEY = re.compile(r"(?:^|[._])(?:status|status_code|code|outcome|result)$", re.IGNORECASE)
_FAILED_OUTCOME = re.compile(
    r"^(?:[45]\d\d|[45]xx|error|errors|fail(?:ed|ure)?|server_error|client_error|internal|"
    r"unavailable|timeout|rejected)$",
    re.IGNORECASE,
)


def _demand(series: MetricPoints) -> bool:
    """Whether a series counts the demand a service receives: a demand name (`_volume_metric`)
    whose labels do not single out failed or refused requests (``status="500"``,
    ``outcome="error"``: those count failures).

    >>> failed = MetricPoints("http_server_requests_total", "api", (), (("status", "500"),))
    >>> _demand(failed), _demand(replace(failed, labels=(("status", "200"),)))
    (False, True)
    """
    if not _volume_metric(series.name.lower()):
        return False
    return not any(
        _OUTCOME_KEY.search(k) and _FAILED_OUTCOME.match(v.strip()) for k, v in series.labels
    )


@lru_cache(maxsize=1024)
def _snake(name: str) -> str:
    """A metric name lowercased, camelCase split (``requestCount`` -> ``request_count``)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _dates_in(text: str) -> list[date]:
    """The calendar dates a text names (``Mar 9, 2026``, ``2026-03-09``)."""
    found = []
    for m in _TEXT_DATE.finditer(text):
        try:
            if m.group(1):
                month = _MONTHS.index(m.group(1).lower()[:3]) + 1
                found.append(date(int(m.group(3)), month, int(m.group(2))))
            else:
                found.append(date(int(m.group(4)), int(m.group(5)), int(m.group(6))))
        except ValueError:
            continue
    return found


_HOST_METRIC = re.compile(r"steal|host|(?<![a-z])node(?!js)|neighbou?r|hypervisor|iowait|noisy")
_BUSY_METRIC = re.compile(
    r"cpu|util|load|steal|saturation|iops|iowait|io_wait|disk_(?:busy|queue)|connections|activity|"
    r"clients"
)
#: A node or host running out of a resource (the platform's own events say so).
_NODE_PRESSURE = re.compile(
    r"node (?:was |is )?low on resource|has ?insufficient ?(?:memory|cpu|pid|disk)|"
    r"(?:memory|disk|pid)\s?pressure|\bevict(?:ed|ing|ion)\b|node ?not ?ready|"
    r"kubelet stopped posting|node ?status ?unknown|"
    r"kernel: out of memory",
    re.IGNORECASE,
)
#: Series that measure what is left of a resource (free disk, available memory): they fall.
_HEADROOM_METRIC = re.compile(r"free|avail|remaining|headroom")
_SATURATION_METRIC = re.compile(
    r"mem|heap|rss|cpu|conn|pool|queue|lag|backlog|disk|fd|thread|goroutine|gc|saturation|"
    r"latency|duration|p9\d|p50|error|5xx|fail|timeout|usage|util"
)
_REVERT = re.compile(r"\b(?:revert|rollback|roll back|rolled back)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _MetricShift:
    series: MetricPoints
    at: datetime
    ratio: float
    direction: int


_first = itemgetter(0)
_second = itemgetter(1)


#: A cumulative counter's name (Prometheus ``_total``, a histogram's ``_count``, StatsD ``.count``).
_COUNTER_NAME = re.compile(r"[._](?:total|count)$")


def _increments(points: Sequence[tuple[datetime, float]]) -> list[tuple[datetime, float]]:
    """A cumulative counter read as its increase per step (what ``rate()`` reads), when its
    name says it counts and its values never fall but at a reset (a fall to near zero, where
    the new value is the increase); else the points as they are.

    >>> from datetime import UTC, datetime, timedelta
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> pts = [(t + timedelta(minutes=i), v) for i, v in enumerate([7.0, 8.0, 8.0, 15.0, 2.0])]
    >>> [v for _t, v in _increments(pts)]
    [1.0, 0.0, 7.0, 2.0]
    >>> [v for _t, v in _increments(pts[:2] + [(t + timedelta(minutes=2), 5.0)])]
    [7.0, 8.0, 5.0]
    """
    out = []
    for (_t0, before), (t, now) in pairwise(points):
        if now >= before:
            out.append((t, now - before))
        elif now <= 0.5 * before:
            out.append((t, now))  # the counter restarted
        else:
            return list(points)  # a value that falls a little is a gauge
    return out


def _metric_shifts(metrics: Sequence[MetricPoints], fired: datetime) -> list[_MetricShift]:
    shifts = []
    until = fired + timedelta(minutes=5)
    for series in metrics:
        # The points up to ``until`` and their scale floor, column-wise (map and compress run
        # in C: ~720 points per series).
        everything = series.points
        points = list(compress(everything, map(ge, repeat(until), map(_first, everything))))
        if _COUNTER_NAME.search(series.name.lower()):
            # A counter's climb is its rate rising, not its first increment.
            points = _increments(points)
        scale_floor = 0.05 * max(map(abs, map(_second, points))) if points else 0.0
        found = metric_change_point(points, threshold=8.0, min_scale=scale_floor)
        if found is not None:
            cp, direction = found
            ratio = cp.level / cp.baseline if cp.baseline > 0 else float("inf")
            shifts.append(_MetricShift(series, cp.at, ratio, direction))
    return shifts


def _dense(
    points: Sequence[tuple[datetime, float]], bucket: int, end: datetime
) -> list[tuple[datetime, float]]:
    if not points:
        return []
    step = timedelta(seconds=bucket)
    have = {t: v for t, v in points}
    out = []
    t = points[0][0]
    while t <= end:
        out.append((t, have.get(t, 0.0)))
        t += step
    return out


def _is_burst(sig: ErrorSignature, lookback_start: datetime, fired: datetime) -> bool:
    """Whether a new message arrived as a burst rather than as sparse, steady noise.

    Its rate over its own span (``count - 1`` gaps between first and last sighting) must be
    ``_BURST_RATIO`` times its rate over the whole look-back, and at that rate the silence from the
    start of the look-back to its first sighting must be improbable (Poisson, at most 1%): three
    "image CDN request failed" lines spread over six hours are noise that missed the baseline by
    chance; thirty in ten minutes, or one per run of a job from the hour it broke, are an onset.

    >>> from datetime import UTC, datetime, timedelta
    >>> t0 = datetime(2026, 1, 1, tzinfo=UTC)
    >>> h = lambda x: t0 + timedelta(hours=x)
    >>> _is_burst(ErrorSignature("web", "cdn failed", 3, h(4.9), h(10.9)), t0, h(12))
    False
    >>> _is_burst(ErrorSignature("web", "pool exhausted", 30, h(9.5), h(9.7)), t0, h(12))
    True
    """
    if sig.count < 3:
        return False
    lookback = max(fired - lookback_start, _BURST_FLOOR)
    span = max(sig.last_seen - sig.first_seen, _BURST_FLOOR)
    rate = (sig.count - 1) / span.total_seconds()
    average = sig.count / lookback.total_seconds()
    silence = max(sig.first_seen - lookback_start, timedelta(0)).total_seconds()
    return rate >= _BURST_RATIO * average and rate * silence >= _BURST_SILENCE


def _service_onsets(evidence: Evidence) -> tuple[dict[str, datetime], dict[str, timedelta]]:
    """Per failing service: when it began failing, and how exact that time is.

    A service fails when its error counts shift up (CUSUM change point), or when error messages
    new since the baseline (first seen after the first third of the look-back) arrive as a burst
    (:func:`_is_burst`; sparse steady noise never marks an onset). The onset is the first sighting
    of the new messages, else the change point's bucket.
    """
    fired = evidence.alert.fired_at
    onsets: dict[str, datetime] = {}
    slack: dict[str, timedelta] = {}
    by_service: dict[str, list[ErrorSignature]] = {}
    for sig in evidence.signatures:
        by_service.setdefault(sig.service, []).append(sig)
    # Where the data begins (the look-back may reach back before the first stored record).
    starts = [s.points[0][0] for s in evidence.errors if s.points]
    starts += [s.first_seen for s in evidence.signatures]
    starts += [m.points[0][0] for m in evidence.metrics if m.points]
    if evidence.since is not None:
        starts = [evidence.since]
    if not starts:
        return onsets, slack
    lookback_start = min(starts)
    baseline_end = lookback_start + (fired - lookback_start) / 3
    series_of = {s.service: s for s in evidence.errors}
    # Messages any service logged in the baseline are background noise, wherever they recur.
    noise = {
        message_template(s.message) for s in evidence.signatures if s.first_seen <= baseline_end
    }
    for service in sorted(set(series_of) | set(by_service)):
        sigs = by_service.get(service, [])
        new = [
            s
            for s in sigs
            if baseline_end < s.first_seen <= fired and message_template(s.message) not in noise
        ]
        cp_at: datetime | None = None
        bucket = _SLACK
        series = series_of.get(service)
        if series is not None:
            dense = [
                p
                for p in _dense(series.points, series.bucket_seconds, fired)
                if p[0] >= lookback_start - timedelta(seconds=series.bucket_seconds)
            ]
            bucket = timedelta(seconds=series.bucket_seconds)
            if sum(v for _, v in dense) >= _MIN_ERRORS:
                cp = change_point(dense, direction=1, counts=True, threshold=6.0)
                cp_at = cp.at if cp is not None else None
        if cp_at is not None:
            recent = [s for s in new if s.first_seen >= cp_at - bucket and s.count >= 2]
            if recent:
                onsets[service] = min(s.first_seen for s in recent)
                slack[service] = _SLACK
            else:
                onsets[service] = cp_at
                slack[service] = bucket
        else:
            bursts = [s for s in new if _is_burst(s, lookback_start, fired)]
            fatal = [
                s
                for s in new
                if s.count >= 2 and (s.level in _FATAL_LEVELS or _CONFIG_ERROR.search(s.message))
            ]
            if sum(s.count for s in bursts) >= _MIN_NEW_ERRORS:
                onsets[service] = min(s.first_seen for s in bursts)
                slack[service] = _SLACK
            elif fatal and sum(s.count for s in fatal) >= 2:
                # A handful of fatal or configuration errors: a service that cannot start.
                onsets[service] = min(s.first_seen for s in fatal)
                slack[service] = _SLACK
    return onsets, slack


def _from_stated_onset(
    evidence: Evidence, onsets: dict[str, datetime], slack: dict[str, timedelta]
) -> None:
    """With an onset the alert or question states, the failure asked about is the one that began
    then (``onsets`` and ``slack`` are updated in place). A service whose errors began well
    before it (precursor warnings, an older failure of the look-back) fails, for this failure,
    from the first of its messages new since shortly before the stated onset; the service asked
    about with none fails from the stated onset (its errors rose then, in messages it logged
    before); any other service with none was failing before and is not this failure."""
    stated = evidence.alert.onset
    if stated is None or stated < EARLIEST_INSTANT:  # no onset, or none an alert can mean
        return
    floor = stated - _STATED_MARGIN
    fired = evidence.alert.fired_at
    for service, at in sorted(onsets.items()):
        if at >= floor:
            continue
        # A message new since shortly before the stated onset, logged more than once (one
        # stray line does not re-date a service that was already failing).
        new = [
            s.first_seen
            for s in evidence.signatures
            if s.service == service and floor <= s.first_seen <= fired and s.count >= 2
        ]
        if new:
            onsets[service], slack[service] = min(new), _SLACK
        elif service == evidence.alert.service:
            onsets[service], slack[service] = stated, _STATED_MARGIN
        else:
            del onsets[service]
            slack.pop(service, None)


def _episode(
    onsets: Mapping[str, datetime],
    error_onsets: Mapping[str, datetime],
    calls: Mapping[str, set[str]],
    alert: Alert,
    known: Sequence[str],
    signatures: Sequence[ErrorSignature] = (),
) -> set[str]:
    """The failing services of the failure episode the alert is about.

    Seeded by the failing services the alert names (its service, or named in its title or text),
    it grows by the failing services they call (the upstream chain, at any time) and by those whose
    errors began at most ``_EPISODE_GAP`` before the episode's first errors, or any time after:
    another service's unrelated blip hours earlier is not this failure's onset. An alert naming no
    failing service keeps every failing service.
    """
    failing = set(onsets)
    named = ({alert.service} | _mentions(f"{alert.title}\n{alert.text}", known)) & failing
    if not named and signatures:
        # An alert naming no service: the failing services whose errors share its words.
        asked = words_of([alert.title]) - _GENERIC_ASK
        shared = {
            s: sum(
                sig.count
                for sig in signatures
                if sig.service == s and asked & words_of([sig.message])
            )
            for s in failing
        }
        most = max(shared.values(), default=0)
        named = {s for s, n in shared.items() if most and n >= most / 2}
    if not named:
        return failing
    # A service whose errors had stopped before the named ones began recovered on its own: not
    # this episode.
    last_error: dict[str, datetime] = {}
    for sig in signatures:
        if sig.last_seen > last_error.get(sig.service, sig.last_seen - timedelta(seconds=1)):
            last_error[sig.service] = sig.last_seen
    began = min(error_onsets[s] for s in named)
    failing = {s for s in failing if s in named or last_error.get(s, began) >= began}
    episode = set(named)
    while True:
        grown = set(episode)
        for s in episode:
            grown |= calls.get(s, set()) & failing
        start = min(error_onsets[s] for s in grown)
        grown |= {s for s in failing if error_onsets[s] >= start - _EPISODE_GAP}
        if grown == episode:
            return episode
        episode = grown


def _mentions(text: str, services: Sequence[str]) -> set[str]:
    lowered = text.lower()
    return {s for s in services if s and _service_word(s).search(lowered)}


@lru_cache(maxsize=1024)
def _service_word(service: str) -> re.Pattern[str]:
    """The pattern of ``service`` as a whole word (compiled once per name)."""
    return re.compile(r"(?<![\w-])" + re.escape(service.lower()) + r"(?![\w-])")


def _shipping(
    changes: Sequence[Change], scope: frozenset[str] = frozenset(), origin: str = ""
) -> dict[str, list[Change]]:
    """Commit id -> the deploys that ship it.

    A deploy ships the commits its ``ships`` names (exactly or by a 7+ character prefix). A commit
    no deploy names ships with its service's next deploy after it (a release carries every
    commit made since the last one); a commit of a library no deploy ever names or follows
    ships with every service's next deploy after it.
    """
    deploys = sorted((c for c in changes if c.kind == "deploy"), key=lambda d: d.timestamp)
    out: dict[str, list[Change]] = {}
    commits = [c for c in changes if c.kind == "commit"]
    for deploy in deploys:
        for shipped in deploy.ships:
            for commit in commits:
                a, b = commit.change_id.lower(), shipped.lower()
                if a == b or (min(len(a), len(b)) >= 7 and (a.startswith(b) or b.startswith(a))):
                    out.setdefault(commit.change_id, []).append(deploy)
    deploying = {d.service for d in deploys}
    for commit in commits:
        if commit.change_id in out:
            continue
        later = [d for d in deploys if d.timestamp >= commit.timestamp]
        if commit.service in deploying:
            own = next((d for d in later if d.service == commit.service), None)
            if own is not None:
                out[commit.change_id] = [own]
        else:
            firsts: dict[str, Change] = {}
            for d in later:
                firsts.setdefault(d.service, d)
            if firsts:
                out[commit.change_id] = list(firsts.values())
    return out


def _remediation(change: Change, deploy: Change | None) -> str:
    if change.kind == "flag":
        flag = change.change_id.split("@")[0].split(":")[0]
        return f"Turn flag {flag} back to its previous value (revert the flip {change.change_id})."
    if change.kind == "config":
        return f"Revert the configuration change {change.change_id} on {change.service}."
    if change.kind == "deploy":
        return f"Roll back deploy {change.change_id} on {change.service}."
    if deploy is not None:
        return (
            f"Revert commit {change.change_id} and redeploy, or roll back deploy "
            f"{deploy.change_id} on {deploy.service}."
        )
    return f"Revert commit {change.change_id} and redeploy {change.service}."


@dataclass(frozen=True)
class OnsetStage:
    """What the first stage (`find_onsets`) reads from the evidence.

    ``onsets`` maps every failing service to when it began failing (moved back to an earlier
    saturation shift for a slow build-up; a service whose only sign is a metric shift fails
    too), ``error_onsets`` the same from errors alone, ``slack`` how exact each onset is,
    ``onset_list`` the onsets with their basis, ``shifts`` every metric shift up to the alert,
    ``calls`` the dependencies (hints and services named in another service's errors) and
    ``known`` every service name.
    """

    onsets: Mapping[str, datetime]
    error_onsets: Mapping[str, datetime]
    slack: Mapping[str, timedelta]
    onset_list: tuple[Onset, ...]
    shifts: tuple[_MetricShift, ...]
    calls: Mapping[str, frozenset[str]]
    known: tuple[str, ...]


@dataclass(frozen=True)
class Episode:
    """The failure episode the alert is about (`find_episode`): its first failing service
    (``origin``), when it began (``onset``, exact to ``tolerance``), every failing service
    (``affected``, origin first), their onsets, and the ``scope`` of services a cause may sit on
    (the failing ones, the alert's and the services they call)."""

    origin: str
    onset: datetime
    tolerance: timedelta
    affected: tuple[str, ...]
    onsets: Mapping[str, datetime]
    onset_list: tuple[Onset, ...]
    scope: frozenset[str]


_RATIO_METRIC = re.compile(r"(?:error|fail|5xx)[\w.-]*?(?:ratio|rate|share|fraction|pct|percent)")


def _minor_error_ratio(series: MetricPoints, fired: datetime) -> bool:
    """An error-ratio series (``http_error_ratio``, ``processing_error_rate``) that stayed under
    1% of requests up to the alert (under 1.0 when it counts in percent): a rise within it is
    not a failure by itself.

    >>> from datetime import UTC, datetime
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> _minor_error_ratio(MetricPoints("processing_error_ratio", "w", ((t, 0.002), (t, 0.008))), t)
    True
    >>> _minor_error_ratio(MetricPoints("http_error_ratio", "w", ((t, 0.002), (t, 0.2))), t)
    False
    """
    name = _snake(series.name)
    if not _RATIO_METRIC.search(name):
        return False
    values = [v for t, v in series.points if t <= fired + timedelta(minutes=5)]
    if not values:
        return False
    top = 1.0 if re.search(r"pct|percent", name) else 0.01
    return max(values) < top


def find_onsets(evidence: Evidence) -> OnsetStage:
    """Stage 1: when each service began failing, from its errors and its metrics.

    >>> from datetime import UTC, datetime, timedelta
    >>> from sleuth_core.rca import Alert, ErrorSeries, ErrorSignature, Evidence
    >>> t0 = datetime(2026, 3, 14, 6, 0, tzinfo=UTC)
    >>> at = lambda m: t0 + timedelta(minutes=m)
    >>> counts = tuple((at(5 * i), 0.0 if i < 60 else 20.0) for i in range(72))
    >>> sig = ErrorSignature("api", "upstream reset", 240, at(301), at(359))
    >>> series = ErrorSeries("api", 300, counts)
    >>> stage = find_onsets(Evidence(Alert("5xx", "api", at(360)), (series,), (sig,)))
    >>> stage.onsets["api"] == at(301)
    True
    """
    alert = evidence.alert
    fired = alert.fired_at
    known = tuple(
        s
        for s in dict.fromkeys(
            [*evidence.services, *(s.service for s in evidence.errors), alert.service]
            + [c.service for c in evidence.changes]
        )
        if s
    )
    onsets, slack = _service_onsets(evidence)
    _from_stated_onset(evidence, onsets, slack)
    error_onsets = dict(onsets)
    shifts = _metric_shifts(evidence.metrics, fired)
    calls: dict[str, set[str]] = {}
    for caller, callee in evidence.dependencies:
        calls.setdefault(caller, set()).add(callee)
    for sig in evidence.signatures:
        for named in _mentions(sig.message, known) - {sig.service}:
            calls.setdefault(sig.service, set()).add(named)
    for caller, began in sorted(error_onsets.items(), key=lambda item: item[1]):
        # A service the failing one calls that logged a few new errors (two or more, a message
        # never seen before) in the half hour before it began failing: a job that aborts logs
        # little, and its callers fail after it.
        for callee in sorted(calls.get(caller, set()) - set(onsets)):
            seen = [s for s in evidence.signatures if s.service == callee]
            new = [
                s
                for s in seen
                if began - _CALLEE_LEAD <= s.first_seen <= began
                and s.level.upper() not in _QUIET_LEVELS
                and not any(
                    o.first_seen < began - _CALLEE_LEAD
                    and message_template(o.message) == message_template(s.message)
                    for o in seen
                )
            ]
            if sum(s.count for s in new) >= 2:
                onsets[callee] = error_onsets[callee] = min(s.first_seen for s in new)
                slack[callee] = _SLACK
    onset_list: list[Onset] = []
    metric_onset: dict[str, tuple[datetime, str]] = {}
    metric_only: dict[str, tuple[datetime, str]] = {}
    for shift in shifts:
        name = shift.series.name.lower()
        svc = shift.series.service
        headroom = bool(_HEADROOM_METRIC.search(name))
        if _demand(shift.series) or not (headroom or _SATURATION_METRIC.search(name)):
            continue
        if shift.direction != (-1 if headroom else 1):
            continue  # a resource runs out when its use rises or its headroom (free bytes) falls
        if _minor_error_ratio(shift.series, fired):
            continue  # an error ratio that stayed under 1%: within any error budget
        ratio = 1 / shift.ratio if headroom and shift.ratio > 0 else shift.ratio
        if headroom and shift.ratio <= 0:
            ratio = float("inf")
        if svc in onsets:
            # A saturation or latency metric that shifted before the errors began (a slow leak).
            # An error series counts those very errors: it cannot lead them.
            if _ERROR_METRIC.search(name):
                continue
            if shift.at < onsets[svc] and (
                svc not in metric_onset or shift.at < metric_onset[svc][0]
            ):
                metric_onset[svc] = (shift.at, shift.series.name)
        elif (
            (headroom or _FAILURE_METRIC.search(name))
            and timedelta(0) <= fired - shift.at <= _METRIC_ONLY_WINDOW
            and ratio >= _METRIC_ONLY_RATIO
            and (svc not in metric_only or shift.at < metric_only[svc][0])
        ):
            # A failure that shows only in metrics (lag, memory, disk, connections, latency).
            metric_only[svc] = (shift.at, shift.series.name)
    # A build-up leads the errors by more than the series' own step (one step is only where the
    # errors' first minutes fall on the metric's grid) and by at most a day.
    metric_onset = {
        svc: (at, name)
        for svc, (at, name) in metric_onset.items()
        if _metric_step(evidence.metrics, name, svc) < onsets[svc] - at <= timedelta(hours=24)
    }
    for svc, (at, name) in metric_onset.items():
        onsets[svc] = at
        slack[svc] = max(_metric_step(evidence.metrics, name, svc), _SLACK)
        onset_list.append(Onset(svc, at, "metric", name))
    for svc, (at, name) in metric_only.items():
        onsets[svc] = at
        error_onsets[svc] = at
        slack[svc] = max(_metric_step(evidence.metrics, name, svc), _SLACK)
        onset_list.append(Onset(svc, at, "metric", name))
    for svc, at in onsets.items():
        if svc not in metric_onset and svc not in metric_only:
            onset_list.append(Onset(svc, at, "errors"))
    return OnsetStage(
        onsets,
        error_onsets,
        slack,
        tuple(sorted(onset_list, key=lambda o: (o.at, o.service))),
        tuple(shifts),
        {k: frozenset(v) for k, v in calls.items()},
        known,
    )


def find_episode(evidence: Evidence, stage: OnsetStage) -> Episode | None:
    """Stage 2: the failure episode the alert is about, or None when nothing failed.

    The origin is the earliest failing service of the episode; within one bucket, the one the
    others call.
    """
    alert = evidence.alert
    calls = {k: set(v) for k, v in stage.calls.items()}
    members = _episode(
        stage.onsets, stage.error_onsets, calls, alert, stage.known, evidence.signatures
    )
    onsets = {s: at for s, at in stage.onsets.items() if s in members}
    if not onsets:
        return None
    onset_list = tuple(o for o in stage.onset_list if o.service in members)
    failing = sorted(onsets, key=lambda s: (onsets[s], s != alert.service, s))
    first_at = onsets[failing[0]]
    close = [s for s in failing if onsets[s] - first_at <= stage.slack[failing[0]]]
    called = {callee for s in failing for callee in calls.get(s, ())}
    origin = sorted(close, key=lambda s: (s not in called, s != alert.service, onsets[s], s))[0]
    onset = min(onsets.values())
    tolerance = stage.slack[origin] if onsets[origin] == onset else _SLACK
    affected = tuple([origin] + [s for s in failing if s != origin])
    scope = set(affected) | {alert.service} - {""}
    for s in list(scope):
        scope |= calls.get(s, set())
    return Episode(origin, onset, tolerance, affected, onsets, onset_list, frozenset(scope))


def failure_signature(
    evidence: Evidence, stage: OnsetStage, episode: Episode
) -> tuple[dict[str, float], frozenset[str], frozenset[str], str]:
    """The failure's weighted terms (new error messages, their stack details, shifted metric
    names, the alert), its words, the mechanisms it shows (`mechanisms`) and the text of its
    stack details."""
    known = stage.known
    ignore = [*known, *(p for s in known for p in re.split(r"[-_.]", s))]
    new_sigs, old_sigs = _episode_signatures(evidence, episode)
    messages = [s.message for s in new_sigs]
    signature = signature_terms(messages, ignore=ignore)
    details = "\n".join(dict.fromkeys(s.detail for s in new_sigs if s.detail))
    if details:
        # A frame's package path (``com.example.billing.``, ``github.com/org/repo/``) is shared by
        # every file of the program: only its last two parts (module and function) tell.
        located = _QUALIFIED.sub(r"\1", details)
        for term, w in signature_terms([located], ignore=ignore, weight=0.8).items():
            signature[term] = max(signature.get(term, 0.0), w)
    scope = episode.scope
    shifted = sorted({sh.series.name for sh in stage.shifts if sh.series.service in scope})
    # What a shifted series' labels name (the query, the queue, the table it measures), of a
    # failing service or of any (a database) whose series shifted as the failure began.
    labelled = sorted(
        {
            value
            for sh in stage.shifts
            if sh.series.service in scope or abs(sh.at - episode.onset) <= _SAME_BUCKET
            for key, value in sh.series.labels
            if _MEASURED_LABEL.search(key)
        }
    )
    for term, w in signature_terms([*shifted, *labelled], ignore=ignore, weight=0.7).items():
        # A term both the errors and a shifted metric show counts for both.
        signature[term] = signature.get(term, 0.0) + w
    alert = evidence.alert
    for term, w in signature_terms([alert.title, alert.text], ignore=ignore, weight=0.4).items():
        signature[term] = max(signature.get(term, 0.0), w)
    for term in signature_terms([s.message for s in old_sigs], ignore=ignore):
        signature[term] = signature.get(term, 0.0) * 0.3
    signature = {t: w for t, w in signature.items() if w > 0}
    words = words_of(messages) - frozenset(p for name in ignore for p in words_of([name]))
    # A message's ``key=value`` fields are measurements (``latency_ms=840``), not what it says.
    stated = [_FIELD_KEY.sub(r"\1 ", m) for m in messages]
    shown = mechanisms("\n".join([*stated, details, *shifted]))
    return signature, words, shown, details


#: A ``key=`` field name (word characters and dots, from its first word character). It starts
#: only where a run of those characters starts (the dots before the first word character are
#: group 1, kept): ``\b[\w.]+=`` tried every word boundary of a run again, quadratic in a long
#: line with many (``a.a.a...``).
_FIELD_KEY = re.compile(r"(?<![\w.])(\.*)\w[\w.]*=")


#: Labels that name what a series measures (a query, a queue, a table), not where it runs (pod,
#: node, zone) nor the route every request of a handler shares.
_MEASURED_LABEL = re.compile(r"query|queue|topic|table|job|task|cache|pool", re.IGNORECASE)
_QUALIFIED = re.compile(r"(?<![\w.$/-])(?:[A-Za-z_][\w-]*[./]){2,}([\w$<>-]+[./][\w$<>-]+)")


def _episode_signatures(
    evidence: Evidence, episode: Episode
) -> tuple[list[ErrorSignature], list[ErrorSignature]]:
    """The episode's error messages (seen from its onset) and the others (background)."""
    new_sigs = [
        s
        for s in evidence.signatures
        if s.service in episode.onsets
        and s.last_seen >= episode.onsets[s.service] - episode.tolerance
        and s.first_seen >= episode.onset - timedelta(hours=1)
    ]
    old_sigs = [s for s in evidence.signatures if s not in new_sigs]
    return new_sigs, old_sigs


def rank_suspects(evidence: Evidence, stage: OnsetStage, episode: Episode) -> tuple[Suspect, ...]:
    """Stage 3: every change, scored against the failure and ruled out where it cannot be it.

    A change is weighed by what it does: the failure's terms its summary, files and diff touch
    (`relatedness`), the mechanisms its changed lines alter that the failure shows (a timeout,
    a pool size, a query, a TTL, a retry budget, a null check: `mechanisms`), and the files and
    functions of the failure's stack traces it changes. Its time is when it reached production
    (the deploy that shipped it: named in the deploy's ``ships``, or the service's next deploy
    after it, or, for a library no deploy names, the failing service's next deploy).
    """
    signature, failure_words, shown, details = failure_signature(evidence, stage, episode)
    frames = stack_frames(details)
    raised = frozenset(
        f for sig in _episode_signatures(evidence, episode)[0] for f in _raising_files(sig.detail)
    )
    origin, onset, tolerance = episode.origin, episode.onset, episode.tolerance
    affected, scope = episode.affected, episode.scope
    known = stage.known
    ignore = [*known, *(p for s in known for p in re.split(r"[-_.]", s))]
    ramp_basis = next(
        (
            o
            for o in episode.onset_list
            if o.basis == "metric" and o.service == origin and o.at == onset
        ),
        None,
    )
    ramp = (
        _metric_step(evidence.metrics, ramp_basis.metric, origin)
        if ramp_basis is not None
        and not any(
            _in_one_step(m, onset, evidence.alert.fired_at)
            for m in evidence.metrics
            if m.name == ramp_basis.metric and m.service == origin
        )
        else None
    )
    # What builds up (memory, connections, a queue ...), read from the series' name.
    building = mechanisms(_snake(ramp_basis.metric)) if ramp_basis is not None else frozenset()
    shipping = _shipping(evidence.changes, scope, origin)
    shipped_by_deploy: dict[str, list[str]] = {}
    for commit_id, deploys in shipping.items():
        for d in deploys:
            shipped_by_deploy.setdefault(d.change_id, []).append(commit_id)
    touched = {c.change_id: change_terms(c.summary, c.files, c.diff) for c in evidence.changes}
    df: dict[str, int] = {}
    for touched_terms in touched.values():
        for term in touched_terms:
            df[term] = df.get(term, 0) + 1
    undone = _undone_by_rollback(evidence, episode)
    origin_sigs = [s for s in _episode_signatures(evidence, episode)[0] if s.service == origin]
    config_failure = any(
        _CONFIG_ERROR.search(f"{s.message}\n{s.detail}") or s.level in _FATAL_LEVELS
        for s in origin_sigs
    )
    # How often the first failing service failed once it began: the errors a change that broke
    # it would have caused between its going live and the onset.
    failed_for = max(minutes(evidence.alert.fired_at - onset), 1.0)
    error_rate = sum(s.count for s in origin_sigs) / failed_for
    if not _continuous(evidence, origin, onset):
        error_rate = 0.0  # a job that fails on each run, not a steady failure: silence says little
    quiet: set[str] = set()  # went live long before the onset: the service ran well with them
    suspects: list[Suspect] = []
    for change in evidence.changes:
        deploys = sorted(shipping.get(change.change_id, []), key=lambda d: d.timestamp)
        deploy = _shipping_deploy(change, deploys, origin, scope)
        effective = deploy.timestamp if deploy is not None else change.timestamp
        rel, matched = relatedness(signature, touched[change.change_id], df, len(touched))
        kinds: set[str] = {"words"} if rel > 0 else set()
        compounds = [
            c for c in compound_hits(touched[change.change_id], failure_words) if c not in matched
        ]
        if compounds:
            # An identifier the change touches whose words the failure spells out separately.
            rel = _gain(rel, _COMPOUND_GAIN * len(compounds[:2]))
            matched = (*matched, *compounds[:2])
            kinds.add("words")
        done = altered_mechanisms(changed_lines(change.diff)) | altered_mechanisms(change.summary)
        producer = "null" in shown and _removes_what_is_missing(change.diff, signature)
        if producer:
            # The failure finds a key or field missing that the change removed or renamed.
            done = done | {"null"}
        retuned = retuned_settings(change.diff)
        # The mechanisms of the settings whose value changed, read from their names' words
        # (``quoteTTL`` is a TTL; a changed maximum is a limit).
        keyed = frozenset(m for key in retuned for m in _setting_mechanisms(key))
        done = done | keyed
        common = sorted(done & shown)
        if common:
            # The change alters the mechanism the failure shows: the strongest kind of match.
            gain = _MECHANISM_GAIN * len(common[:2])
            if keyed & shown:
                gain += _RETUNE_GAIN  # a changed value of that very mechanism (timeout 5000 -> 500)
            rel = _gain(rel, gain)
            matched = (*matched, *(f"{m} change" for m in common[:2]))
            kinds.add("mechanism")
        elif rel > 0 and shown and not done and change.diff and change.kind == "commit":
            # A commit altering no mechanism the failure shows: shared words are weaker evidence
            # (a flag or setting switches behaviour wholesale, so it is not discounted).
            rel = round(rel * _SURFACE_ONLY, 6)
        if (
            change.kind == "deploy"
            and not change.ships
            and not change.files
            and not change.diff
            and change.service == origin
            and not _REVERT.search(change.summary)
            and timedelta(0) <= onset + tolerance - change.timestamp <= _OPAQUE_NEAR
        ):
            # A deploy with nothing to read (no diff, no commits: a line in the logs) on the
            # failing service minutes before it began failing: time is the only evidence.
            rel = _gain(rel, _OPAQUE_GAIN)
            matched = (*matched, "deployed minutes before the onset")
        if change.change_id == undone:
            # Rolled back after the onset, and the errors stopped with the rollback.
            rel = _gain(rel, _ROLLBACK_GAIN)
            matched = (*matched, "errors stopped when it was rolled back")
        located = _frames_hit(frames, change)
        if located:
            # A file where an exception was raised counts fully; a caller's file (an outer
            # frame, e.g. the handler every request passes through) half.
            weight = sum(
                0.5 if hit.startswith("file: ") and hit[6:] not in raised else 1.0
                for hit in located
            )
            rel = _gain(rel, _FRAME_GAIN * min(weight, 2))
            matched = (*matched, *located[:2])
            kinds.add("code")
        if (
            change.kind in ("flag", "config")
            and origin in {change.service}
            and config_failure
            and timedelta(0) <= onset + tolerance - change.timestamp <= timedelta(minutes=30)
        ):
            # A setting changed on the failing service minutes before it failed on its settings.
            rel = _gain(rel, _CONFIG_GAIN)
            matched = (*matched, "a configuration error after it")
        elif (
            change.kind in ("flag", "config")
            and rel >= 0.2
            and change.service in scope
            and timedelta(0) <= onset + tolerance - change.timestamp <= _SWITCHED_NEAR
        ):
            # A flag or setting takes effect at once: one switched on a failing service or one it
            # calls minutes before an exact onset, touching what failed, is where time points.
            rel = _gain(rel, _CONFIG_GAIN)
            matched = (*matched, "switched minutes before the onset")
        if change.kind in ("flag", "config") and rel > 0:
            # A flag or setting the failure names by its own key's words.
            key_terms = set(signature_terms([change.change_id, *change.files], ignore=ignore))
            if key_terms & set(matched):
                rel = round(min(0.95, rel * 1.3), 6)
        homes = {change.service} | ({deploy.service} if deploy else set())
        if (
            ramp is not None
            and rel > 0
            and timedelta(0) <= onset - effective <= max(6 * ramp, timedelta(minutes=30))
            and origin in homes
        ):
            # A slow build-up that began as this change shipped: time is strong evidence here,
            # and stronger when the change alters what builds up (a cache's bound, a pool).
            rel = round(min(0.95, rel + (0.3 if done & building else 0.2)), 6)
            matched = (*matched, "onset of the build-up")
        elif (
            rel >= 0.25
            and timedelta(0) <= onset + tolerance - effective <= _PROXIMITY
            and homes & set(affected)
        ):
            # Related and shipped to a failing service minutes before it began failing.
            rel = round(min(0.95, rel + _PROXIMITY_GAIN), 6)
        if (
            ramp is None
            and origin in homes
            and change.kind != "deploy"
            and minutes(onset - effective - _GOING_LIVE) * error_rate >= _QUIET_ERRORS
            and change.change_id != undone
        ):
            quiet.add(change.change_id)
        text = f"{change.summary} {' '.join(change.files)}"
        named_here = _mentions(text, list(scope))
        # A change to what a failing reader reads (a field it finds missing) is in scope however
        # the data travels (a queue, a file), whether or not a call between them is known.
        # A change to code the failure's own stack runs is in scope wherever it was committed
        # (a library built into the failing service).
        in_scope = bool(homes & scope) or bool(named_here) or producer or bool(located)
        lead = onset - effective
        hours = max(lead.total_seconds(), 0.0) / 3600
        score = rel * (1.0 if origin in homes else 0.8 if in_scope else 0.35) / (1 + hours / 24)
        ruled_out = ""
        if effective > onset + tolerance:
            ruled_out = "landed after the failure began"
        elif change.kind == "deploy" and (
            (change.ships and any(s in touched for s in change.ships))
            or shipped_by_deploy.get(change.change_id)
        ):
            ruled_out = "a deploy: judged by the commits it ships"
        elif change.kind == "commit" and deploy is None and _deployed_service(change, evidence):
            ruled_out = "no deploy in the data shipped it"
        elif inert(change):
            ruled_out = "changes only tests, docs, monitoring rules, logging or comments"
        elif change.kind == "commit" and renames_only(change.diff):
            ruled_out = "only renames a variable: it cannot alter what runs"
        elif _REVERT.search(change.summary) and rel < STRONG_AT:
            ruled_out = "a revert or rollback"
        elif rel < 0.2:
            ruled_out = "touches nothing the failure shows"
        elif not in_scope and rel < STRONG_AT:
            ruled_out = "on a service that neither failed nor is called by one that did"
        # What the change does (its mechanism, its stack's code, its timing) ahead of the words
        # it shares: the verdict reads the notes, however many words matched.
        notes = tuple(m for m in matched if " " in m or ":" in m)
        matched = (*notes, *(m for m in matched if m not in notes))
        if any(m in _TIME_EVIDENCE for m in matched):
            kinds.add("time")
        suspects.append(
            Suspect(
                change,
                effective,
                deploy.change_id if deploy else "",
                rel,
                matched[:8],
                round(score, 6),
                ruled_out,
                frozenset(kinds),
                frozenset(common),
            )
        )
    starters = [
        s
        for s in suspects
        if not s.ruled_out
        and s.relatedness >= 0.2
        and timedelta(0) <= onset + tolerance - s.effective_at <= _GOING_LIVE
    ]
    if starters:
        # The errors began as another related change went live: a change the failing service had
        # run with for long enough to have logged many of them, logging none, did not start them.
        suspects = [
            replace(
                s,
                relatedness=round(s.relatedness * _QUIET_SHARE, 6),
                score=round(s.score * _QUIET_SHARE, 6),
            )
            if s.change.change_id in quiet and s not in starters
            else s
            for s in suspects
        ]
    suspects.sort(
        key=lambda s: (
            bool(s.ruled_out),
            -s.score,
            -s.relatedness,
            abs((onset - s.effective_at).total_seconds()),
            s.change.change_id,
        )
    )
    return tuple(suspects)


def _continuous(
    evidence: Evidence, service: str, onset: datetime, *, warnings: bool = False
) -> bool:
    """Whether ``service`` failed steadily from ``onset`` to the alert: errors in at least 60% of
    its buckets (at least four), not in the bursts of a periodic job; a service that logged no
    error (its failures logged as warnings) by its messages since the onset when ``warnings``
    (how records arrive; the silence rule counts errors only)."""
    series = next((e for e in evidence.errors if e.service == service), None)
    fired = evidence.alert.fired_at
    if series is None and warnings:
        # A service that logs its failures as warnings has no error counts: its messages since
        # the onset tell instead (as many lines as 60% of the 5-minute buckets, up to the alert).
        since = [
            s
            for s in evidence.signatures
            if s.service == service and s.last_seen >= onset and s.first_seen <= fired
        ]
        buckets = minutes(fired - onset) / 5
        return (
            buckets >= 4
            and sum(s.count for s in since) >= 0.6 * buckets
            and max(s.last_seen for s in since) >= fired - timedelta(minutes=10)
        )
    if series is None:
        return False
    dense = _dense(series.points, series.bucket_seconds, fired)
    after = [v for t, v in dense if t >= onset - timedelta(seconds=series.bucket_seconds)]
    return len(after) >= 4 and sum(1 for v in after if v > 0) >= 0.6 * len(after)


def _undone_by_rollback(evidence: Evidence, episode: Episode) -> str:
    """The deploy of the first failing service that a rollback after the onset undid, when the
    errors stopped with that rollback (the last error within ten minutes of it, and quiet for
    five minutes before the alert); "" otherwise."""
    origin, onset = episode.origin, episode.onset
    fired = evidence.alert.fired_at
    deploys = sorted(
        (c for c in evidence.changes if c.kind == "deploy" and c.service == origin),
        key=lambda c: c.timestamp,
    )
    rollbacks = [
        c
        for c in deploys
        if onset < c.timestamp <= fired and _REVERT.search(f"{c.summary} {c.change_id}")
    ]
    last_error = max(
        (s.last_seen for s in evidence.signatures if s.service == origin), default=None
    )
    if not rollbacks or last_error is None:
        return ""
    rollback = rollbacks[0]
    stopped = rollback.timestamp - timedelta(
        minutes=1
    ) <= last_error <= rollback.timestamp + timedelta(
        minutes=10
    ) and last_error <= fired - timedelta(minutes=5)
    before = [
        d
        for d in deploys
        if d.timestamp <= onset + episode.tolerance
        and not _REVERT.search(f"{d.summary} {d.change_id}")
        and onset - d.timestamp <= timedelta(hours=2)
    ]
    return before[-1].change_id if stopped and before else ""


def _gain(rel: float, gain: float) -> float:
    """``rel`` with ``gain`` added to its evidence sum (``rel = s / (s + 3)``)."""
    rel = min(rel, 0.99)
    total = 3 * rel / (1 - rel) + gain
    return round(total / (total + 3), 6)


def _deployed_service(change: Change, evidence: Evidence) -> bool:
    """Whether ``change``'s service is one that deploys (so an unshipped commit is not live)."""
    return any(c.kind == "deploy" and c.service == change.service for c in evidence.changes)


def _shipping_deploy(
    change: Change, deploys: Sequence[Change], origin: str, scope: frozenset[str]
) -> Change | None:
    """The deploy that brought ``change`` to the failure: the first after it on the first failing
    service, else on a service in scope, else any; a deploy before it only when none is after."""
    after = [d for d in deploys if d.timestamp >= change.timestamp]
    for wanted in (lambda d: d.service == origin, lambda d: d.service in scope, lambda d: True):
        found = next((d for d in after if wanted(d)), None)
        if found is not None:
            return found
    return deploys[0] if deploys else None


def decide(
    evidence: Evidence,
    stage: OnsetStage,
    episode: Episode | None,
    suspects: Sequence[Suspect],
) -> Analysis:
    """Stage 4: the verdict, its confidence, its category and the hypotheses weighed.

    A change is named when its relatedness reaches `LIKELY_AT` and no outside cause is stronger:
    a strong outside sign (TLS or DNS errors, a provider notice naming what fails, a traffic
    surge, a saturated shared dependency, a poison record) is only overruled by a change that
    alters the mechanism the failure shows or its stack's code. Without a failure episode the
    verdict is ``healthy`` or an outside cause.
    """
    if episode is None:
        return _no_episode(evidence, stage)
    origin, onset, affected = episode.origin, episode.onset, episode.affected
    calls = {k: set(v) for k, v in stage.calls.items()}
    best = next((s for s in suspects if not s.ruled_out), None)
    external = _external(evidence, stage.shifts, affected, episode.onsets, calls, onset)
    ext_cause, ext_strength, ext_category = external if external else ("", 0.0, "unknown")
    hypotheses = _hypotheses(evidence, stage, episode, suspects, ext_cause, ext_category)
    reasons = [
        f"{origin} began failing at {onset.isoformat()}"
        + (f", {len(affected) - 1} more service(s) after it" if len(affected) > 1 else "")
        + "."
    ]
    basis = next((o for o in episode.onset_list if o.service == origin), None)
    metric_only = (
        basis is not None
        and basis.basis == "metric"
        and (
            origin not in _error_services(evidence, episode)
            or bool(_RESOURCE_METRIC.search(basis.metric.lower()))
            or bool(_HEADROOM_METRIC.search(basis.metric.lower()))
        )
    )
    strong_outside = ext_strength >= _STRONG_OUTSIDE
    # The best suspect first; when it cannot stand against an outside sign, a later one that
    # alters the failure's mechanism or its stack's code still can: shared words (a consequence's
    # queue, a setting's name in a lag warning) do not outweigh what the failing code does.
    candidates = [s for s in suspects if not s.ruled_out and s.relatedness >= LIKELY_AT]
    # The stack places a change on the failure's path; it says the change caused the failure
    # only when the failure is a fault the program's own logic raises (a null dereference, an
    # index out of range, a panic). A sequence run out, a provider's 503 or a malformed record
    # surfaces in whatever code handles it, changed or not.
    logic_fault = _logic_fault(evidence, episode)
    for rank, candidate in enumerate(candidates):
        altered = "mechanism" in candidate.kinds
        located = "code" in candidate.kinds
        # A provider failing (its notice, its host down, its certificate): the code calling the
        # provider is in every stack of its failure, so only a change altering the failure's
        # mechanism (a timeout, retries) stands against it.
        provider = ext_category == "dependency_failure" and ext_strength >= 2
        mechanism = altered or (located and not provider and logic_fault)
        outside_strong = strong_outside
        if _surge_of_its_own(candidate, stage.shifts) or _consequence(candidate, external):
            # The outside sign is the change's own effect (a flag sending its work all at once,
            # a buffer raised until the container is killed at its memory limit): it does not
            # compete with the change, it is how the change failed.
            mechanism, outside_strong = True, False
        overruled = outside_strong and not (mechanism and candidate.relatedness >= STRONG_AT)
        if ext_strength >= 2 and candidate.effective_at > onset:
            # It went live after the failure's first sign (within the onset's margin only): it
            # may have joined the failure, but it does not stand against an outside cause.
            overruled = True
        if ext_category == "data_quality" and ext_strength >= 2:
            # Bad input arrives on its own schedule; a change that broke the handling of good
            # input (its mechanism: parsing, validation) shows with the first records after it
            # shipped, not hours later (unless the records come in the runs of a periodic job).
            soon = onset - candidate.effective_at <= _BAD_INPUT_LEAD
            steady = _continuous(evidence, origin, onset, warnings=True)
            overruled = not (mechanism and (soon or not steady))
        drained = _drained(evidence, affected, onset)
        if drained is not None and _falling_before(drained, candidate.effective_at, onset):
            # The resource was running out at the same pace before the change went live.
            overruled = True
        timed = "time" in candidate.kinds
        # A moderate outside sign is overruled by what a change does (its mechanism, its stack's
        # code) or by time evidence, never by shared words alone (a provider's host name).
        if rank > 0 and not (ext_strength > 0 and mechanism):
            continue  # only what a change does stands in for the best suspect
        if not overruled and (ext_strength < 2 or mechanism or timed):
            return _change_verdict(
                evidence, episode, candidate, suspects, ext_strength, reasons, hypotheses
            )
    if (
        metric_only
        and basis is not None
        and ext_strength == 0
        and (best is None or best.relatedness < 0.3)
        and not any(c.service == origin for c in evidence.changes)
    ):
        # A resource of a service no change touched ran out (its use rose or its headroom fell)
        # and nothing else failed first: load or growth from outside the change data.
        moved = "fell" if _HEADROOM_METRIC.search(basis.metric.lower()) else "rose"
        ext_cause = f"a resource running out: {basis.metric} of {origin} {moved}, no change to it"
        ext_strength, ext_category = 1.0, "resource_exhaustion"
    common = (
        origin,
        affected,
        onset,
        episode.onset_list,
    )
    # A failure quiet since well before the investigation is over, unless its cause is known
    # (an outside cause that has ended is still the cause a postmortem asks about).
    ended = _recovered_at(evidence, episode, later=ext_strength == 0)
    if ended is not None:
        reasons.append(
            f"The failure ended by {ended.isoformat()}, well before the "
            + ("alert" if ended <= evidence.alert.fired_at - _RECOVERED_QUIET else "investigation")
            + ": its condition no longer holds."
        )
        return Analysis(
            "unknown",
            "LIKELY",
            None,
            None,
            *common,
            "Nothing to roll back: the failure recovered on its own before the alert fired; "
            "check why the alert fired late or on a brief blip.",
            "",
            tuple(reasons),
            tuple(suspects),
            "healthy",
            hypotheses,
        )
    batch = _batch_draining(evidence, stage, episode)
    if batch:
        reasons.append(
            f"{batch} filled at once at the onset and has been falling steadily since, with no "
            "error rate above 1%: a batch of work being drained at its usual pace."
        )
        return Analysis(
            "unknown",
            "LIKELY",
            None,
            None,
            *common,
            "Nothing to roll back: a batch is being worked off; give the alert a 'for' "
            "duration or a threshold above the batch's expected depth.",
            "",
            tuple(reasons),
            tuple(suspects),
            "healthy",
            hypotheses,
        )
    job = _scheduled_work(evidence, stage, episode)
    if job:
        reasons.append(
            f"{job} turned on at the onset and no request failed (no error logged, no error rate "
            "rose): the slowdown is the expected load of a scheduled job."
        )
        return Analysis(
            "unknown",
            "LIKELY",
            None,
            None,
            *common,
            "Nothing to roll back: the slowdown is a scheduled job's expected load; give the "
            "alert a 'for' duration or schedule around the job.",
            "",
            tuple(reasons),
            tuple(suspects),
            "healthy",
            hypotheses,
        )
    if ext_strength > 0:
        reasons.append(f"No change before the onset touches what failed; {ext_cause}.")
        return Analysis(
            "external",
            "LIKELY" if ext_strength >= 2 else "INCONCLUSIVE",
            None,
            None,
            *common,
            _external_remediation(ext_cause, ext_category),
            ext_cause,
            tuple(reasons),
            tuple(suspects),
            ext_category,
            hypotheses,
        )
    if best is not None and best.relatedness >= 0.3:
        reasons.append(
            f"{best.change.change_id} touches only {', '.join(best.matched[:3])}: too weak to "
            "name it the cause."
        )
    else:
        reasons.append("No change before the onset touches what the failure shows.")
    category = _unexplained_category(evidence, episode, metric_only, suspects)
    return Analysis(
        "unknown",
        "INCONCLUSIVE",
        None,
        None,
        *common,
        f"Mitigate on {origin} (see its runbook); no change in the data explains this failure.",
        "",
        tuple(reasons),
        tuple(suspects),
        category,
        hypotheses,
    )


#: What a suspect's time says beyond its words (the ``matched`` notes of `rank_suspects`).
_TIME_EVIDENCE = frozenset(
    {
        "deployed minutes before the onset",
        "errors stopped when it was rolled back",
        "a configuration error after it",
        "switched minutes before the onset",
        "onset of the build-up",
    }
)


#: A 0/1 series saying a job is running (``night_audit_running``, ``backup_in_progress``).
_JOB_METRIC = re.compile(r"(?:^|[._-])(?:running|in[._-]progress)$")

_ERROR_METRIC = re.compile(r"error|fail|5xx|reject|drop")


def _scheduled_work(evidence: Evidence, stage: OnsetStage, episode: Episode) -> str:
    """The job-running series that turned on at the onset of a slowdown in which nothing failed
    (the first failing service logged nothing above a warning and none of its error series rose):
    a scheduled job's expected load, not a failure; "" otherwise."""
    origin = episode.origin
    new_sigs, _old = _episode_signatures(evidence, episode)
    if any(s.service == origin and s.level.upper() not in _QUIET_LEVELS for s in new_sigs):
        return ""
    if any(
        sh.series.service == origin
        and sh.direction == 1
        and _ERROR_METRIC.search(sh.series.name.lower())
        for sh in stage.shifts
    ):
        return ""
    for series in evidence.metrics:
        if series.service not in episode.scope or not _JOB_METRIC.search(series.name.lower()):
            continue
        if not series.points or any(v not in (0.0, 1.0) for _t, v in series.points):
            continue
        began = next(
            (
                t
                for (_p, before), (t, now) in zip(series.points, series.points[1:], strict=False)
                if before == 0.0 and now == 1.0
            ),
            None,
        )
        if began is not None and abs(began - episode.onset) <= timedelta(minutes=10):
            return f"{series.name} of {series.service}"
    return ""


_BACKLOG_METRIC = re.compile(r"queue|backlog|depth|ready|pending|lag")


def _in_one_step(series: MetricPoints, at: datetime, fired: datetime) -> bool:
    """Whether a series rose to its peak (80% of the way to its highest value up to the alert)
    in one step at ``at``: a step, not a build-up (a batch enqueued at once, a switch).

    >>> from datetime import UTC, datetime, timedelta
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> at = lambda i: t + timedelta(minutes=4 * i)
    >>> pts = tuple((at(i), 3.0 if i < 5 else 38000.0 - 900 * i) for i in range(12))
    >>> _in_one_step(MetricPoints("queue_ready", "w", pts), at(5), at(11))
    True
    >>> ramp = tuple((at(i), 100.0 * i) for i in range(12))
    >>> _in_one_step(MetricPoints("mem", "w", ramp), at(5), at(11))
    False
    """
    after = [v for t, v in series.points if at <= t <= fired + timedelta(minutes=5)]
    before = [v for t, v in series.points if t < at]
    if len(after) < 2 or not before:
        return False
    peak = max(after)
    return peak > before[-1] and after[0] - before[-1] >= 0.8 * (peak - before[-1])


def _batch_draining(evidence: Evidence, stage: OnsetStage, episode: Episode) -> str:
    """A backlog (a queue's depth, pending work, lag) of the first failing service that filled
    in one step at the onset and has only fallen since (however few points the look-back holds
    after it), while its error ratios stayed under 1% and it logged only a handful of errors: a
    batch enqueued at once and being worked off, the alert firing on its expected depth; ""
    otherwise."""
    origin, fired = episode.origin, evidence.alert.fired_at
    new_sigs, _old = _episode_signatures(evidence, episode)
    if sum(s.count for s in new_sigs if s.level.upper() not in _QUIET_LEVELS) >= _REPEATS:
        return ""
    if any(
        sh.series.service == origin
        and sh.direction == 1
        and _ERROR_METRIC.search(sh.series.name.lower())
        and not _minor_error_ratio(sh.series, fired)
        for sh in stage.shifts
    ):
        return ""
    until = evidence.until or fired
    for series in evidence.metrics:
        if series.service != origin or not _BACKLOG_METRIC.search(series.name.lower()):
            continue
        if not _in_one_step(series, episode.onset, until):
            continue
        after = [v for t, v in series.points if t >= episode.onset]
        tail = after[after.index(max(after)) :]
        falling = sum(b <= a for a, b in pairwise(tail))
        if len(tail) >= 2 and tail[-1] < tail[0] and falling >= 0.8 * (len(tail) - 1):
            if _still_climbing(evidence, stage, episode, series):
                return ""  # another sign of harm (lag, saturation) has not eased: not a batch
            return f"{series.name} of {series.service}"
    return ""


def _still_climbing(
    evidence: Evidence, stage: OnsetStage, episode: Episode, backlog: MetricPoints
) -> bool:
    """Whether another saturation series of the first failing service that rose at the onset
    (lag, IOPS, connections ...) is still at its peak at the alert (its last point at 80% or
    more of its highest since the onset): the backlog is not the only sign, and the others have
    not eased."""
    until = evidence.until or evidence.alert.fired_at
    for sh in stage.shifts:
        other = sh.series
        if other is backlog or other.service != episode.origin or sh.direction != 1:
            continue
        if (
            not _RESOURCE_METRIC.search(other.name.lower())
            or abs(sh.at - episode.onset) > _SAME_BUCKET
        ):
            continue
        after = [v for t, v in other.points if episode.onset <= t <= until]
        if len(after) >= 2 and after[-1] >= 0.8 * max(after) and after[-1] > after[0]:
            return True
    return False


def _consequence(suspect: Suspect, external: tuple[str, float, Category] | None) -> bool:
    """Whether the strongest outside sign is a resource running out (a container killed at its
    memory limit, a datastore full, a use at its limit series) that ``suspect`` explains: it
    alters that very resource (memory for memory, a pool for connections), so the exhaustion is
    how the change failed, not a cause beside it.

    >>> from datetime import UTC, datetime
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> buffer = Change("c1", "gw", "commit", t, "Raise receive buffer", ("gw.py",), "+buf = 512")
    >>> memory = frozenset({"memory"})
    >>> suspect = Suspect(buffer, t, "", 0.6, ("memory change",), 0.6, "", alters=memory)
    >>> kill = "a container killed at its memory limit (out of memory)"
    >>> oom = (kill, 2.0, "resource_exhaustion")
    >>> _consequence(suspect, oom)
    True
    >>> _consequence(replace(suspect, alters=frozenset({"timeout"})), oom)
    False
    >>> _consequence(suspect, ("a traffic surge: requests rose 3.0x", 2.5, "resource_exhaustion"))
    False
    >>> full = "a resource running out: db_connections_active of pay reached db_connections_max"
    >>> pool = replace(suspect, alters=frozenset({"pool"}))
    >>> _consequence(pool, (full, 2.0, "resource_exhaustion"))
    True
    """
    if external is None or external[2] != "resource_exhaustion":
        return False
    words = set(re.split(r"[^a-z0-9]+", external[0].lower()))
    ran_out = {m for m, resource in _EXHAUSTED.items() if words & resource}
    return bool(suspect.alters & ran_out)


#: The mechanism a change alters that makes each resource run out, by the words naming it.
_EXHAUSTED = {
    "memory": frozenset({"memory", "heap", "oom", "oomkilled", "maxmemory", "rss"}),
    "pool": frozenset({"connections", "connection", "clients", "pool", "slots"}),
}


def _surge_of_its_own(suspect: Suspect, shifts: Sequence[_MetricShift]) -> bool:
    """Whether a flag or setting switched minutes before the onset, one that changes how much
    work its service sends at once (`_FANOUT`: batching, all at once, in parallel), is followed
    by a rise of that service's request volume: the surge is the switch's effect, not outside
    load.

    >>> from datetime import UTC, datetime, timedelta
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> flag = Change("f1", "ctl", "flag", t, "Send every queued job at once")
    >>> suspect = Suspect(flag, t, "", 0.8, ("switched minutes before the onset",), 0.8)
    >>> rps = MetricPoints("http_requests_per_second", "ctl", ())
    >>> _surge_of_its_own(suspect, [_MetricShift(rps, t + timedelta(minutes=3), 2.1, 1)])
    True
    >>> _surge_of_its_own(suspect, [_MetricShift(rps, t - timedelta(minutes=9), 2.1, 1)])
    False
    """
    change = suspect.change
    if change.kind not in ("flag", "config") or "switched minutes before the onset" not in (
        suspect.matched
    ):
        return False
    if not _FANOUT.search(f"{change.change_id} {change.summary} {' '.join(change.files)}"):
        return False
    return any(
        sh.series.service == change.service
        and sh.direction == 1
        and _demand(sh.series)
        and sh.at >= suspect.effective_at - _SLACK
        for sh in shifts
    )


def _recovered_at(evidence: Evidence, episode: Episode, *, later: bool) -> datetime | None:
    """When the episode's errors stopped, if they stopped well before the alert, or well before
    the investigation (when ``later``) with no error of a failing service since the look-back
    ended (``evidence.until``, ``errors_after``): quiet for at least `_RECOVERED_QUIET` and for
    longer than the failure lasted; None when still failing (or when the failure shows in a
    metric, which is still shifted at the alert)."""
    if evidence.alert.asked or any(o.basis == "metric" for o in episode.onset_list):
        return None
    new_sigs, _old = _episode_signatures(evidence, episode)
    failing = [s for s in new_sigs if s.service in episode.affected]
    if not failing:
        return None
    last = max(s.last_seen for s in failing)
    if _errors_go_on(evidence, episode, last):
        return None
    quiet = evidence.alert.fired_at - last
    if quiet >= _RECOVERED_QUIET and quiet > last - episode.onset:
        return last
    # Looked at later than the alert: quiet from the last error to the investigation, the
    # failing services logging no error since the look-back ended.
    until = evidence.until
    if later and until is not None and not (evidence.errors_after & set(episode.affected)):
        quiet = until - last
        if quiet >= _RECOVERED_QUIET and quiet > last - episode.onset:
            return last
    return None


def _errors_go_on(evidence: Evidence, episode: Episode, last: datetime) -> bool:
    """Whether a failing service still logs errors well above its rate before the onset after
    ``last`` (when its new messages stopped): a message it already logged now and then before
    the onset (a provider's error that began at night, at low traffic) is the failure too, and
    while it goes on the failure has not ended."""
    for series in evidence.errors:
        if series.service not in episode.affected:
            continue
        before = [v for t, v in series.points if t < episode.onset]
        after = [v for t, v in series.points if last < t <= evidence.alert.fired_at]
        if not after:
            continue
        span = (episode.onset - series.points[0][0]).total_seconds() / series.bucket_seconds
        base = sum(before) / max(span, 1.0)
        late = (evidence.alert.fired_at - last).total_seconds() / series.bucket_seconds
        rate = sum(after) / max(late, 1.0)
        if sum(after) >= _MIN_ERRORS and rate > 3 * base:
            return True
    return False


def _error_services(evidence: Evidence, episode: Episode) -> set[str]:
    new_sigs, _old = _episode_signatures(evidence, episode)
    return {s.service for s in new_sigs}


def _change_verdict(
    evidence: Evidence,
    episode: Episode,
    best: Suspect,
    suspects: Sequence[Suspect],
    ext_strength: float,
    reasons: list[str],
    hypotheses: tuple[Hypothesis, ...],
) -> Analysis:
    change = best.change
    deploy_change = next(
        (c for c in evidence.changes if c.change_id == best.deploy_id and c.kind == "deploy"),
        None,
    )
    homes = {change.service} | ({deploy_change.service} if deploy_change else set())
    tied = [
        s
        for s in episode.affected
        if s in homes and episode.onsets[s] - episode.onset <= _SAME_BUCKET
    ]
    if episode.origin not in homes and tied:
        # Two services began failing together; the fault is where the culprit landed.
        affected = (tied[0], *(s for s in episode.affected if s != tied[0]))
        episode = replace(episode, origin=tied[0], affected=affected)
    on_origin = episode.origin in homes
    strong = best.relatedness >= STRONG_AT and ext_strength == 0
    confidence: Confidence = "CONFIRMED" if strong and on_origin else "LIKELY"
    runner_up = next((s for s in suspects if not s.ruled_out and s is not best), None)
    if runner_up is not None and runner_up.relatedness >= 0.9 * best.relatedness:
        confidence = "LIKELY" if confidence == "CONFIRMED" else "INCONCLUSIVE"
    reasons.append(
        f"{change.kind} {change.change_id} reached production "
        f"{_ago(episode.onset - best.effective_at)} before the onset and touches "
        + ", ".join(best.matched[:4])
        + "."
    )
    return Analysis(
        "change",
        confidence,
        change.change_id,
        best.deploy_id or None,
        episode.origin,
        episode.affected,
        episode.onset,
        episode.onset_list,
        _remediation(change, deploy_change),
        "",
        tuple(reasons),
        tuple(suspects),
        _change_category(change),
        hypotheses,
    )


def _no_episode(evidence: Evidence, stage: OnsetStage) -> Analysis:
    alert = evidence.alert
    external = _external(evidence, stage.shifts, [], {}, {}, None)
    # With nothing failing, only a sign that is a failure in itself (certificates, DNS, a
    # provider's notice, a node in trouble) is an outside cause; words in the logs (a region, a
    # provider's host) and demand that rose and was served are not.
    if external and external[1] >= 2:
        cause, _strength, category = external
        return Analysis(
            "external",
            "INCONCLUSIVE",
            None,
            None,
            alert.service or None,
            (),
            None,
            (),
            _external_remediation(cause, category),
            cause,
            (f"No service's errors rose, but {cause}.",),
            category=category,
        )
    if not (evidence.errors or evidence.signatures or evidence.metrics):
        # No log or metric covers the look-back: health cannot be told, only that nothing shows.
        return Analysis(
            "unknown",
            "INCONCLUSIVE",
            None,
            None,
            alert.service or None,
            (),
            None,
            (),
            "Send the service's logs or metrics (or connect a data source) so a failure can be "
            "dated; nothing here shows one.",
            "",
            ("No logs or metrics cover the look-back: there is nothing to date a failure by.",),
            category="unknown",
        )
    return Analysis(
        "unknown",
        "INCONCLUSIVE",
        None,
        None,
        alert.service or None,
        (),
        None,
        (),
        "Nothing to roll back: check that the alert's condition and threshold still fit the "
        "service; the logs and metrics here show no failure.",
        "",
        ("Healthy: no service's error rate or metrics changed before the alert.",),
        category="healthy",
    )


def analyze(evidence: Evidence) -> Analysis:
    """Find when the failure began, rank the changes before it, and give a verdict: the four
    stages `find_onsets`, `find_episode`, `rank_suspects` and `decide`.

    >>> from datetime import UTC, datetime, timedelta
    >>> from sleuth_core.rca import Alert, Change, ErrorSeries, ErrorSignature, Evidence
    >>> t0 = datetime(2026, 3, 14, 6, 0, tzinfo=UTC)
    >>> at = lambda m: t0 + timedelta(minutes=m)
    >>> counts = tuple((at(5 * i), 1.0 if i < 60 else 30.0) for i in range(72))
    >>> errors = ErrorSeries("checkout", 300, counts)
    >>> message = "PoolTimeoutError: db_pool max_connections=5 exhausted"
    >>> sig = ErrorSignature("checkout", message, 300, at(301), at(359))
    >>> diff = "-max_connections=50\\n+max_connections=5"
    >>> guilty = Change("a1b2c3d", "checkout", "commit", at(290), "Pool", ("db/pool.py",), diff)
    >>> deploy = Change("deploy-41", "checkout", "deploy", at(295), "Deploy", ships=("a1b2c3d",))
    >>> decoy = Change("9f8e7d6", "checkout", "commit", at(298), "Footer copy", ("footer.html",))
    >>> alert = Alert("Checkout errors", "checkout", at(360))
    >>> result = analyze(Evidence(alert, (errors,), (sig,), changes=(guilty, deploy, decoy)))
    >>> result.verdict, result.change_id, result.deploy_id, result.confidence, result.category
    ('change', 'a1b2c3d', 'deploy-41', 'CONFIRMED', 'code_defect')
    >>> result.onset == at(301)
    True
    """
    stage = find_onsets(evidence)
    episode = find_episode(evidence, stage)
    suspects = rank_suspects(evidence, stage, episode) if episode is not None else ()
    return decide(evidence, stage, episode, suspects)


# --- mechanisms, stack frames, categories and hypotheses ---------------------------------------

#: Generic failure mechanisms: what a failure shows, and what a change's changed lines alter.
#: ``(name, failure pattern, change pattern)``.
_MECHANISMS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (name, re.compile(shows, re.IGNORECASE), re.compile(alters, re.IGNORECASE))
    for name, shows, alters in (
        (
            "timeout",
            r"time[d ]?\s?out|deadline exceeded|took too long|timeout|latency|too slow|"
            r"context cancel+ed",
            r"timeout|deadline|_ms\b|_secs?\b|_seconds\b|\bttl_ms\b|read_time|connect_time",
        ),
        (
            "pool",
            r"pool\b|pool\w*(?:exhaust|timeout)|too many connections|connections? "
            r"(?:exhausted|limit|refused)|max_?conn|no (?:free|available) connection|"
            r"acquir(?:e|ed|ing)\b|connection.*(?:saturat|usage|in use)|conn\w* (?:usage|in_use)|"
            r"wait(?:ing)? for (?:a |an )?(?:\w+ )?connection|connection is not available",
            r"pool|max_?conn|max_?open|max_?idle|connections?\b|maxsize|min_?idle|acquir(?:e|ed|ing)\b",
        ),
        (
            "query",
            r"slow query|query|seq(?:uential)? scan|full (?:table )?scan|lock wait|deadlock|"
            r"statement timeout|rows examined|index",
            r"\bselect\b|\bjoin\b|\bwhere\b|order by|group by|\bindex\b|query|\.filter\(|"
            r"\bsql\b|limit \d|n\+1|prefetch|eager",
        ),
        (
            "cache",
            r"cache|stale|\bmiss(?:es)?\b|hit.?ratio|evict|expired? entr",
            r"\bttl\b|_ttl|ttl_|cache|expir|max_age|max-age|invalidat",
        ),
        (
            "retry",
            r"retr(?:y|ies|ying)|backoff|too many requests|\b429\b|rate.?limit|thundering|"
            r"amplif",
            r"retr(?:y|ies)|backoff|attempts|jitter|rate.?limit",
        ),
        (
            "null",
            r"\bnull\b|\bnil\b|\bnone\b|nonetype|undefined|nullpointer|null pointer|"
            r"keyerror|attributeerror|typeerror|cannot read propert|missing (?:field|key)",
            r"is none|is not none|\bnull\b|\bnil\b|undefined|\?\.|optional|\bif not\b|"
            r"\.get\(|getattr|default",
        ),
        (
            "memory",
            r"out of memory|\boom\b|oomkill|heap|memory|\brss\b|gc pause|allocation",
            r"buffer|\bbuf\b|batch_?size|heap|memory|\bxmx|max_?size|cache_?size|preload|in.memory|"
            r"\blru\b|max_?entries|sync\.Map|ConcurrentHashMap|"
            r"new (?:Map|Set)\b|\.push\(|\.append\(|unbounded",
        ),
        (
            "limit",
            r"too large|exceed|limit|\b413\b|payload|max(?:imum)? size|quota",
            r"max_\w*size|_limit\b|limit_|max_body|quota|max_\w*length",
        ),
        (
            "parse",
            r"pars(?:e|ing)|invalid|validat|schema|decod|deserializ|format|unexpected token|"
            r"malformed",
            r"pars(?:e|er|ing)|valid|schema|regex|format|strict|decod|serializ",
        ),
    )
)
_NUMBERED_SETTING = re.compile(
    r"([A-Za-z_][\w.\-]*)\s*(?:[:=]|\s)\s*[\"']?(-?\d+(?:\.\d+)?)\s*(ms|s|m|h|mb|gb|kb)?",
    re.IGNORECASE,
)


def mechanisms(text: str) -> frozenset[str]:
    """The failure mechanisms a failure's text shows: ``timeout``, ``pool``, ``query``,
    ``cache``, ``retry``, ``null``, ``memory``, ``limit``, ``parse``.

    >>> sorted(mechanisms("PoolTimeoutError: could not acquire a connection within 500ms"))
    ['pool', 'timeout']
    """
    return _mechanisms(text, 1) if text else frozenset()


def altered_mechanisms(text: str) -> frozenset[str]:
    """The failure mechanisms a change's text (changed lines, summary) alters: read with the
    change patterns (settings, code) and the failure patterns (a summary may describe the
    mechanism as the failure would: "cut the connect timeout").

    >>> sorted(altered_mechanisms("-    cache_ttl_seconds = 300"))
    ['cache', 'timeout']
    """
    return _mechanisms(text, 2) | _mechanisms(text, 1) if text else frozenset()


@lru_cache(maxsize=2048)
def _mechanisms(text: str, which: int) -> frozenset[str]:
    return frozenset(
        name
        for name, shows, alters in _MECHANISMS
        if (shows if which == 1 else alters).search(text)
    )


_INERT_FILE = re.compile(
    r"(?:^|/)(?:docs?|tests?|spec|specs|__tests__|alerts?|alerting|dashboards?|monitoring|"
    r"runbooks?|\.github)/|(?:^|/)(?:readme|changelog|codeowners|license)[^/]*$|\.(?:md|rst|txt)$|"
    r"(?:^|/)test_[^/]*$|_test\.\w+$|\.(?:spec|test)\.\w+$",
    re.IGNORECASE,
)
_INERT_LINE = re.compile(
    r"^\s*(?:$|#|//|/\*|\*|--|<!--|import\b|from\s+\S+\s+import\b|using\b|package\b|"
    r"(?:[\w.]*\b)?(?:log|logger|logging|LOG|LOGGER|console|slog|zap)\s*[.(]\s*\w*\s*\(?|"
    r"print(?:ln|f)?\s*\()"
    # Metric instrumentation: a timer started or stopped, a series recorded into a metrics
    # registry (``Timer.start(registry)``, ``timer.stop(registry.timer(...))``, ``statsd.incr``).
    r"|^\s*(?:(?:val|var|let|const|final|auto)\s+)?\w*(?:[Tt]imer|[Ss]ample)\w*\s*"
    r"(?:=\s*(?:[\w.]*\.)?Timer\s*\.\s*start\s*\(|\.\s*(?:stop|record|observe_duration)\s*\()"
    r"|^\s*(?:[\w.]*\.)?(?:registry|meterRegistry|meter_registry|statsd)\s*\.\s*"
    r"(?:timer|counter|histogram|gauge|summary|timing|incr|increment)\s*\(",
)


def inert(change: Change) -> bool:
    """Whether a change cannot alter what runs: it touches only tests, docs and monitoring
    rules, or its diff only adds or removes log statements, metric instrumentation (a timer,
    a series recorded into a metrics registry), comments and imports.

    >>> from datetime import UTC, datetime
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> inert(Change("c1", "api", "commit", t, "Fix typo", ("docs/x.md",)))
    True
    >>> inert(Change("c2", "api", "commit", t, "", ("a.py",), "+log.debug('id %s', rid)"))
    True
    >>> inert(Change("c3", "api", "commit", t, "", ("a.py",), "+TIMEOUT = 5"))
    False
    >>> inert(Change("c4", "api", "commit", t, "", ("a.kt",), "+val timer = Timer.start(registry)"))
    True
    """
    if change.kind != "commit":
        return False
    if change.files and all(_INERT_FILE.search(f) for f in change.files):
        return True
    lines = changed_lines(change.diff).splitlines()
    return bool(lines) and all(_INERT_LINE.match(line) for line in lines)


_CODE_TOKEN = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|[A-Za-z_]\w*|\S")


def renames_only(diff: str) -> bool:
    """Whether a diff only renames variables it assigns: each removed line has an added line
    that is the same code with one or more names consistently replaced, every replaced name is
    assigned in the removed lines (``total = ...``, a local variable, not an attribute, a key or a
    string), and no unchanged line still uses an old name. Such a change cannot alter what runs.

    >>> renames_only("-  s = items.sum\\n-  return s\\n+  total = items.sum\\n+  return total")
    True
    >>> renames_only("-  total = items.sum\\n+  total = items.count")
    False
    >>> renames_only("-  x = d['account_ref']\\n+  x = d['ref']")
    False
    """
    removed: list[str] = []
    added: list[str] = []
    context: list[str] = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---", "@@", "diff ", "index ")):
            continue
        (removed if line[:1] == "-" else added if line[:1] == "+" else context).append(line[1:])
    removed = [r for r in removed if r.strip()]
    added = [a for a in added if a.strip()]
    if not removed or len(removed) != len(added):
        return False
    mapping: dict[str, str] = {}
    for old, new in zip(removed, added, strict=True):
        a, b = _CODE_TOKEN.findall(old), _CODE_TOKEN.findall(new)
        if len(a) != len(b):
            return False
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x == y:
                continue
            if not (x.isidentifier() and y.isidentifier()) or (i and a[i - 1] == "."):
                return False
            if mapping.setdefault(x, y) != y:
                return False
    if not mapping or len(set(mapping.values())) != len(mapping):
        return False
    text = "\n".join(removed)
    assigned = all(
        re.search(rf"(?<![\w.]){re.escape(name)}\s*(?::=|=(?!=))", text) for name in mapping
    )
    still_used = any(
        re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", line)
        for name in mapping
        for line in context
    )
    return assigned and not still_used


def _removes_what_is_missing(diff: str, signature: Mapping[str, float]) -> bool:
    """Whether a diff removes (and does not add back) an identifier of the failure's
    (``account_ref`` removed, the failure a ``KeyError: 'account_ref'``).

    >>> diff = "-    ref = d['account_ref']\\n+    ref = d['ref']"
    >>> _removes_what_is_missing(diff, {"account_ref": 3.0})
    True
    >>> tag = '-    N int `json:"shard_key"`\\n+    N int `json:"shard_key,omitempty"`'
    >>> _removes_what_is_missing(tag, {"shard_key": 3.0})
    True
    """
    removed = "\n".join(
        line[1:] for line in diff.splitlines() if line[:1] == "-" and not line.startswith("---")
    )
    added = "\n".join(
        line[1:] for line in diff.splitlines() if line[:1] == "+" and not line.startswith("+++")
    )
    gone = set(signature_terms([removed])) - set(signature_terms([added]))
    # A field kept but now left out when empty (``omitempty``, ``skip_serializing_if``): its
    # readers find it missing in every message whose value is empty.
    kept = "\n".join(line for line in removed.splitlines() if not _OMITTED.search(line))
    omitted = "\n".join(line for line in added.splitlines() if _OMITTED.search(line))
    gone |= set(signature_terms([omitted])) & set(signature_terms([kept]))
    return any(("_" in t or "." in t) and t in signature for t in gone)


#: A serialized field marked to be left out when empty or unset.
_OMITTED = re.compile(
    r"omitempty|omit_?empty|skip_serializing_if|exclude_(?:none|unset|defaults)|"
    r"include\.non_(?:null|empty|default)|emit_?defaults\s*[:=]\s*false",
    re.IGNORECASE,
)


def changed_lines(diff: str) -> str:
    """The added and removed lines of a unified diff (without the ``+``/``-`` and file headers).

    >>> changed_lines("--- a/x.py\\n+++ b/x.py\\n@@ -1 +1 @@\\n-a = 1\\n+a = 2\\n unchanged")
    'a = 1\\na = 2'
    """
    return "\n".join(
        line[1:]
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )


def retuned_settings(diff: str) -> tuple[str, ...]:
    """The settings whose number a diff changes (removed with one value, added with another).

    >>> retuned_settings("-    timeout_ms: 5000\\n+    timeout_ms: 500\\n+    new_flag: 1")
    ('timeout_ms',)
    >>> retuned_settings("-  quoteTTL = 60 * time.Second\\n+  quoteTTL = 6 * time.Hour")
    ('quote_ttl',)
    """
    removed: dict[str, str] = {}
    added: dict[str, str] = {}
    for line in diff.splitlines():
        if line.startswith(("+++", "---")) or line[:1] not in "+-":
            continue
        for m in _NUMBERED_SETTING.finditer(line[1:]):
            (removed if line[0] == "-" else added)[_snake(m.group(1))] = m.group(2)
    return tuple(k for k, v in added.items() if k in removed and removed[k] != v)


#: A setting that is a maximum, a minimum or a limit (``MAX_BATCH_ROWS``, ``batch_limit``).
_LIMIT_KEY = re.compile(r"(?:^|[_.])(?:max|min|limit|maximum|minimum)(?:[_.]|$)")


def _setting_mechanisms(key: str) -> frozenset[str]:
    """The mechanisms a setting's name says it governs (``quote_ttl``: a cache), a
    maximum or minimum counting as a limit.

    >>> sorted(_setting_mechanisms("max_batch_rows")), sorted(_setting_mechanisms("quote_ttl"))
    (['limit'], ['cache'])
    """
    found = altered_mechanisms(key)
    return found | {"limit"} if _LIMIT_KEY.search(key) else found


_DEF = re.compile(
    r"(?:\bdef|\bfunc(?:\s*\([^)]*\))?|\bfunction|\bfn|"
    r"(?:public|private|protected|static|async)(?:\s+\w+)*)\s+([A-Za-z_]\w*)\s*\("
)
_NOT_FUNCTIONS = frozenset(
    {"main", "run", "call", "handle", "wrapper", "inner", "module", "lambda"}
)


def stack_frames(details: str) -> tuple[frozenset[str], frozenset[str]]:
    """The source files (base names, lowercased) and function names a stack trace or exception
    attribute names: a view of `sleuth_core.stacktrace.parse_stack` (functions of four letters
    or more that are not generic entry points).

    >>> files, funcs = stack_frames('File "app/billing/invoice.py", line 88, in round_total')
    >>> sorted(files), sorted(funcs)
    (['invoice.py'], ['round_total'])
    """
    frames = parse_stack(details).frames
    files = frozenset(f.name.lower() for f in frames if f.file)
    funcs = frozenset(
        f.function
        for f in frames
        if len(f.function) >= 4
        and f.function.isidentifier()
        and f.function.lower() not in _NOT_FUNCTIONS
    )
    return files, funcs


def _raising_files(detail: str) -> tuple[str, ...]:
    """The file of a stack trace's innermost frame, where its exception was raised (the last
    frame of a Python traceback, "most recent call last"; the first of Java, Go, Rust, Node),
    base name lowercased; () when it names none.

    >>> _raising_files('File "a/x.py", line 3, in f\\n  File "a/y.py", line 9, in g')
    ('y.py',)
    >>> _raising_files("panicked at src/postcode.rs:41:26 ... at ./src/handlers/available.rs:33")
    ('postcode.rs',)
    """
    frame = next((f for f in parse_stack(detail).frames if f.file), None)
    return (frame.name.lower(),) if frame is not None else ()


def _frames_hit(frames: tuple[frozenset[str], frozenset[str]], change: Change) -> list[str]:
    """What of the failure's stack a change changes: ``file:`` and ``function:`` matches."""
    files, funcs = frames
    if not files and not funcs:
        return []
    hits = []
    names = {f.replace("\\", "/").rsplit("/", 1)[-1].lower() for f in change.files}
    diff_files = re.findall(r"^(?:\+\+\+|---) (?:[ab]/)?(\S+)", change.diff, re.MULTILINE)
    names |= {f.rsplit("/", 1)[-1].lower() for f in diff_files}
    hits += [f"file: {f}" for f in sorted(files & names)]
    if funcs:
        defined = set(_DEF.findall(change.diff))
        defined |= {
            m
            for line in change.diff.splitlines()
            if line.startswith("@@")
            for m in re.findall(r"([A-Za-z_]\w*)\s*\(", line)
        }
        body = changed_lines(change.diff)
        used = {f for f in funcs if re.search(rf"\b{re.escape(f)}\b", body)}
        hits += [f"function: {f}" for f in sorted((funcs & defined) | used)]
    return hits


_CONFIG_FILE = re.compile(
    r"\.(?:ya?ml|json|toml|ini|env|conf|cfg|properties|tfvars|hcl)$|(?:^|/)(?:values|config|"
    r"settings|\.env)[\w.-]*$|dockerfile|helm|kustomiz",
    re.IGNORECASE,
)


def _change_category(change: Change) -> Category:
    """What a culprit change is: a flag, a configuration change or a commit whose files that can
    alter what runs (tests, docs and changelogs aside) are all configuration files sets a value
    (``configuration_error``); any other change alters code (``code_defect``).

    >>> from datetime import UTC, datetime
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> _change_category(Change("c1", "api", "commit", t, "", ("helm/values.yaml", "CHANGELOG.md")))
    'configuration_error'
    >>> _change_category(Change("c2", "api", "commit", t, "", ("app/pool.py", "helm/values.yaml")))
    'code_defect'
    """
    if change.kind in ("flag", "config"):
        return "configuration_error"
    live = [f for f in change.files if not _INERT_FILE.search(f)]
    if live and all(_CONFIG_FILE.search(f) for f in live):
        return "configuration_error"
    return "code_defect"


#: Exceptions that only a program's own logic raises (a null dereference, a wrong type, a missing
#: key, an index out of range, a panic, a failed assertion).
_CODE_FAULT = re.compile(
    r"nullpointer|null pointer|nil pointer|nonetype|attributeerror|typeerror|keyerror|"
    r"indexerror|index out of range|slice bounds out of range|zerodivision|divide by zero|"
    r"classcastexception|illegalstateexception|assertionerror|is not a function|"
    r"cannot read propert|undefined method|\bpanic\b|segmentation fault|indexoutofbounds|"
    r"nosuchelement|nullreference|object reference not set|sequence contains no elements|"
    r"keynotfound|invalidcast|argumentoutofrange|emptyerror|functionclauseerror|matcherror|"
    r"caseclauseerror|badarityerror|undefinedfunctionerror|nomethoderror|"
    r"call to a member function|undefined (?:index|array key|offset)|unwrap\(\)`? on|"
    r"with overflow|nil map|unboundlocalerror|nameerror|referenceerror|is not iterable|"
    r"arithmeticexception|/ by zero|concurrentmodification",
    re.IGNORECASE,
)


def _exception_lines(detail: str) -> str:
    """The lines of a stack detail that state an exception (``KeyError: 'x'``, ``ReplyError:
    OOM ...``), not the frames or the code they quote.

    >>> _exception_lines('File "a.py", line 3, in f\\n    x = pool()\\nPoolError: pool exhausted')
    'PoolError: pool exhausted'
    """
    return " ".join(
        line.strip()
        for line in detail.splitlines()
        if re.match(r"\s*[\w.$]*(?:Error|Exception|Fault)\b\S*:", line)
    )


#: Memory running out where the program allocates: its stack shows which code took the memory.
_ALLOCATION_FAULT = re.compile(
    r"outofmemoryerror|memoryerror|out of memory|cannot allocate|allocation failed", re.IGNORECASE
)


def _logic_fault(evidence: Evidence, episode: Episode) -> bool:
    """Whether most of the first failing service's new errors are faults the program raises in
    its own code: those only its logic raises (`_CODE_FAULT`: a null dereference, an index out
    of range, a panic ...) or memory running out where it allocates."""
    origin = [s for s in _episode_signatures(evidence, episode)[0] if s.service == episode.origin]
    faults = sum(
        s.count
        for s in origin
        if _CODE_FAULT.search(text := f"{s.message}\n{s.detail}") or _ALLOCATION_FAULT.search(text)
    )
    return bool(faults) and faults >= 0.5 * sum(s.count for s in origin)


def _bad_input(sig: ErrorSignature) -> bool:
    """Whether one error message shows input rejected: for its shape or values, or the very same
    item (ids and values included) failing again and again without a party failing to answer.
    `_unexplained_category` reads it when no sign was strong enough for a cause.

    >>> from datetime import UTC
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> same = "import of batch 7 rejected: 38 units with a date 40 years ahead"
    >>> _bad_input(ErrorSignature("inv", same, 10, t, t, same=True))
    True
    >>> _bad_input(ErrorSignature("poll", "poll of unit 14 timed out", 18, t, t, same=True))
    False
    """
    text = f"{sig.message}\n{sig.detail}"
    if _BAD_INPUT.search(text) or _POISON.search(text):
        return True
    return (
        sig.same
        and sig.count >= _SAME_REPEATS
        and bool(_ID.search(sig.message))
        and not _UNAVAILABLE.search(text)
    )


def _unexplained_category(
    evidence: Evidence, episode: Episode, metric_only: bool, suspects: Sequence[Suspect] = ()
) -> Category:
    """The category of a failure no change and no outside sign explains, from the kind of
    evidence it shows: settings that are missing or invalid (``configuration_error``), a
    resource that ran out or a failure seen only in a saturation metric
    (``resource_exhaustion``), a fault only the program's own logic raises (``code_defect``);
    then what went live on the failing services minutes before the onset (a release's code,
    ``code_defect``, or only values, ``configuration_error``); then input rejected by most of its
    errors (``data_quality``, `_bad_input`); else ``unknown``."""
    new_sigs, _old = _episode_signatures(evidence, episode)
    origin = [s for s in new_sigs if s.service == episode.origin]
    text = " ".join(s.message for s in origin)
    # The exception a message carries often says what ran out when the message does not.
    carried = " ".join(_exception_lines(s.detail) for s in origin)
    if _CONFIG_WORDS.search(text) and not _EXHAUSTION.search(f"{text} {carried}"):
        return "configuration_error"
    if metric_only or _EXHAUSTION.search(f"{text} {carried}"):
        return "resource_exhaustion"
    faults = sum(s.count for s in origin if _CODE_FAULT.search(f"{s.message}\n{s.detail}"))
    total = sum(s.count for s in origin)
    if faults and faults >= 0.5 * total:
        return "code_defect"
    # Nothing outside moved, and the failing service changed minutes before it began: which
    # change is not settled, but what kind of failure it is follows from what went live then.
    deployed = {c.change_id: c.service for c in evidence.changes if c.kind == "deploy"}
    live = [
        s
        for s in suspects
        if not s.ruled_out
        and s.change.kind != "deploy"
        and deployed.get(s.deploy_id, s.change.service) in episode.affected
        and timedelta(0) <= episode.onset - s.effective_at <= _PROXIMITY
    ]
    kinds = {_change_category(s.change) for s in live}
    if kinds:
        # A release that ships code and values together: the code is what most often breaks.
        # Input rejected from the first minutes after it is more likely its handling broken.
        return "code_defect" if "code_defect" in kinds else "configuration_error"
    # Most of its errors reject input (its shape or values, or one item again and again), when
    # no single sign was strong enough to name bad input the cause.
    rejected = sum(s.count for s in origin if _bad_input(s))
    if rejected and rejected >= 0.5 * total:
        return "data_quality"
    return "unknown"


def _hypotheses(
    evidence: Evidence,
    stage: OnsetStage,
    episode: Episode,
    suspects: Sequence[Suspect],
    ext_cause: str,
    ext_category: Category = "unknown",
) -> tuple[Hypothesis, ...]:
    """Traffic surge, dependency outage, resource exhaustion and configuration change, each
    supported or ruled out by what the data shows around the onset."""
    onset, scope = episode.onset, episode.scope
    near = [
        sh
        for sh in stage.shifts
        if sh.series.service in scope and abs(sh.at - onset) <= timedelta(hours=1)
    ]
    volume = [m for m in evidence.metrics if _demand(m) and m.service in scope]
    surge = [sh for sh in near if _demand(sh.series) and sh.direction == 1]
    out: list[Hypothesis] = []
    if surge:
        sh = surge[0]
        out.append(
            Hypothesis(
                "traffic surge",
                True,
                f"{sh.series.name} of {sh.series.service} rose {sh.ratio:.1f}x around the onset",
                ((sh.series.service, sh.series.name),),
            )
        )
    elif volume:
        m = volume[0]
        out.append(
            Hypothesis(
                "traffic surge",
                False,
                f"{m.name} of {m.service} did not rise around the onset",
                ((m.service, m.name),),
            )
        )
    else:
        out.append(Hypothesis("traffic surge", False, "no request-rate series shows a rise"))
    outside = ext_cause and ext_category in (
        "dependency_failure",
        "infrastructure",
    )
    failing_deps = [
        s
        for s in episode.affected
        if s != episode.origin and s in stage.calls.get(episode.origin, ())
    ]
    if outside:
        out.append(Hypothesis("dependency outage", True, ext_cause))
    else:
        callees = sorted(stage.calls.get(episode.origin, frozenset()) - set(episode.affected))
        if callees:
            why = f"{', '.join(callees[:3])}, which {episode.origin} calls, did not fail"
        elif failing_deps:
            why = f"{episode.origin} failed first, before the services it calls"
        else:
            why = "no provider notice, DNS or TLS error names what failed"
        out.append(Hypothesis("dependency outage", False, why))
    saturated = [
        sh
        for sh in near
        if sh.direction == 1
        and not _demand(sh.series)
        and _RESOURCE_METRIC.search(sh.series.name.lower())
    ]
    new_sigs, _old = _episode_signatures(evidence, episode)
    ran_out = next((sig for sig in new_sigs if _EXHAUSTION.search(sig.message)), None)
    if saturated:
        sh = saturated[0]
        out.append(
            Hypothesis(
                "resource exhaustion",
                True,
                f"{sh.series.name} of {sh.series.service} rose {sh.ratio:.1f}x from its baseline",
                ((sh.series.service, sh.series.name),),
            )
        )
    elif ran_out is not None:
        out.append(
            Hypothesis(
                "resource exhaustion",
                True,
                f"the errors of {ran_out.service} say a resource ran out",
            )
        )
    else:
        shifted = {(sh.series.service, sh.series.name) for sh in stage.shifts}
        watched = [
            m
            for m in evidence.metrics
            if m.service in scope
            and _RESOURCE_METRIC.search(m.name.lower())
            and (m.service, m.name) not in shifted
        ]
        if watched:
            m = watched[0]
            out.append(
                Hypothesis(
                    "resource exhaustion",
                    False,
                    f"{m.name} of {m.service} stayed at its baseline",
                    ((m.service, m.name),),
                )
            )
        else:
            out.append(
                Hypothesis(
                    "resource exhaustion",
                    False,
                    "no saturation series shifted and no error says a resource ran out",
                )
            )
    configs = [
        s
        for s in suspects
        if s.change.kind in ("flag", "config") and s.effective_at <= onset + episode.tolerance
    ]
    live = [s for s in configs if not s.ruled_out and s.relatedness >= LIKELY_AT]
    if live:
        out.append(
            Hypothesis(
                "configuration change",
                True,
                f"{live[0].change.kind} {live[0].change.change_id} touches what failed",
                changes=(live[0].change.change_id,),
            )
        )
    elif configs:
        ids = tuple(s.change.change_id for s in configs[:3])
        out.append(
            Hypothesis(
                "configuration change",
                False,
                f"the flag and configuration changes before the onset ({', '.join(ids)}) touch "
                "nothing the failure shows",
                changes=ids,
            )
        )
    else:
        out.append(
            Hypothesis(
                "configuration change",
                False,
                "no flag or configuration change precedes the onset",
            )
        )
    return tuple(out)


def _metric_step(metrics: Sequence[MetricPoints], name: str, service: str) -> timedelta:
    for series in metrics:
        if series.name == name and series.service == service and len(series.points) >= 2:
            return series.points[1][0] - series.points[0][0]
    return _SLACK


def _ago(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes < 120:
        return f"{minutes} minute(s)"
    return f"{minutes // 60} hour(s)"


def _external_remediation(cause: str, category: Category = "unknown") -> str:
    lowered = cause.lower()
    if category == "data_quality":
        return "Quarantine the bad records (dead-letter them), fix them at their source, replay."
    if "certificate" in lowered:
        return "Renew or replace the expired certificate; no rollback is needed."
    if "clock" in lowered:
        return (
            "Resync the host's clock (restore its time sources) or drain it; no rollback is needed."
        )
    if "dns" in lowered:
        return "Fail over to another resolver or region; no rollback is needed."
    if "traffic" in lowered:
        return "Scale out or shed load (rate limits); no rollback is needed."
    if "a resource running out" in lowered:
        return "Add capacity or free the resource (see its runbook); no rollback is needed."
    if "neighbour" in lowered or "host saturation" in lowered:
        return "Move the workload off the saturated host; no rollback is needed."
    if lowered.startswith("node "):
        return "Cordon and drain the node, let its pods reschedule; no rollback is needed."
    if "poison" in lowered or "record" in lowered:
        return "Quarantine the bad record (dead-letter it) and replay the rest."
    return (
        "Follow the provider's status and fail over or degrade gracefully; no rollback is needed."
    )


#: Words of a series that gives a resource's limit, and of the resource a pair shares.
_LIMIT_WORDS = frozenset({"max", "limit", "capacity", "maxmemory"})
_RESOURCE_WORDS = frozenset(
    {"memory", "connections", "disk", "storage", "heap", "threads", "fds", "inodes", "clients"}
)


def _at_limit(metrics: Sequence[MetricPoints], onset: datetime) -> str:
    """A resource whose use reached its limit around the onset: a series of a limit (``max``,
    ``limit``, ``capacity`` in its name) and a series of the same service and resource (memory,
    connections, disk ...) without one, the second at 97% or more of the first within a quarter
    of an hour of the onset; "" when none did.

    >>> from datetime import UTC, datetime, timedelta
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> used = MetricPoints("redis_memory_used_bytes", "cache", ((t, 6.43e9),))
    >>> top = MetricPoints("redis_memory_max_bytes", "cache", ((t, 6.44e9),))
    >>> _at_limit([used, top], t)
    'redis_memory_used_bytes of cache reached redis_memory_max_bytes'
    >>> _at_limit([replace(used, points=((t, 3.1e9),)), top], t)
    ''
    """
    near = timedelta(minutes=15)

    def around(series: MetricPoints) -> list[float]:
        return [v for t, v in series.points if abs(t - onset) <= near]

    for limit in metrics:
        words = set(re.split(r"[^a-z0-9]+", limit.name.lower()))
        resource = words & _RESOURCE_WORDS
        if not words & _LIMIT_WORDS or not resource:
            continue
        caps = [v for v in around(limit) if v > 0]
        if not caps:
            continue
        for used in metrics:
            used_words = set(re.split(r"[^a-z0-9]+", used.name.lower()))
            if used.service != limit.service or used_words & _LIMIT_WORDS:
                continue
            if not used_words & resource:
                continue
            if any(v >= 0.97 * min(caps) for v in around(used)):
                return f"{used.name} of {used.service} reached {limit.name}"
    return ""


def _ran_out(
    metrics: Sequence[MetricPoints], onset: datetime, services: Collection[str], said: bool
) -> MetricPoints | None:
    """A headroom series (free, available, remaining) that fell to nothing (2% of its look-back
    maximum or less) within a quarter of an hour of the onset, from more than half of it: a
    resource that ran out. Only of a failing service, or of any host when the failure's messages
    say a resource ran out (``said``: a disk or a host's inodes serve the failing service).

    >>> from datetime import UTC, datetime, timedelta
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> pts = tuple((t + timedelta(minutes=10 * i), 900.0 - 100 * i) for i in range(10))
    >>> free = MetricPoints("node_filesystem_files_free", "vm-2", pts)
    >>> _ran_out([free], t + timedelta(minutes=90), ["sync"], True).name
    'node_filesystem_files_free'
    >>> _ran_out([free], t + timedelta(minutes=90), ["sync"], False) is None
    True
    """
    near = timedelta(minutes=15)
    for series in metrics:
        if not (said or series.service in services):
            continue
        if not _HEADROOM_METRIC.search(series.name.lower()) or not series.points:
            continue
        top = max(v for _t, v in series.points)
        if top <= 0:
            continue
        before = [v for t, v in series.points if t < onset - near]
        around = [v for t, v in series.points if abs(t - onset) <= near]
        if before and around and max(before) > 0.5 * top and min(around) <= 0.02 * top:
            return series
    return None


def _drained(evidence: Evidence, affected: Sequence[str], onset: datetime) -> MetricPoints | None:
    """`_ran_out` for the failure's services, ``said`` read from their messages since the onset
    (with the exceptions they carry)."""
    said = any(
        _EXHAUSTION.search(f"{s.message}\n{s.detail}")
        for s in evidence.signatures
        if s.service in affected and s.last_seen >= onset - timedelta(minutes=5)
    )
    return _ran_out(evidence.metrics, onset, affected, said)


def _falling_before(series: MetricPoints, at: datetime, onset: datetime) -> bool:
    """Whether a headroom series that ran out was already falling for an hour or more before
    ``at`` (a change going live) at much the same pace as after it (at most twice as fast
    after): the change did not make the resource run out; its use had been growing anyway.

    >>> from datetime import UTC, datetime, timedelta
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> pts = tuple((t + timedelta(minutes=10 * i), 900.0 - 100 * i) for i in range(10))
    >>> free = MetricPoints("disk_free", "vm", pts)
    >>> _falling_before(free, t + timedelta(minutes=70), t + timedelta(minutes=90))
    True
    >>> flat = tuple((t + timedelta(minutes=10 * i), 900.0 if i < 7 else 0.0) for i in range(10))
    >>> at, onset = t + timedelta(minutes=60), t + timedelta(minutes=90)
    >>> _falling_before(replace(free, points=flat), at, onset)
    False
    """
    before = [(t, v) for t, v in series.points if t <= at]
    after = [(t, v) for t, v in series.points if at <= t <= onset]
    if len(before) < 2 or not after:
        return False
    start, (t_at, v_at) = before[0], before[-1]
    hours_before = (t_at - start[0]).total_seconds() / 3600
    hours_after = max((after[-1][0] - t_at).total_seconds() / 3600, 1 / 60)
    if hours_before < 1 or start[1] <= v_at:
        return False
    pace_before = (start[1] - v_at) / hours_before
    pace_after = (v_at - after[-1][1]) / hours_after
    return pace_after <= 2 * pace_before


def _external(
    evidence: Evidence,
    shifts: Sequence[_MetricShift],
    affected: Sequence[str],
    onsets: Mapping[str, datetime],
    calls: Mapping[str, set[str]],
    onset: datetime | None,
) -> tuple[str, float, Category] | None:
    """The strongest sign that the cause lies outside the change data: (cause, strength, the
    failure category that kind of evidence shows)."""
    found: list[tuple[float, str, Category]] = []
    messages = [s for s in evidence.signatures if not affected or s.service in affected]
    if onset is not None:
        messages = [s for s in messages if s.last_seen >= onset - timedelta(minutes=5)]
    text = " ".join(s.message for s in messages)
    total = sum(s.count for s in messages) or 1
    # A message and its stack detail together (the exception often says what the line does not).
    full = {id(s): f"{s.message}\n{s.detail}" for s in messages}
    tls_sigs = [s for s in messages if _TLS.search(full[id(s)])]
    tls = sum(s.count for s in tls_sigs)
    if tls and tls >= 0.2 * total:
        # The party is named in the message or, as often, only in the exception it carries.
        peers = sorted({h for s in tls_sigs for h in _outside_hosts(s.message)}) or sorted(
            {h for s in tls_sigs for h in _outside_hosts(full[id(s)])}
        )
        peer = f" from {peers[0]}" if peers else ""
        # Another party's certificate is its failure; the platform's own is infrastructure.
        found.append(
            (
                2.5,
                f"TLS certificate errors{peer} (an expired or invalid certificate)",
                "dependency_failure" if peers else "infrastructure",
            )
        )
    dns = sum(s.count for s in messages if _DNS.search(full[id(s)]))
    if dns and dns >= 0.2 * total:
        found.append((2.5, "DNS resolution failures", "infrastructure"))
    # A poison record: said so, or one item (the very same message, its ids and offsets
    # included) failing again and again.
    poison = sum(
        s.count
        for s in messages
        if _POISON.search(full[id(s)])
        or (
            s.same
            and s.count >= _SAME_REPEATS
            and _DATA_ITEM.search(s.message)
            and _ID.search(s.message)
        )
    )
    if poison and poison >= 0.3 * total:
        found.append((2.5, "one bad (poison) record failing over and over", "data_quality"))
    # Input the service rejects, said by the message or by the exception it carries (a job killed
    # while processing a malformed record is the record's failure, whatever killed it).
    bad_input = [s for s in messages if _BAD_INPUT.search(full[id(s)])]
    if bad_input and sum(s.count for s in bad_input) >= 0.5 * total:
        found.append(
            (
                2.5,
                "input records the service rejects as malformed: "
                + message_template(max(bad_input, key=lambda s: s.count).message)[:120],
                "data_quality",
            )
        )
    if (
        onset is not None
        and affected
        and not (bad_input and sum(s.count for s in bad_input) >= 0.5 * total)
    ):
        # A service the first failing one calls began rejecting input as malformed (warnings
        # are enough: it skips the records) in the hours before the failure: the failing one
        # then misses what those records held.
        callees = calls.get(affected[0], set()) - set(affected)
        rejecting = [
            s
            for s in evidence.signatures
            if s.service in callees
            and onset - _CLOCK_LEAD <= s.first_seen <= onset
            and s.count >= _REPEATS
            and _BAD_INPUT.search(f"{s.message}\n{s.detail}")
        ]
        if rejecting:
            worst = max(rejecting, key=lambda s: s.count)
            found.append(
                (
                    2.0,
                    f"input records {worst.service} rejects as malformed: "
                    + message_template(worst.message)[:120],
                    "data_quality",
                )
            )
    store_full = [s for s in messages if _STORE_FULL.search(full[id(s)])]
    if store_full and sum(s.count for s in store_full) >= 0.3 * total:
        found.append(
            (
                2.0,
                "a resource running out: a datastore full at its memory limit with eviction off, "
                "refusing writes",
                "resource_exhaustion",
            )
        )
    full_at = _at_limit(evidence.metrics, onset) if onset is not None else ""
    if full_at:
        found.append((2.0, f"a resource running out: {full_at}", "resource_exhaustion"))
    drained = _drained(evidence, affected, onset) if onset is not None else None
    if drained is not None:
        found.append(
            (
                2.0,
                f"a resource running out: {drained.name} of {drained.service} fell to nothing",
                "resource_exhaustion",
            )
        )
    if _NEIGHBOUR.search(text):
        found.append((1.5, "a noisy neighbour saturating the host", "infrastructure"))
    if onset is not None:
        # Any service's records (the platform's events included) of a node out of a resource.
        pressure = [
            s
            for s in evidence.signatures
            if abs(s.first_seen - onset) <= timedelta(minutes=30)
            and _NODE_PRESSURE.search(f"{s.message}\n{s.detail}")
        ]
        killed = [
            s
            for s in evidence.signatures
            if abs(s.first_seen - onset) <= timedelta(minutes=30)
            and _CONTAINER_OOM.search(f"{s.message}\n{s.detail}")
            and (not affected or s.service in affected)
            and not _NODE_PRESSURE.search(s.message)
        ]
        if sum(s.count for s in killed) >= 2 and sum(s.count for s in pressure) < 2:
            found.append(
                (
                    2.0,
                    "a container killed at its memory limit (out of memory)",
                    "resource_exhaustion",
                )
            )
        # The network monitor saw a link or a device go down at the onset while the failing
        # services cannot reach a host: the network failed under them.
        link_down = [
            s
            for s in evidence.signatures
            if abs(s.first_seen - onset) <= _LINK_WINDOW
            and _LINK_DOWN.search(f"{s.message}\n{s.detail}")
        ]
        unreachable = sum(
            s.count for s in messages if s not in link_down and _UNREACHABLE.search(full[id(s)])
        )
        if link_down and unreachable >= 0.2 * total:
            found.append(
                (
                    2.0,
                    "a network link down: " + message_template(link_down[0].message)[:120],
                    "infrastructure",
                )
            )
        if sum(s.count for s in pressure) >= 2:
            nodes = sorted({m for s in pressure for m in _NODE_NAME.findall(s.message)})
            where = f" on {nodes[0]}" if nodes else ""
            found.append(
                (
                    2.5,
                    f"node trouble{where} (the node not ready, low on a resource, evicting)",
                    "infrastructure",
                )
            )
    # A datastore or host that warned for an hour or more before the onset that a resource
    # was running out, and the failure is that resource exhausted or writes refused: it ran out.
    if onset is not None and _EXHAUSTION.search(" ".join(full.values())):
        warned = [
            s
            for s in evidence.signatures
            if s.first_seen <= onset - timedelta(hours=1)
            and s.last_seen >= onset - timedelta(hours=1)
            and _RUNNING_OUT.search(f"{s.message}\n{s.detail}")
        ]
        if warned:
            first = min(warned, key=lambda s: s.first_seen)
            found.append(
                (
                    2.5,
                    f"a resource running out: {first.service} warned of it from "
                    f"{first.first_seen.isoformat()}",
                    "resource_exhaustion",
                )
            )
    # A host's clock unsynchronised (its time source lost, its offset growing) while the failure
    # is things judged expired or not yet valid by time (tokens, signatures, certificates).
    if onset is not None and _TIME_VALIDITY.search(text):
        unsynced = [
            s
            for s in evidence.signatures
            if onset - _CLOCK_LEAD <= s.first_seen <= onset + timedelta(minutes=30)
            and s.last_seen >= onset - timedelta(hours=2)
            and _CLOCK.search(f"{s.message}\n{s.detail}")
        ]
        drifted = [
            sh
            for sh in shifts
            if _CLOCK_METRIC.search(sh.series.name.lower())
            and sh.direction == 1
            and onset - _CLOCK_LEAD <= sh.at <= onset
        ]
        if unsynced or drifted:
            found.append(
                (
                    2.5,
                    "clock skew on a host (its time source lost, its clock drifting)",
                    "infrastructure",
                )
            )
    # Provider status notices naming something the errors name.
    error_terms = set(signature_terms([text])) if text else set()
    hosts = set(_outside_hosts(text))
    for signal in evidence.signals:
        body = f"{signal.title}\n{signal.text}"
        if not _STATUS.search(body):
            continue
        if (
            signal.at is not None
            and onset is not None
            and not (
                onset - timedelta(hours=6)
                <= signal.at
                <= evidence.alert.fired_at + timedelta(hours=6)
            )
        ):
            continue
        dates = _dates_in(body)
        if dates and onset is not None and all(abs((d - onset.date()).days) > 1 for d in dates):
            continue  # a notice about another day (an old, resolved incident)
        if not dates and signal.at is None and not _STATUS_UPDATE.search(body):
            continue  # undated and not written as status updates: a runbook, not a notice
        shared = set(signature_terms([body])) & error_terms
        shared |= {h for h in hosts if h in body.lower()}
        if len(shared) >= 2 or any("." in s or "-" in s for s in shared):
            found.append(
                (3.0, f"a provider status notice: {signal.title.strip()}", "dependency_failure")
            )
            break
    # An outside party (a host on the public internet) answering unavailable, refusing or timing
    # out in most of the failure's messages: its outage, whether or not it published a notice.
    down = [s for s in messages if _outside_hosts(full[id(s)]) and _UNAVAILABLE.search(full[id(s)])]
    if down and sum(s.count for s in down) >= 0.3 * total:
        peers = sorted({h for s in down for h in _outside_hosts(full[id(s)])})
        found.append(
            (
                2.0,
                f"the outside dependency {peers[0]} failing (unavailable, refusing or timing out)",
                "dependency_failure",
            )
        )
    # Demand that rose on a service the first failing one calls, while the first failing one's
    # own demand did not: its retries and fan-out, not outside load.
    origin = affected[0] if affected else ""
    surged = {
        sh.series.service
        for sh in shifts
        if _demand(sh.series) and sh.direction == 1 and sh.ratio >= 1.8
    }
    amplified = calls.get(origin, set()) - {origin} if origin not in surged else set()
    for shift in shifts:
        name = shift.series.name.lower()
        if onset is not None and abs(shift.at - onset) > timedelta(hours=1):
            continue
        if (
            onset is not None  # demand that rose while nothing failed was served: no cause
            and _demand(shift.series)
            and shift.direction == 1
            and shift.ratio >= 1.8
            and shift.series.service not in amplified
        ):
            found.append(
                (
                    2.5,
                    f"a traffic surge: {shift.series.name} on {shift.series.service} "
                    f"rose {shift.ratio:.1f}x",
                    "resource_exhaustion",
                )
            )
        elif _HOST_METRIC.search(name) and shift.direction == 1:
            found.append(
                (2.0, f"host saturation (a noisy neighbour): {shift.series.name}", "infrastructure")
            )
    changed = {c.service for c in evidence.changes}
    for shift in shifts:
        svc = shift.series.service
        if (
            onset is not None
            and shift.direction == 1
            and _BUSY_METRIC.search(shift.series.name.lower())
            and abs(shift.at - onset) <= timedelta(minutes=30)
            and svc not in changed
        ):
            found.append(
                (
                    2.0,
                    f"saturation of the shared {svc} ({shift.series.name} rose): a noisy "
                    "neighbour or outside load",
                    "resource_exhaustion",
                )
            )
            break
    if hosts and not down:
        found.append((1.0, "errors from an outside provider", "dependency_failure"))
    elif _REGION.search(text):
        found.append((1.0, "errors from one cloud region", "infrastructure"))
    if len(affected) >= 3 and onset is not None:
        together = [s for s in affected if onsets[s] - onset <= timedelta(minutes=10)]
        linked = {s for s in together for c in calls.get(s, ()) if c in together}
        linked |= {c for s in together for c in calls.get(s, ()) if c in together}
        if len(together) >= 3 and len(set(together) - linked) >= 3:
            found.append(
                (
                    1.5,
                    f"{len(together)} services with no shared dependency failed together",
                    "infrastructure",
                )
            )
    if not found:
        return None
    found.sort(key=lambda item: -item[0])
    strength = found[0][0] + 0.5 * sum(w for w, _, _ in found[1:])
    return found[0][1], strength, found[0][2]
