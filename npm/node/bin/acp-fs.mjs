#!/usr/bin/env node
// `acp-fs mcp [--read-only] DIR...` (`npx @acp-fs/node mcp DIR...`): the directories as a
// standalone MCP file server on stdio, a drop-in for `npx @modelcontextprotocol/server-filesystem
// DIR...`. This file parses the command line and wires stdio; the server is
// shared/mcp-standalone.mjs, the tools and their rules are the engine's.

import { resolve } from 'node:path';
import { AcpFs } from '../index.mjs';
import { directoryProblem, serveStandalone } from '../shared/mcp-standalone.mjs';

const USAGE = `usage: acp-fs mcp [--read-only] DIR...

Serves the directories DIR... as an MCP file server on stdio (newline-delimited JSON-RPC).
  --read-only   offer only the tools that change nothing
A client that supports MCP roots replaces the directories with its roots.`;

const fail = (message) => {
  process.stderr.write(`acp-fs: ${message}\n${USAGE}\n`);
  process.exit(2);
};

const [command, ...rest] = process.argv.slice(2);
if (command === '--help' || command === '-h') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (command === undefined) fail('no command given');
if (command !== 'mcp') fail(`unknown command ${JSON.stringify(command)}`);

let readOnly = false;
const dirs = [];
let options = true;
for (const arg of rest) {
  if (options && arg === '--') options = false;
  else if (options && (arg === '--help' || arg === '-h')) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  } else if (options && arg === '--read-only') readOnly = true;
  else if (options && arg.startsWith('-') && arg !== '-') fail(`unknown option ${JSON.stringify(arg)}`);
  else dirs.push(arg);
}
if (dirs.length === 0) fail('mcp: no directory given: name at least one directory to serve');
const absolute = dirs.map((dir) => resolve(dir));
for (const [i, dir] of absolute.entries()) {
  const problem = directoryProblem(dir);
  if (problem) fail(`mcp: ${JSON.stringify(dirs[i])}: ${problem}`);
}

const log = (line) => process.stderr.write(`acp-fs mcp: ${line}\n`);
const fs = new AcpFs({ readOnly });
log(`serving ${absolute.join(', ')}${readOnly ? ' (read-only)' : ''} on stdio`);
await serveStandalone({ fs, dirs: absolute, input: process.stdin, output: process.stdout, log });
