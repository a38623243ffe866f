// Benchmark (not a test): navigation to the first translation on localhost, cold and warm,
// in one run. Each round opens a fresh browser context (empty HTTP cache, no service
// worker: a first visit) on #translate and times from the navigation's start to the first
// translation on screen (#tr-output has its text); then, in the same context, a second
// visit of the same URL (everything cached, the service worker in control). Rounds
// alternate the two, one statistic for both: the median over rounds, with the min-max.
// Goal: cold <= 500 ms.
//   node bench/browser/navigation.mjs [--rounds N]      (after scripts/build.sh wasm site)
import { loadavg } from 'node:os';
import { startBrowser, waitForData } from '../../tests/browser/helpers.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const rounds = arg('--rounds', 7);

// ms from the navigation's start (performance.timeOrigin) to the first translation shown
async function firstTranslation(page, url) {
  await page.goto(url);
  await waitForData(page, '#tr-output', 'text', undefined, 60000);
  return page.evaluate(() => performance.now());
}

const ctx = await startBrowser();
const cold = [], warm = [];
const load0 = loadavg()[0];
try {
  for (let r = 0; r < rounds; ++r) {
    const context = await ctx.browser.newContext();
    try {
      const page = await context.newPage();
      cold.push(await firstTranslation(page, `${ctx.base}?round=${r}#translate`));
      // let the service worker take control and finish precaching before the warm visit
      await page.evaluate(() => navigator.serviceWorker?.ready);
      await page.waitForTimeout(300);
      const page2 = await context.newPage();
      warm.push(await firstTranslation(page2, `${ctx.base}?round=${r}&warm=1#translate`));
    } finally {
      await context.close();
    }
  }
} finally {
  await ctx.close();
}
const stat = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return `median ${s[Math.floor(s.length / 2)].toFixed(0)} ms [${s[0].toFixed(0)}-${s[s.length - 1].toFixed(0)}]`;
};
console.log(`navigation to the first translation (#translate, ${rounds} rounds, load average ${load0.toFixed(2)} -> ${loadavg()[0].toFixed(2)}):`);
console.log(`  cold (new context, empty cache): ${stat(cold)}   goal <= 500 ms`);
console.log(`  warm (second visit, cached):     ${stat(warm)}`);
console.log(`  per round, cold / warm ms: ${cold.map((c, i) => `${c.toFixed(0)}/${warm[i].toFixed(0)}`).join(', ')}`);
