# Two commands: `make run` and `make test`. Both create .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: the server needs only the runtime dependencies (`make run`); the tests, linters
# and the build backend come with `make test`. The dev stamp implies the runtime one.
RUNTIME := $(VENV)/.runtime
STAMP := $(VENV)/.installed

.PHONY: run test test-long lint typecheck unit bench simulate clean mutation mutation-report lock

$(VENV)/.created:
	@$(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Cityhall needs Python 3.11 or newer")'
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet 'uv>=0.5,<1' || $(BIN)/python -m pip install --quiet --upgrade pip
	@touch $@

# Dependencies come from the lock files, every download checked against its hash; then the
# project itself, without dependencies of its own. `make lock` writes the lock files again
# from pyproject.toml (docs/dependencies.md). The installer is uv, which installs the whole
# dev lock in about 4 s where pip takes 16 (and 28 with the pip a new venv comes with); where
# uv has no build for the platform, pip installs from the same lock with the same checks.
# Neither compiles every module up front: each is compiled when it is first imported.
INSTALL = if test -x $(BIN)/uv; then $(BIN)/uv pip install --python $(BIN)/python --quiet $(1); \
	else $(BIN)/python -m pip install --quiet --no-compile $(1); fi

$(RUNTIME): pyproject.toml requirements.txt $(VENV)/.created
	$(call INSTALL,--require-hashes -r requirements.txt)
	$(call INSTALL,--no-deps -e .)
	@touch $@

$(STAMP): pyproject.toml requirements-dev.txt $(VENV)/.created
	$(call INSTALL,--require-hashes -r requirements-dev.txt)
	$(call INSTALL,--no-deps -e .)
	@touch $@ $(RUNTIME)

# Re-resolve the lock files from pyproject.toml's ranges, keeping every pinned version that
# still fits; `make lock UPGRADE=--upgrade` moves everything to the newest release in range.
UPGRADE ?=
LOCK := $(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 \
	--generate-hashes --quiet $(UPGRADE)
lock: $(VENV)/.created
	$(BIN)/python -m pip install --quiet 'uv>=0.5,<1'
	$(LOCK) -o requirements.txt
	$(LOCK) --extra dev -o requirements-dev.txt

run: $(RUNTIME)
	$(BIN)/python -m bot run

# The suite runs a worker per core (pytest-xdist). Tests that share an expensive module
# fixture stay on one worker (xdist_group); a worker that dies (a test past its time limit
# ends its process, tests/time_limits.py) ends the run instead of being replaced.
PARALLEL := -n auto --dist loadgroup --max-worker-restart 0

# The tests write Python's bytecode caches even where the environment says not to
# (PYTHONDONTWRITEBYTECODE=1, as on CI's machine): the suite starts over a hundred Python
# processes (bots, render workers, tools), and without the caches each one compiles
# discord.py, aiohttp and Pillow again, about 2.5 s of CPU per start. The same caches keep
# pytest's rewritten test modules, so one collection first (about 13 s of CPU, beside mypy)
# spares each parallel worker most of its own.
test test-long: export PYTHONDONTWRITEBYTECODE =

# The import graph (scripts/check_imports.py: no circle, no upward import) and the cogs'
# reads of engine data (scripts/check_cog_reads.py: only through typed views) are checked
# with ruff. mypy (one core for about 25 s) checks beside the collection and the tests; its
# report is printed after theirs, and either one failing fails the target.
test: $(STAMP)
	$(BIN)/ruff check bot cogs fakediscord tests scripts
	$(BIN)/python scripts/check_imports.py
	$(BIN)/python scripts/check_cog_reads.py
	@$(BIN)/mypy > .mypy.out 2>&1 & mypy=$$!; \
	$(BIN)/python -m pytest --collect-only -q > /dev/null 2>&1; \
	$(BIN)/python -m pytest $(PARALLEL); tests=$$?; \
	wait $$mypy; types=$$?; echo "$(BIN)/mypy"; cat .mypy.out; rm -f .mypy.out; \
	test $$tests -eq 0 && test $$types -eq 0

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
	$(call INSTALL,-e '.[dev,mutation]')
	CITYHALL_TEST_PG_KEEP=1 $(BIN)/mutmut run --max-children 1 $(MUTANTS)
	$(BIN)/python scripts/mutation_report.py

mutation-report:
	$(BIN)/python scripts/mutation_report.py --functions --survivors

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache mutants
