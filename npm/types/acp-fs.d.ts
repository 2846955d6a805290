// The public API of @acp-fs/node and @acp-fs/wasm: one hand-written declaration file, shared by
// both packages (behaviour: docs/semantics.md).

// What Rust defines is generated from the core: the values the engine produces (change records,
// audit events, error kinds) into host.d.ts, and the engine's options, the request and response
// types and the capability types into api.d.ts. This file declares the public class and functions
// around them, and what only JS has (storages, hooks).
import type { AuditEvent, ChangeRecord, DocumentWrite, ErrorKind } from './host.js';
import type {
  EngineOptions,
  FileSystemCapability,
  KnownAgent,
  ReadTextFileRequest,
  ReadTextFileResponse,
  SessionOptions,
  StorageCaps,
  WriteTextFileRequest,
  WriteTextFileResponse,
} from './api.js';
export type {
  AuditEvent,
  ChangeRecord,
  EngineOptions,
  FileSystemCapability,
  KnownAgent,
  ReadTextFileRequest,
  ReadTextFileResponse,
  SessionOptions,
  WriteTextFileRequest,
  WriteTextFileResponse,
};

/** A value, or a promise of it: every storage method and hook may be sync or async. */
export type MaybePromise<T> = T | PromiseLike<T>;

/** What `stat`/`lstat` return: a subset of `fs.Stats` (methods or booleans). */
export interface AcpFsStats {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink?(): boolean;
  size: number | bigint;
  /** Hard-link count; more than one is refused under `refuseHardlinks` (default 1 when absent). */
  nlink?: number | bigint;
  /** Device and inode: when both a stat and an open handle carry them, they must agree. */
  dev?: number | bigint;
  ino?: number | bigint;
}

/** A `FileHandle`-like object from `open(path, 'r')`, used for ranged reads. */
export interface AcpFsFileHandle {
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): MaybePromise<{ bytesRead: number }>;
  close(): MaybePromise<void>;
  /** The open file's own stats: a file swapped between the stat and the open is refused. */
  stat?(): MaybePromise<AcpFsStats>;
}

/** What `openFile` gives: the file's stats, and a handle only when it is a regular file. */
export interface AcpFsOpenedFile {
  stats: AcpFsStats;
  handle?: AcpFsFileHandle | null;
}

/**
 * What the engine may ask a storage (the fields of `WireCaps` in docs/binding-interface.md).
 * Derived from the storage's shape; `storage.capabilities` may override any of them.
 */
export type StorageCapabilities = StorageCaps;

/**
 * Any object shaped like a subset of `node:fs/promises`: `fs.promises`, memfs `vol.promises`,
 * ZenFS `fs.promises` plug in as they are. Methods are called with `this` bound to the storage
 * and may return a value or a promise. Errors they throw keep their `code`/`name` (`ENOENT`,
 * `NotFoundError`, …): the engine classifies them, and the error becomes the `cause` of the
 * `AcpFsError`.
 */
