#!/usr/bin/env bash
# Builds @acp-fs/wasm (npm/wasm) from the acp-fs-wasm crate: cargo (wasm32-unknown-unknown) ->
# wasm-bindgen --target web -> wasm-opt -Oz, twice (the fs/* module and the full one), then
# copies the shared driver, types and adapters into the package so `npm pack` is self-contained.
# Idempotent; prints each .wasm's size raw and gzipped.
#
# Traps avoided on purpose (docs/toolchain.md#the-wasm-package): no wasm-pack (it downloads tools),
# no Debian binaryen (its wasm-opt writes modules that fail to instantiate), no `strip` in the
# release profile (wasm-bindgen needs the target_features section).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

PKG=npm/wasm

# The CLI must be exactly the version of the wasm-bindgen crate in Cargo.lock: the generated JS
# and the module's custom section have to agree.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  echo "build-wasm: wasm-bindgen CLI ${have:-missing}, Cargo.lock wants $want:" >&2
  echo "  cargo install wasm-bindgen-cli --version =$want   (without --locked)" >&2
  exit 1
fi

# Four modules (docs/design.md#two-builds-of-the-wasm-engine): `pkg/` serves fs/* alone, what
# `@acp-fs/wasm` loads and a web page downloads; `pkg-merge/` is the three-way merge `pkg/` leaves
# out, which its driver loads the first time a stale write needs it
# (docs/design.md#the-merge-module); `pkg-rpc/` reads raw JSON-RPC messages and writes their
# replies for `pkg/`, loaded the first time one comes (docs/design.md#the-json-rpc-module);
# `pkg-full/` adds the MCP tools and the agent's side (feature `full`), what `@acp-fs/wasm/full`
# loads. A cargo build replaces the .wasm an earlier one of the
# same crate wrote, so each is taken through wasm-bindgen before the next.
module() { # out-dir cargo-profile cargo-package [cargo args...]
  local out=$PKG/$1 profile=$2 package=$3
  shift 3
  local name=${package//-/_}
  local RAW="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$profile/$name.wasm"
  cargo build --profile "$profile" --target wasm32-unknown-unknown -p "$package" "$@"
  rm -rf "$out"
  wasm-bindgen --target web --out-dir "$out" --out-name "$name" "$RAW"
  # wasm-bindgen writes a package.json and .gitignore of its own; the package is npm/wasm.
  rm -f "$out/package.json" "$out/.gitignore"
  # The passes, and why: scripts/wasm-opt-module.sh.
  scripts/wasm-opt-module.sh "$out/${name}_bg.wasm" "$out/${name}_bg.opt.wasm"
  mv "$out/${name}_bg.opt.wasm" "$out/${name}_bg.wasm"
  local wasm=$out/${name}_bg.wasm
  echo "build-wasm: cargo output $(wc -c <"$RAW") bytes; $wasm $(wc -c <"$wasm") bytes raw," \
    "$(gzip -9 -c "$wasm" | wc -c) bytes gzip -9; JS glue $(wc -c <"$out/$name.js") bytes"
}
# The fs/* module is built with the `wasm-fs` profile (Cargo.toml says why), LLVM's inliner less
# eager than at opt-level 3 (threshold 100 for its 250; docs/toolchain.md#the-inliner-of-the-fs-module),
# and a standard library of its own in which a panic traps at once, with no message to format
# (docs/toolchain.md#the-fs-modules-own-standard-library: RUSTC_BOOTSTRAP lets this stable
# rustc take its unstable flags, and only for this build). The full one is built with
# `release`. `--cfg acp_fs_small` has the engine's code a small read never runs (writes, errors,
# options, sessions) optimized for size (docs/toolchain.md#cold-code-optimized-for-size).
# --config joins .cargo/config.toml's flags (+simd128), it does not replace them. The merge
# and JSON-RPC modules are built as the fs/* one, with whose standard library they share the build.
small=(-Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size --config
  'target.wasm32-unknown-unknown.rustflags=["-C", "llvm-args=-inline-threshold=100", "-Z", "unstable-options", "-C", "panic=immediate-abort", "--cfg", "acp_fs_small"]')
RUSTC_BOOTSTRAP=1 module pkg wasm-fs acp-fs-wasm "${small[@]}"
RUSTC_BOOTSTRAP=1 module pkg-merge wasm-fs acp-fs-wasm-merge "${small[@]}"
RUSTC_BOOTSTRAP=1 module pkg-rpc wasm-fs acp-fs-wasm-rpc "${small[@]}"
module pkg-full release acp-fs-wasm --features full

# The shared driver, the types and the adapters, copied so the package stands alone.
copy_dir() { # src dst pattern...
  local src=$1 dst=$2
  shift 2
  rm -rf "$dst"
  mkdir -p "$dst"
  local found=0
  for pattern in "$@"; do
    for f in "$src"/$pattern; do
      [ -f "$f" ] || continue
      cp "$f" "$dst/"
      found=1
    done
  done
  if [ "$found" = 0 ]; then
    echo "build-wasm: nothing to copy from $src ($*)" >&2
    exit 1
  fi
}
copy_dir npm/shared "$PKG/shared" '*.mjs'
copy_dir npm/types "$PKG/types" '*.d.ts'
copy_dir npm/adapters "$PKG/adapters" '*.mjs' '*.d.ts'
# The package ships the licenses (MIT OR Apache-2.0), copied from the repository root.
cp LICENSE-MIT LICENSE-APACHE "$PKG/"
