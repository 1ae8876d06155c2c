#!/usr/bin/env bash
# Installs what `make fuzz` needs on top of scripts/install-deps.sh, only what is missing.
# Kept apart so that `make test` (which replays the fuzz corpora with GCC) never needs clang:
# libFuzzer ships only with clang, and its runtime is a separate Debian package.
set -euo pipefail
packages=(
  clang                  # clang++ 14, the compiler of -fsanitize=fuzzer
  libclang-rt-14-dev     # libFuzzer and the ASan/UBSan runtimes clang links
)
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
