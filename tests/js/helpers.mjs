// Shared by the node:test files and the wasm benchmarks: where the built package is, and loading it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PKG = process.env.ATTNLAB_PKG || join(ROOT, 'build', 'pkg');
export const WASM_BUILD = join(ROOT, 'build', 'wasm');

// The package in `dir` (default PKG), loaded.
export async function loadPkg(dir = PKG) {
  const entry = join(dir, 'node.mjs');
  if (!existsSync(entry)) throw new Error(`no package at ${dir}: run scripts/build.sh wasm first`);
  const { load } = await import(entry);
  return load();
}

// A shipped model's file, models/<name>/model.safetensors, and a test's skip option for when it is missing.
export const modelFile = (name) => join(ROOT, 'models', name, 'model.safetensors');
export const skipWithout = (name) => (existsSync(modelFile(name)) ? false : `no ${name} model`);

// Loads a handle of Kind (al.HAN, al.Seq2Seq, ...) from a file, runs the synchronous fn on it and
// deletes the handle afterwards, also when fn throws.
export function withModel(Kind, file, fn) {
  const model = Kind.fromBytes(readFileSync(file));
  try {
    return fn(model);
  } finally {
    model.delete();
  }
}

// Debian's python3 with torch (the PyTorch fixtures and README examples need it).
export const PY = '/usr/bin/python3';
// Asked once, when a test first wants to know (the import takes seconds).
let torch;
export function hasTorch() {
  if (torch === undefined) {
    try {
      execFileSync(PY, ['-c', 'import torch'], { stdio: 'ignore' });
      torch = true;
    } catch {
      torch = false;
    }
  }
  return torch;
}

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