export interface AcpFsStorage {
  /** The whole file: bytes, or a string (taken as UTF-8). Required. */
  readFile(path: string): MaybePromise<Uint8Array | ArrayBuffer | string>;
  /** Creates or replaces a file. Without it the storage is read-only (`writeTextFile: false`). */
  writeFile?(path: string, data: Uint8Array): MaybePromise<unknown>;
  /**
   * Creates a directory and its parents (called with `{recursive: true}`); without `makeDir`, also
   * one directory (called with no options: `EEXIST` when anything is there, as Node's).
   */
  mkdir?(path: string, options?: { recursive: true }): MaybePromise<unknown>;
  /** Follows symlinks. Enables refusing directories and devices before they are opened. */
  stat?(path: string): MaybePromise<AcpFsStats>;
  /** Describes a symlink itself. With `realpath`, makes symlinks resolvable. */
  lstat?(path: string): MaybePromise<AcpFsStats>;
  /** The canonical path, every symlink resolved. With `lstat`, makes symlinks resolvable. */
  realpath?(path: string): MaybePromise<string>;
  /** Ranged reads through a file handle: windows stream instead of reading whole files. */
  open?(path: string, flags: 'r'): MaybePromise<AcpFsFileHandle>;
  /** Ranged reads without handles: up to `length` bytes at `offset`, fewer only at the end. */
  readRange?(path: string, offset: number, length: number): MaybePromise<Uint8Array | ArrayBuffer | string>;
  /**
   * Opens the checked real `path` (under the resolved `root`) once per request, proving it is
   * that file; every range of the request is read from the handle. Preferred over `open`.
   * Answer without a handle to refuse a file that is not regular.
   */
  openFile?(root: string | null, path: string): MaybePromise<AcpFsOpenedFile>;
  /** Creates or replaces `path` inside `root` (preferred over `writeFile`). */
  replaceFile?(root: string | null, path: string, data: Uint8Array): MaybePromise<unknown>;
  /** Creates `path` and its missing parents inside `root` (preferred over `mkdir`). */
  makeDirs?(root: string | null, path: string): MaybePromise<unknown>;
  /**
   * The names in a directory (Node's `readdir`). With `lstat` (or `stat` on a storage without
   * symlinks) it gives the `list` capability: each entry is described without following it.
   */
  readdir?(path: string): MaybePromise<Array<string | { name: string }>>;
  /**
   * Moves `from` to `to` (Node's `rename`). With `stat` or `lstat` it gives the `rename`
   * capability: a move never replaces, so the destination is checked to be free first.
   */
  rename?(from: string, to: string): MaybePromise<unknown>;
  /**
   * The entries of the directory `path` inside `root`, each described without following it
   * (preferred over `readdir`).
   */
  listDirectory?(root: string | null, path: string): MaybePromise<Array<{ name: string; stats: AcpFsStats }>>;
  /** Moves `from` to `to` inside `root`, failing with `EEXIST` when something is at `to` (preferred over `rename`). */
  move?(root: string | null, from: string, to: string): MaybePromise<unknown>;
  /**
   * Creates the one directory `path` inside `root`: `EEXIST` when anything is there, `ENOENT`
   * when its parent is missing (preferred over `mkdir`, which is then called with no options).
   */
  makeDir?(root: string | null, path: string): MaybePromise<unknown>;
  /** Overrides of what the shape says, e.g. `{symlinks: 'none'}` for a storage without links. */
  capabilities?: Partial<StorageCapabilities>;
}

/** What the host does with a write to an open document. */
export type DocumentWriteChoice = DocumentWrite;

/**
 * The options of `new AcpFs()`: the engine's (`EngineOptions`, generated from Rust; the table is
 * docs/options.md) and the host's own values below, which stay in JS. An unknown key throws an
 * `AcpFsError` (`invalid_params`, naming it).
 */
export interface AcpFsOptions extends EngineOptions {
  /**
   * Where files live. In @acp-fs/node, omit it to serve the local disk natively (atomic writes,
   * real paths, reads off the event loop). @acp-fs/wasm requires it. Node's own `fs` or
   * `fs.promises` (however imported) is replaced by the hardened disk adapter `fromNodeDisk()`
   * (Node 20.16+), which holds against symlink swaps while requests run.
   */
  storage?: AcpFsStorage;
  /**
   * Asked before every write that passed the policy; the response waits for it (a person may take
   * minutes). `false` rejects the write with `user_rejected`. Absent = approve. The MCP tools that
   * move files or make directories ask it too, with a record of their own `kind` (`'move'`,
   * `'makeDir'`; a write has none): semantics.md §10.7.
   */
  approveWrite?: (change: ChangeRecord) => MaybePromise<boolean>;
  /** Called after every successful change (a write; over MCP also a move or new directories). */
  onChange?: (change: ChangeRecord) => void;
  /** Called once per request. */
  onAudit?: (event: AuditEvent) => void;
  /**
   * A write targets an open document: `'buffer'` (default) puts the text in the buffer and leaves
   * storage untouched; `'writeThrough'` updates both.
   */
  onDocumentWrite?: (path: string, text: string) => MaybePromise<DocumentWriteChoice>;
  /**
   * A request found that an open document marked saved or reloaded no longer matches storage (a
   * terminal, a formatter or a checkout changed the file): reload it. The request answered from
   * storage. Called by every request that finds it so, until the buffer is reloaded or edited.
   */
  onDocumentStale?: (path: string) => void;
}

/**
 * A session's roots, and its options (`SessionOptions`, generated from Rust: `agent`). A key the
 * engine does not know is refused by name (`invalid_params`).
 */
