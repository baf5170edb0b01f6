"""The embedded filter agent's classifier: plain trigger instructions read as keyword rules.

A chat trigger's ``filtering_instructions`` decide, for a message that fired it, between
``AGENT`` (answer it), ``STATIC`` (post the trigger's static response) and ``NONE`` (stay
silent). :func:`classify_message` reads the instructions as a list of **rules** and never calls
anything; the same inputs always give the same decision.

Reading the instructions
    The text is cut into rules at line breaks, ``.``, ``;``, ``!`` and before ``and``/``but``
    followed by a verb of a rule (``answer``, ``reply``, ``ignore``, ...). A line of the form
    ``AGENT: kw, "a phrase"`` (or ``STATIC:`` / ``NONE:``) is a *directive*: its action is given
    and it matches a message containing any of its keywords or phrases (whole words, any case).
    Any other rule is *prose*:

    - its action is ``NONE`` when it says not to answer (``ignore``, ``skip``, ``never``,
      ``don't``, ``do not``, ``no reply``, ``silent``), else ``STATIC`` when it names a fixed reply
      (``static``, ``canned``, ``standard``, ``predefined``, ``template``, ``fixed``,
      ``boilerplate``), else ``AGENT``;
    - its *topic* is its remaining words after dropping stop words and the rule vocabulary
      (answer, reply, message, question, request, ...). ``greetings`` (hi, hello, good
      morning...) and ``thanks`` are classes of messages; ``questions`` (or ``asks``) restricts
      the rule to messages that ask something.

When a rule matches a message
    A prose rule matches when every part it has matches: the topic shares a word with the message
    (a word matches when both stem alike or one stem, of at least 4 letters, starts the other:
    ``deploys`` matches ``deploy`` and ``deployment``), the message belongs to a named class, and
    it asks something if the rule is about questions. A rule with none of these parts
    (``Always answer.``) matches every message.

    A message *asks* when it has a ``?``, starts with a question word (what, why, how, can, is,
    ...), or asks for help (help, investigate, check, look into, explain, anyone know). A message
    is a *greeting* (or *thanks*) when it starts with such a word, has no ``?`` and at most one
    other word that is not a stop word or filler (team, all, everyone, folks, ...).

Deciding
    1. A blank message is ``NONE``.
    2. A matching ``NONE`` rule wins (a prohibition beats a permission).
    3. Otherwise the first matching rule, in the order written, decides.
    4. Otherwise: with no rules at all (blank instructions) a message that asks is ``AGENT`` and
       any other ``NONE``; when the instructions have an ``AGENT`` or ``STATIC`` rule they list
       what to answer, so the rest is ``NONE``; when they only say what to ignore, the rest is
       ``AGENT``.

Examples: ``only answer questions about deploys`` answers "how do I roll back a deploy?" and
ignores "deploy finished" and "lunch anyone?"; ``reply with the static text for access
requests`` posts the static text for "can I get access to grafana?"; ``ignore greetings``
ignores "hi team!" and answers "checkout is failing, can someone look?".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sleuth_core.language import STOPWORDS, stem
from sleuth_shell.agents.base import ClassificationDecision

__all__ = ["Rule", "classify_message", "parse_rules"]

_WORD = re.compile(r"[a-z0-9][a-z0-9'_-]*")
_MENTION = re.compile(r"<[@#!][^>]*>")
_DIRECTIVE = re.compile(r"\s*[-*]?\s*(AGENT|STATIC|NONE)\s*:\s*(.*)$", re.IGNORECASE)
_RULE_VERBS = r"(?:answer|reply|respond|ignore|skip|send|post|use|don't|do not|never|always)"
_SPLIT = re.compile(rf"[.;!\n]+|,?\s+(?:and|but)\s+(?={_RULE_VERBS}\b)", re.IGNORECASE)
_NEGATIVE = re.compile(
    r"\b(?:ignore\w*|skip\w*|never|don'?t|do not|does not|doesn'?t|no (?:reply|response|answer)"
    r"|(?:stay|remain|keep) (?:silent|quiet)|silent|not (?:answer|reply|respond))\b",
    re.IGNORECASE,
)
_STATIC = re.compile(
    r"\b(?:static|canned|standard|predefined|pre-defined|template\w*|fixed|boilerplate)\b",
    re.IGNORECASE,
)
_QUESTION_WORDS = frozenset({"question", "questions", "asks", "asking", "ask"})
_GREETING_CLASS = frozenset({"greeting", "greetings", "hello", "hellos", "hi", "salutations"})
_THANKS_CLASS = frozenset({"thanks", "thank", "thank-you", "thank-yous", "thankyou", "gratitude"})


def _words_of(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` (keeps the word lists below readable)."""
    return frozenset(text.split())


