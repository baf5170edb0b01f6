"""`sleuth_core.stacktrace`: one parser of stack traces, and the two views over it."""

import json

import pytest

from sleuth_core.rca.engine import stack_frames as engine_frames
from sleuth_core.stacktrace import MAX_LINE, Frame, parse_stack
from sleuth_shell.agents.trace_evidence import stack_frames as trace_frames

PYTHON = """Traceback (most recent call last):
  File "/srv/app/billing/views.py", line 31, in create_invoice
    total = round_total(order)
            ^^^^^^^^^^^^^^^^^^
  File "/srv/app/billing/invoice.py", line 88, in round_total
    return Decimal(order.total).quantize(CENTS)
decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/srv/app/api.py", line 12, in handle
    raise BillingError("cannot total") from exc
billing.errors.BillingError: cannot total"""

JAVA = """java.lang.IllegalStateException: payout failed
\tat com.acme.pay.PayoutService.run(PayoutService.java:77)
\tat java.base/java.lang.Thread.run(Thread.java:833)
Caused by: java.lang.ArithmeticException: Non-terminating decimal expansion
\tat java.base/java.math.BigDecimal.divide(BigDecimal.java:1780)
\tat com.acme.Pay.charge(Pay.java:42)
\t... 12 more"""

KOTLIN_SCALA = """kotlin.KotlinNullPointerException
\tat com.acme.slots.SlotsKt.assign(Slots.kt:19)
\tat com.acme.geo.Router$.pick(Router.scala:64)"""

DOTNET = (
    "System.InvalidOperationException: Payout failed ---> System.DivideByZeroException: "
    "Attempted to divide by zero.\n"
    "   at Quayside.Payout.PayoutCalculator.ApplyExcess(Claim c) in "
    "/src/Payout/PayoutCalculator.cs:line 88\n"
    "   at Quayside.Payout.PayoutJob.<RunAsync>d__4.MoveNext() in "
    "/src/Payout/PayoutJob.cs:line 30\n"
    "   --- End of inner exception stack trace ---\n"
    "   at Quayside.Api.PayoutsController.Post(Guid id) in /src/Api/PayoutsController.cs:line 19\n"
    "--- End of stack trace from previous location ---"
)

NODE = """TypeError: Cannot read properties of undefined (reading 'start')
    at assignSlot (/srv/app/slots.js:41:17)
    at Array.map (<anonymous>)
    at /srv/app/routes/book.js:12:9
    at async Promise.all (index 0)
    at async Router.handle (file:///srv/app/router.mjs:88:5)"""

GO = """panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]

goroutine 42 [running]:
main.(*Router).Pick(...)
\t/app/router.go:88 +0x1d
github.com/acme/dispatch/internal/assign.Assign(0xc0001a2000, 0x3)
\t/app/internal/assign/assign.go:57 +0x1f4
created by net/http.(*Server).Serve in goroutine 1
\t/usr/local/go/src/net/http/server.go:3285 +0x4b4

goroutine 1 [IO wait]:
internal/poll.runtime_pollWait(0x7f, 0x72)
\t/usr/local/go/src/runtime/netpoll.go:343 +0x85"""

RUST = """thread 'tokio-runtime-worker' panicked at src/geo.rs:41:10:
called `Option::unwrap()` on a `None` value
stack backtrace:
   0: rust_begin_unwind
             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/panicking.rs:645:5
   1: core::panicking::panic
             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/panicking.rs:144:5
   2: core::option::unwrap_failed
   3: br_geo::outward_code
             at src/lib.rs:41:10
   4: basket_api::handlers::quote::h5f0e1d2c3b4a5968
             at src/handlers.rs:120:22
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace."""

RUST_OLD = "thread 'main' panicked at 'index out of bounds: the len is 3', src/main.rs:15:10"

RUBY = (
    "app/models/order.rb:42:in 'Order#recalculate_totals': undefined method '+' for nil "
    "(NoMethodError)\n"
    "\tfrom app/services/checkout.rb:17:in 'block in Checkout#call'\n"
    "\tfrom app/controllers/orders_controller.rb:9:in 'OrdersController#update'"
)

RUBY_OLD = """app/models/order.rb:42:in `recalculate_totals'
app/controllers/orders_controller.rb:9:in `update'"""

PHP = (
    "PHP Fatal error:  Uncaught DateMalformedStringException: DateTime::__construct(): Failed to "
    "parse time string (31/03/2027) in /var/www/src/Import/RowMapper.php:48\n"
    "Stack trace:\n"
    "#0 /var/www/src/Import/RowMapper.php(48): DateTime->__construct('31/03/2027')\n"
    "#1 /var/www/src/Import/Bordereau.php(112): Quayside\\Import\\Bordereau->parseRow(Array)\n"
    "#2 [internal function]: Quayside\\Import\\Importer::run()\n"
    "#3 {main}\n"
    "  thrown in /var/www/src/Import/RowMapper.php on line 48"
)