export interface SessionRoots extends SessionOptions {
  /** The session's working directory (absolute). */
  cwd: string;
  /** Further roots from `session/new` (the additional-directories RFD). */
  additionalDirectories?: string[];
}

export interface RequestOptions {
  /** Aborting cancels the request: it rejects with `cancelled` (-32800), and no storage call follows. */
  signal?: AbortSignal;
}

/**
 * The official TypeScript SDK's request-handler context (`acp.client().onRequest(method, handler)`
 * calls handlers with it); `params` and `signal` are taken from it.
 */
export interface HandlerContext<P> {
  method: string;
  params: P;
  signal?: AbortSignal;
}

/** The `code` of an `AcpFsError`: the core's error kinds. */
export type AcpFsErrorCode = ErrorKind;

/** The JSON-RPC `error` member. */
export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * Every failure of `readTextFile`, `writeTextFile` and `handle` is a rejected promise with an
 * `AcpFsError` (never a synchronous throw). Params that JSON cannot carry (a string with a lone
 * surrogate, a cycle, nesting past 128 levels) are `invalid_params` naming the field, never
 * silently replaced. Host calls (`openSession`, `documents`, `mcpHandler`) and the `agent`
 * functions throw it synchronously.
 */
export declare class AcpFsError extends Error {
  readonly name: 'AcpFsError';
  /** The stable kind: `not_found`, `path_outside_roots`, `invalid_params`, … */
  readonly code: AcpFsErrorCode;
  /** The JSON-RPC code: -32002 missing file, -32602 bad params, -32603 policy/storage, -32800 cancelled, … */
  readonly jsonRpcCode: number;
  /** The JSON-RPC error data: `{field, reason}`, `{uri}`, `{errorKind, path, hint}`, … */
  readonly data: unknown;
  /** The host storage's own error, when storage failed. */
  readonly cause?: unknown;
  /** The JSON-RPC `error` member, ready for a response. */
  toJsonRpc(): JsonRpcError;
}

/** Open documents: unsaved editor buffers the engine serves in place of storage. */
export interface AcpFsDocuments {
  /** Registers a document's unsaved text: reads prefer it, writes to it ask `onDocumentWrite`. */
  open(path: string, text: string): void;
  /** Replaces an open document's text. */
  update(path: string, text: string): void;
  /**
   * The buffer was (re)loaded from storage with `text`: it matches the file. Until it is edited,
   * reads and writes go to storage, and `onDocumentStale` says when the file moves on
   * (semantics.md §9 "Open documents").
   */
  reloaded(path: string, text: string): void;
  /** The buffer was saved: storage holds its text (see `reloaded`). `false` when it is not open. */
  saved(path: string): boolean;
  /** The document's version: a new one on every open, update, reload and write; `null` when not open. */
  version(path: string): number | null;
  close(path: string): void;
  /** The open document's text, or `null`. */
  get(path: string): string | null;
  /**
   * Hands the engine's questions about the document at `path` to an editor instead of the
   * `onDocumentWrite` / `onDocumentStale` options (what `bindCodeMirror` and `bindMonaco` do):
   * `write(text)` for an agent's write, `stale()` when the clean buffer no longer matches
   * storage. Found under any spelling of the path that names the same open document. Returns
   * the function that detaches it; a second editor at the same path replaces the first.
   */
  attach(path: string, editor: DocumentEditor): () => void;
}

/** An editor attached to an open document (`documents.attach`). */
export interface DocumentEditor {
  /** An agent's write to the document: apply `text` (the merge, when the engine merged) and say where it goes. */
  write(text: string): MaybePromise<DocumentWriteChoice>;
  /** The clean buffer no longer matches storage: reload it. */
  stale(): void;
}

/**
 * ACP `fs/read_text_file` and `fs/write_text_file` for one storage. `readTextFile`,
 * `writeTextFile` and `handle` are bound, so they can be passed as handlers:
 * `acp.client().onRequest('fs/read_text_file', fs.readTextFile)` (see `acpClientHandlers` to keep
 * the JSON-RPC codes through the official SDK).
 */
