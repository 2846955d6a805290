// A small Mach-O reader: enough to check a macOS addon built on Linux, where it cannot run.
// 64-bit little-endian Mach-O only (every macOS Node is), thin files (one architecture each).

const CPU = { 0x01000007: 'x86_64', 0x0100000c: 'arm64' };
const FILETYPE = { 6: 'dylib', 8: 'bundle' };
const LC_SYMTAB = 0x2;
const LC_LOAD_DYLIB = 0xc;
const LC_BUILD_VERSION = 0x32;
const LC_DYLD_INFO_ONLY = 0x22; // with LC_REQ_DYLD, masked off below
const LC_DYLD_EXPORTS_TRIE = 0x33;
const LC_CODE_SIGNATURE = 0x1d;
const N_EXT = 0x01;
const N_TYPE = 0x0e;
const N_SECT = 0x0e;
const N_UNDF = 0x0;

function uleb(buf, at) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = buf[at];
    at += 1;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

/** The names in a dyld export trie (what dlsym finds), walked from its root. */
function trieNames(buf, start, size) {
  const names = [];
  const walk = (offset, prefix, depth) => {
    if (offset >= size || depth > 128) return;
    let at = start + offset;
    let terminal;
    [terminal, at] = uleb(buf, at);
    if (terminal > 0) names.push(prefix);
    at += terminal;
    const children = buf[at];
    at += 1;
    for (let i = 0; i < children; i += 1) {
      const end = buf.indexOf(0, at);
      const edge = buf.toString('latin1', at, end);
      let child;
      [child, at] = uleb(buf, end + 1);
      walk(child, prefix + edge, depth + 1);
    }
  };
  walk(0, '', 0);
  return names;
}

/**
 * `{cpu, filetype, dylibs, exports, trie, undefined, minos, signed}` of a Mach-O 64 image, or throws why
 * not: `exports` are the symbol table's defined externals, `trie` the names dyld can look up.
 */
export function readMachO(buf) {
  if (buf.length < 32) throw new Error('too short for a Mach-O header');
  const magic = buf.readUInt32LE(0);
  if (magic === 0xcafebabe || magic === 0xbebafeca) throw new Error('a universal (fat) file, not a thin one');
  if (magic !== 0xfeedfacf) throw new Error(`not a 64-bit little-endian Mach-O (magic 0x${magic.toString(16)})`);
  const cputype = buf.readUInt32LE(4);
  const filetype = buf.readUInt32LE(12);
  const ncmds = buf.readUInt32LE(16);
  const out = {
    cpu: CPU[cputype] ?? `0x${cputype.toString(16)}`,
    filetype: FILETYPE[filetype] ?? filetype,
    dylibs: [],
    exports: [],
    trie: [],
    undefined: [],
    minos: null,
    signed: false,
  };
  let off = 32;
  for (let i = 0; i < ncmds; i += 1) {
    const cmd = buf.readUInt32LE(off) & 0x7fffffff;
    const size = buf.readUInt32LE(off + 4);
    if (cmd === LC_LOAD_DYLIB) {
      const nameOff = buf.readUInt32LE(off + 8);
      const end = buf.indexOf(0, off + nameOff);
      out.dylibs.push(buf.toString('utf8', off + nameOff, end));
    } else if (cmd === LC_DYLD_INFO_ONLY || cmd === LC_DYLD_EXPORTS_TRIE) {
      const [at, size] = cmd === LC_DYLD_INFO_ONLY ? [off + 40, off + 44] : [off + 8, off + 12];
      const exportOff = buf.readUInt32LE(at);
      const exportSize = buf.readUInt32LE(size);
      if (exportSize > 0) out.trie.push(...trieNames(buf, exportOff, exportSize));
    } else if (cmd === LC_CODE_SIGNATURE) {
      out.signed = true;
    } else if (cmd === LC_BUILD_VERSION) {
      const v = buf.readUInt32LE(off + 12);
      out.minos = `${v >>> 16}.${(v >>> 8) & 0xff}`;
    } else if (cmd === LC_SYMTAB) {
      const symoff = buf.readUInt32LE(off + 8);
      const nsyms = buf.readUInt32LE(off + 12);
      const stroff = buf.readUInt32LE(off + 16);
      for (let s = 0; s < nsyms; s += 1) {
        const at = symoff + s * 16;
        const strx = buf.readUInt32LE(at);
        const type = buf.readUInt8(at + 4);
        const name = buf.toString('latin1', stroff + strx, buf.indexOf(0, stroff + strx));
        if ((type & N_EXT) === 0) continue;
        if ((type & N_TYPE) === N_SECT) out.exports.push(name);
        else if ((type & N_TYPE) === N_UNDF) out.undefined.push(name);
      }
    }
    off += size;
  }
  return out;
}
