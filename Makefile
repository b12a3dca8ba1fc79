# The front door: every target sets up .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Running needs vcore and its four dependencies; the test tools (pytest, hypothesis, ruff) are added
# only for the targets that use them.
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
EXAMPLE ?= programs/vadd_basic.asm
# setuptools warns on every editable install of a top-level (flat) layout like ours that a folder
# named like a package could shadow it; the folders are the packages, so the warning says nothing.
QUIET_BUILD := ignore:Editable installation

.PHONY: run test lint docs bench calibrate fuzz clean

$(RUN_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
	@# (vcore was installed as the distribution "vcore" before it became vcore-emulator: an old .venv drops it)
	@$(BIN)/python -m pip uninstall --quiet --yes vcore >/dev/null 2>&1 || true
	@PYTHONWARNINGS="$(QUIET_BUILD)" $(BIN)/python -m pip install --quiet -e .
	@touch $@

$(TEST_STAMP): $(RUN_STAMP)
	@PYTHONWARNINGS="$(QUIET_BUILD)" $(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

run: $(RUN_STAMP)
	$(BIN)/vcore asm $(EXAMPLE) -o $(VENV)/example.vbin --listing
	$(BIN)/vcore run $(EXAMPLE) --dump ub:0x1000:f16:8

# With pytest-xdist (a test extra) the suite runs on every CPU: -n auto, one worker per CPU, and each
# test file on one worker (--dist loadfile), so a module that runs its cases at once in a fixture (the
# bad-input corpus) runs them once. (pytest 9 with xdist 3.8 does not keep an xdist_group together.)
test: $(TEST_STAMP)
	$(BIN)/python -m pytest $$($(BIN)/python -c 'import xdist; print("-n auto --dist loadfile")' 2>/dev/null)

lint: $(TEST_STAMP)
	$(BIN)/ruff check .

docs: $(RUN_STAMP)
	$(BIN)/python -m vcore.isa.docs > docs/isa.md
	$(BIN)/python -m vcore.emulator.profiles.doc --write docs/timing.md
	$(BIN)/python -m vcore.kernel_doc --write docs/kernels.md
	$(BIN)/python -m benchmarks.calibration --write docs/timing.md
	$(BIN)/python -m vcore.report_schema --write docs/report.schema.json
	$(BIN)/python -m vcore.doc_outputs --write

bench: $(RUN_STAMP)
	$(BIN)/python -m benchmarks

# The model against every public measurement (benchmarks/calibration); FIT=1 fits the parameters each
# file names and writes them into emulator/profiles/ (needs scipy: a test extra, or pip install -e '.[fit]').
calibrate: $(TEST_STAMP)
	$(BIN)/python -m benchmarks.calibration $(if $(FIT),--fit)

# A long fuzzing run (not part of make test): FUZZ_EXAMPLES inputs per property; it prints how many it tried.
FUZZ_EXAMPLES ?= 20000
fuzz: $(TEST_STAMP)
	VCORE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/fuzz -q -p no:cacheprovider

clean:
	rm -rf $(VENV) build *.egg-info
