import { AcpFsError, fromThrown, invalidParamsError, useBinding } from './error.mjs';
import { jsonParams, notJson, requireString } from './params.mjs';

/**
 * The agent's side of `fs/*` over a binding's free functions (docs/binding-interface.md):
 * capability checks, tool definitions, argument checks with the client's rules, requests that
 * are never sent for what the client did not advertise, and tool results. Every decision is the
 * core's; this converts values and turns error values into `AcpFsError`s.
 */
export function createAgent(binding = {}) {
  const needs = ['hostInfo', 'invalidParams', 'clientFsCapabilities', 'toolDefinitions', 'checkToolArguments', 'buildRequest', 'toolResult'];
  for (const name of needs) {
    if (typeof binding[name] !== 'function') throw new TypeError(`createAgent needs the binding function ${name}`);
  }
  // On the first call: a wasm module may be instantiated after this runs.
  let registered = false;
  const ensure = () => {
    if (registered) return;
    try {
      useBinding(binding);
    } catch (e) {
      throw fromThrown(e);
    }
    registered = true;
  };
  const call = (fn, ...args) => {
    try {
      return fn(...args);
    } catch (e) {
      throw fromThrown(e);
    }
  };
  /** A value as JSON would carry it, or the `AcpFsError` naming what it cannot carry. */
  const json = (value, whole) => {
    const refused = notJson(value, whole);
    if (refused) throw invalidParamsError(refused.field, refused.reason);
    return jsonParams(value);
  };
  const caps = (value) => {
    if (value === null || typeof value !== 'object') {
      throw invalidParamsError('caps', 'must be an object ({readTextFile, writeTextFile})');
    }
    return json(value, 'caps');
  };
  const request = (r) => {
    if (r.error) throw new AcpFsError(r.error);
    return { method: r.method, params: r.params };
  };
  const flags = (c) => ({ readTextFile: c.readTextFile === true, writeTextFile: c.writeTextFile === true });

  return Object.freeze({
    clientFsCapabilities(value) {
      ensure();
      return flags(call(binding.clientFsCapabilities, json(value, 'value')));
    },
    toolDefinitions(capabilities) {
      ensure();
      return call(binding.toolDefinitions, caps(capabilities));
    },
    checkToolArguments(tool, sessionId, args) {
      ensure();
      requireString(tool, 'name');
      requireString(sessionId, 'sessionId');
      return request(call(binding.checkToolArguments, tool, sessionId, json(args, 'arguments')));
    },
    buildRequest(capabilities, tool, sessionId, args) {
      ensure();
      const c = caps(capabilities);
      requireString(tool, 'name');
      requireString(sessionId, 'sessionId');
      return request(call(binding.buildRequest, c, tool, sessionId, json(args, 'arguments')));
    },
    toolResult(tool, args, answer) {
      ensure();
      requireString(tool, 'name');
      // Arguments that cannot be read name no path: the core then says "the file".
      const a = notJson(args, 'arguments') ? null : jsonParams(args);
      return call(binding.toolResult, tool, a, answerOf(answer));
    },
  });
}

/**
 * The client's answer as `{result}` or `{error}`: an `Error` (an `AcpFsError`, the SDK's
 * `RequestError`, anything thrown) or an object with an `error` member is an error; a JSON-RPC
 * response (`jsonrpc` member) gives its `result`; anything else is the result itself (`{}`,
 * `null` and `undefined` included). A value with no JSON form becomes the error naming it.
 */
function answerOf(answer) {
  const isObject = answer !== null && typeof answer === 'object';
  let out;
  if (answer instanceof Error || (isObject && answer.name === 'AcpFsError')) {
    out = { error: errorObject(answer) };
  } else if (isObject && answer.error !== undefined && answer.error !== null) {
    out = { error: answer.error };
  } else if (isObject && 'jsonrpc' in answer) {
    out = answer.result === undefined ? {} : { result: answer.result };
  } else {
    out = answer === undefined ? {} : { result: answer };
  }
  const refused = notJson(out, 'answer');
  if (refused) return { error: invalidParamsError(refused.field, refused.reason).toJsonRpc() };
  return jsonParams(out);
}

/** A thrown error as the JSON-RPC error object it stands for. */
function errorObject(e) {
  if (typeof e.toJsonRpc === 'function') return e.toJsonRpc();
  if (typeof e.code === 'number') {
    const out = { code: e.code, message: String(e.message ?? '') };
    if (e.data !== undefined && e.data !== null) out.data = e.data;
    return out;
  }
  return { code: -32603, message: String(e.message ?? e) };
}
