#!/usr/bin/env bash
# Optimizes one wasm-bindgen module the way @acp-fs/wasm ships it: the passes live here only, for
# scripts/build-wasm.sh and for bench/wasm-profile.mjs (which adds -g to keep function names).
#   scripts/wasm-opt-module.sh IN.wasm OUT.wasm [more wasm-opt flags...]
#
# wasm-opt reads the target_features section, then drops it and the producers section with the
# rest: nothing loads them at run time (docs/toolchain.md#no-strip-in-the-release-profile).
# Functions that differ only in constants are merged first (docs/toolchain.md#merged-look-alike-functions).
# The npm binaryen package's wasm-opt, not Debian's (docs/toolchain.md#the-wasm-package).
set -euo pipefail
in=$1 out=$2
shift 2
wasm_opt="$(dirname "$0")/../node_modules/.bin/wasm-opt"
if [ ! -x "$wasm_opt" ]; then
  echo "wasm-opt-module: $wasm_opt missing: run npm install" >&2
  exit 1
fi
"$wasm_opt" --merge-similar-functions -Oz --strip-producers --strip-target-features "$@" "$in" -o "$out"
