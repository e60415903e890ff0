# The book's two commands: `make book` and `make test` (they set up everything they need).
#   make book                 -> venv, every chapter at the `book` profile, HTML in _build/html
#   make test                 -> venv, pytest (unit tests + the whole pipeline at the `smoke` profile)
#   make chapter NB=implicit_bias/rho_j ARGS="-p nu_W 0.5"   -> re-run one chapter into _build/runs/
#   make lint                 -> ruff: code formatted to 88 columns, lint-clean (the tests run it too)
#   make paper                -> every chapter at the paper's own sizes (hours; uses a GPU if present)
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Debian's r-cran-janeaustenr: the word-level corpus (stand-in for Penn Treebank), see src/rnnbook/datasets.py
DATA := $(VENV)/share/rnnbook-data
AUSTEN := $(DATA)/janeaustenr/usr/lib/R/site-library/janeaustenr/data/Rdata.rdx
# Debian's dataset-fashion-mnist: the harder stand-in of LSC Fig. 2 (CIFAR is not offline)
FASHION := $(DATA)/fashion-mnist/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz
# Debian's chromium-headless-shell: the headless browser of the browser test (tests/book/test_browser.py)
BROWSER := $(VENV)/.browser
JOBS ?=
TEST_WORKERS ?= auto
NB ?=
ARGS ?=

# Python keeps the bytecode of what it imports (in __pycache__, git-ignored) even where the
# environment says not to: the set-up installs without byte-compiling (--no-compile, below), so
# with PYTHONDONTWRITEBYTECODE set (some containers set it) every process - each chapter's kernel,
# each test worker, the Sphinx build - compiled torch, scipy and matplotlib from source again
# (importing them with the package: 8.6 s of CPU per process here instead of 2.6 s)
unexport PYTHONDONTWRITEBYTECODE

.PHONY: book test paper chapter venv clean lint wheelhouse record shards reruns day seeds help

# --no-compile: pip byte-compiles all 245 MB of the packages' sources, one file after another
# (29 s of the 86 s install here); Python compiles the fifth of them that the book and the tests
# import, once, the first time they are imported
# On a GPU node or a cluster node without network (README, "On a GPU"):
#   SYSTEM_TORCH=1  keeps the node's own torch (a venv that sees the system's packages; every pin
#                   but torch's is installed), e.g. a CUDA build from the node's module
#   WHEELHOUSE=dir  installs from a folder that `make wheelhouse` filled on a machine with network,
#                   contacting no index
SYSTEM_TORCH ?=
WHEELHOUSE ?=
REQS := $(if $(SYSTEM_TORCH),$(VENV)/requirements-node.txt,requirements.txt)
PIP_FROM := $(if $(WHEELHOUSE),--no-index --find-links $(abspath $(WHEELHOUSE)))

# The set-up installs the book extra's exact pins (requirements.txt: pyproject.toml's `book` extra is
# that file), then the package itself without its dependencies (the library's ranges, torch and numpy,
# are met by the pins): `pip install -e .[book]` with every version fixed. The library alone is
# `pip install .` (tests/test_install.py checks it in a fresh environment, on CI).
$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(if $(SYSTEM_TORCH),--system-site-packages) $(VENV)
	@$(if $(SYSTEM_TORCH),$(PY) -c "import torch; print('keeping the node torch', torch.__version__, '(CUDA)' if torch.cuda.is_available() else '(no CUDA device seen)')" 2>/dev/null || { echo "SYSTEM_TORCH=1: $(PYTHON) has no torch of its own; install the node's torch first (or load its module)"; rm -rf $(VENV); exit 1; }; grep -v '^torch==' requirements.txt > $(REQS))
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile $(PIP_FROM) -r $(REQS)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation $(PIP_FROM) -e .
	@touch $(STAMP)

$(AUSTEN): | $(STAMP)
	@mkdir -p $(DATA) && cd $(DATA) && rm -f r-cran-janeaustenr_*.deb && \
	{ apt-get download r-cran-janeaustenr >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get download r-cran-janeaustenr >/dev/null 2>&1; }; } && \
	dpkg-deb -x r-cran-janeaustenr_*.deb janeaustenr && rm -f r-cran-janeaustenr_*.deb && \
	echo "fetched the Jane Austen corpus (Debian r-cran-janeaustenr) into $(DATA)" || \
	echo "warning: could not fetch Debian's r-cran-janeaustenr (the word-level corpus); chapters that need it will fail"

