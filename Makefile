# fedverify: set-up, main job, tests. Everything the project needs is installed from here.
#   make report   set up (if needed), run the quick suite, write report.pdf
#   make test     set up (if needed), run the default test suite (< 10 min on 2 cores)
#   make native   build the optional fused Threshold-Clustering kernel (C++; ~3 min); setup builds the
#                 plain-C kernels (verify/native.py, about a second; torch and numpy without a compiler)
# TORCH picks the torch requirement; the default is the CPU build that installs offline here.
# Users with GPUs: make setup TORCH='torch==2.13.0' PIP_EXTRA='--index-url https://download.pytorch.org/whl/cu124'

PYTHON ?= python3
TORCH ?= torch==2.13.0
PIP_EXTRA ?=
VENV ?= .venv
BIN := $(VENV)/bin
FIDELITY ?= quick
RESULTS ?= results
# test processes (pytest-xdist): one per core; TEST_WORKERS=0 runs the tests in this process
TEST_WORKERS ?= auto
STAMP := $(VENV)/.fedverify-setup

.PHONY: setup native report test test-slow bench clean

# the plain-C kernels (verify/native.py) are built on every setup: a no-op when the build for these sources and
# this CPU exists, a rebuild (about a second) after an edit of a .c file, which the stamp below does not see; and the
# bytecode of the project's modules, written even where PYTHONDONTWRITEBYTECODE is set (an editable install compiles
# nothing), so that test workers and the commands tests start do not each compile them again (about 0.8 CPU-s a
# process); a no-op when they are up to date
setup: $(STAMP)
	-@$(BIN)/python -m verify.native 2>/dev/null
	-@$(BIN)/python -m compileall -q verify analytic reports counterexamples >/dev/null

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(PIP_EXTRA) "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pip install --quiet --no-deps 'byzfl==0.0.11'
	@touch $(STAMP)

# the fused Threshold-Clustering kernel (g++, about 3 minutes to compile on 2 cores, so not part of setup:
# without it the pure-torch blocked step runs, with bitwise the same results)
native: setup
	$(BIN)/python -m verify.algorithms.tc_native

report: setup
	$(BIN)/fedverify run --all --fidelity $(FIDELITY) --results $(RESULTS)
	$(BIN)/fedverify report --results $(RESULTS) --out report.pdf

test: setup
	$(BIN)/python -m pytest -n $(TEST_WORKERS)

test-slow: setup
	$(BIN)/python -m pytest -n $(TEST_WORKERS) -m slow

bench: setup
	$(BIN)/python benchmarks/run.py --json benchmarks/results.json

clean:
	rm -rf $(RESULTS) report.pdf .pytest_cache
