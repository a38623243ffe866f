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