$(FASHION): | $(STAMP)
	@mkdir -p $(DATA) && cd $(DATA) && rm -f dataset-fashion-mnist_*.deb && \
	{ apt-get download dataset-fashion-mnist >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get download dataset-fashion-mnist >/dev/null 2>&1; }; } && \
	dpkg-deb -x dataset-fashion-mnist_*.deb fashion-mnist && rm -f dataset-fashion-mnist_*.deb && \
	echo "fetched Fashion-MNIST (Debian dataset-fashion-mnist) into $(DATA)" || \
	echo "warning: could not fetch Debian's dataset-fashion-mnist; the Fig. 2 chapter will fail"

$(BROWSER): | $(STAMP)
	@if command -v chromium-headless-shell >/dev/null 2>&1 || command -v chromium >/dev/null 2>&1; then touch $(BROWSER); \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null 2>&1 || \
	    { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null 2>&1; }; } && \
	  touch $(BROWSER) && echo "installed Debian's chromium-headless-shell (for the browser test)" || \
	  echo "warning: could not install chromium-headless-shell: the browser test will skip"; \
	else echo "warning: no chromium-headless-shell and not root: the browser test will skip (apt-get install chromium-headless-shell)"; fi

help:
	@echo 'make book       venv, every chapter at the book profile, HTML in _build/html'
	@echo 'make test       venv, pytest: the unit tests and the whole book at the smoke profile'
	@echo 'make chapter NB=lsc/pretraining ARGS="-p max_steps 20 --profile smoke"'
	@echo '                re-run one chapter into _build/runs/ (reused unless --force)'
	@echo 'make lint       ruff: formatted to 88 columns, lint-clean'
	@echo 'make paper      every chapter at the papers'"'"' own sizes (hours; a GPU if present)'
	@echo 'make record SLICE=chapter:slice [SCALE=cpu|gpu] [SHARD=next] [DECIDE=1]'
	@echo '                a declared slice at its record scale, into results/'
	@echo '                (PINNED=1: in its own worktree at shard 0'"'"'s commit, committed)'
	@echo 'make shards QUEUE="chapter:slice:N ..."'
	@echo '                the next N shards of each record, pinned and committed; decided when complete'
	@echo 'make reruns QUEUE="chapter:slice:N ..."'
	@echo '                records re-run on this processor, into results/processors/ (decides nothing)'
	@echo 'make day [CORES=0,1]'
	@echo '                the day'"'"'s work for this machine in the background: the records'"'"' next shards'
	@echo '                where it may run them, else re-runs; cheapest first, a long record on two'
	@echo '                cores at once (each shard claimed); rnnbook day: the plan'
	@echo 'make seeds      the training chapters at other master seeds, into results/seeds/'
	@echo 'make wheelhouse wheels of every pin and every data set, for a node without network'
	@echo 'make venv       only the set-up (.venv, pinned; the data sets)'
	@echo 'make clean      remove _build/'
	@echo 'Inside the venv (.venv/bin/python -m rnnbook ...), from any folder of the repository:'
	@echo '  list                    the chapters, their expected times, their claims'
	@echo '  params CHAPTER          a chapter'"'"'s parameters: type, presets per profile, allowed values'
	@echo '  claims check [CHAPTER]  validate the claims files without running anything'
	@echo '  chapter CHAPTER -p NAME VALUE [--profile P] [--force]   re-run one chapter'
	@echo '  build --profile book    the whole book (what make book runs)'

venv: $(STAMP) $(AUSTEN) $(FASHION)

# ... and ends by checking the pages it rendered (rnnbook.book.page_check: warning text,
# collapsed figures, tables wider than the column, code literals, the verdict apparatus's
# share of each chapter at 1280 px): it prints what fails
book: $(STAMP) $(AUSTEN) $(FASHION) $(BROWSER)
	$(PY) -m rnnbook build --profile book $(if $(JOBS),--jobs $(JOBS))
	$(PY) -m rnnbook.book.page_check _build/html

paper: $(STAMP) $(AUSTEN) $(FASHION)
	$(PY) -m rnnbook build --profile paper $(if $(JOBS),--jobs $(JOBS))