#: Words of the instructions that say what to do, not what about.
_RULE_VOCABULARY = _words_of(
    """
    answer answers answered answering reply replies replied replying respond responds responding
    response responses ignore ignores ignoring skip skips never always don't dont do not only
    static canned standard predefined pre-defined template templated fixed boilerplate text
    message messages request requests send post use full agent bot someone people user users
    anyone anything everything things thing stuff related regarding concerning involving mention
    mentions mentioning like e.g eg etc also otherwise else silent quiet stay remain keep instead
    the it them
    """
)
_GREETING_WORDS = _words_of("hi hello hey heya hiya howdy yo gm morning greetings good")
_THANKS_WORDS = _words_of("thanks thank thx ty cheers thankyou appreciated")
#: Words a greeting or a thank-you may carry besides its own.
_FILLER = _words_of(
    """
    team all everyone everybody folks guys y'all yall there afternoon evening morning day again
    lot lots much so you great awesome sleuth bot
    """
)
_ASK_START = re.compile(
    r"\s*(?:what|why|how|when|where|who|which|whose|is|are|was|were|can|could|does|do|did|"
    r"should|would|will|has|have|any)\b",
    re.IGNORECASE,
)
_ASK_WORDS = re.compile(
    r"\b(?:help|investigate|check|look into|take a look|explain|anyone know|any idea)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Rule:
    """One rule of the instructions.

    ``keywords`` are a directive's words and phrases (any one matches); ``topic`` a prose rule's
    words; ``kinds`` the message classes it names (``greeting``, ``thanks``); ``questions`` whether
    it is about messages that ask something.
    """

    action: ClassificationDecision
    keywords: tuple[str, ...] = ()
    topic: frozenset[str] = field(default_factory=frozenset)
    kinds: frozenset[str] = field(default_factory=frozenset)
    questions: bool = False


def _words(text: str) -> list[str]:
    return _WORD.findall(_MENTION.sub(" ", text.lower()).replace("\u2019", "'"))


def _prose_rule(text: str) -> Rule | None:
    words = _words(text)
    if not words:
        return None
    action: ClassificationDecision = "AGENT"
    if _NEGATIVE.search(text):
        action = "NONE"
    elif _STATIC.search(text):
        action = "STATIC"
    kinds: set[str] = set()
    questions = False
    topic: set[str] = set()
    for word in words:
        if word in _GREETING_CLASS:
            kinds.add("greeting")
        elif word in _THANKS_CLASS:
            kinds.add("thanks")
        elif word in _QUESTION_WORDS:
            questions = True
        elif word not in STOPWORDS and word not in _RULE_VOCABULARY and not word.isdigit():
            topic.add(word)
    return Rule(action, topic=frozenset(topic), kinds=frozenset(kinds), questions=questions)


def parse_rules(instructions: str) -> list[Rule]:
    """The rules of ``instructions``, in the order written (see the module docstring)."""
    rules: list[Rule] = []
    for line in instructions.splitlines():
        directive = _DIRECTIVE.match(line)
        if directive is not None:
            found = re.findall(r'"([^"]+)"|([^,"]+)', directive[2])
            keywords = tuple(
                k for k in ((quoted or bare).strip().lower() for quoted, bare in found) if k
            )
            if keywords:
                action: ClassificationDecision = directive[1].upper()  # type: ignore[assignment]
                rules.append(Rule(action, keywords=keywords))
            continue
        for part in _SPLIT.split(line):
            rule = _prose_rule(part)
            if rule is not None:
                rules.append(rule)
    return rules


def _asks(message: str) -> bool:
    return "?" in message or bool(_ASK_START.match(message) or _ASK_WORDS.search(message))


def _is_kind(words: list[str], starters: frozenset[str], message: str) -> bool:
    if not words or words[0] not in starters or "?" in message:
        return False
    rest = [w for w in words[1:] if w not in starters and w not in _FILLER and w not in STOPWORDS]
    return len(rest) <= 1


def _word_matches(a: str, b: str) -> bool:
    sa, sb = stem(a), stem(b)
    if sa == sb:
        return True
    short, long = (sa, sb) if len(sa) <= len(sb) else (sb, sa)
    return len(short) >= 4 and long.startswith(short)


def _matches(rule: Rule, message: str, words: list[str]) -> bool:
    if rule.keywords:
        lowered = message.lower()
        return any(
            re.search(rf"(?<!\w){re.escape(keyword)}(?!\w)", lowered) for keyword in rule.keywords
        )
    if rule.topic and not any(_word_matches(t, w) for t in rule.topic for w in words):
        return False
    if rule.kinds:
        kinds = {
            kind
            for kind, starters in (("greeting", _GREETING_WORDS), ("thanks", _THANKS_WORDS))
            if _is_kind(words, starters, message)
        }
        if not rule.kinds & kinds:
            return False
    return not (rule.questions and not _asks(message))


def classify_message(message: str, instructions: str) -> ClassificationDecision:
    """The decision for ``message`` under ``instructions`` (rules in the module docstring)."""
    if not message.strip():
        return "NONE"
    rules = parse_rules(instructions)
    words = _words(message)
    matching = [rule for rule in rules if _matches(rule, message, words)]
    if any(rule.action == "NONE" for rule in matching):
        return "NONE"
    if matching:
        return matching[0].action
    if not rules:
        return "AGENT" if _asks(message) else "NONE"
    if any(rule.action != "NONE" for rule in rules):
        return "NONE"
    return "AGENT"
