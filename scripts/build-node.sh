#!/usr/bin/env bash
# Builds @acp-fs/node (npm/node) and its linux-x64-gnu platform package from a checkout whose
# node_modules is installed: the native addon, the generated loader, the shared driver (ESM copy
# and CJS bundle) and the shared type declarations. Idempotent; pass --debug for a debug addon.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
pkg=npm/node

release=--release
if [ "${1:-}" = "--debug" ]; then release=; fi

node_modules/.bin/napi build --platform $release \
  --cwd "$pkg" --manifest-path ../../bindings-node/Cargo.toml --package-json-path package.json \
  --output-dir . --js binding.js --dts binding.d.ts

# The packed package must be self-contained, so the shared sources are copied into it.
rm -rf "$pkg/shared"
mkdir -p "$pkg/shared"
cp npm/shared/*.mjs "$pkg/shared/"
node_modules/.bin/esbuild "$pkg/src/driver-cjs.mjs" --bundle --format=cjs --platform=node \
  --target=node20 --log-level=warning --outfile="$pkg/shared/driver.cjs"

# The wasm fallback: @acp-fs/wasm's full module (built by scripts/build-wasm.sh: the addon's
# MCP tools and agent side are in it too) and its guarded engine,
# carried inside this package as one CommonJS file plus the .wasm, so it loads synchronously from
# both entries and needs no second package.
wasm_pkg=npm/wasm/pkg-full
if [ ! -f "$wasm_pkg/acp_fs_wasm_bg.wasm" ]; then
  echo "build-node: $wasm_pkg missing: run scripts/build-wasm.sh first (the wasm fallback carries it)" >&2
  exit 1
fi
rm -rf "$pkg/wasm"
mkdir -p "$pkg/wasm"
# The guard imports the driver's helpers from @acp-fs/wasm's copy of npm/shared (made by
# scripts/build-wasm.sh): refreshed here, so an edit of npm/shared is never bundled stale.
cp npm/shared/*.mjs npm/wasm/shared/
node_modules/.bin/esbuild "$pkg/src/wasm-fallback.mjs" --bundle --format=cjs --platform=node \
  --target=node20 --log-level=error --outfile="$pkg/wasm/engine.cjs"
cp "$wasm_pkg/acp_fs_wasm_bg.wasm" "$pkg/wasm/"

# One hand-written declaration file serves both module systems (and both packages).
cp npm/types/acp-fs.d.ts "$pkg/index.d.mts"
cp npm/types/acp-fs.d.ts "$pkg/index.d.cts"
# The types they import, generated from the Rust core (core/src/host.rs, core/src/typegen.rs).
cp npm/types/host.d.ts "$pkg/host.d.ts"
cp npm/types/api.d.ts "$pkg/api.d.ts"
# The editor bindings' entries (./codemirror, ./monaco) declare their types beside the shared
# declarations they import, as in @acp-fs/wasm.
rm -rf "$pkg/types"
mkdir -p "$pkg/types"
cp npm/types/*.d.ts "$pkg/types/"

# `napi build --strip` has no effect in @napi-rs/cli 3.10 (docs/toolchain.md#napi-build---strip-does-nothing), so strip
# release addons here: symbols are a quarter of the file and nobody debugs a published addon.
# Only the host's addon: the cross-built ones beside it (scripts/build-cross.sh) are not ELF x64.
if [ -n "$release" ] && [ "$(uname -s)" = Linux ] && [ "$(uname -m)" = x86_64 ] && command -v strip >/dev/null; then
  strip --strip-unneeded "$pkg/acp-fs.linux-x64-gnu.node"
fi

# Every package ships the licenses (MIT OR Apache-2.0), copied from the repository root.
for dir in "$pkg" "$pkg"/npm/*/; do cp LICENSE-MIT LICENSE-APACHE "$dir"; done

# Each platform package (npm/node/npm/<platformArchABI>) carries its addon; the main package finds
# it through optionalDependencies, or beside its loader during development.
for node_file in "$pkg"/acp-fs.*.node; do
  platform="$(basename "$node_file" .node)"
  platform="${platform#acp-fs.}"
  if [ -d "$pkg/npm/$platform" ]; then cp "$node_file" "$pkg/npm/$platform/"; fi
done
echo "built $pkg ($(ls "$pkg"/acp-fs.*.node | xargs -n1 basename | tr '\n' ' '))"