export declare class AcpFs {
  /**
   * Which engine runs: `'native'` (@acp-fs/node's N-API addon for this platform) or `'wasm'`
   * (@acp-fs/wasm, and @acp-fs/node's fallback when no addon loads or `ACP_FS_FORCE_WASM=1`).
   */
  static readonly backend: 'native' | 'wasm';
  /** Why @acp-fs/node is not running its native addon (the load errors, or the env var); `null` otherwise. */
  static readonly backendReason: string | null;
  /** Throws an `AcpFsError` (`invalid_params`, naming the option) on a bad option. */
  constructor(options?: AcpFsOptions);
  readonly documents: AcpFsDocuments;
  /**
   * Registers (or replaces, for `session/load`) a session's root set and options. Throws on a
   * relative root, an unknown option or an unknown `agent`.
   */
  openSession(sessionId: string, roots: SessionRoots): void;
  closeSession(sessionId: string): void;
  /**
   * The lines `line`..`line+limit-1` of a file, terminators kept. Accepts the params or the
   * official SDK's handler context.
   */
  readTextFile(
    params: ReadTextFileRequest | HandlerContext<ReadTextFileRequest>,
    options?: RequestOptions,
  ): Promise<ReadTextFileResponse>;
  /** Creates or replaces a file, after the policy and `approveWrite`. Resolves to `{}`. */
  writeTextFile(
    params: WriteTextFileRequest | HandlerContext<WriteTextFileRequest>,
    options?: RequestOptions,
  ): Promise<WriteTextFileResponse>;
  /**
   * Answers one raw JSON-RPC message (a string gives a string, an object an object), or `null` when
   * it is not an fs request, so the host can route it elsewhere. `$/cancel_request` cancels the
   * matching request in flight, which then answers -32800.
   */
  handle(message: string, options?: RequestOptions): Promise<string | null>;
  handle(message: object, options?: RequestOptions): Promise<object | null>;
  /** `clientCapabilities.fs` for `initialize`: only what is wired. */
  capabilities(): FileSystemCapability;
  /**
   * This session's files as an MCP tool server, for ACP v2 clients (which drop `fs/*` and serve
   * files to the agent through MCP): `tools/list` offers `read_text_file` (and `write_text_file`
   * when writes are wired) with the session's roots in their descriptions; `tools/call` runs with
   * the same policy, `approveWrite`, `onChange` and `onAudit` as `fs/*` requests, and every
   * failure of the call (a bad argument, a denial, a missing file) is an `isError` tool result the
   * model can read (an unknown tool name is a JSON-RPC `-32602` error, as MCP says). Throws an
   * `AcpFsError` when `sessionId` is not a string.
   * ```ts
   * const mcp = fs.mcpHandler('sess-1');
   * transport.onmessage = async (message) => {
   *   const reply = await mcp.handle(message);
   *   if (reply !== null) await transport.send(reply);
   * };
   * ```
   */
  mcpHandler(sessionId: string): McpHandler;
  /**
   * Serves this session's files as an MCP server on a local transport, for ACP v2 agents (which
   * have no `fs/*` methods and read the editor's files, unsaved buffers included, through an MCP
   * server named in `session/new` `mcpServers`). Node (and Electron) only: `@acp-fs/node`, and
   * `@acp-fs/wasm` when it runs in Node; in a browser it rejects (use `mcpOverAcp`).
   *
   * `sessionId` is the host's own key, the one given to `openSession`: the declaration must go
   * into `session/new` before the agent has assigned its session id. Every message goes through
   * `mcpHandler(sessionId)`: the same roots, deny list, approvals, change records and audit events.
   *
   * - `'http'`: MCP Streamable HTTP (the official `@modelcontextprotocol/sdk` transport, which
   *   must be installed; stateless, so an agent may reconnect at any time) on 127.0.0.1 and a
   *   free port. A request without the declaration's bearer token is 401 and reaches no tool; a
   *   non-loopback `Origin` or a `Host` other than the loopback address and port is 403.
   * - `'stdio'`: a command the agent spawns (`process.execPath` and the shipped `mcp-relay.mjs`,
   *   the token in `env`) that relays newline-delimited JSON-RPC to this process over a Unix
   *   socket in a private (0700) temp dir, or a named pipe on Windows.
   *
   * The declaration stays valid until `close()`; `close()` stops listening, drops connections
   * (a stdio relay exits) and removes the socket.
   * ```ts
   * fs.openSession('project-1', { cwd: '/home/me/project' });              // 1. open, with your key
   * const files = await fs.serveMcp('project-1', { transport: 'http' });   // 2. serve
   * const { sessionId } = await conn.agent.request('session/new', {        // 3. declare
   *   cwd: '/home/me/project',
   *   mcpServers: [files.declaration],
   * });
   * // ...when the session ends:
   * await files.close();
   * ```
   */
  serveMcp(sessionId: string, options: { transport: 'http'; name?: string }): Promise<McpHttpServer>;
  serveMcp(sessionId: string, options: { transport: 'stdio'; name?: string }): Promise<McpStdioServer>;
  serveMcp(sessionId: string, options: ServeMcpOptions): Promise<McpHttpServer | McpStdioServer>;
  /**
   * This session's files as an MCP server carried by the ACP connection itself (unstable ACP
   * schema: a `{type: 'acp', name, serverId}` declaration and `mcp/message` requests from the
   * agent). No sockets, so it works in pages and workers; declare it to agents whose
   * `agentCapabilities.mcpCapabilities.acp` is true. `sessionId` is the host's key, as for
   * `serveMcp`.
   * ```ts
   * import * as acp from '@agentclientprotocol/sdk/unstable';
   * const files = fs.mcpOverAcp('project-1', { name: 'files' });
   * const app = acp.client().onRequest('mcp/message', (ctx) =>
   *   files.handleMessage(ctx.params, ctx).catch((e) => Promise.reject(toRequestError(e, acp.RequestError))));
   * const conn = app.connect(acp.ndJsonStream(toAgent, fromAgent));
   * await conn.agent.request('session/new', { cwd: '/project', mcpServers: [files.declaration] });
   * ```
   * Or with the SDK's own binding, which also enforces its limits:
   * `provider.registerServer(conn.agent, { ...files.declaration, handler: files.handler })`.
   */
  mcpOverAcp(sessionId: string, options?: { name?: string; serverId?: string }): McpAcpServer;
  /**
   * Which MCP transport to declare for the agent in front of you, from its `initialize`
   * response's `agentCapabilities`: `'acp'` if `mcpCapabilities.acp`, else `'http'` if
   * `mcpCapabilities.http`, else `'stdio'` (which every agent supports).
   * ```ts
   * const { agentCapabilities } = await conn.agent.request('initialize', init);
   * const kind = fs.mcpServerFor('project-1', agentCapabilities);
   * const files = kind === 'acp' ? fs.mcpOverAcp('project-1') : await fs.serveMcp('project-1', { transport: kind });
   * ```
   */
  mcpServerFor(sessionId: string, agentCapabilities: AgentMcpCapabilitiesLike | null | undefined): McpTransportKind;
}

