"""Stack traces read into frames: the one parser of stack traces and exception texts in Sleuth.

`parse_stack(text)` reads a stack trace, a crash report or a log record's code-location
attributes into a `StackTrace`: its `Frame` s (file path, base name, line, function, and the
module, class or package that qualifies the function when the trace names one), innermost
first, and the exceptions it states (`ThrownException`: type and message), the root cause first.

Formats read (each as its runtime prints it):

- Python tracebacks (``File "app/x.py", line 8, in f``), chained ones too (``The above
  exception was the direct cause ...``, ``During handling of the above exception ...``);
- Java, Kotlin and Scala (``\\tat com.acme.Pay.charge(Pay.java:42)``, ``Caused by:``,
  ``Suppressed:``, ``... 42 more``);
- .NET (``at Ns.Type.Method(Args a) in /src/File.cs:line 88``, inner exceptions ``--->``);
- Node.js (``at assignSlot (/srv/app/slots.js:41:17)``, ``at /srv/app/x.js:3:9``,
  ``at async Promise.all (index 0)``);
- Go panics (``panic: ...``, ``goroutine 1 [running]:``, a function line, then its
  ``\\t/app/router.go:88 +0x1d`` line; only the first goroutine is read);
- Rust panics (``thread 'main' panicked at src/geo.rs:41:10:`` then the message, and the older
  ``panicked at 'msg', src/geo.rs:41:10``) and ``RUST_BACKTRACE`` frames (``3: crate::f``
  then ``at src/lib.rs:41:10``);
- Ruby (``app/models/order.rb:42:in 'Order#total'``, the older backtick form, ``from ...``);
- PHP (``#0 /var/www/src/Import.php(112): Ns\\Import->parseRow()``, the ``Uncaught X: msg in
  file:line`` header, ``Next X:`` for chained exceptions);
- Elixir and Erlang (``** (Enum.EmptyError) empty error``, ``(app 1.4.2) lib/a.ex:57:
  Mod.fun/2``);
- code-location attributes (``caller: router/assign.go:57``, ``function: pick_store``, the
  OpenTelemetry ``code.*`` keys) and any other ``path/file.ext:line``.

Text copied out of JSON (``\\n`` and ``\\t`` escapes within a line) is read as the lines it
stands for, and a trace cut short yields the frames before the cut. Pure: text in, values out
(memoised on the text).

>>> trace = parse_stack('''Traceback (most recent call last):
...   File "app/main.py", line 12, in handle
...     total = invoice.round_total(order)
...   File "app/billing/invoice.py", line 88, in round_total
...     return Decimal(value)
... decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]''')
>>> [(f.name, f.line, f.function) for f in trace.frames]
[('invoice.py', 88, 'round_total'), ('main.py', 12, 'handle')]
>>> trace.exceptions[0].type
'decimal.InvalidOperation'
>>> parse_stack("Exception in thread \\"main\\" java.lang.IllegalStateException: x\\n"
...             "\\tat com.shop.Pay.charge(Pay.java:42)").frames[0]
Frame(file='Pay.java', line=42, function='charge', module='com.shop.Pay')
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

__all__ = ["MAX_LINE", "Frame", "StackTrace", "ThrownException", "parse_stack"]

#: Characters of a line read (a frame line is far shorter; the rest of a long message is not
#: read, which also bounds the time of every pattern on a line).
MAX_LINE = 1000


@dataclass(frozen=True)
class Frame:
    """One frame: ``file`` as the trace writes it ("" when it names none), ``line`` (None when
    unknown), ``function`` ("" when unknown) and ``module``: the module, class or package that
    qualifies the function ("" when none)."""

    file: str = ""
    line: int | None = None
    function: str = ""
    module: str = ""

    @property
    def name(self) -> str:
        """The file's base name (``Pay.java`` of ``src/com/shop/Pay.java``), "" when none."""
        return self.file.replace("\\", "/").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class ThrownException:
    """An exception a trace states: its type (``panic`` for Go and Rust panics) and message."""

    type: str
    message: str = ""


