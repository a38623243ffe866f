// Shared by the node:test files: where the built package is, and loading it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PKG = process.env.ATTNLAB_PKG || join(ROOT, 'build', 'pkg');
export const WASM_BUILD = join(ROOT, 'build', 'wasm');

export async function loadPkg() {
  const entry = join(PKG, 'node.mjs');
  if (!existsSync(entry)) throw new Error(`no package at ${PKG}: run scripts/build.sh wasm first`);
  const { load } = await import(entry);
  return load();
}
