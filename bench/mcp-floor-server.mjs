#!/usr/bin/env node
// The transport floor for bench/mcp.mjs: an MCP server over stdio that does no work. Its one
// tool, `answer`, replies with `{bytes}` characters of text, as both measured servers reply (the
// text once as content, once as `structuredContent.content`), so a call to it costs what the SDK
// client, the pipe and the JSON of an answer that size cost, and nothing else.

import { createInterface } from 'node:readline';

const LINE = 'const value = data.path; // a line of text\n';
const send = (text) => process.stdout.write(`${text}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const reply = (result) => send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
  switch (m.method) {
    case 'initialize':
      return reply({ protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'floor', version: '1.0.0' } });
    case 'tools/list':
      return reply({ tools: [{ name: 'answer', inputSchema: { type: 'object', properties: { bytes: { type: 'integer' } } } }] });
    case 'tools/call': {
      const n = m.params.arguments.bytes;
      // Built per call, as a server builds its answer; its JSON form is what the client parses.
      const text = LINE.repeat(Math.ceil(n / LINE.length)).slice(0, n);
      return reply({ content: [{ type: 'text', text }], structuredContent: { content: text }, isError: false });
    }
    default:
      return send(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } }));
  }
});
