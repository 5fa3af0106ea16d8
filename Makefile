# Two commands do all the set-up on a fresh Debian machine (README.md):
#   make run    installs missing packages, builds, runs the main job
#   make test   installs missing packages, builds, runs every default test
BUILD ?= build
SAN_BUILD ?= build-sanitize
JOBS ?= $(shell nproc)
OUT ?= out/run

.PHONY: all deps configure build build-dpmcmc run test python-test test-long test-sanitize bench bench-rstan bench-whole bench-peers format clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The program alone: all `make run` needs (`make test` builds everything).
build-dpmcmc: configure
	@cmake --build $(BUILD) -j $(JOBS) --target dpmcmc

# The main job: a private logistic regression on made-up patients (dp-nss at epsilon 1) beside
# non-private NUTS on the same rows and the true coefficients (scripts/main_job.py).
run: build-dpmcmc
	/usr/bin/env python3 scripts/main_job.py $(BUILD) $(OUT)

# Default suite: everything but the long statistical runs (label "long").
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE long --timeout 900

# The Python package's pytest suite alone (also part of `make test`).
python-test: build
	ctest --test-dir $(BUILD) --output-on-failure -L python

# Long statistical runs and reproductions; not run by CI.
test-long: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L long

# The default suite under AddressSanitizer + UndefinedBehaviorSanitizer.
test-sanitize: deps
	@cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Sanitize -DDPMCMC_BUILD_BENCH=OFF -DDPMCMC_BUILD_PYTHON=OFF >/dev/null
	@cmake --build $(SAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(SAN_BUILD) --output-on-failure -j $(JOBS) -LE "long|slow" --timeout 1800

bench: build
	@for b in $(BUILD)/bench_*; do echo "== $$b"; $$b; done

# NUTS against rstan (Debian's r-cran-rstan) on four presets with the same data and options: a
# benchmark, not a test (docs/benchmarks.md). About 15 minutes, most of it rstan on the banana.
bench-rstan: build
	@bash scripts/install-deps.sh r-base-dev r-cran-rstan
	bash bench/rstan/compare.sh $(BUILD) out/bench-rstan

# Whole process against its sampling phase for every sampler at n = 10^5 and 10^6 (issue 28;
# docs/benchmarks.md). About 5 minutes.
bench-whole: build
	python3 bench/whole_process.py $(BUILD)/dpmcmc --n 100000 1000000

# The numerical PLD against Google's dp_accounting, side by side (docs/benchmarks.md). Its public
# source is cloned into out/peers (never vendored); its Python dependencies come from Debian.
# Per-iteration time against the NeurIPS-2019 DP Barker code and a numpy DP penalty loop.
DP_ACCOUNTING_REPO ?= https://github.com/google/differential-privacy
NEURIPS2019_REPO ?= https://github.com/DPBayes/DP-MCMC-NeurIPS2019
bench-peers: build
	@bash scripts/install-deps.sh python3-scipy python3-mpmath python3-absl python3-attr
	@test -d out/peers/differential-privacy || git clone -q --depth 1 $(DP_ACCOUNTING_REPO) out/peers/differential-privacy
	@test -d out/peers/DP-MCMC-NeurIPS2019 || git clone -q --depth 1 $(NEURIPS2019_REPO) out/peers/DP-MCMC-NeurIPS2019
	/usr/bin/python3 bench/peers/pld_vs_dp_accounting.py $(BUILD)/dpmcmc out/peers/differential-privacy/python/dp_accounting
	/usr/bin/python3 bench/peers/per_iteration_vs_numpy.py $(BUILD)/dpmcmc out/peers/DP-MCMC-NeurIPS2019

format:
	@clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) $(SAN_BUILD)

# Reproductions of the papers' experiments (docs/experiments.md): each spec in experiments/ run
# into a results.csv (resumable: rerun after an interruption), then its report
# (report/report.html beside the CSV). quick: minutes, into out/experiments/NAME-quick; full:
# hours to days, into experiments/results/NAME-full, resuming from the committed rows.
EXPERIMENTS ?= $(wildcard experiments/*.json)
RESULTS_quick = out/experiments
RESULTS_full = experiments/results
.PHONY: experiments-quick experiments-full
experiments-quick experiments-full: experiments-%: build
	@for spec in $(EXPERIMENTS); do \
	  dir=$(RESULTS_$*)/$$(basename $$spec .json)-$*; \
	  $(BUILD)/dpmcmc experiment $$spec --profile $* --out $$dir && \
	  $(BUILD)/dpmcmc report $$dir/results.csv || exit 1; \
	done