@dataclass(frozen=True)
class StackTrace:
    """What `parse_stack` read: frames innermost first (the root cause's first) and exceptions
    the root cause first."""

    frames: tuple[Frame, ...] = ()
    exceptions: tuple[ThrownException, ...] = ()


# --- JSON escapes -----------------------------------------------------------------------------

_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_ESCAPES = {"n": "\n", "t": "\t", "r": "", "b": "", "f": "", '"': '"', "\\": "\\", "/": "/"}
# A Windows path with single backslashes (``C:\src\new``): its ``\n`` is no escape.
_WINDOWS_PATH = re.compile(r"\b[A-Za-z]:\\(?!\\)")


def _unescape(line: str) -> str:
    if ("\\n" not in line and "\\t" not in line) or _WINDOWS_PATH.search(line):
        return line
    return _ESCAPE.sub(
        lambda m: chr(int(m.group(1)[1:], 16)) if len(m.group(1)) > 1 else _ESCAPES[m.group(1)],
        line,
    )


# --- Line forms -------------------------------------------------------------------------------

_PY_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>\S+))?')
_PY_START = re.compile(r"Traceback \(most recent call last\)")
_PY_CHAIN = re.compile(r"^(?:The above exception was|During handling of the above exception)")
_JAVA = re.compile(
    r"^at (?:[\w.@-]*/)*(?P<qual>[\w$.<>\-]+)\.(?P<func>[\w$<>\-]+)"
    r"\((?:(?P<file>[\w$.\-]+\.\w+):(?P<line>-?\d+)|Native Method|Unknown Source|Unknown)\)?"
    r"(?: ~?\[.*\])?$"
)
_DOTNET = re.compile(
    r"^at (?P<qual>[^\s(]+)\((?P<args>[^)]*)\)?(?: in (?P<file>.+?):line (?P<line>\d+))?\s*$"
)
_NODE = re.compile(
    r"^at (?:async )?(?:new )?(?P<func>[^\s(]+(?: \[as [^\]]+\])?) "
    r"\((?:(?P<file>.+):(?P<line>\d+):\d+|(?P<other>[^)]*))\)?$"
)
_BARE_AT = re.compile(r"^at (?:async )?(?P<file>[^\s()]+?):(?P<line>\d+)(?::\d+)?$")
_ELIXIR = re.compile(
    r"^(?:\((?P<app>\w+)(?: [\w.+-]+)?\) )?"
    r"(?P<file>[^\s:()]+\.(?:ex|exs|erl|hrl)):(?P<line>\d+): (?P<mfa>\S.*)$"
)
_ELIXIR_NOFILE = re.compile(r"^\(\w+(?: [\w.+-]+)?\) (?P<mfa>:?[\w.]+\.\S+/\d+)$")
_ELIXIR_ERROR = re.compile(r"^\*\* \((?P<type>[\w.]+)\) ?(?P<msg>.*)$")
_MFA = re.compile(
    r"^(?:anonymous fn/\d+ in )?(?P<mod>:?[\w.]+?)\.(?P<fun>[^\s./(]+)(?:/\d+|\(.*)?$"
)
_RUBY = re.compile(
    r"^(?:from )?(?P<file>\S+?):(?P<line>\d+):in [`'](?P<label>[^'`]+)'?(?:: (?P<rest>.*))?$"
)
_RUBY_LABEL = re.compile(r"^(?:(?:block|rescue|ensure)(?: \(\d+ levels\))? in )*(?P<name>.+)$")
_RUBY_ERROR = re.compile(r"^(?P<msg>.*) \((?P<type>[A-Z][\w:]*)\)$")
_PHP = re.compile(
    r"^#\d+ (?:(?P<file>[^\s(][^(]*)\((?P<line>\d+)\)|\[internal function\]): (?P<call>.+)$"
)
_PHP_ERROR = re.compile(
    r"^(?:PHP )?(?:(?:Fatal error|Uncaught|Next)\b:? *)*(?:Uncaught )?"
    r"(?P<type>[A-Za-z_\\][\w\\]*): (?P<msg>.*?)"
    r" in (?P<file>\S+\.php)(?::(?P<line>\d+)|\((?P<line2>\d+)\))$"
)
_PHP_MAIN = re.compile(r"^#\d+ \{main\}$")
_PHP_THROWN = re.compile(r"^thrown in (?P<file>\S+\.php) on line (?P<line>\d+)$")
_PHP_CALL = re.compile(r"^(?:(?P<cls>[\w\\]+)(?:->|::))?(?P<fun>[\w\\{}]+)\(")
_GO_PANIC = re.compile(r"^(?P<type>panic|fatal error): (?P<msg>.*?)(?: \[recovered\])?$")
_GO_GOROUTINE = re.compile(r"^goroutine \d+ \[")
_GO_FUNC = re.compile(
    r"^(?:created by )?(?P<func>[\w./-]*[\w-]\.(?:\(\*?[\w.\[\]]+\)\.)?[\w.\[\]-]+?)"
    r"(?:\((?:[^)]*)\)?|\s+in goroutine \d+)?$"
)
_GO_FILE = re.compile(r"^(?P<file>\S+\.go):(?P<line>\d+)(?: \+0x[0-9a-f]+)?$")
_RUST_PANIC = re.compile(
    r"^thread '(?P<thread>[^']*)' panicked at "
    r"(?:'(?P<old>.*)', )?(?P<file>\S+?):(?P<line>\d+):\d+:?\s*(?P<msg>.*)$"
)
_RUST_FRAME = re.compile(r"^(?P<n>\d+): (?P<func>\S.*?)(?: \(0x[0-9a-f]+\))?$")
_RUST_AT = re.compile(r"^at (?P<file>\S+?):(?P<line>\d+)(?::\d+)?$")
_RUST_HASH = re.compile(r"::h[0-9a-f]{16}$")
_CAUSED = re.compile(r"^(?:Caused by|Suppressed): (?P<rest>.*)$")
_EXCEPTION = re.compile(
    r"^(?:Exception in thread \"[^\"]*\" |Unhandled [Ee]xception\.? |Uncaught )?"
    r"(?P<type>(?:[A-Za-z_$][\w$]*[.:]{1,2})*(?:[A-Z][\w$]*?)?"
    r"(?:Error|Exception|Exit|Interrupt|Fault|Failure|Throwable|Warning|Panic|Timeout)[\w$]*)"
    r"(?:: ?(?P<msg>.*))?$"
)
_QUALIFIED_EXCEPTION = re.compile(r"^(?P<type>(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*)(?:: (?P<msg>.*))?$")
_PY_EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?:: (?P<msg>.*))?$")
# A path-like token and the line after it; whether it names a source file is read from its
# extension (one pass over the text: a pattern that finds the extension itself backtracks).
_LOCATION = re.compile(r"(?P<file>[\w.@~+/\\-]+)(?:(?::|, line |\(|:line )(?P<line>\d+))?")
_SOURCE_EXTENSIONS = frozenset(
    [
        "py",
        "js",
        "mjs",
        "cjs",
        "jsx",
        "ts",
        "tsx",
        "go",
        "java",
        "kt",
        "kts",
        "scala",
        "rb",
        "cs",
        "fs",
        "vb",
        "php",
        "rs",
        "ex",
        "exs",
        "erl",
        "c",
        "cc",
        "cpp",
        "swift",
        "dart",
        "lua",
        "clj",
    ]
)
_FUNCTION_KEY = re.compile(
    r"^(?:code\.function(?:\.name)?|func(?:tion)?(?:[._]?name)?):?[=: ]\s*"
    r"(?P<func>[A-Za-z_$][\w$.:#]*)"
)
_KEY = re.compile(r"[\w.@-]{1,60}")
_ASYNC_STATE = re.compile(r"\.?<(\w+)>d__\d+$")
_MODULE_KEY = re.compile(r"^code\.namespace[=: ]\s*(?P<mod>[\w$.:\\]+)")


