// Generated from the Rust types (ts-rs) by core/src/typegen.rs: do not edit.
// Regenerate: ACP_FS_BLESS=1 cargo test -p acp-fs --all-features typegen

export type { FileSystemCapability, ReadTextFileResponse, StorageCaps, Symlinks, WriteTextFileResponse } from './host.js';

/**
 * The engine's options: the camelCase JSON the JS packages take (`new AcpFs(options)`), or
 * field by field in Rust. Every option may be left out (its default); an unknown key is refused
 * (`-32602` naming it). The table of them all: `docs/options.md`.
 */
export type EngineOptions = { 
/**
 * A start line past the end: `'error'` (default, Zed-compatible `-32602`) or `'empty'` (`""`).
 */
pastEnd?: "error" | "empty", 
/**
 * Malformed optional fields (`line`, `limit`, `_meta`) count as absent instead of `-32602`.
 * Default false.
 */
lenientParams?: boolean, 
/**
 * `'preserve'` (default) keeps an existing CRLF file CRLF when the new content has no `\r`;
 * `'asIs'` writes bytes as sent.
 */
lineEndings?: "preserve" | "asIs", 
/**
 * Writes create missing parent directories inside the roots. Default true.
 */
createParents?: boolean, 
/**
 * Deny rules (semantics.md §8): globs on file names, `dir/` for directories, `write:` for
 * write-only rules. Default `[".env*", "*.pem", "*.key", "id_rsa*", "write:.git/"]`;
 * `false` or `[]` turns it off.
 */
deny?: boolean | Array<string>, 
/**
 * Only files with these extensions (no dot, any case) are served. Default: any.
 */
allowExtensions?: Array<string>, 
/**
 * Whole-file reads larger than this are `file_too_large` (windows of larger files are
 * served). Default 10 MiB.
 */
maxReadBytes?: number, 
/**
 * Writes of more content than this are refused. Default 10 MiB.
 */
maxWriteBytes?: number, 
/**
 * Reads outside the roots answer `-32002`, as Zed does. Default false.
 */
zedCompat?: boolean, 
/**
 * Refuse `fs/write_text_file` (`-32601`) and advertise `writeTextFile: false`. Default false.
 */
readOnly?: boolean, 
/**
 * Roots for sessions the host never opened (one default policy); absent = such sessions
 * are unknown (`-32602`).
 */
roots?: Array<string>, 
/**
 * Host roots added to every session's root set.
 */
extraRoots?: Array<string>, 
/**
 * Refuse regular files with more than one hard link, for reads and writes (`hard_link`):
 * another name of the same file may lie outside the roots (semantics.md §8.2). Default
 * true; turn it off for trees that hard-link on purpose (pnpm's `node_modules`). Storages
 * without hard links report one link, so this only bites on real disks.
 */
refuseHardlinks?: boolean, 
/**
 * Memory the line index may hold for all files together (semantics.md §8 "Line index"):
 * windows deep in a file paged before start at the nearest remembered line; the least
 * recently used files are forgotten first. Default 16 MiB; 0 turns it off.
 */
lineIndexBytes?: number, 
/**
 * A write to a file that changed since the session's agent read it (semantics.md §9):
 * `'merge'` (default: a three-way merge, `stale_write` on overlap), `'reject'`
 * (`stale_write` on any change) or `'overwrite'`.
 */
onConflict?: "merge" | "reject" | "overwrite", 
/**
 * The read ledger keeps a whole-file read's text up to this size (a digest past it).
 * Default 1 MiB.
 */
ledgerFileBytes?: number, 
/**
 * Each session's read ledger stays under this many bytes (least recently used out first).
 * Default 16 MiB.
 */
ledgerSessionBytes?: number, 
/**
 * MCP listings, trees and searches stop after this many entries (or matches), with a note
 * the model can read (semantics.md §10). Default 10000.
 */
maxListEntries?: number, 
/**
 * MCP trees and searches descend at most this many directories below the path asked for.
 * Default 32.
 */
maxListDepth?: number, 
/**
 * An MCP tool's text answer (a listing, a tree, a search, several files) stops growing at
 * this many bytes, with a note. Default 1 MiB.
 */
maxToolOutputBytes?: number, 
/**
 * `read_media_file` refuses files larger than this (`file_too_large`). Default 10 MiB.
 */
maxMediaBytes?: number, };

/**
 * `fs/read_text_file` params (ACP v1).
 */
export type ReadTextFileRequest = { 
/**
 * The session whose roots the path must lie in.
 */
sessionId: string, 
/**
 * The file's absolute path.
 */
path: string, 
/**
 * 1-based start line; absent, `null` or `0` means 1.
 */
line?: number | null, 
/**
 * Number of lines; absent or `null` means to the end, `0` gives `""`.
 */
limit?: number | null, 
/**
 * ACP's extension point (`traceparent` goes into the audit event).
 */
_meta?: { [key: string]: unknown } | null, };

/**
 * `fs/write_text_file` params (ACP v1).
 */
export type WriteTextFileRequest = { 
/**
 * The session whose roots the path must lie in.
 */
sessionId: string, 
/**
 * The file's absolute path.
 */
path: string, 
/**
 * The complete new text of the file.
 */
content: string, 
/**
 * ACP's extension point (`traceparent` goes into the audit event).
 */
_meta?: { [key: string]: unknown } | null, };
