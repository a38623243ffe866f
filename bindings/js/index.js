// attnlab for browsers and Web Workers (ES module).
//   import { load } from 'attnlab';
//   const al = await load();                 // fetches attnlab.wasm next to this file
//   const al = await load({ wasmPath: '/static/attnlab.wasm' });  // or from anywhere
import createAttnlabModule from './attnlab.js';
import { instantiate, wrap } from './core.js';

let cached = null;

/**
 * Loads the wasm module once and caches the promise.
 * @param {{wasmPath?: string|URL, wasmBinary?: ArrayBuffer|Uint8Array, wasmModule?: WebAssembly.Module|Promise<WebAssembly.Module>}} [opts]
 */
export function load(opts = {}) {
  if (cached) return cached;
  const moduleArgs = {};
  if (opts.wasmBinary) moduleArgs.wasmBinary = opts.wasmBinary;
  const url = opts.wasmPath ? String(opts.wasmPath) : new URL('./attnlab.wasm', import.meta.url).href;
  moduleArgs.locateFile = (p) => (p.endsWith('.wasm') ? url : p);
  cached = instantiate(createAttnlabModule, moduleArgs, opts.wasmModule).then(wrap, (e) => {
    cached = null;
    throw new Error(`attnlab: could not load the wasm module from ${url}: ${e && e.message ? e.message : e}`);
  });
  return cached;
}

export default load;
