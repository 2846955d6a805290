#!/usr/bin/env bash
# Builds the in-browser demo into examples/browser-demo/dist/: one esbuild bundle (the page,
# CodeMirror 6, the official ACP SDK, @zenfs/core, @acp-fs/wasm's driver, glue and CodeMirror
# binding) plus the wasm module, the HTML, the CSS and the icon. Fully offline: everything comes from node_modules and npm/wasm.
# Idempotent: the output is rebuilt from scratch in a temporary directory and swapped in.
#
# Needs: node_modules (npm install) and the wasm package (scripts/build-wasm.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

DEMO=examples/browser-demo
OUT=$DEMO/dist
WASM_PKG=npm/wasm
# The full module: the demo serves the files as MCP tools in its ACP v2 mode.
WASM_FILE=$WASM_PKG/pkg-full/acp_fs_wasm_bg.wasm
ESBUILD=node_modules/.bin/esbuild

if [ ! -x "$ESBUILD" ]; then
  echo "build-demo: $ESBUILD missing: run npm install first" >&2
  exit 1
fi
if [ ! -f "$WASM_PKG/package.json" ] || [ ! -f "$WASM_FILE" ]; then
  echo "build-demo: the wasm package is not built ($WASM_PKG/package.json, $WASM_FILE): run scripts/build-wasm.sh" >&2
  exit 1
fi

TMP="$OUT.tmp.$$"
trap 'rm -rf "$TMP"' EXIT
rm -rf "$TMP"
mkdir -p "$TMP"

# @acp-fs/wasm is resolved to the package in this repository, exactly as an app would get it
# from npm: a node_modules of its own (under out/, gitignored) links it, so its package.json
# `exports` decide the entries (`./full` and `./codemirror`). @zenfs/core and the SDK bundle without
# Node polyfills (docs/toolchain.md#the-browser-tests), so none are configured: a Node built-in
# sneaking in fails the build instead of shipping a broken page.
# Minified, as a page is shipped: the README's first command serves it, and unminified it was
# 1.9 MB of JS (0.95 MB minified). The source map beside it keeps the page readable in DevTools.
MODULES="$PWD/out/demo-modules"
mkdir -p "$MODULES/@acp-fs"
ln -sfn "$PWD/$WASM_PKG" "$MODULES/@acp-fs/wasm"
NODE_PATH="$MODULES" "$ESBUILD" "$DEMO/src/main.mjs" \
  --bundle --format=esm --platform=browser --target=es2022 --minify \
  --sourcemap --legal-comments=none --log-level=warning \
  --outfile="$TMP/demo.js"

# The wasm-bindgen glue loads its module from new URL('acp_fs_wasm_bg.wasm', import.meta.url):
# beside the bundle.
cp "$WASM_FILE" "$TMP/acp_fs_wasm_bg.wasm"
cp "$DEMO/index.html" "$DEMO/style.css" "$DEMO/favicon.svg" "$TMP/"

rm -rf "$OUT"
mv "$TMP" "$OUT"
trap - EXIT

js=$(wc -c <"$OUT/demo.js")
js_gz=$(gzip -9 -c "$OUT/demo.js" | wc -c)
wasm=$(wc -c <"$OUT/acp_fs_wasm_bg.wasm")
wasm_gz=$(gzip -9 -c "$OUT/acp_fs_wasm_bg.wasm" | wc -c)
echo "build-demo: $OUT ready (demo.js $js bytes, $js_gz gzip -9; acp_fs_wasm_bg.wasm $wasm bytes, $wasm_gz gzip -9); serve it with: node scripts/serve-demo.mjs"
