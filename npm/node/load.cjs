// Which engine @acp-fs/node runs: the native addon of this platform (through the loader that
// `napi build` generated, binding.js), or, when none loads, the same engine compiled to wasm and
// carried in this package (wasm/engine.cjs) over the local disk through node:fs. Shared by the ESM
// and CommonJS entries, so both report the same backend.
'use strict';

/** The first line of each error in a load-error chain (`cause` links), deduplicated. */
function reasons(err) {
  const out = [];
  for (let e = err, depth = 0; e && depth < 16; e = e.cause, depth += 1) {
    const line = String(e && e.message !== undefined ? e.message : e).split('\n')[0].trim();
    if (line && !out.includes(line)) out.push(line);
  }
  return out;
}

/**
 * napi's loader names a Windows x64 addon by the toolchain that built Node (MSVC Node looks for
 * win32-x64-msvc, a MinGW Node for win32-x64-gnu). Ours is built with MinGW (the one Windows
 * toolchain a Linux machine can install from its package registry), and N-API is a C ABI looked up
 * at run time, so it serves MSVC-built Node and Electron too: look for it under its own name.
 */
function windowsGnu() {
  const tries = ['./acp-fs.win32-x64-gnu.node', '@acp-fs/node-win32-x64-gnu'];
  const errors = [];
  for (const id of tries) {
    try {
      return { binding: require(id), errors };
    } catch (e) {
      errors.push(e);
    }
  }
  return { binding: null, errors };
}

function loadNative() {
  try {
    return { binding: require('./binding.js') };
  } catch (e) {
    if (process.platform === 'win32' && process.arch === 'x64') {
      const gnu = windowsGnu();
      if (gnu.binding) return { binding: gnu.binding };
      return { error: e, more: gnu.errors };
    }
    return { error: e, more: [] };
  }
}

function load() {
  const force = process.env.ACP_FS_FORCE_WASM;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') {
    return { backend: 'wasm', reason: `ACP_FS_FORCE_WASM=${force} forces the wasm engine`, binding: require('./wasm/engine.cjs').binding };
  }
  const native = loadNative();
  if (native.binding) return { backend: 'native', reason: null, binding: native.binding };
  // napi's own summary line and its WASI candidates (this package ships none) say nothing useful.
  const noise = /^Cannot find native binding|wasm32-wasi|\.wasi\.cjs/;
  const why = [...reasons(native.error), ...native.more.flatMap(reasons)].filter((l) => !noise.test(l));
  const reason =
    `no native binding loaded for ${process.platform}-${process.arch}` +
    (process.versions && process.versions.electron ? ` (Electron ${process.versions.electron})` : '') +
    `, running the wasm engine: ${why.join('; ') || 'no reason given'}`;
  return { backend: 'wasm', reason, binding: require('./wasm/engine.cjs').binding };
}

const loaded = load();

/**
 * `AcpFs` and `agent` over the loaded backend, from the driver of the entry that asks (ESM and CJS
 * each bring their own driver module): natively, or on the wasm engine with the local disk
 * through `diskStorage(fs)` when `storage` is omitted.
 */
function wire({ createAcpFs, createAgent }, { diskStorage, diskCaveat }, fs) {
  const { backend, binding } = loaded;
  // The fallback's disk is the node:fs adapter, which says itself what it cannot promise here.
  const reason = backend === 'wasm' ? loaded.reason + diskCaveat(fs) : loaded.reason;
  const AcpFs =
    backend === 'native'
      ? createAcpFs(binding, { nativeDisk: true })
      : createAcpFs(binding, { defaultStorage: () => diskStorage(fs) });
  Object.defineProperties(AcpFs, {
    /** 'native' (this platform's N-API addon) or 'wasm' (the fallback). */
    backend: { value: backend, enumerable: true },
    /** Why the native addon is not in use, or null when it is. */
    backendReason: { value: reason, enumerable: true },
  });
  return { AcpFs, agent: createAgent(binding) };
}

module.exports = { ...loaded, wire };
