#!/usr/bin/env bash
# Cross-builds the native addon of @acp-fs/node for the platforms Electron ships, on this Linux x64
# machine, and puts each into its platform package (npm/node/npm/<platform>). Run after
# scripts/build-node.sh (which builds the host's addon, the loader and the shared sources, and copies
# the licenses into every platform package).
# The toolchains come from package registries only; `./dev release` and `./dev test` install them
# (need_cross in ./dev) and cache what they can under .cache/:
#
#   target                      package        needs
#   aarch64-unknown-linux-gnu   linux-arm64-gnu  napi -x: cargo-zigbuild + Zig (PyPI `ziglang`), glibc 2.17 floor
#   x86_64-apple-darwin         darwin-x64       napi -x: cargo-zigbuild + Zig (no macOS SDK: the addon links
#   aarch64-apple-darwin        darwin-arm64       only system libraries, and napi-build passes -undefined
#                                                  dynamic_lookup); MACOSX_DEPLOYMENT_TARGET 10.15 / 11.0
#   x86_64-pc-windows-gnu       win32-x64-gnu    Debian gcc-mingw-w64 as the linker; napi's dyn-symbols (the
#                                                N-API functions are found in node.exe/electron.exe at load
#                                                time), and an empty libnode for napi-build to link (below)
#
# Usage: scripts/build-cross.sh [target...]   (default: all of the above)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
pkg=npm/node
cache="$root/.cache"
export PATH="$cache/bin:$cache/py/bin:$PATH"
export PYTHONPATH="$cache/py${PYTHONPATH:+:$PYTHONPATH}"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(aarch64-unknown-linux-gnu x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu)
fi

platform_of() {
  case "$1" in
    aarch64-unknown-linux-gnu) echo linux-arm64-gnu ;;
    x86_64-unknown-linux-musl) echo linux-x64-musl ;;
    x86_64-apple-darwin) echo darwin-x64 ;;
    aarch64-apple-darwin) echo darwin-arm64 ;;
    x86_64-pc-windows-gnu) echo win32-x64-gnu ;;
    *) echo "build-cross: unknown target $1" >&2; exit 2 ;;
  esac
}

# napi-build (2.x) insists on a libnode.dll for windows-gnu and links `-lnode`. With dyn-symbols
# nothing is taken from it, so an empty archive satisfies the link (ld prefers libnode.a to
# libnode.dll) and the DLL imports nothing but Windows' own libraries (checked below).
libnode_stub() {
  local dir="$cache/libnode-stub"
  mkdir -p "$dir"
  [ -f "$dir/libnode.a" ] || printf '!<arch>\n' >"$dir/libnode.a"
  [ -f "$dir/libnode.dll" ] || : >"$dir/libnode.dll"
  echo "$dir"
}

for target in "${targets[@]}"; do
  platform=$(platform_of "$target")
  start=$SECONDS
  cross=(-x)
  env=()
  case "$target" in
    *-windows-gnu)
      cross=()
      env=(LIBNODE_PATH="$(libnode_stub)")
      ;;
    # Zig would otherwise stamp its own (recent) macOS as the minimum: the oldest macOS that Node 20
    # and current Electron run on (10.15 on Intel; Apple silicon starts at 11).
    x86_64-apple-darwin) env=(MACOSX_DEPLOYMENT_TARGET=10.15) ;;
    aarch64-apple-darwin) env=(MACOSX_DEPLOYMENT_TARGET=11.0) ;;
  esac
  echo "build-cross: $target -> $pkg/npm/$platform"
  env "${env[@]}" node_modules/.bin/napi build --platform --release --target "$target" "${cross[@]}" \
    --cwd "$pkg" --manifest-path ../../bindings-node/Cargo.toml --package-json-path package.json \
    --output-dir . --no-js --dts binding.d.ts
  node_file="$pkg/acp-fs.$platform.node"
  case "$target" in
    *-windows-gnu)
      x86_64-w64-mingw32-strip --strip-unneeded "$node_file"
      # Only Windows' own DLLs: a libnode.dll import would make the addon unloadable.
      imports=$(x86_64-w64-mingw32-objdump -p "$node_file" | awk '/DLL Name:/ {print $3}' | sort -u | tr '\n' ' ')
      echo "build-cross: $platform imports $imports"
      if echo "$imports" | grep -qi 'node'; then
        echo "build-cross: $node_file imports a node DLL: dyn-symbols is not in effect" >&2
        exit 1
      fi
      ;;
  esac
  mkdir -p "$pkg/npm/$platform"
  cp "$node_file" "$pkg/npm/$platform/"
  echo "build-cross: $platform done in $((SECONDS - start)) s ($(wc -c <"$node_file") bytes)"
done
