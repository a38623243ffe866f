// Small helpers shared by the model wrappers.

/**
 * The error path (see bindings/common.hpp): a failing C++ entry point returns
 * normally with an empty result and leaves its message in the module's error
 * slot. checkedModule() wraps every Embind function, static class function and
 * method so that the slot is checked after each call and a JS Error thrown.
 * Embind functions are recognised by their `argCount` (free functions) and
 * classes by `prototype.isDeleted` (ClassHandle).
 */
export function checkedModule(mod) {
  // the flag is one byte of the heap: read in place, not by a call (its address is fixed;
  // HEAPU8 is re-read because the heap's buffer changes when it grows)
  const flag = mod.errorFlagAddress();
  const check = () => {
    if (mod.HEAPU8[flag]) throw new Error(mod.takeError());
  };
  const wrapFn = (f) => {
    const w = function (...args) {
      let r;
      try {
        r = f.apply(this, args);
      } catch (e) {
        // Embind's own JS checks (wrong argument count, deleted object) throw
        // before any wasm code runs; give them the package's prefix.
        throw e instanceof Error && e.message.startsWith('attnlab:') ? e : new Error(`attnlab: ${e && e.message ? e.message : e}`);
      }
      check();
      return r;
    };
    Object.defineProperty(w, 'name', { value: f.name });
    return w;
  };
  const skip = new Set(['takeError', 'errorFlagAddress']);
  for (const name of Object.keys(mod)) {
    const v = mod[name];
    if (typeof v !== 'function' || skip.has(name)) continue;
    if (v.prototype && typeof v.prototype.isDeleted === 'function') {
      for (const m of Object.getOwnPropertyNames(v.prototype)) {
        if (m === 'constructor') continue;
        const d = Object.getOwnPropertyDescriptor(v.prototype, m);
        if (typeof d.value === 'function') v.prototype[m] = wrapFn(d.value);
      }
      for (const m of Object.getOwnPropertyNames(v)) {
        const d = Object.getOwnPropertyDescriptor(v, m);
        if (d && typeof d.value === 'function' && d.writable) v[m] = wrapFn(d.value);
      }
    } else if (typeof v.argCount === 'number') {
      mod[name] = wrapFn(v);
    }
  }
  return mod;
}

/**
 * Base class of the objects that own wasm memory (Seq2Seq, HAN, MMoE, ...):
 * delete() frees it deterministically; a FinalizationRegistry frees the
 * memory of objects that were dropped without delete() when they are
 * garbage-collected. A deleted object throws a clear Error when used.
 */
const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle) => { if (!handle.isDeleted()) handle.delete(); })
  : null;

export class WasmObject {
  constructor(handle, name) {
    if (!handle) throw new Error(`attnlab: create a ${name} with ${name}.fromBytes(bytes) or ${name}.fromUrl(url)`);
    this._h = handle;
    this._name = name;
    if (registry) registry.register(this, handle, this);
  }
  /** The live Embind handle, or an Error if this object was deleted. */
  get handle() {
    if (!this._h) throw new Error(`attnlab: this ${this._name} was deleted; create or load a new one`);
    return this._h;
  }
  /** Frees the wasm memory; the object is unusable afterwards. Safe to call twice. */
  delete() {
    if (this._h) {
      if (registry) registry.unregister(this);
      this._h.delete();
      this._h = null;
    }
  }
  get deleted() { return !this._h; }
}

export function checkAlive(obj, name) {
  if (!obj._h) throw new Error(`attnlab: this ${name} was deleted; create or load a new one`);
}

/**
 * A plain copy of an options object, made in JS: getters and proxies run
 * here (and may throw here), never while wasm code is on the stack.
 */
export function plain(o) {
  if (o === undefined || o === null || typeof o !== 'object') return o;
  return { ...o };
}

/** The one snake_case -> camelCase mapping of config objects read from C++ ({ word_hidden } -> { wordHidden }). */
export function camelKeys(o) {
  const out = {};
  for (const [k, v] of Object.entries(o)) out[k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase())] = v;
  return out;
}

/** Float32Array as is; arrays and other array-likes copied into one. */
export function toF32(v) {
  if (v instanceof Float32Array) return v;
  if (v == null) throw new Error('attnlab: expected a Float32Array, got ' + v);
  if (typeof v.length !== 'number') throw new Error('attnlab: expected a Float32Array or an array of numbers');
  return Float32Array.from(v);
}

/** Uint8Array or ArrayBuffer (others rejected with a clear Error). */
export function toU8(bytes, what) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  throw new Error(`attnlab: ${what} expects a Uint8Array or ArrayBuffer, got ${bytes === null ? 'null' : typeof bytes}`);
}

/**
 * Model bytes from a Uint8Array / ArrayBuffer (as is), a URL (fetch), or, in
 * Node, a file path or file: URL (read from disk).
 */
export async function fetchBytes(src, init) {
  if (src instanceof Uint8Array) return src;
  if (src instanceof ArrayBuffer) return new Uint8Array(src);
  const s = String(src);
  const isNode = typeof process === 'object' && !!process.versions?.node;
  if (isNode && !/^https?:/i.test(s)) {
    // the specifier is built at run time so bundlers don't try to resolve node: modules
    const fs = await import(/* @vite-ignore */ ['node', 'fs/promises'].join(':'));
    const path = s.startsWith('file:') ? new URL(s) : s;
    try {
      return new Uint8Array(await fs.readFile(path));
    } catch (e) {
      throw new Error(`attnlab: cannot read the model file ${s}: ${e.message}`);
    }
  }
  let r;
  try {
    r = await fetch(s, init);
  } catch (e) {
    throw new Error(`attnlab: could not fetch ${s}: ${e.message}`);
  }
  if (!r.ok) throw new Error(`attnlab: could not fetch ${s}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}