/** The MCP transports `mcpServerFor` chooses from. */
export type McpTransportKind = 'acp' | 'http' | 'stdio';

/** The part of ACP `agentCapabilities` that `mcpServerFor` reads. */
export interface AgentMcpCapabilitiesLike {
  mcpCapabilities?: { acp?: boolean | null; http?: boolean | null; [key: string]: unknown } | null;
  [key: string]: unknown;
}

/** `serveMcp` options. */
export interface ServeMcpOptions {
  transport: 'http' | 'stdio';
  /** The server's name in the declaration (agents prefix tool names with it). Default `'acp-fs'`. */
  name?: string;
}

/** An ACP `HttpHeader`. */
export interface McpHeader {
  name: string;
  value: string;
}

/** An ACP `EnvVariable`. */
export interface McpEnvVariable {
  name: string;
  value: string;
}

/** The ACP `McpServerHttp` entry for `session/new` `mcpServers` (its token in `headers`). */
export interface McpHttpDeclaration {
  type: 'http';
  name: string;
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  /** `[{name: 'Authorization', value: 'Bearer <token>'}]` */
  headers: McpHeader[];
}

/** The ACP stdio `McpServer` entry: `node mcp-relay.mjs <socket>`, the token in `env`. */
export interface McpStdioDeclaration {
  name: string;
  /** `process.execPath` */
  command: string;
  args: string[];
  /** Always a list (qwen-code drops stdio entries without one). */
  env: McpEnvVariable[];
}

/** The unstable ACP `McpServerAcp` entry. */
export interface McpAcpDeclaration {
  type: 'acp';
  name: string;
  serverId: string;
}

