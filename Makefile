# The two commands that do everything on a fresh Debian 12 machine:
#   make demo   install missing packages, build, simulate the seed walkthrough (log + HTML report)
#   make test   install missing packages, build, run the whole suite (plain and sanitized)
#   make cluster-demo  the same walkthrough in a real control plane with kwok and nodesmith controller
#   make fuzz   the parsers' libFuzzer targets (clang), FUZZ_SECONDS each (docs/RELIABILITY.md)
#   make chaos  the chaos suite at full size in a control plane of its own (docs/RELIABILITY.md)
#   make bench-cluster  nodesmith and Karpenter's KWOK provider, each on a fresh control plane, same
#               workload (CLUSTER_PODS pods); prints the markdown of docs/PERFORMANCE.md's section
#   make bench-peers  Karpenter's own scheduling benchmark beside nodesmith's solver, measured here
#                     (docs/PERFORMANCE.md, "Side by side with Karpenter's scheduler")
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = quantity duration cron label_selector yaml_json manifest interruption_message kubeconfig \
  watch_decoder aws_json ec2_xml catalog shared_config toml aws_credentials sqs_envelope \
  exec_credential ec2_answers scenario node_selector_requirements eks_describe_cluster

.PHONY: all deps build binary testenv peers bench-peers demo cluster-demo test check test-asan fuzz chaos load bench bench-cluster clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The binary alone, without the tests and benchmarks (most of a full build's time).
binary: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target nodesmith

# The test peers the server tests run against (kube-apiserver & co., etcd, kwok, helm), built once
# into ~/.cache/nodesmith-testenv and reused; a no-op when they are cached.
testenv: deps
	@bash scripts/testenv/build

# Karpenter's scheduling benchmark (sigs.k8s.io/karpenter at the version pinned in bench/peers/run),
# built once from the Go module proxy into ~/.cache/nodesmith-peers and reused; a no-op when cached.
# ctest runs it at 100 pods beside nodesmith (bench_peers_karpenter_small).
peers: deps
	@python3 bench/peers/run --build-only

# The full side-by-side run: every size of Karpenter's benchmark, alternating with nodesmith's.
bench-peers: peers
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target karpenter_workload
	python3 bench/peers/run --ours $(BUILD)/bench/karpenter_workload

# The seed walkthrough in virtual time: the controller log on stdout, charts in the report.
demo: binary
	./$(BUILD)/nodesmith simulate -f examples/seed-walkthrough/provisioner.yaml \
	  -f examples/scenarios/seed-walkthrough.yaml -o text --report $(BUILD)/demo-report.html
	@echo "report: $(BUILD)/demo-report.html"

# The seed walkthrough in a real cluster on this machine: the control plane, kwok, nodesmith
# controller --cloud-provider kwok; inflate 0 -> 5 and back.
cluster-demo: binary testenv
	bash scripts/cluster-demo ./$(BUILD)/nodesmith

# nodesmith against Karpenter's KWOK provider in the same kind of cluster (bench/peers/cluster_compare.py):
# burst, scale-in, drift; state and logs under CLUSTER_WORK.
CLUSTER_PODS ?= 2000
CLUSTER_WORK ?= /tmp/nodesmith-bench-cluster
bench-cluster: binary testenv
	"$$(bash -c 'source scripts/testenv/versions.sh && python_venv_dir')/bin/python" \
	  bench/peers/cluster_compare.py ./$(BUILD)/nodesmith . $(CLUSTER_WORK) --pods $(CLUSTER_PODS)

# The suite in an optimised build, then again under AddressSanitizer + UBSan. The sanitized build
# leaves out bench/: its smoke runs are benchmarks of the plain build's code (bench_kube_sync_small
# alone takes five minutes under ASan), and CI's 90 minutes hold both suites only without them.
# It also leaves out the simulated diurnal day (the plain suite runs it): under ASan it takes
# 8.5 minutes on one core, and starting last in a fresh build it held up the end by 7.
ASAN_EXCLUDE ?= ^DisruptionScenarios\.TheDiurnalDayKeepsEveryInvariant$$
ASAN_CONFIGURE = cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DNODESMITH_SANITIZE=ON -DNODESMITH_BENCH=OFF >/dev/null
ASAN_CTEST = cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS) -E '$(ASAN_EXCLUDE)'

# The libFuzzer build (clang, ASan+UBSan, only the fuzz targets and the libraries they link).
FUZZ_CONFIGURE = cmake -S . -B $(FUZZ_BUILD) -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNODESMITH_FUZZ=ON -DNODESMITH_TESTS=OFF -DNODESMITH_BENCH=OFF >/dev/null
FUZZ_BUILD_TARGETS = cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(addsuffix _fuzz,$(FUZZ_TARGETS))
# What `make test` gives each libFuzzer target (the seeds, then mutations), after the suites.
TEST_FUZZ_SECONDS ?= 10

