// Compiled with `tsc --noEmit` against the shared declarations (npm/types/acp-fs.d.ts, and as
// shipped in @acp-fs/node and @acp-fs/wasm): the documented usage must type-check, and misuse
// must not (@ts-expect-error).
import { AcpFs, AcpFsError, acpClientHandlers, agent, toRequestError } from '@acp-fs/node';
import type {
  AcpFsOptions,
  AcpFsStorage,
  AuditEvent,
  ChangeRecord,
  ClientFsCapabilities,
  FsRequest,
  KnownAgent,
  McpAcpServer,
  McpHandler,
  McpHttpServer,
  McpMessageResponse,
  McpStdioServer,
  McpTransportKind,
  ReadTextFileResponse,
  ToolAnswer,
  ToolDefinition,
  ToolResult,
} from '@acp-fs/node';
import * as acp from '@agentclientprotocol/sdk';
import * as acpu from '@agentclientprotocol/sdk/unstable';
import { promises as fsp } from 'node:fs';
import { Volume } from 'memfs';

const vol = new Volume();
const storages: AcpFsStorage[] = [
  fsp,
  vol.promises as unknown as AcpFsStorage,
  { readFile: (path: string) => `text of ${path}` },
  { readFile: async () => new Uint8Array(), capabilities: { symlinks: 'none' } },
  // A race-safe storage of the host's own: opens once per request, writes under the root.
  {
    readFile: (path: string) => fsp.readFile(path),
    openFile: async (_root: string | null, path: string) => ({ stats: await fsp.lstat(path), handle: await fsp.open(path, 'r') }),
    replaceFile: (_root: string | null, path: string, data: Uint8Array) => fsp.writeFile(path, data),
    makeDirs: (_root: string | null, path: string) => fsp.mkdir(path, { recursive: true }),
  },
];

const options: AcpFsOptions = {
  storage: storages[0],
  roots: ['/workspace'],
  extraRoots: ['/opt/shared'],
  approveWrite: async (change: ChangeRecord) => change.newText.length < 1000,
  onChange: (change) => console.log(change.path, change.created, change.oldText ?? '(new)'),
  onAudit: (event: AuditEvent) => console.log(event.op, event.outcome, event.durationMs, event.errorKind),
  onDocumentWrite: () => 'writeThrough',
  pastEnd: 'empty',
  lenientParams: false,
  lineEndings: 'preserve',
  createParents: true,
  deny: ['.env*', 'write:.git/'],
  allowExtensions: ['rs', 'md'],
  maxReadBytes: 1 << 20,
  maxWriteBytes: 1 << 20,
  zedCompat: false,
  readOnly: false,
};

