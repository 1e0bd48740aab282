# apeval — make targets. `make run` and `make test` are what a newcomer runs first.
GO       ?= go
BIN      := bin/apeval
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
NODE_DIR := .cache/node
DUCKDB   := $(NODE_DIR)/node_modules/@duckdb/node-api/package.json

.PHONY: build run test vet bench ci duckdb e2e-ollama html-check readme-check clean
.PHONY: staticcheck script-test

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/apeval
	$(GO) build -o bin/apeval-record ./cmd/apeval-record

# The embedded sample's older recorded judge version, the baseline of `make run`.
SAMPLE_BASELINE := recorded/ollama/qwen2.5:3b

# Evaluate the embedded sample with its recorded judges, then compare the two
# judge versions. A NO-GO (1) or INCONCLUSIVE (3) verdict is the sample's
# finding, not a failure of `make run`.
run: build
	@./$(BIN) run --out apeval-out/sample --format table; rc=$$?; \
	  if [ $$rc -ne 0 ] && [ $$rc -ne 1 ] && [ $$rc -ne 3 ]; then exit $$rc; fi
	@echo; echo "== $(SAMPLE_BASELINE) (baseline) vs the newer judge version"; echo
	@./$(BIN) compare --baseline $(SAMPLE_BASELINE) --format table apeval-out/sample; rc=$$?; \
	  if [ $$rc -ne 0 ] && [ $$rc -ne 1 ] && [ $$rc -ne 3 ]; then exit $$rc; fi

# DuckDB (through its Node package) reads our Parquet files back in tests.
duckdb: $(DUCKDB)
$(DUCKDB):
	@command -v npm >/dev/null || { echo "make: npm is needed for the DuckDB Parquet tests (apt-get install nodejs npm)"; exit 2; }
	mkdir -p $(NODE_DIR)
	npm install --silent --no-audit --no-fund --prefix $(NODE_DIR) @duckdb/node-api@1.5.6-r.1

vet:
	$(GO) vet ./...

# Pinned so CI does not change under us; v0.8.2 (staticcheck 2026.2.2) knows Go 1.26.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck:
	$(GO) run $(STATICCHECK) ./...

# APEVAL_REQUIRE_DUCKDB: the DuckDB read-back tests, which plain `go test`
# skips when the package is missing, must run here. -short: the suite that
# fits a 2-core machine (goal: 5 minutes idle, no package over 3); the
# whole-process tests are `make e2e`'s. Prints each package's time.
test: duckdb
	APEVAL_REQUIRE_DUCKDB=1 GO=$(GO) ./.ci/test-times.sh

# The whole-process tests `make test` leaves out (-short): the sample run
# many times over, shards and merges, a bucket server (cmd/apeval).
.PHONY: e2e
e2e: duckdb
	APEVAL_REQUIRE_DUCKDB=1 $(GO) test -count=1 -timeout 30m ./cmd/apeval/

# apeval without the cloud object-storage drivers (S3, GCS, Azure):
# -tags noobjstore links file:// only; about half the binary and of its
# third-party packages (docs/storage.md). Built and tested in CI.
.PHONY: build-small
build-small:
	$(GO) build -tags noobjstore -ldflags "$(LDFLAGS)" -o bin/apeval-small ./cmd/apeval
	$(GO) vet -tags noobjstore ./internal/objstore/ ./cmd/apeval/
	$(GO) test -short -count=1 -tags noobjstore ./internal/objstore/

# The race detector on the packages that run goroutines: judge pools and
# plugins, the replay engine, object storage, the run directory writers and
# the labeling server.
.PHONY: race
race:
	$(GO) test -short -race -count=1 ./judge/... ./replay/... ./internal/objstore/... ./internal/spill/... ./reports/... ./datasets/...

# The statistics' calibration suite at 2,000 replicates per setting (`make
# test` runs a fixed-seed smoke of it): prints the tables docs/statistics.md
# shows — coverage and width of each interval method against the previous
# and the narrowest alternative (the grid), false PASS/FAIL at thresholds,
# type I of the paired tests, the 11-rule GO rate and the labeled
# estimator's coverage and width against the textbook stratified one.
.PHONY: calibrate
# It fails when any setting misses its goal: go test's status is kept
# through the filter, and a failure's lines are printed after the tables.
calibrate:
	@st=$$(mktemp); log=$$(mktemp); \
	{ APEVAL_CALIBRATE=2000 $(GO) test -count=1 -timeout 4h -run 'TestCalibration|TestIntervalGrid|TestIntervalSizeDependent|TestIntervalInformativeSize|TestElevenRulesGo|TestLabeledCalibration' -v ./metrics ./metrics/simulate 2>&1; echo $$? > $$st; } \
	  | tee $$log | sed -n 's/^ *\([A-Za-z_]*\.go:[0-9]*: \)\{0,1\}\(| .*\)/\2/p'; \
	s=$$(cat $$st); if [ "$$s" != 0 ]; then echo "calibrate: FAILED"; grep -B1 -A8 -e '--- FAIL' -e '^FAIL' -e '^panic' $$log; fi; \
	rm -f $$st $$log; exit $$s

