# OtterWeb: `make run` starts the product, `make test` runs every test. Both set up first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
ADDR ?= 127.0.0.1:8000

.PHONY: setup static migrate run services test lint bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Static files are collected (hashed, gzip and brotli) whenever a source of them changed.
STATIC_MANIFEST := var/static/staticfiles.json
$(STATIC_MANIFEST): $(STAMP) $(shell find otterweb/static -type f)
	$(PY) manage.py collectstatic --noinput --verbosity 0
	touch $(STATIC_MANIFEST)

setup: $(STAMP) $(STATIC_MANIFEST)

migrate: setup
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py serve $(ADDR)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# PostgreSQL and Redis on 127.0.0.1 (distributed-mode tests), Chromium (browser tests): installed
# with apt-get when missing, started when not running.
services:
	scripts/services start

test: setup lint services
	$(VENV)/bin/pytest
	@echo "The web tests again, on PostgreSQL:"
	env $$(scripts/services env | grep DATABASE_URL) $(VENV)/bin/pytest tests/web

bench: setup services
	$(PY) bench/parse.py
	$(PY) bench/engine.py
	$(PY) bench/logs.py

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache *.egg-info
