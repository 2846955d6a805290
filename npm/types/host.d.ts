// Generated from core/src/host.rs and the types it names (ts-rs): do not edit.
// Regenerate: ACP_FS_BLESS=1 cargo test -p acp-fs --all-features host::generated

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;

export type HostInfo = { readMethod: string, writeMethod: string, fullCaps: StorageCaps, maxDepth: number, maxValues: number, loneSurrogate: string, 
/**
 * An `internal` error whose message holds `{message}` where the reason goes.
 */
internal: AcpFsError, 
/**
 * The `-32800` error of a cancelled request.
 */
cancelled: AcpFsError, };

export type HostAnswer = { error?: HostError, metadata?: HostMetadata, 
/**
 * The driver's number for the file `open` opened; `null` when it opened none.
 */
file?: number | null, path?: string, bytes?: true, done?: true, approved?: boolean, document?: DocumentWrite, entries?: Array<HostEntry>, 
/**
 * The merged text `merge` asked for; `null` where the edits overlap.
 */
merged?: string | null, };

export type HostError = { code?: string, name?: string, message?: string, };

export type HostMetadata = { kind: FileKind, size: number, links?: number, modifiedMs?: number, changedMs?: number, fileId?: string, };

export type HostEntry = { name: string, metadata: HostMetadata, };

export type HostOutcome = { result?: Response, error?: AcpFsError, change: ChangeRecord | null, staleDocument?: string, reply?: string, };

export type HostStep = { io: Io, bytes?: Uint8Array, 
/**
 * Performing the io changes files or an open buffer: once the driver has started it,
 * a cancellation no longer abandons the request.
 */
changes?: true, } | { done: HostOutcome, };

export type HostDispatch = { "kind": "notMine" } | { "kind": "reply", reply: string, } | { "kind": "cancel", id: string, } | { "kind": "call", id: string, method: 'fs/read_text_file' | 'fs/write_text_file', };

export type HostRequest = { method: 'fs/read_text_file' | 'fs/write_text_file', params: { sessionId: string; path: string; [k: string]: unknown }, } | { error: AcpFsError, };

export type Io = { "op": "stat", path: string, follow: boolean, } | { "op": "realPath", path: string, } | { "op": "readAll", path: string, } | { "op": "open", root: string, path: string, head: number, } | { "op": "readAt", file: number, offset: number, length: number, } | { "op": "close", file: number, } | { "op": "makeDirs", root: string, path: string, } | { "op": "write", root: string, path: string, } | { "op": "approve", change: ChangeRecord, } | { "op": "wait", path: string, } | { "op": "writeDocument", path: string, text: string, } | { "op": "list", root: string, path: string, } | { "op": "rename", root: string, from: string, to: string, } | { "op": "makeDir", root: string, path: string, } | { "op": "removeDir", root: string, path: string, } | { "op": "merge", base: string, current: string, ours: string, };

export type AcpFsError = { kind: ErrorKind, code: number, message: string, data: JsonValue, };

export type ErrorKind = "parse_error" | "invalid_request" | "method_not_found" | "invalid_params" | "not_found" | "path_outside_roots" | "symlink_escape" | "denied_by_pattern" | "not_a_file" | "hard_link" | "binary_file" | "not_utf8" | "file_too_large" | "permission_denied" | "user_rejected" | "stale_write" | "already_exists" | "cancelled" | "storage_error" | "internal";

export type ChangeRecord = { sessionId: string, path: string, created: boolean, 
/**
 * `None` when the file was created; the open buffer's text for an open document.
 */
oldText: string | null, 
/**
 * The text as stored: after line-ending conversion, without the BOM.
 */
newText: string, 
/**
 * The file had changed since the agent read it and `new_text` is the three-way merge of
 * both edits (semantics.md §9); only sent when true.
 */
merged?: true, kind?: 'move' | 'makeDir', from?: string, createdDirs?: Array<string>, };

export type AuditEvent = { 
/**
 * `"read"` or `"write"`.
 */
op: 'read' | 'write', sessionId: string | null, path: string | null, line: number | null, limit: number | null, 
/**
 * Bytes of text returned or written.
 */
bytes: number, 
/**
 * `"ok"`, `"error"` or `"cancelled"`.
 */
outcome: 'ok' | 'error' | 'cancelled', errorKind?: ErrorKind, 
/**
 * Filled by the driver, which owns a clock (the engine has none: wasm has no `Instant`).
 */
durationMs: number | null, traceparent?: string, };

export type DocumentWrite = "buffer" | "writeThrough";

export type FileKind = "file" | "directory" | "symlink" | "other";

export type StorageCaps = { 
/**
 * `resolvable`: real paths and lstat work. `none`: the storage has no symlinks (lexical
 * containment is the whole check). `unresolvable`: it has symlinks it cannot resolve, so
 * every request fails closed.
 */
symlinks: Symlinks, 
/**
 * `stat` works (non-regular files are refused before they are opened, sizes checked).
 */
stat: boolean, 
/**
 * `open` and `read_at` work: windows stream instead of reading whole files, and every
 * range of a request comes from one open file.
 */
rangedReads: boolean, write: boolean, makeDirs: boolean, list: boolean, rename: boolean, makeDir: boolean, };

export type Symlinks = "none" | "resolvable" | "unresolvable";

export type Response = ReadTextFileResponse | WriteTextFileResponse | JsonValue;

export type ReadTextFileResponse = { content: string, _meta?: { [key in string]?: JsonValue }, };

export type WriteTextFileResponse = { _meta?: { [key in string]?: JsonValue }, };

export type FileSystemCapability = { readTextFile: boolean, writeTextFile: boolean, };
