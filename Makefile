# git-agentproto: build, test, demo, benchmarks, man pages, install.
PREFIX ?= $(HOME)/.local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/agentproto/agentproto/cmd/root.version=$(VERSION)

.PHONY: all build test review-corpus test-agents test-browser demo bench bench-scale fuzz man install uninstall completion vet fmt clean proto release-check release-snapshot go-install-check

all: build

# Static binaries (no cgo): without the dynamic loader every command starts
# about 4 ms sooner (26 vs 30 ms for --version on the 2-core machine).
build:
	CGO_ENABLED=0 go build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/git-agentproto ./cmd/agentproto-sessions ./cmd/agentproto-mcp ./cmd/agentproto-adapter-scripted ./cmd/agentproto-adapter-exec ./cmd/agentproto-adapter-claude-code ./cmd/agentproto-adapter-codex ./cmd/agentproto-adapter-acp ./cmd/agentproto-sandbox

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	go vet ./...

# The ledger (shared by the daemon's goroutines), the sandbox and the
# scrubber run again under the race detector; the whole tree under -race
# would take CI past its budget on 2 cores.
test: vet
	go test -count=1 -timeout 30m ./...
	go test -race -count=1 -timeout 10m ./gitstore/ ./sandbox/ ./internal/secrets/

# The adapter tests against the real agent CLIs, and the MCP server's
# against real MCP clients (the Inspector, the TypeScript SDK), pinned in
# .agents/package.json and package-lock.json, installed there by npm (no
# global install), talking only to a loopback fake provider.
# They are installed again only when the pins change.
AGENTS_DIR := $(CURDIR)/.agents
$(AGENTS_DIR)/node_modules/.package-lock.json: $(AGENTS_DIR)/package.json $(AGENTS_DIR)/package-lock.json
	@command -v npm >/dev/null || { echo "test-agents needs node and npm (apt-get install nodejs npm)"; exit 1; }
	cd $(AGENTS_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

test-agents: $(AGENTS_DIR)/node_modules/.package-lock.json
	AGENTPROTO_REAL_AGENTS=$(AGENTS_DIR)/node_modules/.bin go test -count=1 -timeout 20m -run 'Real' ./plugins/adapters/ ./plugins/adapters/acp/ ./e2e/

# The reviewer's page (git agentproto web) in a real headless browser:
# Debian's Chromium, pinned, driven over the DevTools protocol (chromedp).
# It is installed with apt only when missing or of another version; when
# Debian replaces the pinned version, move the pin. Screenshots go to
# $(ARTIFACTS) (default: a folder under /tmp), never into the tree.
CHROMIUM_VERSION := 156.0.8078.114-1~deb12u1
ARTIFACTS ?= $(or $(TMPDIR),/tmp)/agentproto-artifacts
test-browser:
	@if [ "$$(dpkg-query -W -f='$${Version}' chromium 2>/dev/null)" != "$(CHROMIUM_VERSION)" ]; then \
		command -v apt-get >/dev/null || { echo "test-browser needs Debian's chromium $(CHROMIUM_VERSION)"; exit 1; }; \
		apt-get update -qq; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --allow-downgrades chromium=$(CHROMIUM_VERSION) || { \
			echo "warning: Debian no longer serves chromium $(CHROMIUM_VERSION) (security updates replace it); testing with its current chromium: move CHROMIUM_VERSION"; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }; \
	fi
	AGENTPROTO_BROWSER=/usr/bin/chromium AGENTPROTO_ARTIFACTS=$(ARTIFACTS) go test -count=1 -timeout 10m -run 'InARealBrowser' ./e2e/

demo: build
	./scripts/demo.sh

# Every fuzz target for FUZZTIME each (default 10s); CI runs it bounded.
fuzz:
	./scripts/fuzz.sh

bench:
	go test -run '^$$' -bench . -benchtime 1x -timeout 30m ./bench/
	go test -run '^$$' -bench 'AmongPlans|AmongBranches' -benchtime 20x ./pipeline/

# The benchmarks at a million events and 128 work packages (tens of minutes).
bench-scale:
	AGENTPROTO_BENCH_SCALE=1 go test -run '^$$' -bench Scale -benchtime 1x -timeout 120m ./bench/

man:
	rm -rf man/man1
	go run ./cmd/gen-man man/man1

completion: build
	mkdir -p completion
	./bin/git-agentproto completion bash > completion/git-agentproto.bash
	./bin/git-agentproto completion zsh > completion/_git-agentproto
	./bin/git-agentproto completion fish > completion/git-agentproto.fish

install: build man
	install -d $(BINDIR) $(MANDIR)
	install -m 0755 bin/git-agentproto bin/agentproto-sessions bin/agentproto-mcp bin/agentproto-adapter-* bin/agentproto-sandbox $(BINDIR)/
	install -m 0644 man/man1/*.1 $(MANDIR)/

uninstall:
	rm -f $(BINDIR)/git-agentproto $(BINDIR)/agentproto-sessions $(BINDIR)/agentproto-mcp $(BINDIR)/agentproto-adapter-* $(BINDIR)/agentproto-sandbox $(MANDIR)/git-agentproto*.1

clean:
	rm -rf bin man completion

# Regenerate the committed protobuf stubs (needs protoc, protoc-gen-go and
# protoc-gen-go-grpc on PATH); a normal build never needs this.
proto:
	protoc --go_out=. --go_opt=paths=source_relative \
		--go-grpc_out=. --go-grpc_opt=paths=source_relative \
		plugins/internal/proto/adapter.proto

# Review against its corpus of planted fake work and clean twins
# (e2e/testdata/review): prints the catch and false-positive rates.
review-corpus:
	go test -count=1 -timeout 15m -run '^TestReviewCorpus$$' -v ./e2e/ 2>&1 | grep -E '^\s+review_corpus_test.go:[0-9]+: (review corpus|missed|false positives|review got worse)|^(ok|FAIL|---)' 

# The release configuration (.goreleaser.yaml), checked by goreleaser's own
# check. goreleaser is pinned and built into .tools/ from the module proxy
# the first time (many minutes on the 2-core machine: it is opt-in, not
# part of make test); release-snapshot builds the archives and checksums
# into dist/ without publishing.
GORELEASER_VERSION := v2.17.0
GORELEASER := $(CURDIR)/.tools/goreleaser-$(GORELEASER_VERSION)
$(GORELEASER):
	mkdir -p $(CURDIR)/.tools
	GOBIN=$(CURDIR)/.tools go install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
	mv $(CURDIR)/.tools/goreleaser $@

release-check: $(GORELEASER)
	$(GORELEASER) check

release-snapshot: $(GORELEASER)
	$(GORELEASER) release --snapshot --clean --skip=publish

# What `go install github.com/agentproto/agentproto/cmd/git-agentproto@latest`
# (and of the sessions daemon beside it)
# does: build the committed tree (what the module proxy serves for a
# version) in module mode, with an empty module cache, into a temporary
# GOBIN. The checkout is not touched; commit first to check your changes.
go-install-check:
	@d=$$(mktemp -d) && trap 'GOMODCACHE=$$d/mod go clean -modcache; rm -rf $$d' EXIT && \
	mkdir $$d/src && git archive --format=tar HEAD | tar -x -C $$d/src && \
	cd $$d/src && GOFLAGS=-mod=mod GOMODCACHE=$$d/mod GOBIN=$$d/bin go install ./cmd/git-agentproto ./cmd/agentproto-sessions ./cmd/agentproto-mcp && \
	$$d/bin/git-agentproto --version
