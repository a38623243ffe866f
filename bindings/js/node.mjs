// attnlab for Node (>= 18). Emscripten 3.1.6's loader calls fetch() on a file
// path under Node 18+ and uses __dirname in ES modules; both are avoided by
// reading the .wasm here and handing the bytes to the module factory.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import createAttnlabModule from './attnlab.js';
import { instantiate, wrap } from './core.js';

let cached = null;

/**
 * Loads the wasm module once and caches the promise.
 * @param {{wasmPath?: string|URL, wasmBinary?: ArrayBuffer|Uint8Array, wasmModule?: WebAssembly.Module|Promise<WebAssembly.Module>}} [opts]
 */
export function load(opts = {}) {
  if (cached) return cached;
  const path = opts.wasmPath ?? fileURLToPath(new URL('./attnlab.wasm', import.meta.url));
  let wasmBinary = opts.wasmBinary;
  if (!wasmBinary && !opts.wasmModule) {
    try {
      wasmBinary = readFileSync(path);
    } catch (e) {
      return Promise.reject(new Error(`attnlab: cannot read the wasm file ${path}: ${e.message}`));
    }
  }
  const moduleArgs = { locateFile: (p) => p };
  if (wasmBinary) moduleArgs.wasmBinary = wasmBinary;
  cached = instantiate(createAttnlabModule, moduleArgs, opts.wasmModule).then(wrap, (e) => {
    cached = null;
    throw new Error(`attnlab: could not instantiate the wasm module: ${e && e.message ? e.message : e}`);
  });
  return cached;
}

export default load;
