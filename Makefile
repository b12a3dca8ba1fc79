# The front door: every target sets up .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
EXAMPLE ?= programs/vadd_basic.asm

.PHONY: run test lint docs bench fuzz clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
	@$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/vcore asm $(EXAMPLE) -o $(VENV)/example.vbin --listing
	$(BIN)/vcore run $(EXAMPLE) --dump ub:0x1000:f16:8

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .

docs: $(STAMP)
	$(BIN)/python -m isa.docs > docs/isa.md
	$(BIN)/python -m emulator.profile_doc --write docs/timing.md

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# A long fuzzing run (not part of make test): FUZZ_EXAMPLES inputs per property; it prints how many it tried.
FUZZ_EXAMPLES ?= 20000
fuzz: $(STAMP)
	VCORE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/fuzz -q -p no:cacheprovider

clean:
	rm -rf $(VENV) build *.egg-info
