#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (see fuzz/README.md).
#   scripts/fuzz.sh [seconds-per-target]     default 30; ./dev test runs 20 (FUZZ_SECONDS)
#   scripts/fuzz.sh 0                        replay the committed corpus only (no fuzzing)
#   FUZZ_TARGETS="window" scripts/fuzz.sh 600   only some targets
# Exits non-zero when a target crashes, and prints the reproducer's path.
#
# cargo fuzz needs nightly compiler flags. A nightly toolchain is used when one is installed or
# can be installed; otherwise stable with RUSTC_BOOTSTRAP=1 (unstable flags on a stable
# compiler, fine for a test harness), with AddressSanitizer if that builds, else without.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-30}"
read -r -a targets <<<"${FUZZ_TARGETS:-dispatch window}"
note() { printf '    fuzz: %s\n' "$*"; }

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  note "installing cargo-fuzz (once per machine)"
  cargo install cargo-fuzz --locked
fi

toolchain=()
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  toolchain=(+nightly)
elif rustup toolchain install nightly --profile minimal >/dev/null 2>&1; then
  note "installed a minimal nightly toolchain"
  toolchain=(+nightly)
else
  note "no nightly toolchain: stable with RUSTC_BOOTSTRAP=1"
  export RUSTC_BOOTSTRAP=1
fi

# ASan where it builds (it does on x86_64 Linux, nightly or stable); a build failure for any
# other reason fails again below without a sanitizer and is reported then.
mkdir -p fuzz/target
sanitizer="${FUZZ_SANITIZER:-address}"
if ! cargo "${toolchain[@]}" fuzz build -s "$sanitizer" >fuzz/target/build.log 2>&1; then
  note "build with -s $sanitizer failed; building without a sanitizer (see fuzz/target/build.log)"
  sanitizer=none
  cargo "${toolchain[@]}" fuzz build -s none
fi
rm -f fuzz/target/build.log

# libFuzzer reads -max_total_time=0 as "forever": 0 here means one pass over the corpus.
if [ "$seconds" = 0 ]; then budget=(-runs=0); else budget=(-max_total_time="$seconds"); fi

status=0
for t in "${targets[@]}"; do
  # New finds go to a scratch corpus under fuzz/target (ignored); the committed seeds are only
  # read, so a run never dirties the tree. Promote a find with `cp` when it is worth keeping.
  scratch="fuzz/target/corpus/$t"
  mkdir -p "$scratch" "fuzz/artifacts/$t"
  log="fuzz/target/fuzz-$t.log"
  before=$(mktemp)
  note "$t: ${budget[*]} (sanitizer: $sanitizer, log: $log)"
  if cargo "${toolchain[@]}" fuzz run -s "$sanitizer" "$t" "$scratch" "fuzz/corpus/$t" -- \
    "${budget[@]}" -timeout=20 -print_final_stats=1 >"$log" 2>&1; then
    note "$t: $(grep -E '^Done [0-9]+ runs' "$log" | tail -1), no crash"
  else
    status=1
    tail -n 40 "$log"
    crash=$(find "fuzz/artifacts/$t" -type f -newer "$before" | head -1)
    echo "FUZZ FAILURE in target $t" >&2
    if [ -n "$crash" ]; then
      echo "  reproducer: $crash" >&2
      echo "  replay:     cargo ${toolchain[*]} fuzz run -s $sanitizer $t $crash" >&2
    fi
  fi
  rm -f "$before"
done
exit "$status"
