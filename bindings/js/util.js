// Small helpers shared by the model wrappers.
export function checkAlive(obj, name) {
  if (!obj._h) throw new Error(`attnlab: this ${name} was deleted; create or load a new one`);
}
/** Float32Array as is; arrays and other array-likes copied into one. */
export function toF32(v) {
  if (v instanceof Float32Array) return v;
  if (v == null) throw new Error('attnlab: expected a Float32Array, got ' + v);
  if (typeof v.length !== 'number') throw new Error('attnlab: expected a Float32Array or an array of numbers');
  return Float32Array.from(v);
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
