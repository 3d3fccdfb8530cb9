# RayDeck: `make run` brings up web + worker on embedded defaults; `make test` runs every check.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
export DEBUG ?= true

.PHONY: run test install migrate seed lint clean bench-study bench-demos bench-teams bench-load bench-imports

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(PY) manage.py migrate --noinput

seed: migrate
	$(PY) manage.py seed

## run: the app on SQLite, the filesystem broker and a local Ray; Ctrl-C stops everything.
run: seed
	$(PY) manage.py create_dev_users
	@echo "RayDeck on http://127.0.0.1:$${PORT:-8000}/  (Ctrl-C stops web, worker and Ray)"
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/honcho start -f Procfile

## test: lint, Django's checks, migrations in sync, then the whole suite.
test: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) manage.py check
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest $(PYTEST_ARGS)

## Benchmarks (by hand, not in CI; see bench/README-*.md for set-up and figures)
bench-study: install
	$(PY) bench/study_load.py all

bench-demos: install
	$(PY) bench/demos_bench.py

bench-teams: install
	$(PY) bench/teams_dashboard.py

bench-load: install
	$(PY) bench/load_mix.py

bench-imports: install
	$(PY) bench/imports_bench.py

lint:
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf var staticfiles .pytest_cache