async function main(): Promise<void> {
  const fs = new AcpFs(options);
  const native = new AcpFs();
  native.openSession('s1', { cwd: '/workspace', additionalDirectories: ['/lib'] });
  const gemini: KnownAgent = 'gemini-cli';
  native.openSession('s2', { cwd: '/workspace', agent: gemini });
  // @ts-expect-error: an agent acp-fs knows no quirk of
  native.openSession('s3', { cwd: '/workspace', agent: 'qwen-code' });
  fs.documents.open('/workspace/a.rs', 'fn main() {}\n');
  const text: string | null = fs.documents.get('/workspace/a.rs');
  fs.documents.close('/workspace/a.rs');

  const controller = new AbortController();
  const read: ReadTextFileResponse = await fs.readTextFile(
    { sessionId: 's1', path: '/workspace/a.rs', line: 2, limit: null },
    { signal: controller.signal },
  );
  const content: string = read.content;
  await fs.writeTextFile({ sessionId: 's1', path: '/workspace/b.rs', content: `${content}${text}` });
  const raw: string | null = await fs.handle('{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{}}');
  const obj: object | null = await fs.handle({ jsonrpc: '2.0', id: 2, method: 'x' });
  console.log(raw, obj);

  try {
    await fs.readTextFile({ sessionId: 's1', path: 'relative' });
  } catch (e) {
    if (e instanceof AcpFsError) {
      const code: 'invalid_params' | string = e.code;
      const rpc = e.toJsonRpc();
      console.log(code, e.jsonRpcCode, e.data, e.cause, rpc.code, rpc.message);
      const asSdk: acp.RequestError = toRequestError(e, acp.RequestError);
      console.log(asSdk.code);
    }
  }

  // The official SDK: plain handlers, and handlers that keep the codes.
  const h = acpClientHandlers(fs, acp.RequestError);
  acp
    .client()
    .onRequest('fs/read_text_file', fs.readTextFile)
    .onRequest('fs/write_text_file', fs.writeTextFile);
  acp.client().onRequest('fs/read_text_file', h.readTextFile).onRequest('fs/write_text_file', h.writeTextFile);
  const caps: acp.ClientCapabilities = { fs: fs.capabilities() };
  console.log(caps);

  // @ts-expect-error: sessionId is required
  await fs.readTextFile({ path: '/workspace/a.rs' });
  // @ts-expect-error: content must be a string
  await fs.writeTextFile({ sessionId: 's1', path: '/workspace/a.rs', content: 42 });
  // @ts-expect-error: not a pastEnd mode
  new AcpFs({ pastEnd: 'wrap' });
  // @ts-expect-error: a misspelt option (the engine refuses it too)
  new AcpFs({ maxReadByte: 1 });
  // @ts-expect-error: deny is a list of rules or a boolean
  new AcpFs({ deny: '.env' });
  // @ts-expect-error: a storage needs readFile
  new AcpFs({ storage: { writeFile: async () => {} } });
  // @ts-expect-error: onDocumentWrite answers 'buffer' or 'writeThrough'
  new AcpFs({ onDocumentWrite: () => 'discard' });

  // The agent side, with the official SDK's types on the other end.
  const initialize: acp.InitializeRequest = { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true } } };
  const fsCaps: ClientFsCapabilities = agent.clientFsCapabilities(initialize);
  const defs: ToolDefinition[] = agent.toolDefinitions(fsCaps);
  const names: ('read_text_file' | 'write_text_file')[] = defs.map((d) => d.name);
  const checked: FsRequest = agent.checkToolArguments('read_text_file', 's1', { path: '/workspace/a.rs' });
  const built: FsRequest = agent.buildRequest(fsCaps, 'read_text_file', 's1', JSON.parse('{"path":"/workspace/a.rs"}'));
  if (built.method === 'fs/read_text_file') {
    const line: number | null | undefined = built.params.line;
    console.log(line);
  }
  let answer: ToolAnswer;
  try {
    answer = await fs.readTextFile(checked.params as acp.ReadTextFileRequest);
  } catch (e) {
    answer = e as Error;
  }
  const results: ToolResult[] = [
    agent.toolResult('read_text_file', { path: '/workspace/a.rs' }, answer),
    agent.toolResult('write_text_file', { path: '/workspace/a.rs', content: '' }, {}),
    agent.toolResult('write_text_file', { path: '/workspace/a.rs', content: '' }, null),
    agent.toolResult('write_text_file', { path: '/workspace/a.rs', content: '' }, undefined),
    agent.toolResult('read_text_file', {}, { error: { code: -32002, message: 'Resource not found: /x' } }),
    agent.toolResult('read_text_file', {}, { jsonrpc: '2.0', id: 1, result: { content: 'x' } }),
    agent.toolResult('read_text_file', {}, new acp.RequestError(-32603, 'denied')),
  ];
  const texts: string[] = results.flatMap((r) => (r.isError ? [] : r.content.map((c) => c.text)));
  console.log(names, texts);

  // The MCP surface.
  const mcp: McpHandler = fs.mcpHandler('s1');
  const tools: ToolDefinition[] = mcp.tools();
  const replyText: string | null = await mcp.handle('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
  const replyObject: object | null = await mcp.handle({ jsonrpc: '2.0', id: 2, method: 'ping' }, { signal: controller.signal });
  console.log(tools, replyText, replyObject, mcp.sessionId);

  // ACP v2: the session's MCP server over real transports (issue 12). Open, serve, declare.
  const provider = new acpu.McpOverAcpProvider();
  const conn = acpu.client().onRequest('mcp/message', provider.handleRequest).connect(acpu.ndJsonStream(new WritableStream(), new ReadableStream()));
  const { agentCapabilities } = await conn.agent.request('initialize', { protocolVersion: acpu.PROTOCOL_VERSION });
  const kind: McpTransportKind = fs.mcpServerFor('s1', agentCapabilities);
  const http: McpHttpServer = await fs.serveMcp('s1', { transport: 'http', name: 'files' });
  const stdio: McpStdioServer = await fs.serveMcp('s1', { transport: 'stdio' });
  const either: McpHttpServer | McpStdioServer = await fs.serveMcp('s1', { transport: kind === 'http' ? 'http' : 'stdio' });
  const overAcp: McpAcpServer = fs.mcpOverAcp('s1', { name: 'files' });
  provider.registerServer(conn.agent, { ...overAcp.declaration, handler: overAcp.handler });
  // The declarations are ACP `McpServer` entries as they are.
  const stable: acp.McpServer[] = [http.declaration, stdio.declaration, either.declaration];
  await conn.agent.request('session/new', { cwd: '/workspace', mcpServers: [...stable, overAcp.declaration] });
  const outcome: McpMessageResponse = await overAcp.handleMessage({ serverId: overAcp.declaration.serverId, requestId: '1', method: 'tools/list' });
  acpu.client().onRequest('mcp/message', (ctx) =>
    overAcp.handleMessage(ctx.params, ctx).catch((e) => Promise.reject(toRequestError(e, acpu.RequestError))),
  );
  console.log(outcome, http.closed);
  await Promise.all([http.close(), stdio.close(), either.close(), overAcp.close()]);
  // @ts-expect-error: 'acp' is not a socket transport (use mcpOverAcp)
  await fs.serveMcp('s1', { transport: 'acp' });
  // @ts-expect-error: capabilities are an object
  agent.toolDefinitions(true);
  // @ts-expect-error: the session id is a string
  fs.mcpHandler(7);
}

void main;
