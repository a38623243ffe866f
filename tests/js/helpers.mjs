// Shared by the node:test files: where the built package is, and loading it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

// Debian's python3 with torch (the PyTorch fixtures and README examples need it).
export const PY = '/usr/bin/python3';
export const hasTorch = (() => {
  try {
    execFileSync(PY, ['-c', 'import torch'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

// The text of a markdown file from the heading `title` (its '#'s included) to the next
// heading of the same level; fails if the heading is missing.
export function readmeSection(file, title) {
  const md = readFileSync(join(ROOT, file), 'utf8');
  const start = md.indexOf(title);
  assert.ok(start >= 0, `${file} has the section ${title}`);
  const level = title.match(/^#+ /)[0];
  const end = md.indexOf('\n' + level, start + 10);
  return md.slice(start, end < 0 ? undefined : end);
}
// The body of the first fenced block whose info string is `info` (e.g. 'python', 'text prints').
export function fencedBlock(text, info) {
  const m = text.match(new RegExp('```' + info + '\\n([\\s\\S]*?)```'));
  assert.ok(m, `a ${info} block`);
  return m[1];
}
