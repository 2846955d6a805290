// The one module of the demo that imports @acp-fs/wasm: the engine (AcpFs and its ACP glue) and
// the CodeMirror binding. The demo's ACP v2 mode serves the MCP tools (`fs.mcpOverAcp`), so the
// entry it needs is the one that carries them; choosing another entry is a change here only.

export { init, AcpFs, acpClientHandlers, toRequestError } from '@acp-fs/wasm/full';
export { bindCodeMirror } from '@acp-fs/wasm/codemirror';
