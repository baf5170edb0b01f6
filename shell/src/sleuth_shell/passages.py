"""Passage-level retrieval over knowledge documents: pure functions.

A document is cut into small passages: sentences of prose, list items, table rows (rendered with
their column headers), ``key: value`` lines and code lines, each remembering its section heading
and the block it sits in (quoted as the supporting context). `rank_passages` scores every passage
of every candidate document against the question's key terms, weighting each term by how rare it
is among the candidates (so ``booking`` tells the booking failover runbook from the records one,
while ``database`` and ``failover`` do not), and `coverage` is the share of the question's key
terms the best passage and its document carry: the evidence the agent's abstention threshold is
calibrated on.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sleuth_core.language import DOCUMENT_CACHE_SIZE, TEXT_CACHE_SIZE, stem, terms
from sleuth_shell.text import split_passages

__all__ = [
    "Candidate",
    "Ranked",
    "answer_cue",
    "asked_value",
    "asked_words",
    "expected_answer",
    "holds_term",
    "key_terms",
    "known_stems",
    "rank_passages",
    "split_fine",
    "stated_values",
    "stems_of",
]

_DURATION = re.compile(
    r"\b\d+(?:\.\d+)?\s*-?\s*(?:ms|s|seconds?|minutes?|min|hours?|h|days?|weeks?|years?)\b"
    r"|\b\d{1,2}:\d{2}\b|\bevery\b|\bnightly\b|\bweekly\b|\bdaily\b",
    re.IGNORECASE,
)
#: A date or a time of day: what "when does it expire / end / run" is answered by.
_WHEN = re.compile(
    rf"{_DURATION.pattern}|\b\d{{4}}-\d{{2}}-\d{{2}}|(?<!\d)\d{{1,2}}:\d{{2}}(?!\d)|"
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b",
    re.IGNORECASE,
)
#: A version: what "which version / release" is answered by.
_VERSION = re.compile(r"\bv?\d+\.\d+(?:\.\d+)*\b")
#: Who answers a "who" question: a team, an owner, an approver, an on-call handle, a role.
_WHO = re.compile(
    r"\b(?:teams?|owners?|owned|approv\w*|handles?|contacts?|on-?call|leads?|managers?|"
    r"supervisors?|engineers?|desk|rotations?|pager|paged?|escalat\w*|duty|vendor|provider|"
    r"carrier|company|person|responsible|sign(?:s|ed)?[- ]?off)\b|(?<![\w&])[#@][a-z]|"
    r"\+\d[\d ()-]{6,}\d",  # a number to call is a contact
    re.IGNORECASE,
)
#: What a "what should we not do?" question is answered by: a warning against something.
_DONT = re.compile(
    r"\b(?:do not|don't|never|must not|mustn't|should not|shouldn't|avoid|not allowed)\b", re.I
)
_ANSWER_SHAPES = (
    (
        re.compile(
            r"\bwhat\s+(?:should|must|do|shall)\s+(?:we|i|you)\s+(?:not|never|avoid)\b|"
            r"\bwhat\s+(?:not\s+to|to\s+avoid)\b|\bwhat\s+(?:shouldn't|mustn't|don't)\s+(?:we|i|you)\b",
            re.I,
        ),
        _DONT,
    ),
    (re.compile(r"^\s*(?:who|whom|whose)\b", re.I), _WHO),
    (
        re.compile(
            r"^\s*(?:(?:after|within|in|for)\s+)?how\s+(?:long|often|soon|fast|quickly)", re.I
        ),
        _DURATION,
    ),
    (re.compile(r"^\s*(?:when\b|what\s+time|by\s+when|until\s+when)", re.I), _WHEN),
    (re.compile(r"\b(?:which|what)\s+(?:version|release|tag)\b", re.I), _VERSION),
    (
        re.compile(
            r"^\s*(?:how\s+(?:do|to|can|should)|which\s+command|what\s+command|"
            r"what(?:'s|\s+is)\s+the\s+command|(?:the\s+)?(?:command|cmd)\s+(?:to|for)\b)|"
            r"\bwhat\s+(?:must|should|do)\s+(?:we|i|you)\s+(?:do|pause|stop|run|disable|drain|"
            r"restart|scale|flush|purge|enable)\b",
            re.I,
        ),
        re.compile(r"`[^`]+`"),
    ),
    (
        re.compile(
            r"\b(?:threshold|limit|port|size|rto|rpo|quota|lag|timeout|rate|floor|how\s+many)\b",
            re.I,
        ),
        re.compile(r"\d|\b(?:zero|none|unlimited|disabled)\b", re.IGNORECASE),
    ),
)


def expected_answer(question: str) -> re.Pattern[str] | None:
    """The shape the answer to ``question`` takes (a duration, a command, a number), if any."""
    for asks, shape in _ANSWER_SHAPES:
        if asks.search(question):
            return shape
    return None


_HOW_MANY = re.compile(r"\bhow\s+many\s+(?:of\s+(?:the\s+)?)?([a-z][\w-]*)", re.IGNORECASE)
_HOW_LONG = re.compile(r"\bhow\s+long\b(?P<past>\s+(?:did|was|were|had)\b)?", re.IGNORECASE)
#: Words naming an incident, whose length a "how long" asks for.
_INCIDENT = re.compile(
    r"\b(?:outages?|incidents?|stalls?|downtime|disruptions?|degradations?|breach(?:es)?|"
    r"post-?mortems?)\b",
    re.IGNORECASE,
)


def answer_cue(question: str) -> re.Pattern[str] | None:
    """What the passage that answers ``question`` says in so many words, if the question's form
    tells: "how many riders ...?" is answered by a number followed by that noun ("1,284
    riders"), "how long did it last?" (or "how long" about an outage or incident) by a labelled
    duration ("Duration: 58 minutes").

    >>> cue = answer_cue("how many riders got double charged?")
    >>> bool(cue.search("1,284 riders were charged twice")), bool(cue.search("some riders"))
    (True, False)
    >>> bool(answer_cue("How long did the outage last?").search("Duration: 58 minutes."))
    True
    """
    if (m := _HOW_MANY.search(question)) is not None:
        noun = re.escape(stem(m[1].lower()))
        # The question's own words after the noun ("how many envelopes got refused?") said
        # right after the count ("3,912 envelopes were refused") tell that count from others.
        after = [
            re.escape(w[:5]) for w in key_terms(question[m.end() :]) if w.isalpha() and len(w) > 2
        ]
        verb = rf"(?:\W+\w+){{0,2}}?\W+(?P<verb>(?:{'|'.join(after)})\w*)" if after else ""
        return re.compile(rf"\d[\d,.]*\s+(?:[a-z-]+\s+){{0,2}}?{noun}\w*(?:{verb})?", re.IGNORECASE)
    if (m := _HOW_LONG.search(question)) is not None and (m["past"] or _INCIDENT.search(question)):
        return re.compile(r"\bduration\s*:", re.IGNORECASE)
    return None


_STATED = re.compile(
    r"(?:\b(?P<than>under|over|above|below|less\s+than|more\s+than|at\s+least|at\s+most|"
    r"within|after|past)\s+)?(?<![\w.:/-])(?P<number>(?:(?<![\w.])-)?\d+(?:[.,]\d+)?)(?![\d.,:-])"
    r"(?:\s*(?P<unit>%|°\s*[CF]|[a-z]+(?![\w-])))?",
    re.I,
)


def stated_values(question: str) -> list[re.Pattern[str]]:
    """The values ``question`` states (a number with the word after it: "under 2 days",
    "above 40 %"), each as the pattern a passage stating the same value matches; the number
    alone when no unit follows it. Numbers are no key terms, yet one the question states picks
    the row or line that states it among lines alike ("... over 6 hours behind, and over 2
    days?": the Amber row, then the Red one).

    >>> values = stated_values("what do we do when the backups fall under 2 days?")
    >>> [bool(v.search("Backups kept: under 2 days of history")) for v in values]
    [True, True]
    >>> [bool(v.search("Minimum retention: 2 days of history")) for v in values]
    [True, False]
    """
    out = []
    for m in _STATED.finditer(question):
        number, unit, than = m["number"], m["unit"], m["than"]
        if unit and unit.lower() not in STOP_UNITS:
            word = re.escape(unit.lower().rstrip("s"))
            ending = r"s?\b" if unit.isalpha() else ""
            value = rf"(?<![\w.]){re.escape(number)}\s*{word}{ending}"
        else:
            value = rf"(?<![\w.]){re.escape(number)}(?![\w.])"
        out.append(re.compile(value, re.IGNORECASE))
        if than:
            # "under 6 days" said in the question's words counts twice.
            than_words = r"\s+".join(map(re.escape, than.split()))
            out.append(re.compile(rf"\b{than_words}\s+{value}", re.IGNORECASE))
    return out


#: Words after a number that are no unit of it ("2 and 3", "5 of them").
STOP_UNITS = frozenset({"and", "or", "of", "to", "the", "a", "an", "in", "on", "at", "for"})


_VALUE_QUESTION = re.compile(
    r"^\s*(?:(?:what|which)(?:'s|\s+(?:is|are|was|were))\s+(?:the\s+|our\s+|its\s+)?(?P<np>.+)|"
    r"(?P<bare>(?!(?:what|which|who|whom|how|when|where|why|is|are|do|does|did|can|should|must)\b)"
    r"[^?]+))",
    re.IGNORECASE,
)


def asked_value(question: str) -> list[str]:
    """The key terms of what a value question asks for ("what is the booking-db RTO?", or a
    bare "ordersdb RPO?"); none for other questions ("what must we pause?").

    >>> asked_value("What is the booking-db RTO?")
    ['booking-db', 'book', 'db', 'rto']
    >>> asked_value("what must we pause before rolling it back?")
    []
    """
    m = _VALUE_QUESTION.match(question)
    if m is None:
        return []
    return key_terms(m["np"] or m["bare"] or "")


#: Question words that carry no topic: never key terms.
_GENERIC_WORDS = (
    "long often much many mean means meaning does used use set value values command commands "
    "kept keep retained valid listen happens happen take takes make makes run runs say says "
    "best way ok okay exactly currently current allowed allow maximum minimum max min "
    "fix fixes solve resolve handle deal troubleshoot expired must need needs also get gets got "
    "someone somebody something anything anyone fast quickly quick go goes going went gone "
    "else several multiple various per whose supposed"
)
_GENERIC = frozenset(_GENERIC_WORDS.split())


#: Verbs whose answer a runbook writes under a noun label ("who owns X?": "Owner: ...").
_LABEL_OF = {"own": "owner", "owns": "owner", "owned": "owner", "owning": "owner"}
#: Words that ask for a value of a form rather than name a topic: a passage holding a value of
#: that form holds them ("their slack channel?": "#partners").
_CHANNEL = re.compile(r"(?<![\w&])#[a-z][\w-]+", re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_PHONE = re.compile(r"\+\d[\d ()-]{6,}\d")
_FORMS = {
    "channel": _CHANNEL,
    "slack": _CHANNEL,
    "email": _EMAIL,
    "e-mail": _EMAIL,
    "mail": _EMAIL,
    "phon": _PHONE,
}


#: Generic words that name what is asked when written as a noun after another noun ("pager
#: handle", "slack handle"), not as a verb or after a pronoun or modal ("how do I handle it").
_NOUN_AFTER_NOUN = frozenset({"handle", "handles"})
_NOT_NOUNS = frozenset(
    [
        "to",
        "i",
        "we",
        "you",
        "they",
        "do",
        "does",
        "did",
        "should",
        "can",
        "could",
        "would",
        "must",
        "how",
        "who",
        "will",
        "not",
        "the",
        "a",
        "an",
    ]
)


def _named_nouns(question: str) -> set[str]:
    words = re.findall(r"[a-z][a-z-]*", question.lower())
    return {
        b
        for a, b in itertools.pairwise(words)
        if b in _NOUN_AFTER_NOUN and a not in _NOT_NOUNS and a not in _GENERIC and len(a) > 2
    }


#: Phrases that ask for a value by another word than the runbook's label: "how big" asks a
#: size, "who do I call" a phone number, and "how many X can it hold" the most X (the verb of
#: capacity names nothing).
_ASKED_AS = (
    (re.compile(r"\bhow\s+(?:big|large)\b", re.I), "size"),
    (
        re.compile(r"\bwho\s+(?:do|should|can|must)\s+(?:i|we|you)\s+(?:call|phone|ring)\b", re.I),
        "who phone",
    ),
    (
        re.compile(
            r"\b(?:can|could|does|do|will|may)\s+(?:it|they|one|each)\s+"
            r"(?:hold|take|carry|fit|contain|store)\b(?!\s+(?:back|off|on|up|over|out)\b)",
            re.I,
        ),
        "",
    ),
)


def key_terms(question: str) -> list[str]:
    """The topic words of ``question``, stemmed (generic question words dropped; a phrase that
    asks by another word than a runbook's label read as that label, see `_ASKED_AS`)."""
    for phrase, label in _ASKED_AS:
        question = phrase.sub(label, question)
    out = list(_topic_words(question))
    for joined in _compounds(question):
        if joined not in out:
            out.append(joined)
    return out


def asked_words(question: str) -> list[str]:
    """The topic words of ``question`` as its asker wrote them (lowercased), one per key term:
    what an answer names when it says what it looked for (a stem such as ``warehous`` is the
    search's, not the asker's word).

    >>> asked_words("Who approves a warehouse refund?")
    ['approves', 'warehouse', 'refund']
    """
    return list(_topic_words(question).values())


def _topic_words(question: str) -> dict[str, str]:
    """Each topic word's key term (its label or stem) mapped to the first word written for it."""
    out: dict[str, str] = {}
    nouns = _named_nouns(question)
    for word in terms(question):
        s = _LABEL_OF.get(word) or stem(word)
        generic = (s in _GENERIC or word in _GENERIC) and word not in nouns
        if not generic and len(s) >= 2 and s not in out:
            out[s] = word
    return out


def _compounds(text: str) -> set[str]:
    """Two-word phrases written as one word elsewhere: ``roll back`` (and ``rolling back``) is
    also ``rollback``."""
    words = [stem(w) for w in re.findall(r"[a-z]+", text.lower())]
    found = {stem(a + b) for a, b in itertools.pairwise(words) if (a, b) in _COMPOUNDS}
    # A phrasal verb split by its object: "roll it back".
    for a, pronoun, b in zip(words, words[1:], words[2:], strict=False):
        if pronoun in _OBJECTS and (a, b) in _COMPOUNDS:
            found.add(stem(a + b))
    return found


_OBJECTS = frozenset({"it", "them", "this", "that"})


_COMPOUNDS = frozenset(
    {
        ("roll", "back"),
        ("fail", "over"),
        ("dead", "letter"),
        ("on", "call"),
        ("back", "up"),
        ("hold", "back"),
        ("sign", "off"),
    }
)


@dataclass(frozen=True)
class Candidate:
    """One fine passage of a document."""

    doc: int
    heading: str
    text: str
    block: str
    kind: str  # sentence, item, row, pair, code


def _row_text(header: list[str], cells: list[str]) -> str:
    if header and len(header) == len(cells):
        return "; ".join(f"{h}: {c}" for h, c in zip(header, cells, strict=True) if c)
    return "; ".join(c for c in cells if c)


def split_fine(doc: int, markdown: str) -> list[Candidate]:
    """The fine passages of ``markdown`` (see the module doc)."""
    return list(_split_fine(doc, markdown))


@functools.lru_cache(maxsize=DOCUMENT_CACHE_SIZE)
def _split_fine(doc: int, markdown: str) -> tuple[Candidate, ...]:
    """`split_fine`, memoised on the document's id and text (a changed text is a new key)."""
    out: list[Candidate] = []
    for block in split_passages(markdown):
        lines = block.text.splitlines()
        if block.kind == "code":
            for line in block.code.splitlines():
                if line.strip():
                    out.append(Candidate(doc, block.heading, line.strip(), block.text, "code"))
            continue
        if block.kind == "table":
            header: list[str] = []
            for line in lines:
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                    continue
                if not header:
                    header = cells
                    continue
                out.append(
                    Candidate(doc, block.heading, _row_text(header, cells), line.strip(), "row")
                )
            continue
        pairs = all(re.match(r"^[A-Za-z][\w .()/'-]{1,60}:\s+\S", line.strip()) for line in lines)
        item: list[str] = []
        items: list[list[str]] = []
        prose: list[str] = []
        for line in lines:
            if re.match(r"\s*(?:[-*+]|\d+\.)\s", line):
                if item:
                    items.append(item)
                item = [re.sub(r"^\s*(?:[-*+]|\d+\.)\s+", "", line)]
            elif item:
                item.append(line.strip())
            elif pairs:
                out.append(Candidate(doc, block.heading, line.strip(), block.text, "pair"))
            else:
                prose.append(line.strip())
        if item:
            items.append(item)
        for parts in items:
            text = " ".join(parts)
            out.append(Candidate(doc, block.heading, text, "\n".join(parts), "item"))
        if prose:
            paragraph = " ".join(prose)
            for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z`*])", paragraph):
                if sentence.strip():
                    out.append(
                        Candidate(doc, block.heading, sentence.strip(), paragraph, "sentence")
                    )
    return tuple(out)


#: How much a ``key: value`` line gains for the share of the question's key-term weight its key
#: holds.
_KEY_BONUS = 0.2
#: What a ``key: value`` line gains when every word of its key is asked (its value is the answer).
_KEY_ASKED = 0.3
#: The least share of that weight a key must hold to name what is asked.
_KEY_NAMES = 0.4


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _key_words(key: str) -> frozenset[str]:
    """The stems of a ``key: value`` line's key, generic words aside; a key written as one
    token (``max_resubmits``) stands for its words, so "max resubmits?" asks for it."""
    found = set(_word_stems(key)) - _GENERIC
    for token in re.findall(r"\w+(?:[_.]\w+)+", key.lower()):
        parts = {stem(p) for p in re.split(r"[_.]", token) if p} - _GENERIC
        if parts and parts <= found:
            found.discard(stem(token))
            found.discard(token)
    return frozenset(found)


@functools.lru_cache(maxsize=64)
def _by_initial(vocabulary: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """The alphabetic words of ``vocabulary`` by their first letter (memoised on the set)."""
    out: dict[str, list[str]] = {}
    for word in vocabulary:
        if word.isalpha():
            out.setdefault(word[0], []).append(word)
    return {k: tuple(v) for k, v in out.items()}


def _near(term: str, vocabulary: Sequence[str], *, typos: bool) -> frozenset[str]:
    """The words of ``vocabulary`` (those sharing its first letter) that ``term`` (five letters
    or more) is a short form of
    (``approv`` for ``approval``: at most three letters more) or, with ``typos`` (no candidate
    holds the term), a typo of (one letter off: ``timout``, ``settlment``); and those (for a
    term of four letters or more) that are the same word with another ending (``paged`` and
    ``pager``, ``refus`` and ``refusal``: see `_same_root`)."""
    if len(term) < 3 or not term.isalpha():
        return frozenset()
    if len(term) < 4:
        # A word cut short ("neg" for "negative", "temp"), when no candidate holds it as written.
        return frozenset(w for w in vocabulary if typos and len(w) > 4 and w.startswith(term))
    found = {
        w
        for w in vocabulary
        if w != term
        and (
            _same_root(term, w)
            or (
                len(term) >= 5
                and -1 <= len(w) - len(term) <= 3
                and (
                    w.startswith(term)
                    or (typos and abs(len(w) - len(term)) <= 1 and _one_letter_off(term, w))
                )
            )
        )
    }
    return frozenset(found)


#: Endings a word takes as a noun of a verb's root (what the light stemmer leaves).
_ENDINGS = frozenset({"", "e", "d", "ed", "r", "er", "ers", "s", "es", "ing", "al", "als"})
#: Endings of a verb: what the question's word may end with.
_VERB_ENDINGS = frozenset({"", "e", "d", "ed", "s", "es", "ing"})


#: Words on-call engineers use for one another, and the short forms they type: a passage
#: holding one holds the others ("hard cap?": "Never raise a limit above ...", "db creds":
#: "database credentials").
_SAME_MEANING = (
    ("cap", "ceiling", "limit"),
    ("outage", "incident", "downtime"),
    ("reserve", "holdback"),
    ("signoff", "approve", "approver", "approval"),
    ("restart", "bounce", "reboot"),
    ("rollback", "revert"),
    ("database", "db"),
    ("certificate", "cert"),
    ("configuration", "config", "cfg"),
    ("credentials", "creds"),
    ("authentication", "auth"),
    ("production", "prod"),
    ("repository", "repo"),
    ("kubernetes", "k8s"),
    ("connection", "conn"),
    ("duplicate", "dup", "dupe"),
    ("service", "svc"),
    ("severity", "sev"),
    ("environment", "env"),
    ("percent", "pct"),
    ("notice", "announce", "announcement"),
    ("temperature", "temp"),
)
_MEANS: dict[str, frozenset[str]] = {}
for _group in _SAME_MEANING:
    _stems_of_group = frozenset(stem(w) for w in _group)
    for _word in _stems_of_group:
        _MEANS[_word] = _stems_of_group - {_word}


def _same_root(a: str, b: str) -> bool:
    """Whether the question's word ``a``, a verb, is the root of ``b``: a shared start of at
    least four letters, the rest of ``a`` a verb's ending and the rest of ``b`` one of
    `_ENDINGS` (``paged`` for ``pager``, ``refus`` for ``refusal``); a noun of the question
    does not match another noun or verb of its root (``scheduler`` is not ``scheduling``)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    if n < 4 or not b.isalpha():
        return False
    return a[n:] in _VERB_ENDINGS and b[n:] in _ENDINGS


_KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
#: The keys next to each letter on a keyboard (same row and the rows above and below).
_NEIGHBOURS: dict[str, frozenset[str]] = {
    ch: frozenset(
        other
        for r in range(max(row - 1, 0), min(row + 2, len(_KEY_ROWS)))
        for other in _KEY_ROWS[r][max(col - 1, 0) : col + 2]
        if other != ch
    )
    for row, keys in enumerate(_KEY_ROWS)
    for col, ch in enumerate(keys)
}


def _one_letter_off(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one inserted, dropped or swapped letter, or one letter
    changed into a key next to it (``tineout``); a letter changed into a distant key makes
    another word, not a typo (``retent``, of "retention", is not ``recent``)."""
    if len(a) == len(b):
        diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
        if len(diff) == 1:
            x, y = diff[0]
            return y in _NEIGHBOURS.get(x, frozenset())
        return len(diff) == 2 and sorted(a) == sorted(b)
    return difflib.SequenceMatcher(None, a, b).ratio() >= 1 - 1.5 / max(len(a), len(b))


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _stems_with(text: str, near: frozenset[tuple[str, frozenset[str]]]) -> frozenset[str]:
    found = _stems(text)
    return found | {t for t, words in near if not words.isdisjoint(found)}


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _held(
    text: str, near: frozenset[tuple[str, frozenset[str]]], forms: tuple[str, ...]
) -> frozenset[str]:
    """The stems ``text`` holds, with the asked terms it holds as a typo's or short form's
    correct word (``near``: term and words) or as a value of an asked form (``forms``, keys of
    `_FORMS`)."""
    found = _stems_with(text, near) if near else _stems(text)
    if forms:
        found = found | {t for t in forms if _FORMS[t].search(text)}
    return found


#: What a passage that states the answer in the question's form gains (see `answer_cue`).
_CUE_BONUS = 0.25
#: What a passage stating every value the question states gains (less for fewer).
_VALUE_STATED = 0.2
#: What a passage holding every context term itself gains (less for fewer).
_CONTEXT_HERE = 0.1
#: What a passage gains under a section whose heading holds every asked term.
_SECTION_ASKED = 0.15
#: What it gains more when the count is followed by the question's own verb ("3,912 envelopes
#: were refused" for "how many envelopes got refused?").
_CUE_VERB = 0.1
#: What a topic term (see `rank_passages`) earns wherever its document holds it; the rest of
#: its weight counts to the coverage of a passage that holds it, and to its score by how few of
#: the document's passages hold it (the row naming "E-420" among rows alike).
_SUBJECT_SHARE = 0.8


#: A word that may abbreviate others (three to five letters).
_ACRONYM = re.compile(r"^[a-z]{3,5}$")


@functools.lru_cache(maxsize=256)
def _spelled_out(abbreviation: str) -> re.Pattern[str]:
    """The words ``abbreviation`` stands for: one word per letter, each starting with it."""
    return re.compile(
        r"\b" + r"[\s-]+".join(f"({c}[a-z]+)" for c in abbreviation) + r"\b", re.IGNORECASE
    )


def _spells(words: re.Pattern[str], text: str) -> bool:
    """Whether ``text`` writes out the abbreviation as a name: the words of ``words``, at least
    two of them capitalized ("Social Security number" for SSN, not "sealed status now")."""
    return any(sum(w[0].isupper() for w in m.groups()) >= 2 for m in words.finditer(text))


@dataclass(frozen=True)
class Ranked:
    """A passage with its score and the share of the question's key-term weight it carries."""

    passage: Candidate
    score: float
    coverage: float


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _joined_parts(stems: frozenset[str]) -> frozenset[str]:
    """The words of the two-word phrases ``stems`` holds written as one (``roll``, ``back`` for
    ``rollback``)."""
    return frozenset(
        part for a, b in _COMPOUNDS if stem(a + b) in stems for part in (stem(a), stem(b))
    )


def holds_term(term: str, text: str, known: frozenset[str] | None = None) -> bool:
    """Whether ``text`` holds the key term ``term`` as `rank_passages` matches it: the word, a
    word it is a short form or root of, one it is a typo of (unless ``known`` holds the term),
    a word of the same meaning, a value of the form it
    asks for (``channel``: ``#partners``) or, when ``known`` (the stems of every candidate) is
    given and does not hold the term, the words an abbreviation stands for.

    >>> holds_term("approv", "Approval: the duty officer"), holds_term("channel", "#ops")
    (True, True)
    >>> holds_term("passphras", "the carrier rotated its certificate")
    False
    """
    found = _stems(text)
    if term in found or (_MEANS.get(term, frozenset()) & found):
        return True
    # As in the ranking, a typo is read only for a term no candidate holds.
    if _near(term, _by_initial(found).get(term[:1], ()), typos=known is None or term not in known):
        return True
    if term in _FORMS and _FORMS[term].search(text):
        return True
    if known is None or term in known or not _ACRONYM.match(term):
        return False
    return _spells(_spelled_out(term), text)


def known_stems(texts: Sequence[str]) -> frozenset[str]:
    """The stems every one of ``texts`` holds, together (the vocabulary of the candidates)."""
    return frozenset().union(*(_stems(t) for t in texts)) if texts else frozenset()


def stems_of(text: str) -> frozenset[str]:
    """The stems a passage or title holds, as `rank_passages` matches key terms against them."""
    return _stems(text)


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s terms, their hyphenated parts and its compounds (memoised on the
    text, which is the whole key: no invalidation needed)."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    # Two words written apart match the hyphenated word ("switch off" for "switch-off").
    pairs = {stem(f"{a}-{b}") for a, b in itertools.pairwise(words) if len(a) > 1 < len(b)}
    return _word_stems(text) | pairs


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _word_stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s terms, their hyphenated parts and its compounds."""
    found: set[str] = _compounds(text)
    for word in terms(text):
        found.add(stem(word))
        if "-" in word or "_" in word:
            found.update(stem(p) for p in re.split(r"[-_]", word) if p)

    return frozenset(found)


def rank_passages(
    question_terms: Sequence[str],
    documents: Sequence[tuple[int, str, str]],
    *,
    catalog_size: int | None = None,
    prefer: Sequence[str] = (),
    expects: re.Pattern[str] | None = None,
    context: Sequence[str] = (),
    value_of: Sequence[str] = (),
    subject: Sequence[str] = (),
    cue: re.Pattern[str] | None = None,
    situation: Sequence[str] = (),
    context_most: float = math.inf,
    values: Sequence[re.Pattern[str]] = (),
) -> list[Ranked]:
    """Every fine passage of ``documents`` (``(id, title, markdown)``), best first.

    A key term weighs ``log(1 + N / (1 + df))`` where ``df`` counts the documents holding it and
    ``N`` is ``catalog_size`` (default: the number of documents), twice that when it is a named
    key (``max_poll_records``, ``retention.ms``). A passage earns a term's full weight when it
    holds the term, 0.6 of it when its heading or the document's title does, and 0.35 when only
    the rest of its document does; ``coverage`` is that sum over the total weight. Passages of
    kind ``pair``/``row``/``code``/``item`` get a small bonus when they match at all (they hold
    values and commands); a ``key: value`` line more when every word of its key is in
    ``value_of`` (what a value question asks for, see `asked_value`), or when its key holds at
    least 0.4 of the key-term weight; those whose kind is in ``prefer`` a little more; those not
    matching ``expects`` (the shape of the answer, see `expected_answer`) lose; and every
    passage gains for the share of the key-term weight its document's title holds.
    ``context`` terms (the subject of an earlier part of the question) add to the score where
    the passage's document holds them, at a quarter of their weight (at most ``context_most``
    in all), and never to ``coverage``.
    A passage matching ``cue`` (see `answer_cue`) gains.
    ``subject`` terms (a topic written before the question: "records-db failover: who
    approves?") are asked terms that name the document more than the passage: they earn 0.8 of
    their weight wherever the document holds them, and a passage holding them the rest only by
    how few of the document's passages hold it (a table row naming the topic among rows alike),
    so the rest of the question picks the passage.
    ``situation`` terms (those of a condition clause only: "who gets paged *when filing-gateway
    is refusing envelopes*?") weigh half: they tell the situation, the rest what is asked.
    A passage that holds asked terms and states the ``values`` the question states (see
    `stated_values`) gains, by the share of them it states.
    """
    wanted = list(dict.fromkeys(question_terms))
    if not wanted or not documents:
        return []
    doc_stems = {doc: _stems(f"{title}\n{content}") for doc, title, content in documents}
    # A term matches the words it is a short form of, and a term no candidate holds the words
    # it is a typo of.
    vocabulary = frozenset().union(*doc_stems.values())
    by_initial = _by_initial(vocabulary) if any(len(t) >= 3 for t in wanted) else {}
    near_of = {
        t: _near(t, by_initial.get(t[:1], ()), typos=t not in vocabulary)
        | (_MEANS.get(t, frozenset()) & vocabulary)
        for t in wanted
    }
    near_pairs = frozenset((t, w) for t, w in near_of.items() if w)
    form_terms = tuple(t for t in wanted if t in _FORMS)
    for t, near_words in near_of.items():
        if near_words:
            doc_stems = {
                doc: found | {t} if not near_words.isdisjoint(found) else found
                for doc, found in doc_stems.items()
            }
    # An abbreviation no candidate holds matches the words it abbreviates ("SSN": "Social
    # Security number").
    spelled = {t: _spelled_out(t) for t in wanted if t not in vocabulary and _ACRONYM.match(t)}
    for t, words in spelled.items():
        for doc, _title, content in documents:
            if _spells(words, f"{_title}\n{content}"):
                doc_stems[doc] = doc_stems[doc] | {t}
    forms = {t: _FORMS[t] for t in wanted if t in _FORMS}
    for doc, _title, content in documents:
        if any(f.search(content) for f in forms.values()):
            doc_stems[doc] = doc_stems[doc] | {t for t, f in forms.items() if f.search(content)}
    n = catalog_size or len(documents)
    weight = {
        t: (
            2.0 if re.search(r"\w[_.]\w", t) else 1.0
        )  # a named key (max_poll_records) counts double
        * (0.5 if t in situation else 1.0)  # a condition's words tell the situation
        * math.log(1 + n / (1 + sum(t in s for s in doc_stems.values())))
        for t in wanted
    }
    total = sum(weight.values())
    extra = [t for t in dict.fromkeys(context) if t not in weight]
    context_weight = {
        t: math.log(1 + n / (1 + sum(t in s for s in doc_stems.values()))) for t in extra
    }
    named = frozenset(value_of) | _joined_parts(frozenset(value_of))
    named |= {stem(p) for t in value_of if "_" in t for p in t.split("_") if p}
    parts_only = {stem(p) for t in value_of if "-" in t for p in t.split("-") if p}
    topic = frozenset(subject)
    ranked: list[Ranked] = []
    for doc, title, content in documents:
        title_stems = _stems(title)
        title_share = sum(weight[t] for t in wanted if t in title_stems) / total if total else 0
        doc_joined = _joined_parts(doc_stems[doc]) if topic else frozenset()
        passages = split_fine(doc, content)
        # A section whose heading (not the title) holds every asked term is about what is asked
        # ("what happens when an EFSP goes over its rate limit?": *An EFSP is over its rate
        # limit*).
        heads = {
            p.heading: len(wanted) >= 2
            and p.heading.strip() != title.strip()
            and all(t in _held(p.heading, near_pairs, form_terms) for t in wanted)
            for p in passages
        }
        holds = {p.text: _stems(p.text) | _joined_parts(_stems(p.text)) for p in passages if topic}
        # How rare each topic term is among the document's passages: a term few passages hold
        # (a row's "E-420") names them; one that many hold names the document.
        rarity = {
            t: 1 - sum(t in h for h in holds.values()) / max(len(holds), 1)
            for t in topic
            if t in weight
        }
        for passage in passages:
            own = _held(passage.text, near_pairs, form_terms)
            joined = _joined_parts(own)
            near = _held(passage.heading, near_pairs, form_terms) | _held(
                title, near_pairs, form_terms
            )
            for t, words in spelled.items():
                if _spells(words, passage.text):
                    own = own | {t}
                elif _spells(words, f"{passage.heading}\n{title}"):
                    near = near | {t}
            earned = 0.0
            hits = 0
            held = 0.0  # topic terms the passage itself holds, over their document share
            named_here = 0.0  # the same, each by its rarity among the document's passages
            for t in wanted:
                if t in topic and (t in doc_stems[doc] or t in doc_joined):
                    earned += _SUBJECT_SHARE * weight[t]
                    if t in own or t in joined:
                        held += (1 - _SUBJECT_SHARE) * weight[t]
                        named_here += (1 - _SUBJECT_SHARE) * weight[t] * rarity[t]
                        hits += 1
                elif t in own:
                    earned += weight[t]
                    hits += 1
                elif t in joined:  # "rollback" for "roll back": half the word's weight
                    earned += 0.5 * weight[t]
                elif t in near:
                    earned += 0.6 * weight[t]
                elif t in doc_stems[doc]:
                    earned += 0.35 * weight[t]
            coverage = (earned + held) / total if total else 0.0
            score = (earned + named_here) / total if total else 0.0
            score += min(
                context_most,
                sum(0.25 * context_weight[t] for t in extra if t in doc_stems[doc])
                / (total or 1.0),
            )
            if extra and hits:
                # Among passages alike, the one naming the earlier part's subject ("DC-309
                # meaning and the reason we give?": DC-309's row, not another code's).
                score += _CONTEXT_HERE * sum(t in own for t in extra) / len(extra)
            if hits:
                score += 0.04 if passage.kind != "sentence" else 0.0
                score += 0.04 if passage.kind in prefer else 0.0
            if passage.kind == "pair" and total:
                # A ``key: value`` line whose key names what is asked holds its value.
                key = _key_words(passage.text.split(":", 1)[0])
                key = key | {t for t, words in near_of.items() if not words.isdisjoint(key)}
                # A key naming the topic ("free-exit lead time" for "free exit: who approves?")
                # names the runbook's subject, not what is asked.
                share = sum(weight[t] for t in wanted if t in key and t not in topic) / total
                asked_words = named | {w for t in named for w in near_of.get(t, ())}
                # A key made only of a hyphenated word's parts ("Switch on" for "switch-off")
                # is not what is asked.
                if key - parts_only and key <= asked_words:  # "RTO", "max_poll_records"
                    score += _KEY_ASKED
                elif share >= _KEY_NAMES:
                    score += _KEY_BONUS * share
            if cue is not None and earned and (said := cue.search(passage.text)):
                score += _CUE_BONUS  # it says the answer in the question's own form
                if said.groupdict().get("verb"):
                    score += _CUE_VERB
            if values and hits:
                score += (
                    _VALUE_STATED * sum(bool(v.search(passage.text)) for v in values) / len(values)
                )
            if expects is not None and not expects.search(passage.text):
                score -= 0.25  # it cannot hold the asked duration, command or number
            score += 0.2 * title_share
            if heads.get(passage.heading):
                score += _SECTION_ASKED  # under the section the question names
            ranked.append(Ranked(passage, score, coverage))
    ranked.sort(key=lambda r: -r.score)
    return ranked
