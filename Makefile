# The two commands of the README:
#   make run    start the service on localhost: gRPC :50051, HTTP (Connect) :8080 (creates/reuses
#               .venv, builds the core)
#   make test   lint + the full test suite + random-play tests against a debug build
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEBUG_LIB := build/debug/lib

.PHONY: run test build debug-build lint browser nginx redis deploy-local screenshots bench clean

$(STAMP): pyproject.toml setup.py $(wildcard proto/council/v1/*.proto)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip "setuptools>=77" "Cython>=3.0.11" "grpcio-tools==1.85.1" \
		"protoc-gen-connect-python==0.9.0"
	$(PY) -m pip install -q --no-build-isolation -e ".[test]"
	touch $(STAMP)

# Recompiles the extension in place when a .pyx/.pxd changed; a no-op otherwise.
build: $(STAMP)
	$(PY) setup.py -q build_ext --inplace

# The service: gRPC on 127.0.0.1:50051 (health, reflection) and the same RPCs over HTTP with
# the Connect protocol on 127.0.0.1:8080 (Ctrl-C or SIGTERM stops it).
run: build
	$(VENV)/bin/council-ai serve

# The page's checkers (eslint, TypeScript's tsc), pinned in package.json/package-lock.json:
# installed by npm ci into node_modules, again whenever the lock file changes.
WEB_TOOLS := node_modules/.council-installed
$(WEB_TOOLS): package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "make: npm is missing: the page's lint needs" \
		"Node.js >= 20 and npm (apt-get install nodejs npm)" >&2; exit 1; }
	npm ci --no-audit --no-fund --ignore-scripts
	touch $(WEB_TOOLS)

# ruff for the Python, cython-lint for the .pyx/.pxd (settings in pyproject.toml; it runs
# pycodestyle, which it finds on PATH), mypy for the types: it finds the packages under their
# council.* names through build/mypy/council/*, links to the folders (see [tool.mypy]).
# The page's ES modules (server/web): eslint (eslint.config.js) and tsc --noEmit --checkJs on
# their JSDoc types (tsconfig.json).
lint: $(STAMP) $(WEB_TOOLS)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/cython-lint engine mcts
	mkdir -p build/mypy/council && for d in engine mcts learning server ladder proto/council/v1; do ln -sfn "$(CURDIR)/$$d" build/mypy/council/$${d##*/}; done && $(VENV)/bin/mypy
	node_modules/.bin/eslint server/web
	node_modules/.bin/tsc --noEmit -p tsconfig.json
	node_modules/.bin/tsc --noEmit -p tsconfig.strict.json

# Bounds checks and the undefined-behaviour sanitizer on, built apart from the main build.
debug-build: $(STAMP)
	COUNCIL_CYTHON_DEBUG=1 $(PY) setup.py -q build --build-base build/debug --build-lib $(DEBUG_LIB)

# A Debian package installed with apt-get when its program is missing, as root or through
# sudo: $(call apt_install,PROGRAM,PACKAGE,WHAT IT IS FOR).
apt_install = command -v $(1) >/dev/null 2>&1 || [ -x /usr/sbin/$(1) ] || [ -x /usr/bin/$(1) ] || { \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null 2>&1; then sudo=sudo; \
	else echo "make: $(1) is missing; install it as root:" \
		"apt-get install --no-install-recommends $(2)" >&2; exit 1; fi; \
	command -v apt-get >/dev/null 2>&1 || { echo "make: $(1) is missing and there is" \
		"no apt-get: install $(2)" >&2; exit 1; }; \
	echo "make: installing Debian's $(2) for $(3)"; \
	$$sudo apt-get update -q && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(2); }

# Debian's chromium for the browser tests (tests/server/test_browser.py, driven by Playwright-core
# from tests/browser, which downloads no browser), unless COUNCIL_CHROMIUM names one.
browser:
	@[ -n "$$COUNCIL_CHROMIUM" ] || $(call apt_install,chromium,chromium,the browser tests)

# Debian's nginx, the proxy of docs/deploy.md and of tests/deploy/test_balancer.py (which
# starts its own, unprivileged, never the system's service).
nginx:
	@$(call apt_install,nginx,nginx,the deployment tests)

# Debian's redis-server, the shared game store of `serve --no-rewind` across replicas
# (council.server.game_store, docs/service.md) and of tests/server/test_game_store.py (which
# starts its own, unprivileged, never the system's service).
redis:
	@$(call apt_install,redis-server,redis-server,the game store's tests)

# Replicas of the service behind nginx on this machine (docs/deploy.md): gRPC on
# 127.0.0.1:50051 and HTTP on 127.0.0.1:8080 through nginx, the config rendered into
# build/deploy; Ctrl-C stops them all. REPLICAS=3 for more; SERVE_FLAGS go to each replica.
REPLICAS ?= 2
deploy-local: build nginx
	$(PY) deploy/local.py --replicas $(REPLICAS) --dir build/deploy -- $(SERVE_FLAGS)

# The page's screenshots in docs/ (page-opening.png, page-hint.png, page-final.png,
# page-the-council.png, layout-GAME-WxH.png), anew; the board's tests run with them, so
# that the screenshots show a page whose every check passed.
screenshots: build browser
	COUNCIL_UPDATE_SCREENSHOTS=1 $(PY) -m pytest -p no:cacheprovider tests/server/test_browser.py \
		tests/server/test_browser_page.py tests/server/test_browser_board.py

# The suite over one worker a CPU (pytest-xdist), a test file to a worker: a file's tests
# share its module-scoped servers and browsers, started once.
PARALLEL = -n auto --dist loadfile
test: build lint debug-build browser nginx redis
	$(PY) -m pytest $(PARALLEL)
	COUNCIL_EXPECT_DEBUG_BUILD=1 PYTHONPATH=$(DEBUG_LIB) $(PY) -m pytest -p no:cacheprovider $(PARALLEL) \
		tests/engine/test_random_play.py tests/engine/test_sampling.py \
		tests/engine/test_the_council_play.py tests/engine/test_the_council_rules.py \
		tests/engine/test_the_council_schema.py tests/mcts/test_the_council_search.py \
		tests/mcts/test_search_golden.py tests/games \
		tests/engine/test_a_war_of_whispers_play.py tests/engine/test_a_war_of_whispers_rules.py

bench: build
	$(PY) bench/engine.py

clean:
	rm -rf build $(VENV) engine/*.so engine/*.c *.egg-info node_modules
