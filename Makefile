# Two entry points for newcomers: `make serve` (build both languages and serve them) and
# `make test` (the whole suite). Everything installs into .venv from pyproject.toml's ranges.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PORT   ?= 8000
# what `make check` runs: unit tests of the engine and the translators' tools that need no built
# site, no browser and no copied database (make test runs them all)
CHECK_TESTS ?= tests/engine/test_shell.py tests/engine/test_calculator.py \
  tests/engine/test_flag_roles.py tests/i18n/test_i18n_paragraphs.py \
  tests/i18n/test_i18n_terms.py tests/cli/test_layout.py

.PHONY: install test check screenshots site site-zensical serve preview bench catalog catalog-check validate clean

$(STAMP): pyproject.toml tests/js/package-lock.json
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]' --config-settings editable_mode=compat
	@# axe-core for the accessibility tests, pinned by tests/js/package-lock.json
	@if command -v npm >/dev/null 2>&1; then npm ci --prefix tests/js --no-audit --no-fund --silent; \
	else echo "npm not found: the accessibility tests will be skipped (apt-get install npm)"; fi
	touch $(STAMP)

install: $(STAMP)

# The tests run on every core (pytest-xdist, TEST_JOBS=auto; or a number): a test using a
# module-scoped fixture stays with its module's group on one worker (tests/conftest.py), and what
# many tests only read (the built sites) is built once for all workers (tests/helpers/shared.py).
# TEST_JOBS= (empty): one process.
TEST_JOBS ?= auto
test: $(STAMP)
	$(PY) -m pytest $(if $(TEST_JOBS),-n $(TEST_JOBS) --dist loadgroup)

# The inner loop (42 s at load 4 with the suite running beside it; README's table): the database, the translations, the package's layers and
# the engine's and translators' unit tests. `make test` before you push.
check: $(STAMP)
	$(VENV)/bin/recipes validate
	$(VENV)/bin/recipes i18n-check
	$(PY) -m macros.layout_check > /dev/null || $(PY) -m macros.layout_check
	$(PY) -m pytest -q $(CHECK_TESTS)

# Pictures of the pages the browser tests open (as they open, at 1440 px and 390 px, and after
# clicks), saved under .build/screenshots/ for a person to look at; make test draws none.
screenshots: $(STAMP)
	RECIPES_SCREENSHOTS=$(CURDIR)/.build/screenshots $(PY) -m pytest -q \
	  tests/playground/test_browser.py tests/playground/test_reader_path.py

validate: $(STAMP)
	$(VENV)/bin/recipes validate

site: $(STAMP)
	$(VENV)/bin/recipes build

# The same site built by Zensical instead of MkDocs + Material (same pages, same checks).
site-zensical: $(STAMP)
	$(VENV)/bin/recipes build --engine zensical

serve: site
	@echo "English: http://127.0.0.1:$(PORT)/   Korean: http://127.0.0.1:$(PORT)/ko/"
	$(PY) -m http.server $(PORT) --bind 127.0.0.1 --directory site

# One language with live reload while you edit it (PREVIEW_LANG=en for English).
PREVIEW_LANG ?= ko
preview: $(STAMP)
	$(VENV)/bin/recipes serve --lang $(PREVIEW_LANG) --port $(PORT)

# make bench BENCH_ARGS="--growth --suite": see bench/run.py --help (the long parts are options)
BENCH_ARGS ?=
bench: $(STAMP)
	$(PY) bench/run.py $(BENCH_ARGS)

catalog: $(STAMP)
	$(VENV)/bin/recipes catalog

catalog-check: $(STAMP)
	$(VENV)/bin/recipes catalog --check --allow-offline

# site/ goes only if the build made it and it holds nothing else (macros/site/build.py's rule for
# an output folder: its marker names the folder and lists everything in it); a folder someone
# else put there, a copied or linked marker, a .git or a CNAME inside: it stays. Needs no venv.
CLEAN_PY := $(if $(wildcard $(PY)),$(PY),$(PYTHON))
clean:
	-@$(CLEAN_PY) -m macros.site.build clean site
	rm -rf .build/site-* $(VENV)
