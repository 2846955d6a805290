// Values as JSON would carry them, walked once before they reach the engine: what no JSON-RPC
// peer could send is named (`notJson`), the rest converted (`jsonParams`), small flat params
// as JSON text (`flatParams`).

import { coreInfo, invalidParamsError } from './error.mjs';
import { isWellFormed, toWellFormed } from './surrogates.mjs';

export const NOT_JSON = '[not representable in JSON]';

/**
 * Why `value` has no JSON form, as `{field, reason}` naming the top-level key it sits under
 * (`whole` for the value itself), or `undefined`: a string or key with a lone surrogate (JSON
 * text cannot carry it and the engine never replaces it), nesting past 128 levels (a cycle nests
 * forever), more than a million values, or a getter or proxy that throws. Top-level keys are
 * checked in order, each value to the bottom, so the first bad field is the one named. The limits
 * and the reason's words are the core's (`hostInfo()`): this is the one copy of the walk.
 */
export function notJson(value, whole = 'params') {
  const { maxDepth: MAX_DEPTH, maxValues: MAX_VALUES, loneSurrogate: LONE } = coreInfo();
  if (typeof value === 'string') return isWellFormed(value) ? undefined : { field: whole, reason: LONE };
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return undefined;
  let values = 1;
  /** The children of an object or array, or the reason they cannot be read. */
  const children = (v) => {
    try {
      // Array.from visits holes too (JSON sends them as null).
      return Array.isArray(v) ? Array.from(v, (child) => [undefined, child]) : Object.entries(v);
    } catch (e) {
      return { reason: `not representable as JSON: ${e?.message ?? String(e)}` };
    }
  };
  const top = children(value);
  if (!Array.isArray(top)) return { field: whole, reason: top.reason };
  values += top.length;
  for (const [key, child] of top) {
    const field = key === undefined ? whole : toWellFormed(key);
    if (key !== undefined && !isWellFormed(key)) return { field, reason: LONE };
    // Most params are flat: a string or a number needs no walk.
    if (typeof child === 'string') {
      if (!isWellFormed(child)) return { field, reason: LONE };
      continue;
    }
    if (child === null || typeof child !== 'object' || ArrayBuffer.isView(child)) continue;
    const pending = [[child, 1]];
    while (pending.length) {
      const [v, depth] = pending.pop();
      if (typeof v === 'string') {
        if (!isWellFormed(v)) return { field, reason: LONE };
        continue;
      }
      if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) continue;
      if (depth >= MAX_DEPTH) return { field, reason: `nested deeper than ${MAX_DEPTH} levels (or cyclic)` };
      const entries = children(v);
      if (!Array.isArray(entries)) return { field, reason: entries.reason };
      values += entries.length;
      if (values > MAX_VALUES) return { field, reason: `more than ${MAX_VALUES} values` };
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, c] = entries[i];
        if (k !== undefined && !isWellFormed(k)) return { field, reason: LONE };
        pending.push([c, depth + 1]);
      }
    }
  }
  return undefined;
}

/** The fields of refused params that are plain values, for the audit event's echo. */
export function echoParams(params) {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return null;
  const out = {};
  for (const [key, v] of Object.entries(params)) {
    if (!isWellFormed(key)) continue;
    if (typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && isWellFormed(v))) out[key] = v;
  }
  return out;
}

/** A nested value as JSON would carry it; what JSON cannot carry becomes a value no field accepts. */
export function jsonValue(value) {
  try {
    const text = JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? { bigint: String(v) } : v));
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

const ABSENT = Symbol('absent');
const NESTED = Symbol('nested');

/**
 * A top-level param value as JSON carries it, where that needs no walk: the value itself (`NaN`
 * and the infinities as `null`, as JSON sends them), `ABSENT` for what JSON leaves out
 * (`undefined`, functions, symbols), or `NESTED` for an object, array or bigint (`jsonValue`'s).
 * The one rule `jsonParams` and `flatParams` both apply.
 */
function flatValue(v) {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'undefined':
    case 'function':
    case 'symbol':
      return ABSENT;
    default:
      return v === null ? null : NESTED;
  }
}

/**
 * Params as a JSON-RPC peer would have sent them, decided here rather than by each binding's
 * value conversion (`flatValue`); a bigint becomes an object, which every field refuses in its
 * turn (strict) or ignores (lenient). Top-level strings such as a write's `content` are passed
 * without a copy.
 */
export function jsonParams(params) {
  if (params === null || params === undefined) return null;
  if (typeof params === 'bigint') return String(params);
  if (typeof params !== 'object') return jsonValue(params);
  if (Array.isArray(params)) return jsonValue(params);
  const out = {};
  for (const [key, v] of Object.entries(params)) {
    const flat = flatValue(v);
    if (flat !== ABSENT) out[key] = flat === NESTED ? jsonValue(v) : flat;
  }
  return out;
}

/**
 * Flat params whose strings hold at most this many UTF-16 units cross as JSON text
 * (`Engine.startJson`; in wasm `Engine.startFlat`, which the guard writes into the module's
 * memory itself): one string instead of a value converted member by member, which in wasm is
 * several imports per member. Larger ones (a write's `content`) cross as values, where JSON
 * would escape and copy the text twice more.
 */
const JSON_PARAMS_MAX = 1024;

/**
 * The common case in one pass: params of well-formed strings, numbers, booleans and nulls (the
 * usual `{sessionId, path, line, limit}`) need no walk, and come out as `jsonParams` makes them,
 * `{params, small}`: `small` when they may cross as JSON text (`JSON_PARAMS_MAX`; or, in wasm,
 * as they are, `Engine.startFlat`). `undefined` for anything else, which the walk and
 * `jsonParams` then decide.
 */
export function flatParams(params) {
  if (params === null || typeof params !== 'object' || Array.isArray(params) || ArrayBuffer.isView(params)) return undefined;
  const out = {};
  let units = 0;
  try {
    for (const key of Object.keys(params)) {
      if (!isWellFormed(key)) return undefined;
      const flat = flatValue(params[key]);
      if (flat === NESTED) return undefined;
      units += key.length;
      if (typeof flat === 'string') {
        if (!isWellFormed(flat)) return undefined;
        units += flat.length;
      }
      if (flat !== ABSENT) out[key] = flat;
    }
  } catch {
    // A getter or proxy that throws: the walk names the field.
    return undefined;
  }
  return { params: out, small: units <= JSON_PARAMS_MAX };
}

/** Host-side calls take strings; anything else is the caller's error, named like a param error. */
export function requireString(value, field) {
  if (typeof value !== 'string') {
    throw invalidParamsError(field, `must be a string, got ${value === null ? 'null' : typeof value}`);
  }
  if (!isWellFormed(value)) throw invalidParamsError(field, coreInfo().loneSurrogate);
}
