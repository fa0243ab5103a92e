# Two commands: `make run` and `make test`. Both create .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: the server needs only the runtime dependencies (`make run`); the tests, linters
# and the build backend come with `make test`. The dev stamp implies the runtime one.
RUNTIME := $(VENV)/.runtime
STAMP := $(VENV)/.installed

.PHONY: run test test-long lint typecheck unit bench simulate clean mutation mutation-report

$(VENV)/.created:
	@$(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Cityhall needs Python 3.11 or newer")'
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@touch $@

$(RUNTIME): pyproject.toml $(VENV)/.created
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(STAMP): pyproject.toml $(VENV)/.created
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@ $(RUNTIME)

run: $(RUNTIME)
	$(BIN)/python -m bot run

# The suite runs a worker per core (pytest-xdist). Tests that share an expensive module
# fixture stay on one worker (xdist_group); a worker that dies (a test past its time limit
# ends its process, tests/time_limits.py) ends the run instead of being replaced.
PARALLEL := -n auto --dist loadgroup --max-worker-restart 0

test: $(STAMP)
	$(BIN)/ruff check bot cogs tests scripts
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PARALLEL)

# The long variants left out of `make test` (marker `long`): every seeded game, the load
# test and the benchmark at their full size.
test-long: $(STAMP)
	$(BIN)/python -m pytest $(PARALLEL) -m long

bench: $(STAMP)
	$(BIN)/python -m bot bench

# Mutation testing (docs/mutation.md). One worker: the machine's two cores are shared.
# MUTANTS narrows the run to mutant names, e.g. MUTANTS='bot.games.cityscape.skyline.*'.
# mutmut keeps results in mutants/ and retests only functions that changed since.
MUTANTS ?=
mutation: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,mutation]'
	CITYHALL_TEST_PG_KEEP=1 $(BIN)/mutmut run --max-children 1 $(MUTANTS)
	$(BIN)/python scripts/mutation_report.py

mutation-report:
	$(BIN)/python scripts/mutation_report.py --functions --survivors

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache mutants