ELIXIR = """** (Enum.EmptyError) empty error
    (elixir 1.16.2) lib/enum.ex:1789: Enum.max_by/4
    (order_router 1.4.2) lib/order_router/assign.ex:57: OrderRouter.Assign.pick_store/2
    (order_router 1.4.2) lib/order_router/flow.ex:43: anonymous fn/2 in OrderRouter.Flow.handle/3
    (stdlib 5.2) gen_server.erl:1077: :gen_server.try_dispatch/4"""


def _where(trace):
    return [(f.name, f.line, f.function) for f in trace.frames]


def test_python_chained_traceback_innermost_first_root_cause_first():
    t = parse_stack(PYTHON)
    assert _where(t) == [
        ("invoice.py", 88, "round_total"),
        ("views.py", 31, "create_invoice"),
        ("api.py", 12, "handle"),
    ]
    assert t.frames[0].file == "/srv/app/billing/invoice.py"
    assert [e.type for e in t.exceptions] == [
        "decimal.InvalidOperation",
        "billing.errors.BillingError",
    ]
    assert t.exceptions[1].message == "cannot total"


def test_java_caused_by_root_cause_first():
    t = parse_stack(JAVA)
    assert _where(t) == [
        ("BigDecimal.java", 1780, "divide"),
        ("Pay.java", 42, "charge"),
        ("PayoutService.java", 77, "run"),
        ("Thread.java", 833, "run"),
    ]
    assert t.frames[1].module == "com.acme.Pay"
    assert t.frames[0].module == "java.math.BigDecimal"
    assert [e.type for e in t.exceptions] == [
        "java.lang.ArithmeticException",
        "java.lang.IllegalStateException",
    ]
    assert t.exceptions[0].message == "Non-terminating decimal expansion"


def test_kotlin_and_scala():
    t = parse_stack(KOTLIN_SCALA)
    assert _where(t) == [("Slots.kt", 19, "assign"), ("Router.scala", 64, "pick")]
    assert t.frames[1].module == "com.acme.geo.Router$"
    assert t.exceptions[0].type == "kotlin.KotlinNullPointerException"


def test_dotnet_inner_exception_and_async_frames():
    t = parse_stack(DOTNET)
    assert _where(t) == [
        ("PayoutCalculator.cs", 88, "ApplyExcess"),
        ("PayoutJob.cs", 30, "RunAsync"),
        ("PayoutsController.cs", 19, "Post"),
    ]
    assert t.frames[0].module == "Quayside.Payout.PayoutCalculator"
    assert t.frames[0].file == "/src/Payout/PayoutCalculator.cs"
    assert t.frames[1].module == "Quayside.Payout.PayoutJob"
    assert [e.type for e in t.exceptions] == [
        "System.DivideByZeroException",
        "System.InvalidOperationException",
    ]


def test_node_frames_named_anonymous_and_async():
    t = parse_stack(NODE)
    assert _where(t) == [
        ("slots.js", 41, "assignSlot"),
        ("", None, "map"),
        ("book.js", 12, ""),
        ("", None, "all"),
        ("router.mjs", 88, "handle"),
    ]
    assert t.frames[3].module == "Promise"
    assert t.frames[4].file == "/srv/app/router.mjs"
    assert t.exceptions[0].type == "TypeError"
    assert t.exceptions[0].message.startswith("Cannot read properties")


def test_go_panic_reads_the_panicking_goroutine_only():
    t = parse_stack(GO)
    assert _where(t) == [
        ("router.go", 88, "Pick"),
        ("assign.go", 57, "Assign"),
        ("server.go", 3285, "Serve"),
    ]
    assert t.frames[0].module == "main.(*Router)"
    assert t.frames[1].module == "github.com/acme/dispatch/internal/assign"
    assert t.exceptions[0].type == "panic"
    assert t.exceptions[0].message.startswith("runtime error: invalid memory address")


def test_rust_panic_and_backtrace():
    t = parse_stack(RUST)
    assert t.exceptions[0].type == "panic"
    assert t.exceptions[0].message == "called `Option::unwrap()` on a `None` value"
    assert t.frames[0] == Frame("src/geo.rs", 41)
    functions = [(f.module, f.function) for f in t.frames]
    assert ("br_geo", "outward_code") in functions
    assert ("basket_api::handlers", "quote") in functions  # the symbol hash dropped
    assert ("core::option", "unwrap_failed") in functions  # a frame with no location
    outward = next(f for f in t.frames if f.function == "outward_code")
    assert (outward.file, outward.line) == ("src/lib.rs", 41)
    assert functions.index(("br_geo", "outward_code")) < functions.index(
        ("basket_api::handlers", "quote")
    )


def test_rust_panic_older_form():
    t = parse_stack(RUST_OLD)
    assert t.exceptions[0].message == "index out of bounds: the len is 3"
    assert _where(t) == [("main.rs", 15, "")]