/** What every served MCP server has. */
interface McpServedBase {
  /** The host's key the server serves. */
  readonly sessionId: string;
  /** True once `close()` was called. */
  readonly closed: boolean;
  /** Stops serving (idempotent): later calls fail and nothing is left listening. */
  close(): Promise<void>;
}

/** `serveMcp(key, {transport: 'http'})`. */
export interface McpHttpServer extends McpServedBase {
  readonly transport: 'http';
  /** Ready to send in `session/new` `mcpServers` as it is. Keep it secret: it holds the token. */
  readonly declaration: McpHttpDeclaration;
}

/** `serveMcp(key, {transport: 'stdio'})`. */
export interface McpStdioServer extends McpServedBase {
  readonly transport: 'stdio';
  /** Ready to send in `session/new` `mcpServers` as it is. Keep it secret: it holds the token. */
  readonly declaration: McpStdioDeclaration;
}

/** The params of an unstable ACP `mcp/message` request. */
export interface McpMessageRequest {
  serverId: string;
  requestId: string;
  method: string;
  params?: { [key: string]: unknown } | null;
  _meta?: { [key: string]: unknown } | null;
}

/** The response of an `mcp/message` request: the inner MCP outcome. */
export type McpMessageResponse = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** `mcpOverAcp(key)`. */
export interface McpAcpServer extends McpServedBase {
  readonly declaration: McpAcpDeclaration;
  /**
   * Answers one `mcp/message` request: the inner MCP outcome (tool failures are `isError`
   * results inside `result`). Rejects with an `AcpFsError` for the outer ACP error: `-33001`
   * for another `serverId` or after `close()`, `-32602` for a malformed envelope or a requestId
   * already active, `-32800` when `options.signal` (the ACP request's) aborted it. Pass it through
   * `toRequestError` to keep those codes in the official SDK.
   */
  handleMessage(params: McpMessageRequest, options?: RequestOptions): Promise<McpMessageResponse>;
  /** The same as the ACP SDK's `McpRequestHandler`, for `McpOverAcpProvider.registerServer`. */
  handler(context: {
    serverId: string;
    requestId: string;
    method: string;
    params?: { [key: string]: unknown } | null;
    signal?: AbortSignal;
  }): Promise<McpMessageResponse>;
}

/** One ACP session's files as an MCP tool server (`AcpFs.mcpHandler`). */
export interface McpHandler {
  readonly sessionId: string;
  /**
   * Answers one MCP JSON-RPC message: `initialize`, `ping`, `tools/list`, `tools/call` (other
   * methods are `-32601`). A string gives a string, an object an object; `null` for
   * notifications and responses, which need no answer. Malformed messages are answered with
   * JSON-RPC errors (`-32700`, `-32600`); rejects only on an internal failure.
   */
  handle(message: string, options?: RequestOptions): Promise<string | null>;
  handle(message: object, options?: RequestOptions): Promise<object | null>;
  /** The tools `tools/list` answers with. */
  tools(): ToolDefinition[];
}

/** The tool names, as the ACP v2 MCP surface and fast-agent call them. */
export type ToolName = 'read_text_file' | 'write_text_file';

/** `clientCapabilities.fs`: absent or not `true` means `false`. */
export type ClientFsCapabilities = FileSystemCapability;

/** An MCP / model tool definition (JSON Schema input). */
export interface ToolDefinition {
  name: ToolName;
  description: string;
  inputSchema: {
    type: 'object';
    properties: { [name: string]: { [keyword: string]: unknown } };
    required: string[];
    additionalProperties: false;
  };
}

/** An MCP tool result: text for the model; `isError` when the call failed. */
export interface ToolResult {
  content: { type: 'text'; text: string }[];
  isError: boolean;
}

/** The JSON-RPC request an agent sends for a tool call (`sessionId` added to the arguments). */
export type FsRequest =
  | { method: 'fs/read_text_file'; params: ReadTextFileRequest }
  | { method: 'fs/write_text_file'; params: WriteTextFileRequest };

/**
 * The client's answer to a tool's request, as `agent.toolResult` takes it: the result
 * (`{content}`, a write's `{}`, `null`, `undefined`), a JSON-RPC response (`{jsonrpc, id, result}`
 * or `{jsonrpc, id, error}`), an object with an `error` member, or what the request threw (the
 * SDK's `RequestError`, an `AcpFsError`, any `Error`: `{code, message, data}` are read from it; an
 * error without a numeric `code` is -32603).
 */
