# Two commands matter (see README): `make demo` sets up and starts Sleuth with a demo
# organization; `make test` runs the whole test suite. Both need only Python 3.11+, pip and make.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: setup lock test lint format bench bench-intake bench-otlp bench-http bench-jobs bench-bursts bench-interactions bench-run-writes eval eval-rca demo clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml core/pyproject.toml shell/pyproject.toml requirements-dev.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c requirements-dev.lock --group dev -e core -e 'shell[postgres]'
	touch $@

# The lock file of the development environment, from .venv as it is: install or upgrade a package
# there, then run this and commit the result (`make setup` installs with it as constraints).
lock:
	( sed -n '1,3p' requirements-dev.lock; $(BIN)/python -m pip freeze --exclude-editable \
	  | grep -v -i '^sleuth\(-core\)\?[= @]' ) > requirements-dev.lock.new
	mv requirements-dev.lock.new requirements-dev.lock

# Bytecode is cached even where the environment sets PYTHONDONTWRITEBYTECODE: the suite starts
# the server and the CLI in many subprocesses, and each would compile the checkout again (~0.5 s).
test: setup
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n 2 --dist loadgroup -q tests core/src shell/src

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/vulture core/src shell/src scripts/vulture_whitelist.py --exclude "*/migrations/versions/*"
	cd core && $(abspath $(BIN))/deptry src
	cd shell && $(abspath $(BIN))/deptry src

format: setup
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: setup
	$(BIN)/python -m pytest benchmarks --benchmark-only --benchmark-columns=min,median,mean,rounds -q

# Answer-quality evaluation of the embedded agent (evals/README.md): per-kind scores, each split alone.
eval: setup
	PYTHONPATH=core/src:shell/src:. $(BIN)/python -m evals.run $(EVAL_ARGS)

# Root-cause evaluation (evals/rca/README.md): culprit named, innocent and decoys blamed, abstention,
# category, each split alone, next to naive baselines. EVAL_ARGS=-v lists the tune splits' failures.
eval-rca: setup
	PYTHONPATH=core/src:shell/src:. $(BIN)/python -m evals.rca_run $(EVAL_ARGS)

# Alert intake throughput against a real `sleuth serve` (minutes; figures in docs/performance.md).
bench-intake: setup
	$(BIN)/python benchmarks/bench_intake.py $(BENCH_ARGS)

# OTLP logs ingest against a real `sleuth serve` beside plain sqlite3 (about a minute).
bench-otlp: setup
	$(BIN)/python benchmarks/bench_otlp.py $(BENCH_ARGS)

# Service benchmarks (docs/performance.md): real servers on fresh databases, several minutes each,
# never part of `make test`. bench-http installs Debian's `wrk` when it is missing (needs root).
bench-http: setup
	$(BIN)/python benchmarks/http/bench_http.py $(BENCH_ARGS)

bench-jobs: setup
	$(BIN)/python benchmarks/http/bench_jobs.py $(BENCH_ARGS)

# Scheduled bursts (issue 25): 10,000 scheduled interactions (10 runtimes per request) due over
# 60 s, callbacks to a receiver process; `sleuth serve` with its defaults on a fresh database.
# BENCH_ARGS: --scale 0.2 (2,000) | --capacity (all due at once) | --window S | --lead S
# | --postgres URL (or "" for $$SLEUTH_TEST_POSTGRES_URL; 2 worker processes) | --worker-processes N
# | --baseline REV --rounds N (alternated A/B against REV's code) | --hung F (a share F of the
# requests from a second organization whose receiver hangs; figures are the first's).
bench-bursts: setup
	$(BIN)/python benchmarks/http/bench_bursts.py $(BENCH_ARGS)

# Synchronous interactions over the demo data, this checkout against a baseline commit
# (BENCH_ARGS="--baseline REV --rounds 3 --profile DIR").
bench-interactions: setup
	$(BIN)/python benchmarks/http/bench_interactions.py $(BENCH_ARGS)

# CPU of a synchronous interaction's writes (instant agent, no HTTP): this checkout, and with
# SLEUTH_FAST_PATH=false, against a baseline commit (BENCH_ARGS="--baseline REV --rounds 6").
bench-run-writes: setup
	$(BIN)/python benchmarks/http/bench_run_writes.py $(BENCH_ARGS)

demo: setup
	HOST=$(HOST) PORT=$(PORT) BIN=$(BIN) sh scripts/demo.sh

clean:
	rm -rf $(VENV) .demo