# apeval run the way a user runs it: cmd/apeval/testdata/script/*.txtar.
# Part of `make test` too; this target runs only them.
script-test:
	$(GO) test -count=1 -run TestScripts ./cmd/apeval/

bench: build
	./.ci/bench.sh

# The public labeled workloads (datasets/public: ASSEBench, RedCode-Exec) through
# datasets/public/policy.toml; JUDGE="ollama:qwen2.5:3b" measures a live judge
# (default: none, the deterministic baseline). docs/import.md.
.PHONY: bench-public
bench-public: build
	APEVAL=./apeval ./.ci/bench-public.sh

# N shard processes against a local fake judge fleet vs one process (docs/scale.md).
.PHONY: bench-scale
bench-scale: build
	./.ci/bench-scale.sh

# The README's commands, run as a user would on a clean clone.
readme-check: build
	./.ci/readme-check.sh

e2e-ollama:
	./.ci/e2e-ollama.sh

# Object storage against a real S3 server (versitygw on loopback): shards
# uploaded, merged from the bucket, a kill mid-upload (docs/storage.md).
.PHONY: e2e-s3
e2e-s3: duckdb
	./.ci/e2e-s3.sh

# The same against real GCS and Azure Blob servers on loopback:
# fake-gcs-server built from its module, Azurite from npm (docs/storage.md).
.PHONY: e2e-gcs e2e-azure
e2e-gcs: duckdb
	./.ci/e2e-cloud.sh gcs
e2e-azure: duckdb
	./.ci/e2e-cloud.sh azure

# report.html in headless Chromium: no console errors, the charts drew.
html-check: build
	./.ci/html-check.sh

# The labeling page (apeval label serve) in headless Chromium from Go (chromedp).
.PHONY: label-browser
label-browser:
	./.ci/label-browser.sh

# diff.html in headless Chromium from Go (chromedp): filters against
# diff.parquet, permalinks, keys; long tasks at 100,000 cases reported.
.PHONY: diff-browser
diff-browser:
	./.ci/diff-browser.sh

# Fuzz the codecs and the masker for a bounded time each (FUZZTIME): the
# case reader, the policy parser, the judge response parser, the masker
# (a planted secret never survives; masking is idempotent), the labels
# appender (two writers, short writes, undo), and the GitHub Action's input
# splitting (quotes, globs, newlines).
.PHONY: fuzz
FUZZTIME ?= 10s
# .ci/fuzz.sh passes a bare "context deadline exceeded" at the time limit
# with no input written (Go 1.26's coordinator race, golang/go#75804).
fuzz:
	GO=$(GO) ./.ci/fuzz.sh FuzzReader ./datasets $(FUZZTIME)
	GO=$(GO) ./.ci/fuzz.sh FuzzDecode ./datasets $(FUZZTIME)
	GO=$(GO) ./.ci/fuzz.sh FuzzParsePolicy ./replay $(FUZZTIME)
	GO=$(GO) ./.ci/fuzz.sh FuzzParseOutput ./judge $(FUZZTIME)
	GO=$(GO) ./.ci/fuzz.sh FuzzMaskString ./internal/mask $(FUZZTIME)
	GO=$(GO) ./.ci/fuzz.sh FuzzLabelAppender ./datasets $(FUZZTIME)
	GO=$(GO) ./.ci/fuzz.sh FuzzActionWords ./docs/examples $(FUZZTIME)

# actionlint (pinned, through go run) on action.yml, the example workflows
# and the README's recipes; shellcheck on the action's script.
.PHONY: actionlint
actionlint:
	./.ci/actionlint.sh

# The pull-request comments (GO, NO-GO, INCONCLUSIVE, ERROR and the
# sample's) rendered from their Markdown in headless Chromium at 800 px.
.PHONY: comment-check
comment-check: build
	./.ci/comment-check.sh

ci: vet staticcheck test e2e race build-small fuzz readme-check actionlint e2e-ollama e2e-s3 e2e-gcs e2e-azure html-check label-browser diff-browser comment-check calibrate

clean:
	rm -rf bin apeval-out

# apeval on your PATH: go install of this clone into $(go env GOPATH)/bin
# (or $GOBIN), with the version from git describe.
.PHONY: install
install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/apeval ./cmd/apeval-record
	@dir=$$($(GO) env GOBIN); [ -n "$$dir" ] || dir=$$($(GO) env GOPATH)/bin; \
	  echo "installed $$dir/apeval and $$dir/apeval-record"; \
	  case ":$$PATH:" in *":$$dir:"*) ;; *) echo "make: $$dir is not on your PATH; run: export PATH=\"$$dir:\$$PATH\"";; esac
