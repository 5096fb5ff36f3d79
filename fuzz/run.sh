#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (default 600): bash fuzz/run.sh [SECONDS] [TARGET...]
# Needs the nightly toolchain and cargo-fuzz (installed here if missing). FUZZ_BUILD: extra
# cargo-fuzz build flags (CI's smoke run passes --dev).
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-600}"
shift || true
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(json_config codec_differential)
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  echo "=== fuzz $t for ${secs}s"
  # A scratch copy of the committed seeds, so new corpus entries do not pile up in git.
  work="$(mktemp -d)"
  cp -r "corpus/$t/." "$work/"
  # shellcheck disable=SC2086
  cargo +nightly fuzz run ${FUZZ_BUILD:-} "$t" "$work" -- -max_total_time="$secs" -print_final_stats=1
  rm -rf "$work"
done