export type ToolAnswer =
  | ReadTextFileResponse
  | WriteTextFileResponse
  | null
  | undefined
  | Error
  | { error: JsonRpcError }
  | { jsonrpc: '2.0'; id?: string | number | null; result?: unknown; error?: JsonRpcError };

/**
 * The agent's side of `fs/*`, with the client's own rules (the same core decides both sides).
 * Each function is synchronous and throws an `AcpFsError` where it refuses.
 * ```ts
 * import { agent } from '@acp-fs/node';
 * const caps = agent.clientFsCapabilities(initializeRequest);   // at `initialize`
 * const tools = agent.toolDefinitions(caps);                      // what the model may call
 * // for each tool call of the model:
 * let answer: ToolAnswer;
 * try {
 *   const { method, params } = agent.buildRequest(caps, call.name, sessionId, call.arguments);
 *   answer = await connection.request(method, params);
 * } catch (e) {
 *   answer = e as Error;                                          // refused, or the client's error
 * }
 * const result = agent.toolResult(call.name, call.arguments, answer);
 * ```
 */
export interface Agent {
  /**
   * `clientCapabilities.fs` from the client's `initialize` request, its params, or the
   * `clientCapabilities` object. Only a real `true` counts (the spec: an agent MUST NOT call what
   * the client did not advertise). Throws `invalid_params` on a value with no JSON form.
   */
  clientFsCapabilities(initializeRequestOrCapabilities: unknown): ClientFsCapabilities;
  /** The tool definitions for what the client advertised (none for neither). */
  toolDefinitions(capabilities: Partial<ClientFsCapabilities>): ToolDefinition[];
  /**
   * Checks a model's tool arguments with exactly the client's rules and messages (`-32602`
   * naming the argument: `path` relative, `limit` negative, an unknown argument such as
   * `sessionId`, …; `name` for an unknown tool) and returns the request to send.
   */
  checkToolArguments(tool: string, sessionId: string, args: unknown): FsRequest;
  /**
   * As `checkToolArguments`, and refused with `-32601` (`method_not_found`, data `{method}`) when
   * the client did not advertise the tool's capability, so it is never sent.
   */
  buildRequest(capabilities: Partial<ClientFsCapabilities>, tool: string, sessionId: string, args: unknown): FsRequest;
  /**
   * The tool result for the model from the client's answer. Errors become `isError` results
   * with readable text (`-32002` is `File not found: <path>`, policy denials name their kind); a
   * write's `{}` / `null` / no result is success; a read the client answered with more lines than
   * `limit` is cut to the window, and a second text part says so. Never throws for the answer.
   */
  toolResult(tool: string, args: unknown, answer: ToolAnswer): ToolResult;
}

/** The agent's side of `fs/*` (see `Agent`). */
export declare const agent: Agent;

/**
 * `fs/read_text_file` and `fs/write_text_file` handlers for the official TypeScript SDK that keep
 * acp-fs's JSON-RPC codes and data: the SDK forwards codes only for its own `RequestError`, so
 * pass that class.
 * ```ts
 * import * as acp from '@agentclientprotocol/sdk';
 * const h = acpClientHandlers(fs, acp.RequestError);
 * acp.client()
 *   .onRequest('fs/read_text_file', h.readTextFile)
 *   .onRequest('fs/write_text_file', h.writeTextFile);
 * ```
 */
export declare function acpClientHandlers<E extends Error>(
  fs: AcpFs,
  RequestError: new (code: number, message: string, data?: unknown) => E,
): {
  readTextFile(
    context: ReadTextFileRequest | HandlerContext<ReadTextFileRequest>,
    options?: RequestOptions,
  ): Promise<ReadTextFileResponse>;
  writeTextFile(
    context: WriteTextFileRequest | HandlerContext<WriteTextFileRequest>,
    options?: RequestOptions,
  ): Promise<WriteTextFileResponse>;
};

/** An error (normally an `AcpFsError`) as the official SDK's `RequestError`, codes and data kept. */
export declare function toRequestError<E extends Error>(
  error: unknown,
  RequestError: new (code: number, message: string, data?: unknown) => E,
): E;

