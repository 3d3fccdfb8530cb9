# RayDeck: `make run` brings up web + worker on embedded defaults; `make test` runs every check.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
export DEBUG ?= true
# The web server's port, handed to the Procfile's processes as PORT, so the URL printed below is
# the one served.
PORT ?= 8000
# Which Procfile processes `make run` starts; empty means all of them (web, worker, demos,
# exercises).
RUN_PROCESSES ?=
# Seconds each process has to stop after Ctrl-C (a worker finishes its running task) before it
# is killed.
RUN_STOP_GRACE_S ?= 30
# `make test` runs the suite on this many pytest-xdist workers, then the tests marked serial
# (tests/conftest.py) on their own; exit status 5 is "no test selected" in either half.
TEST_WORKERS ?= 2

.PHONY: run test install migrate seed lint clean bench-study bench-demos bench-teams bench-load \
	bench-imports bench-sync bench-big-deck bench-anki bench-stats-page ray-cluster ray-cluster-stop \
	ray-cluster-status editor \
	bench-exercises bench-broker bench-browser sandbox icons bench-paint device-js

# The rllib and bench extras too (ray[rllib]; py-fsrs and its optimizer with pandas and tqdm for
# bench/fsrs_compare.py and bench/plan_sim.py; torch==2.13.0 pinned: pip takes its CPU wheel
# here), so the RLlib PPO demo runs from the first `make run` and the benches run as they are.
$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -c constraints.txt -e '.[dev,rllib,bench]'
	touch $(STAMP)

install: $(STAMP) sandbox

# The code exercises' sandbox (bubblewrap): installed with apt where we are root, else said how.
# Without it everything else works, and the exercises worker refuses to run code, saying why.
sandbox:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -q && apt-get install -y -q --no-install-recommends bubblewrap) >/dev/null \
	      || echo "RayDeck: could not install bubblewrap with apt; code exercises will not run."; \
	  else \
	    echo "RayDeck: code exercises need bubblewrap: sudo apt-get install bubblewrap" \
	      "(until then the exercises worker refuses to run code and says why)."; \
	  fi; }

migrate: install
	$(PY) manage.py migrate --noinput

seed: migrate
	$(PY) manage.py seed

## run: the app on SQLite, the embedded broker (a SQLite file) and a local Ray; Ctrl-C stops
## everything. deploy/supervise.py starts again a process that dies (the others go on) and stops
## each cleanly on Ctrl-C.
run: seed
	$(PY) manage.py create_dev_users
	@echo "RayDeck on http://127.0.0.1:$(PORT)/  (Ctrl-C stops web, workers and Ray)"
	PATH="$(abspath $(VENV))/bin:$$PATH" exec $(PY) deploy/supervise.py -f Procfile -p $(PORT) \
	  --grace $(RUN_STOP_GRACE_S) $(RUN_PROCESSES)

## test: lint, types, Django's checks, migrations in sync, then the whole suite (in two halves).
# mypy over pyproject.toml's files (apps, config): strict on the pure cores, check_untyped_defs on
# the rest, and 0 errors, so a new error anywhere fails it.
test: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(PY) manage.py check
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest -p tests.xdist_services -n $(TEST_WORKERS) -m "not serial" $(PYTEST_ARGS) || [ $$? -eq 5 ]
	$(PY) -m pytest -m serial $(PYTEST_ARGS) || [ $$? -eq 5 ]

## ray-cluster: a real two-node Ray cluster on this machine (deploy/ray-local-cluster.sh); it
## prints the RAY_ADDRESS and token variables to start `make run` with.
ray-cluster: install
	deploy/ray-local-cluster.sh up

ray-cluster-stop:
	deploy/ray-local-cluster.sh down

ray-cluster-status:
	deploy/ray-local-cluster.sh status

## Benchmarks (by hand, not in CI; see bench/README-*.md for set-up and figures)
bench-study: install
	$(PY) bench/study_load.py all

bench-demos: migrate
	$(PY) bench/demos_bench.py

bench-teams: install
	$(PY) bench/teams_dashboard.py

bench-load: install
	$(PY) bench/load_mix.py

bench-anki: install
	$(PY) bench/anki_bench.py

# A device's 500-review offline backlog synced through the API beside online grades (PostgreSQL:
# the bench drops and creates the database it is given).
BENCH_SYNC_URL ?= postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_bench_sync
bench-sync: install
	$(PY) bench/sync.py --url $(BENCH_SYNC_URL)

bench-imports: install
	$(PY) bench/imports_bench.py

bench-exercises: install
	$(PY) bench/exercises_bench.py

# 1,000 exercise submissions on make run's stack, on the embedded SQLite broker and on kombu's
# filesystem transport side by side (bench/README-broker.md).
bench-broker: install
	$(PY) bench/broker_bench.py

bench-big-deck: install
	$(PY) bench/big_deck.py

bench-browser: install
	$(PY) bench/browser_bench.py

## bench-paint: the review page's next card, key to paint, from the device's queue and by the
## htmx round trip, in Chromium against PostgreSQL with 100,000 card states (bench/README-paint.md).
bench-paint: install
	$(PY) bench/review_paint.py

## device-js: minify the review page's device scripts (static/js/sm2.js ... install.js) into
## static/js/review-device.min.js with esbuild from the npm registry (the output is committed).
device-js:
	cd apps/review/device_js && npm ci --no-audit --no-fund && node build.mjs

## icons: draw the web app's PNG icons from static/img/favicon.svg (the PNGs are committed).
icons: install
	$(PY) bench/make_icons.py

# BEFORE: a checkout of the code to compare with (bench/stats_page.py's docstring)
bench-stats-page: install
	$(PY) bench/stats_page.py seed
	$(PY) bench/stats_page.py compare --before $(BEFORE)

lint:
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf var staticfiles .pytest_cache

## editor: rebuild the exercise page's CodeMirror bundle from the npm registry (the output in
## apps/exercises/static/exercises/ is committed, so `make run` and CI need no npm).
editor:
	cd apps/exercises/editor && npm ci --no-audit --no-fund && node build.mjs