def _split(qualified: str, separators: str = ".") -> tuple[str, str]:
    """``(module, function)`` of a qualified name, split at its last separator."""
    best = max((qualified.rfind(s), s) for s in separators.split("|"))
    at, sep = best
    if at <= 0:
        return "", qualified
    return qualified[:at], qualified[at + len(sep) :]


def _int(text: str | None) -> int | None:
    return int(text) if text and text.lstrip("-").isdigit() and int(text) >= 0 else None


@dataclass
class _Block:
    """The frames and exceptions of one exception of a chain, in text order."""

    frames: list[Frame]
    exceptions: list[ThrownException]
    reverse: bool = False  # frames listed outermost first (Python)


class _Reader:
    def __init__(self) -> None:
        self.blocks: list[_Block] = [_Block([], [])]
        self.outer_first = False  # the chain lists its root cause last (Java, .NET headers)
        self.pending: str = ""  # Go or Rust: a function whose location is on the next line
        self.pending_kind = ""
        self.python = False
        self.goroutines = 0
        self.rust_panic: Frame | None = None
        self.rust_message = False  # the panic's message is on the next line

    @property
    def block(self) -> _Block:
        return self.blocks[-1]

    def new_block(self, *, reverse: bool = False) -> _Block:
        if self.block.frames or self.block.exceptions:
            self.blocks.append(_Block([], []))
        self.block.reverse = reverse
        return self.block

    def frame(
        self, file: str = "", line: int | None = None, function: str = "", module: str = ""
    ) -> None:
        if file.startswith("file://"):
            file = file[len("file://") :]
        self.block.frames.append(Frame(file, line, function, module))

    def thrown(self, kind: str, message: str = "") -> None:
        self.block.exceptions.append(ThrownException(kind.strip(), message.strip()))

    def flush_pending(self) -> None:
        if self.pending:
            module, function = self._pending_split()
            self.frame("", None, function, module)
        self.pending = ""

    def _pending_split(self) -> tuple[str, str]:
        if self.pending_kind == "rust":
            return _split(_RUST_HASH.sub("", self.pending), "::")
        name = self.pending
        return _split(name, ".")

    def read(self, raw: str, *, keyed: bool = False) -> None:
        text = raw.strip()
        if not text:
            return
        if self.goroutines > 1:
            # Goroutines other than the panicking one: skipped up to the next other line.
            if _GO_GOROUTINE.match(text) or _GO_FILE.match(text) or _GO_FUNC.match(text):
                return
            self.goroutines = 0
        # Two-line forms: Go's function then file, Rust's symbol then ``at file``.
        if self.pending:
            m = _GO_FILE.match(text) if self.pending_kind == "go" else _RUST_AT.match(text)
            if m:
                module, function = self._pending_split()
                self.frame(m.group("file"), _int(m.group("line")), function, module)
                self.pending = ""
                return
            self.flush_pending()
        if self.rust_message:
            self.rust_message = False
            if not _RUST_FRAME.match(text) and not text.startswith(("stack backtrace", "note:")):
                self.block.exceptions[-1] = ThrownException("panic", text)
                return
        if _PY_START.match(text):
            self.new_block(reverse=True)
            self.python = True
            return
        if _PY_CHAIN.match(text):
            self.new_block(reverse=True)
            return
        if m := _PY_FRAME.search(text):
            if not self.block.reverse and not self.block.frames:
                self.block.reverse = True
            func = m.group("func") or ""
            self.frame(m.group("file"), _int(m.group("line")), func)
            self.python = True
            return
        if self.python and raw.startswith("    "):
            return  # a traceback's source line (or its ``^^^`` marks)
        if m := _RUST_PANIC.search(text):
            self.new_block()
            self.thrown("panic", m.group("old") or m.group("msg") or "")
            self.rust_message = not (m.group("old") or m.group("msg"))
            self.rust_panic = Frame(m.group("file"), _int(m.group("line")))
            return
        if (m := _RUST_FRAME.match(text)) and ("::" in m.group("func") or self.rust_panic):
            self.pending, self.pending_kind = m.group("func"), "rust"
            return
        if text == "stack backtrace:":
            return
        if m := _GO_PANIC.match(text):
            self.new_block()
            self.thrown(m.group("type"), m.group("msg"))
            return
        if _GO_GOROUTINE.match(text):
            self.goroutines += 1
            return
        if m := _CAUSED.match(text):
            self.outer_first = True
            self.new_block()
            rest = m.group("rest")
            e = _EXCEPTION.match(rest) or _QUALIFIED_EXCEPTION.match(rest)
            if e:
                self.thrown(e.group("type"), e.group("msg") or "")
            else:
                kind, _, message = rest.partition(": ")
                self.thrown(kind, message)
            return
        if text.startswith("at "):
            self._at(text)
            return
        if m := _ELIXIR.match(text):
            module, function = self._mfa(m.group("mfa"))
            self.frame(m.group("file"), _int(m.group("line")), function, module)
            return
        if m := _ELIXIR_NOFILE.match(text):
            module, function = self._mfa(m.group("mfa"))
            self.frame("", None, function, module)
            return
        if m := _ELIXIR_ERROR.match(text):
            self.new_block()
            self.thrown(m.group("type"), m.group("msg"))
            return
        if m := _RUBY.match(text):
            name = _RUBY_LABEL.match(m.group("label"))
            label = name.group("name") if name else m.group("label")
            module, function = _split(label, "#|.") if not label.startswith("<") else ("", label)
            self.frame(m.group("file"), _int(m.group("line")), function, module)
            if (rest := m.group("rest")) and (e := _RUBY_ERROR.match(rest)):
                self.thrown(e.group("type"), e.group("msg"))
            return
        if m := _PHP.match(text):
            call = _PHP_CALL.match(m.group("call"))
            module, function = (call.group("cls") or "", call.group("fun")) if call else ("", "")
            self.frame(m.group("file") or "", _int(m.group("line")), function, module)
            return
        if _PHP_MAIN.match(text):
            return
        if m := _PHP_THROWN.match(text):
            # The throw site, which the ``Uncaught`` header states too (unless cut off).
            thrown = Frame(m.group("file"), _int(m.group("line")))
            if thrown not in self.block.frames:
                self.block.frames.insert(0, thrown)
            return
        if m := _PHP_ERROR.match(text):
            if text.startswith("Next "):
                self.new_block()
            self.thrown(m.group("type"), m.group("msg"))
            self.frame(m.group("file"), _int(m.group("line") or m.group("line2")))
            return
        if (
            self.python
            and raw[:1] not in " \t"
            and self.block.frames
            and (m := _PY_EXCEPTION.match(text))
        ):
            self.thrown(m.group("type"), m.group("msg") or "")
            self.python = False
            return
        if (m := _GO_FUNC.match(text)) and ("(" in text or text.startswith("created by ")):
            self.pending, self.pending_kind = m.group("func"), "go"
            return
        if " ---> " in text or _EXCEPTION.match(text):
            self._header(text)
            return
        self._attribute(text, keyed=keyed)

    def _at(self, text: str) -> None:
        if m := _JAVA.match(text):
            self.frame(
                m.group("file") or "", _int(m.group("line")), m.group("func"), m.group("qual")
            )
        elif m := _NODE.match(text):
            module, function = _split(re.sub(r" \[as [^\]]+\]$", "", m.group("func")))
            self.frame(m.group("file") or "", _int(m.group("line")), function, module)
        elif m := _BARE_AT.match(text):
            self.frame(m.group("file"), _int(m.group("line")))
        elif m := _DOTNET.match(text):
            module, function = _split(m.group("qual"))
            if function == "MoveNext" and (state := _ASYNC_STATE.search(module)):
                # An async method's state machine: ``Ns.Type.<Create>d__5.MoveNext``.
                module, function = module[: state.start()], state.group(1)
            self.frame(m.group("file") or "", _int(m.group("line")), function, module)
        else:
            self._attribute(text)

    @staticmethod
    def _mfa(mfa: str) -> tuple[str, str]:
        m = _MFA.match(mfa.strip())
        if not m:
            return "", mfa.strip()
        return m.group("mod"), m.group("fun")

    def _header(self, text: str) -> None:
        """An exception line (``Type: message``); .NET chains inner exceptions with ``--->``."""
        parts = text.split(" ---> ")
        self.new_block()
        for part in parts:
            if e := _EXCEPTION.match(part.strip()):
                self.thrown(e.group("type"), e.group("msg") or "")
        if len(parts) > 1:
            # Outer first on the line; the inner (root cause) frames follow first in the text.
            self.block.exceptions.reverse()

    def _attribute(self, text: str, *, keyed: bool = False) -> None:
        """A line that is no frame of a known form: a code-location attribute or free text."""
        if m := _FUNCTION_KEY.match(text):
            module, function = _split(m.group("func"), ".|::|#")
            self.frame("", None, function, module)
            return
        if m := _MODULE_KEY.match(text):
            self.frame("", None, "", m.group("mod"))
            return
        key, sep, rest = text.partition(": ")
        if sep and rest.strip() and not keyed and _KEY.fullmatch(key):
            # ``stack: Traceback ...``: an attribute's key, then the text it holds.
            self.read(rest, keyed=True)
            return
        for m in _LOCATION.finditer(text):
            file = m.group("file").rstrip(".-")
            stem, dot, extension = file.rpartition(".")
            if dot and extension in _SOURCE_EXTENSIONS and stem[-1:] not in ("", ".", "/", "\\"):
                self.frame(file, _int(m.group("line")) if file == m.group("file") else None)

    def result(self) -> StackTrace:
        self.flush_pending()
        blocks = [b for b in self.blocks if b.frames or b.exceptions]
        if self.outer_first:
            blocks.reverse()
        frames: list[Frame] = []
        exceptions: list[ThrownException] = []
        for block in blocks:
            frames += reversed(block.frames) if block.reverse else block.frames
            exceptions += block.exceptions
        if self.rust_panic and not any(
            (f.file, f.line) == (self.rust_panic.file, self.rust_panic.line) for f in frames
        ):
            frames.insert(0, self.rust_panic)
        return StackTrace(tuple(frames), tuple(exceptions))


@functools.lru_cache(maxsize=1024)
def parse_stack(text: str) -> StackTrace:
    """The frames (innermost first) and exceptions (root cause first) of a stack trace or
    exception text; see the module doc for the formats. Empty for text that names neither.
    Memoised on the text (the failed spans of one failure carry the same trace).

    >>> t = parse_stack("** (Enum.EmptyError) empty error\\n"
    ...                 "    (order_router 1.4.2) lib/order_router/assign.ex:57: "
    ...                 "OrderRouter.Assign.pick_store/2")
    >>> t.exceptions[0].type, t.frames[0].name, t.frames[0].line, t.frames[0].module
    ('Enum.EmptyError', 'assign.ex', 57, 'OrderRouter.Assign')
    >>> parse_stack("main.(*Router).Pick(...)\\n\\t/app/router.go:88 +0x1d").frames
    (Frame(file='/app/router.go', line=88, function='Pick', module='main.(*Router)'),)
    >>> parse_stack("nothing to see here")
    StackTrace(frames=(), exceptions=())
    """
    reader = _Reader()
    for line in text.splitlines():
        for part in _unescape(line).splitlines():
            reader.read(part[:MAX_LINE])
    return reader.result()
