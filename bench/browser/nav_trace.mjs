// Where a navigation to the first translation spends its time (a diagnosis next to
// navigation.mjs, which only times it): one cold visit (new context, empty cache) and one
// warm visit (the same context again) of #translate, each recorded with Chromium's tracing.
// Prints, per visit, from the navigation's start to the first output tokens on screen:
//   - the site's requests: when each was sent and finished, and from which thread;
//   - per thread of the page's renderer process (page, compute worker, their thread pool):
//     the busy time (top-level trace events) and the events that took most of it (an event
//     counted once, not again for its nested events of the same name);
//   - the wasm work: lazy compilations of functions on first call (V8 compiles a function
//     when it is first called) and the optimizing tier's background time.
// The traces are written as JSON (open them in DevTools' Performance panel or ui.perfetto.dev).
// Tracing slows the browser down: read the shares and the order of events, not the
// milliseconds; the times themselves come from navigation.mjs.
//   node bench/browser/nav_trace.mjs [--out DIR]     (after scripts/build.sh wasm site)
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium, ROOT, SITE } from '../../tests/browser/helpers.mjs';
import { serveApart } from './serve_apart.mjs';

const at = process.argv.indexOf('--out');
const OUT = at > 0 ? process.argv[at + 1] : join(ROOT, 'build', 'nav-trace');
if (!existsSync(join(SITE, 'index.html'))) throw new Error('no site: run scripts/build.sh wasm site');
mkdirSync(OUT, { recursive: true });

// the site from scripts/serve.mjs in a process of its own, as navigation.mjs serves it
const server = await serveApart(SITE);
const { base } = server;
await new Promise((ok) => setTimeout(ok, 3000));  // the server compresses every file as it starts

const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.execute', 'v8.wasm',
  'blink.user_timing', 'loading', 'toplevel', 'ServiceWorker'];

// ms from the navigation's start to the first output tokens, read in the page (navigation.mjs)
async function tracedVisit(browser, page, url, path) {
  await browser.startTracing(page, { path, categories: CATEGORIES });
  await page.goto(url);
  const shown = await page.waitForFunction(() => (document.querySelector('#tr-output .tok') ? performance.now() : 0),
    null, { timeout: 60000, polling: 'raf' });
  await page.waitForFunction(() => document.querySelector('#tr-output')?.dataset.text, null, { timeout: 60000 });
  await browser.stopTracing();
  return shown.jsonValue();
}

function summarize(path, label, firstMs) {
  const events = JSON.parse(readFileSync(path, 'utf8')).traceEvents;
  const threads = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args.name);
  const nav = events.find((e) => e.name === 'navigationStart' && (e.args?.data?.documentLoaderURL || '').startsWith(base));
  if (!nav) throw new Error(`${path}: no navigationStart of ${base}`);
  const t0 = nav.ts, t1 = t0 + firstMs * 1000;
  const ms = (us) => (us / 1000).toFixed(1);
  console.log(`\n${label}: first tokens at ${firstMs.toFixed(0)} ms (traced; ${path})`);

  console.log('  requests of the site (sent -> finished, ms from the navigation):');
  const sent = new Map();
  for (const e of events) {
    const d = e.args?.data;
    if (e.name === 'ResourceSendRequest' && d?.url?.startsWith(base)) sent.set(d.requestId, { e, url: d.url.slice(base.length) || './' });
  }
  const rows = [];
  for (const e of events) {
    const d = e.args?.data;
    if (e.name !== 'ResourceFinish' || !sent.has(d?.requestId)) continue;
    const s = sent.get(d.requestId);
    rows.push([s.e.ts, e.ts, s.url, threads.get(`${s.e.pid}:${s.e.tid}`) || '?']);
  }
  rows.sort((a, b) => a[0] - b[0]);
  for (const [s, f, url, th] of rows) {
    if (s > t1) continue;
    console.log(`    ${ms(s - t0).padStart(7)} -> ${ms(f - t0).padStart(7)}  ${url.slice(0, 48).padEnd(48)} ${th}`);
  }

  // per thread of the page's process: busy time and its largest events, within [t0, t1]
  const per = new Map();
  for (const e of events) {
    if (e.pid !== nav.pid || e.ph !== 'X' || !e.dur || e.ts < t0 || e.ts > t1) continue;
    const key = `${e.pid}:${e.tid}`;
    if (!per.has(key)) per.set(key, []);
    per.get(key).push(e);
  }
  console.log('  busy time per thread of the page\'s process (top-level events) and its largest events:');
  const lines = [];
  for (const [key, list] of per) {
    list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    let busy = 0, end = 0;
    const byName = new Map();
    const open = new Map();  // name -> end of its outermost occurrence
    for (const e of list) {
      const stop = Math.min(e.ts + e.dur, t1);
      if (e.ts >= end) { busy += stop - e.ts; end = stop; } else if (stop > end) { busy += stop - end; end = stop; }
      if (/^(ThreadControllerImpl|RunTask|MessageLoop|Receive mojo|SimpleWatcher|ThreadPool_|TaskGraphRunner)/.test(e.name)) continue;
      if ((open.get(e.name) ?? -1) > e.ts) continue;  // nested in one of the same name
      open.set(e.name, e.ts + e.dur);
      byName.set(e.name, (byName.get(e.name) || 0) + stop - e.ts);
    }
    const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([n, d]) => `${n} ${ms(d)}`).join(', ');
    lines.push([busy, `    ${(threads.get(key) || key).slice(0, 24).padEnd(24)} ${ms(busy).padStart(7)} ms busy: ${top}`]);
  }
  for (const [, l] of lines.sort((a, b) => b[0] - a[0]).slice(0, 6)) console.log(l);

  const sum = (name, pred = () => true) => events.filter((e) => e.name === name && e.ts >= t0 && e.ts <= t1 && pred(e))
    .reduce((a, e) => [a[0] + 1, a[1] + (e.dur || 0)], [0, 0]);
  const [lazyN, lazyUs] = sum('wasm.CompileLazy');
  const [, topUs] = sum('wasm.ExecuteCompilationUnits');
  console.log(`  wasm: ${lazyN} functions compiled on first call (${ms(lazyUs)} ms, on the thread that called them); ` +
    `background compilation ${ms(topUs)} ms of CPU`);
}

const browser = await launchChromium();
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  const coldPath = join(OUT, 'cold.json'), warmPath = join(OUT, 'warm.json');
  const cold = await tracedVisit(browser, page, `${base}?trace=1#translate`, coldPath);
  await page.evaluate(() => navigator.serviceWorker?.ready);  // as navigation.mjs
  await page.waitForTimeout(300);
  const warm = await tracedVisit(browser, await context.newPage(), `${base}?trace=1&warm=1#translate`, warmPath);
  summarize(coldPath, 'cold visit', cold);
  summarize(warmPath, 'warm visit', warm);
} finally {
  await browser.close();
  server.close();
}
