// Benchmark (not a test): navigation to the first translation on localhost, cold and warm,
// in one run. Each round opens a fresh browser context (empty HTTP cache, no service
// worker: a first visit) on #translate and times from the navigation's start to the first
// translation on screen (its output tokens in #tr-output); then, in the same context, a second
// visit of the same URL (everything cached, the service worker in control). Rounds
// alternate the two, one statistic for both: the median over rounds, with the min-max.
// Goal: cold <= 500 ms.
// Controls, in the same rounds and contexts: what this harness costs before any of the page's
// work, timed the same way on two minimal pages served the same way: a page whose one module
// script puts the token on screen (new context, navigation, a module, a frame), and the same
// with the module starting a module worker and waiting for its first message (the worker's
// start-up, which the page's compute worker also pays). The page's time over these floors is
// what the page itself adds.
// Every site is served by scripts/serve.mjs in a process of its own, as the demo is served (in
// this process, the server would answer between the browser driver's messages, and it answered
// the page's requests up to several times slower).
// --against DIR: a second built site (e.g. build/site of an earlier commit, copied), served
// beside this one and timed in the same rounds, the two sites alternating first; each row then
// prints both and the ratio (other / this: above 1 means this site is faster).
//   node bench/browser/navigation.mjs [--rounds N] [--against DIR]   (after scripts/build.sh wasm site)
import { loadavg } from 'node:os';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium, SITE } from '../../tests/browser/helpers.mjs';
import { serveApart } from './serve_apart.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const rounds = arg('--rounds', 7);
const at = process.argv.indexOf('--against');
const AGAINST = at > 0 ? process.argv[at + 1] : null;
if (AGAINST && !existsSync(join(AGAINST, 'index.html'))) throw new Error(`--against: no site in ${AGAINST}`);

// ms from the navigation's start (performance.timeOrigin) to the first translation shown (its
// output tokens in #tr-output; the heatmap may come a frame later): read in the page at the first
// animation frame that has them (the check runs every frame), not after a round trip to this
// process. The result is then awaited whole (data-text, set once the heatmap is drawn).
async function firstTranslation(page, url) {
  await page.goto(url);
  const at = await page.waitForFunction(() => (document.querySelector('#tr-output .tok') ? performance.now() : 0),
    null, { timeout: 60000, polling: 'raf' });
  await page.waitForFunction(() => document.querySelector('#tr-output')?.dataset.text, null, { timeout: 60000 });
  return at.jsonValue();
}

// the controls' two pages (see the top): index.html?worker=1 starts the worker
function floorSite() {
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-nav-floor-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>floor</title>' +
    '<script type="module" src="floor.js"></script></head><body><div id="tr-output"></div></body></html>\n');
  writeFileSync(join(dir, 'floor.js'), `const show = () => {
  const out = document.querySelector('#tr-output');
  const t = document.createElement('span');
  t.className = 'tok';
  t.textContent = 'x';
  out.append(t);
  out.dataset.text = 'x';
};
if (new URLSearchParams(location.search).has('worker')) {
  new Worker(new URL('./floor-worker.js', import.meta.url), { type: 'module' }).onmessage = show;
} else show();
`);
  writeFileSync(join(dir, 'floor-worker.js'), 'postMessage(1);\n');
  return dir;
}

if (!existsSync(join(SITE, 'index.html'))) throw new Error('no site: run scripts/build.sh wasm site');
const browser = await launchChromium();
const floorDir = floorSite();
const servers = [];
try {
  for (const dir of [SITE, floorDir, ...(AGAINST ? [AGAINST] : [])]) servers.push(await serveApart(dir));
} catch (e) {
  for (const s of servers) s.close();
  await browser.close();
  throw e;
}
// the servers compress every file in the background as they start: let them finish first
await new Promise((ok) => setTimeout(ok, 3000));
const floorBase = servers[1].base;
const floors = { page: [], worker: [] };
const sites = [{ base: servers[0].base, cold: [], warm: [] }];
if (AGAINST) sites.push({ base: servers[2].base, cold: [], warm: [] });
const load0 = loadavg()[0];
try {
  for (let r = 0; r < rounds; ++r) {
    for (const site of r % 2 ? [...sites].reverse() : sites) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        site.cold.push(await firstTranslation(page, `${site.base}?round=${r}#translate`));
        // let the service worker take control and finish precaching before the warm visit
        await page.evaluate(() => navigator.serviceWorker?.ready);
        await page.waitForTimeout(300);
        const page2 = await context.newPage();
        site.warm.push(await firstTranslation(page2, `${site.base}?round=${r}&warm=1#translate`));
      } finally {
        await context.close();
      }
    }
    for (const [key, query] of [['page', ''], ['worker', '&worker=1']]) {
      const context = await browser.newContext();
      try {
        floors[key].push(await firstTranslation(await context.newPage(), `${floorBase}?round=${r}${query}`));
      } finally {
        await context.close();
      }
    }
  }
} finally {
  for (const s of servers) s.close();
  rmSync(floorDir, { recursive: true, force: true });
  await browser.close();
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const stat = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return `median ${median(a).toFixed(0)} ms [${s[0].toFixed(0)}-${s[s.length - 1].toFixed(0)}]`;
};
const [mine, theirs] = sites;
const vs = (key) => (theirs ? `  | other: ${stat(theirs[key])}  ratio ${(median(theirs[key]) / median(mine[key])).toFixed(2)}x` : '');
console.log(`navigation to the first translation (#translate, ${rounds} rounds, load average ${load0.toFixed(2)} -> ${loadavg()[0].toFixed(2)})${AGAINST ? `; against ${AGAINST} (ratio = other / this)` : ''}:`);
console.log(`  cold (new context, empty cache): ${stat(mine.cold)}${vs('cold')}   goal <= 500 ms`);
console.log(`  warm (second visit, cached):     ${stat(mine.warm)}${vs('warm')}`);
console.log(`  harness floor, a minimal page:          ${stat(floors.page)}`);
console.log(`  harness floor, the same + module worker: ${stat(floors.worker)}`);
console.log(`  per round, cold / warm ms: ${mine.cold.map((c, i) => `${c.toFixed(0)}/${mine.warm[i].toFixed(0)}`).join(', ')}`);
