// What the editor itself knows about a file's bytes: text or not, its BOM, its line endings. The
// agent never goes through here (acp-fs decodes for it); the rules are acp-fs's, so that the tree
// and the editor show a file the way the agent will get it.

const utf8 = new TextEncoder();
const BOM = [0xef, 0xbb, 0xbf];

/** The editor's own decoding, matching acp-fs's rules so that both sides agree on a file. */
export function inspect(bytes) {
  if (bytes.subarray(0, 8192).includes(0)) return { kind: 'binary', size: bytes.length };
  const bom = bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2];
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bom ? bytes.subarray(3) : bytes);
  } catch {
    return { kind: 'not-utf8', size: bytes.length };
  }
  const nl = text.indexOf('\n');
  const eol = nl > 0 && text[nl - 1] === '\r' ? '\r\n' : '\n';
  return { kind: 'text', text, bom, eol, lines: countLines(text), size: bytes.length };
}

/** Lines as an editor numbers them: a final terminator does not start another line. */
export function countLines(text) {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** UTF-8 bytes of `text`, behind a BOM when the file had one. */
export function encode(text, bom) {
  const body = utf8.encode(text);
  if (!bom) return body;
  const out = new Uint8Array(body.length + 3);
  out.set(BOM);
  out.set(body, 3);
  return out;
}
