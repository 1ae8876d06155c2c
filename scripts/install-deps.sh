#!/usr/bin/env bash
# Installs the Debian packages nodesmith needs, only those missing. Safe to run repeatedly; does
# nothing when everything is present.
#
#   scripts/install-deps.sh          what `make build` and `make demo` need
#   scripts/install-deps.sh fuzz     also what `make test` and `make fuzz` need
#
# The fuzz group is kept apart so that building and trying nodesmith never needs clang: libFuzzer
# ships only with clang, and its runtime is a separate Debian package; `make test` runs the
# libFuzzer targets briefly, `make fuzz` as long as asked.
set -euo pipefail
packages=(
  g++ cmake make pkg-config git python3
  python3-venv           # the virtualenv of the Python test packages (scripts/testenv/build)
  libyaml-cpp-dev        # YAML/JSON manifest parsing
  nlohmann-json3-dev     # JSON object model and output
  libsimdjson-dev        # the hot JSON parse: the API server's list pages and watch frames
  libcli11-dev           # command-line parsing
  coinor-libclp-dev      # LP lower bounds (COIN-OR CLP)
  libgtest-dev libgmock-dev  # unit tests
  libbenchmark-dev       # benchmarks
  libcurl4-openssl-dev   # HTTPS to the Kubernetes API server (libcurl over OpenSSL)
  libssl-dev             # TLS material: client certificates and keys, CA bundles; SigV4's HMAC-SHA256
  libpugixml-dev         # XML answers of the EC2, STS and IAM query protocols
  python3-botocore       # the reference SigV4 signer and serializers of the AWS differential test
  openssl                # certificates of the test control plane (scripts/testenv/up)
  curl                   # tests compact the test etcd through its JSON gateway
  time                   # /usr/bin/time -v: peak RSS figures in docs/PERFORMANCE.md
  chromium               # renders the simulation report in tests/report_screenshot.sh
)
fuzz_packages=(
  clang                  # clang++ 14, the compiler of -fsanitize=fuzzer
  libclang-rt-14-dev     # libFuzzer and the ASan/UBSan runtimes clang links
)
case "${1:-}" in
  "") ;;
  fuzz) packages+=("${fuzz_packages[@]}") ;;
  *) echo "install-deps.sh: unknown group '$1' (known: fuzz)" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "Installing missing packages: ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