# `make check` then `make test-asan`, then every libFuzzer target for TEST_FUZZ_SECONDS. The
# sanitized build does not wait for the plain suite: the suite's cluster tests spend most of their
# time waiting on real time (consolidateAfter, lease handovers, chaos), and the builds, at nice 19,
# take only the CPU they leave idle (docs/testenv.md). In the background, one after the other:
# the sanitized build ($(ASAN_BUILD)/build.log), the libFuzzer build ($(FUZZ_BUILD)/build.log) and
# the fuzzing itself ($(FUZZ_BUILD)/run.log), which overlaps the sanitized suite; each log is
# printed when its step fails, and the fuzzing's table of executions, coverage and crashes at the end.
test: build testenv peers
	@bash scripts/install-deps.sh fuzz
	@$(ASAN_CONFIGURE)
	@$(FUZZ_CONFIGURE)
	@rm -f $(ASAN_BUILD)/build.status $(FUZZ_BUILD)/status
	@setsid bash -c 'nice -n 19 cmake --build $(ASAN_BUILD) -j $(JOBS) > $(ASAN_BUILD)/build.log 2>&1; \
	   echo $$? > $(ASAN_BUILD)/build.status; \
	   if ! nice -n 19 $(FUZZ_BUILD_TARGETS) > $(FUZZ_BUILD)/build.log 2>&1; then echo build > $(FUZZ_BUILD)/status; exit; fi; \
	   nice -n 19 bash scripts/fuzz-run.sh $(FUZZ_BUILD) $(TEST_FUZZ_SECONDS) $(FUZZ_TARGETS) > $(FUZZ_BUILD)/run.log 2>&1; \
	   echo $$? > $(FUZZ_BUILD)/status' & bg=$$!; \
	 trap 'kill -- -'$$bg' 2>/dev/null' EXIT; \
	 ( cd $(BUILD) && ctest --output-on-failure -j $(JOBS) ) || exit $$?; \
	 echo "waiting for the sanitized build ($(ASAN_BUILD)/build.log)"; \
	 while [ ! -f $(ASAN_BUILD)/build.status ] && kill -0 $$bg 2>/dev/null; do sleep 5; done; \
	 [ -f $(ASAN_BUILD)/build.status ] || { echo "the sanitized build stopped"; exit 1; }; \
	 if [ "$$(cat $(ASAN_BUILD)/build.status)" != 0 ]; then tail -n 60 $(ASAN_BUILD)/build.log; exit 1; fi; \
	 ( $(ASAN_CTEST) ) || exit $$?; \
	 echo "waiting for the libFuzzer targets ($(FUZZ_BUILD)/build.log, $(FUZZ_BUILD)/run.log)"; wait $$bg; \
	 case "$$(cat $(FUZZ_BUILD)/status)" in \
	   0) cat $(FUZZ_BUILD)/run.log ;; \
	   build) tail -n 60 $(FUZZ_BUILD)/build.log; exit 1 ;; \
	   *) cat $(FUZZ_BUILD)/run.log; exit 1 ;; \
	 esac

check: build testenv peers
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps testenv
	@$(ASAN_CONFIGURE)
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	$(ASAN_CTEST)

# The libFuzzer targets of fuzz/, built with clang under ASan+UBSan (only the libraries they need),
# each run for FUZZ_SECONDS from its seeds; prints executions, coverage and crashes per target.
# `make test` runs them for TEST_FUZZ_SECONDS each; its suites replay the same corpora with GCC
# (ctest fuzz_replay_*).
fuzz: deps
	@bash scripts/install-deps.sh fuzz
	@$(FUZZ_CONFIGURE)
	@$(FUZZ_BUILD_TARGETS)
	bash scripts/fuzz-run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The chaos suites at full size on a control plane (and moto) started for them in CHAOS_WORK:
# kwok (50 SIGKILLs, 10 leader flaps, 3 restarts each of kube-apiserver and etcd, a minute of
# instances that never register), then AWS (throttling, 5xx, a lost CreateFleet answer, no
# capacity anywhere, 20 SIGKILLs). One JSON line per test in CHAOS_WORK/report.jsonl;
# CHAOS_SEED repeats a run.
CHAOS_WORK ?= /tmp/nodesmith-chaos
CHAOS_SEED ?=
CHAOS_PYTHON = "$$(bash -c 'source scripts/testenv/versions.sh && python_venv_dir')/bin/python"
CHAOS_ARGS = --size full --report $(CHAOS_WORK)/report.jsonl $(if $(CHAOS_SEED),--seed $(CHAOS_SEED))
chaos: binary testenv
	@rm -rf $(CHAOS_WORK) && mkdir -p $(CHAOS_WORK)
	@bash scripts/testenv/up $(CHAOS_WORK)/testenv >/dev/null
	@bash scripts/testenv/moto start $(CHAOS_WORK)/moto >/dev/null
	@status=0; \
	  $(CHAOS_PYTHON) tests/e2e/chaos_e2e.py ./$(BUILD)/nodesmith . $(CHAOS_WORK)/testenv \
	    ../shared/data $(CHAOS_ARGS) || status=$$?; \
	  $(CHAOS_PYTHON) tests/e2e/aws_chaos_e2e.py ./$(BUILD)/nodesmith . $(CHAOS_WORK)/testenv \
	    $(CHAOS_WORK)/moto ../shared/data $(CHAOS_ARGS) || status=$$?; \
	  bash scripts/testenv/moto stop $(CHAOS_WORK)/moto; bash scripts/testenv/down $(CHAOS_WORK)/testenv; \
	  cat $(CHAOS_WORK)/report.jsonl; exit $$status

# nodesmith under load on a control plane of its own (bench/load_run.py): LOAD_PODS pods at once,
# then LOAD_MINUTES of churn (20 pods a second in and out, a compressed diurnal day every
# LOAD_DAY_MINUTES); fails on a request rate above the client's limit, an error storm, memory
# that grows from day to day, or a NodeClaim deleted with no logged decision. Figures in
# LOAD_WORK/load.json (docs/RELIABILITY.md, "Load").
LOAD_PODS ?= 10000
LOAD_MINUTES ?= 60
LOAD_DAY_MINUTES ?= 20
LOAD_WORK ?= /tmp/nodesmith-load
load: binary testenv
	$(CHAOS_PYTHON) bench/load_run.py ./$(BUILD)/nodesmith . $(LOAD_WORK) --pods $(LOAD_PODS) \
	  --churn-minutes $(LOAD_MINUTES) --day-minutes $(LOAD_DAY_MINUTES) --json $(LOAD_WORK)/load.json

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