def test_ruby_backtraces_both_quote_styles():
    t = parse_stack(RUBY)
    assert _where(t) == [
        ("order.rb", 42, "recalculate_totals"),
        ("checkout.rb", 17, "call"),
        ("orders_controller.rb", 9, "update"),
    ]
    assert [f.module for f in t.frames] == ["Order", "Checkout", "OrdersController"]
    assert t.exceptions[0].type == "NoMethodError"
    assert t.exceptions[0].message == "undefined method '+' for nil"
    old = parse_stack(RUBY_OLD)
    assert _where(old) == [
        ("order.rb", 42, "recalculate_totals"),
        ("orders_controller.rb", 9, "update"),
    ]


def test_php_uncaught_exception_and_trace():
    t = parse_stack(PHP)
    assert _where(t)[:4] == [
        ("RowMapper.php", 48, ""),
        ("RowMapper.php", 48, "__construct"),
        ("Bordereau.php", 112, "parseRow"),
        ("", None, "run"),
    ]
    assert t.frames[2].module == "Quayside\\Import\\Bordereau"
    assert t.frames[1].module == "DateTime"
    assert t.exceptions[0].type == "DateMalformedStringException"


def test_elixir_crash_report():
    t = parse_stack(ELIXIR)
    assert _where(t) == [
        ("enum.ex", 1789, "max_by"),
        ("assign.ex", 57, "pick_store"),
        ("flow.ex", 43, "handle"),
        ("gen_server.erl", 1077, "try_dispatch"),
    ]
    assert t.frames[1].module == "OrderRouter.Assign"
    assert t.frames[1].file == "lib/order_router/assign.ex"
    assert t.frames[3].module == ":gen_server"
    assert t.exceptions[0] == parse_stack("** (Enum.EmptyError) empty error").exceptions[0]
    assert t.exceptions[0].type == "Enum.EmptyError"


@pytest.mark.parametrize(
    "sample", [PYTHON, JAVA, DOTNET, NODE, GO, RUST, RUBY, PHP, ELIXIR], ids=lambda s: s[:12]
)
def test_json_escaped_text_reads_the_same(sample):
    """A trace copied out of a JSON log record (``\\n``, ``\\t``, ``\\"`` escapes) reads as the
    trace itself, also behind an attribute key."""
    escaped = json.dumps(sample)[1:-1]
    assert "\n" not in escaped
    assert parse_stack(escaped) == parse_stack(sample)
    assert parse_stack(f"stack: {escaped}").frames == parse_stack(sample).frames


def test_windows_path_is_not_unescaped():
    t = parse_stack(r"   at Acme.Jobs.Nightly.Run() in C:\src\new\Nightly.cs:line 7")
    assert _where(t) == [("Nightly.cs", 7, "Run")]
    assert t.frames[0].file == r"C:\src\new\Nightly.cs"


def test_truncated_trace_keeps_the_frames_before_the_cut():
    cut = JAVA[: JAVA.index("(Pay.java") + 6]
    t = parse_stack(cut)
    assert ("BigDecimal.java", 1780, "divide") in _where(t)
    assert [f.function for f in t.frames].count("charge") == 1
    py = parse_stack('Traceback (most recent call last):\n  File "app/x.py", line 4')
    assert _where(py) == [("x.py", 4, "")]
    go = parse_stack(GO[: GO.index("/app/router.go") + 8])
    assert go.exceptions[0].type == "panic"
    assert [f.function for f in go.frames] == ["Pick"]


def test_code_location_attributes():
    t = parse_stack("caller: router/assign.go:57\nfunction: pick_store\nexception: KeyError")
    assert (t.frames[0].name, t.frames[0].line) == ("assign.go", 57)
    assert t.frames[1].function == "pick_store"
    assert t.exceptions[0].type == "KeyError"


def test_text_without_a_trace():
    t = parse_stack("connection refused by db-primary after 3 retries")
    assert t.frames == () and t.exceptions == ()
    assert parse_stack("") == parse_stack("   \n  ")


@pytest.mark.parametrize(
    "sample", [PYTHON, JAVA, KOTLIN_SCALA, DOTNET, NODE, GO, RUST, RUBY, PHP, ELIXIR]
)
def test_both_views_agree_with_the_parser(sample):
    t = parse_stack(sample)
    files, funcs = engine_frames(sample)
    assert files == {f.name.lower() for f in t.frames if f.file}
    assert funcs and funcs <= {f.function for f in t.frames}
    shown = trace_frames(sample, limit=50)
    located = [f for f in t.frames if f.file]
    assert shown[0].startswith(f"{located[0].file}:")
    assert len(shown) == len({(f.file, f.line, f.function, f.module) for f in located})


def test_long_and_nested_lines_are_read_within_bounds():
    """A line is read up to MAX_LINE characters; attribute keys are unwrapped once (no recursion
    on ``a: a: a: ...``); a path token is found without backtracking over long words."""
    assert parse_stack("a: " * 5000) == parse_stack("")
    late = "x" * MAX_LINE + " at app/pay.py:12"
    assert parse_stack(late).frames == ()
    early = "app/pay.py:12 " + "x" * (5 * MAX_LINE)
    assert _where(parse_stack(early)) == [("pay.py", 12, "")]
    assert parse_stack("a." * 20000).frames == ()
    assert parse_stack("see github.com and sqlalchemy.exc, then run.py.").frames == (
        Frame("run.py"),
    )