# pytest on both cores (pytest-xdist), the smoke book building beside the unit tests (tests/book/
# smoke.py: from a copy of the sources in _build/smoke-root, reusing the chapters its last run
# cached; its progress lines among the tests'; the tests that need it run last and wait for it);
# the slowest tests at the end.
test: $(STAMP) $(AUSTEN) $(FASHION) $(BROWSER)
	RNNBOOK_SMOKE_BACKGROUND=1 $(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=15 --durations-min=2

lint: $(STAMP)
	$(VENV)/bin/ruff format --check src tests notebooks benchmarks
	$(VENV)/bin/ruff check src tests notebooks benchmarks

chapter: $(STAMP) $(AUSTEN) $(FASHION)
	@test -n "$(NB)" || { echo 'usage: make chapter NB=implicit_bias/rho_j ARGS="-p nu_W 0.5"'; exit 2; }
	$(PY) -m rnnbook chapter $(NB) $(ARGS)

# Everything a node without network needs, in one folder to copy there: the wheels of the pinned
# requirements (for this machine's platform and Python; SYSTEM_TORCH=1 leaves torch out) and every
# data set (data/: set RNNBOOK_DATA_DIR to it on the node). Then, on the node:
#   make book WHEELHOUSE=wheelhouse RNNBOOK_DATA_DIR=$PWD/wheelhouse/data
wheelhouse: $(STAMP) $(AUSTEN) $(FASHION)
	@mkdir -p wheelhouse
	$(if $(SYSTEM_TORCH),grep -v '^torch==' requirements.txt > wheelhouse/requirements.txt,cp requirements.txt wheelhouse/requirements.txt)
	$(PY) -m pip download --quiet --disable-pip-version-check --dest wheelhouse -r wheelhouse/requirements.txt
	$(PY) -m pip download --quiet --disable-pip-version-check --dest wheelhouse setuptools wheel
	$(PY) -c "from rnnbook import datasets; datasets.export_offline('wheelhouse/data')"
	@echo "wheelhouse/: $$(ls wheelhouse | wc -l) files, $$(du -sh wheelhouse | cut -f1); copy it to the node"

clean:
	rm -rf _build

# A record: one declared slice of a chapter at its record scale (its claims file, `records:`),
# written with its provenance under results/<scale>/<chapter>/<slice>/ to be committed
#   make record SLICE=mean_field/training:fig2 SCALE=cpu
# A sharded (confirmatory) slice: its next shard into results/shards/, then, once all are in,
#   make record SLICE=lsc/lru_ptb:fig4-confirmatory SHARD=next   (commit each shard)
#   make record SLICE=lsc/lru_ptb:fig4-confirmatory DECIDE=1
# PINNED=1 runs it in the record's own worktree at its shard 0's commit (_build/shard-trees/),
# so that edits made meanwhile cannot reach it, and commits the shard alone as it lands.
# The day's queue, one shard after another, each record decided when its last shard is in:
#   nohup taskset -c 1 make shards QUEUE="lsc/ffn_mnist:fig2-confirmatory:5 lsc/lru_ptb:fig4-confirmatory:4" &
# (it runs below all other work, its chapter kernels included: rnnbook.book.background)
SLICE ?=
SCALE ?= cpu
SHARD ?=
DECIDE ?=
PINNED ?=
QUEUE ?=
record: $(STAMP) $(AUSTEN) $(FASHION)
	$(PY) -m rnnbook record $(SLICE) --scale $(SCALE) $(if $(SHARD),--shard $(SHARD)) $(if $(DECIDE),--decide) $(if $(PINNED),--pinned --commit)

shards: $(STAMP) $(AUSTEN) $(FASHION)
	$(PY) -m rnnbook queue $(QUEUE) --scale $(SCALE)

# Decided records re-run whole on a machine they refuse (another processor's bits), shard by
# shard, pinned and committed, into results/processors/<machine id>/: whether their verdicts
# carry across processors (rnnbook.book.processors; shown beside the record, decides nothing)
reruns: $(STAMP) $(AUSTEN) $(FASHION)
	$(PY) -m rnnbook rerun $(QUEUE) --scale $(SCALE)

# The day's work in one command (rnnbook.book.day): on each core (CORES=0,1; default the last),
# in the background, the next shards of the records this machine may run, else re-runs of
# records (decided, or refusing it); cheapest first; a core a queue of this machine holds is left to it, and a
# long record runs on two cores at once (each shard claimed: rnnbook.book.shard_tree).
#   make day CORES=0,1          (python -m rnnbook day: the plan, without starting it)
CORES ?=
day: $(STAMP) $(AUSTEN) $(FASHION)
	$(PY) -m rnnbook day --start --scale $(SCALE) $(if $(CORES),--cores $(CORES))

# The seed check: every training chapter at the book profile at master seeds never run before
#   make seeds SEEDS="4 5"
SEEDS ?= 4 5
seeds: $(STAMP) $(AUSTEN) $(FASHION)
	$(PY) -m rnnbook seeds $(SEEDS)
