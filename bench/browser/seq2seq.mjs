// Benchmark (not a test): seq2seq decode in headless Chromium: the G2P model, greedy and
// beam 4, each decoder precision, over the 292 CMUdict words of bench/wasm/seq2seq.mjs
// (every 400th headword). Chromium's clock has 0.1 ms resolution in a page that is not
// cross-origin isolated, so a whole pass over the words is timed (wall time of translate()
// from JS, so slightly more than the in-wasm time Node reports); the best of 5 passes.
//   node bench/browser/seq2seq.mjs      (after scripts/build.sh wasm site)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser, ROOT } from '../../tests/browser/helpers.mjs';

const words = readFileSync(join(ROOT, 'node_modules', '@stdlib', 'datasets-cmudict', 'data', 'dict.txt'), 'latin1')
  .split('\n').map((l) => l.split(/\s+/)[0]).filter((w) => /^[A-Z]+$/.test(w)).filter((_, i) => i % 400 === 0);
const ctx = await startBrowser();
try {
  const page = await ctx.browser.newPage();
  await page.goto(ctx.base + 'index.html#engine');
  const res = await page.evaluate(async ({ words }) => {
    const { load } = await import('/pkg/index.js');
    const al = await load();
    const m = await al.Seq2Seq.fromUrl('/models/g2p-cmudict/model.safetensors');
    const out = [];
    for (const precision of ['int8', 'int16', 'f32'])
      for (const beam of [1, 4]) {
        for (const w of words.slice(0, 50)) m.translate(w, { beam, precision });
        let typical = Infinity, attention = Infinity;
        for (let pass = 0; pass < 5; ++pass) {
          let t0 = performance.now();
          for (const w of words) m.translate(w, { beam, precision });
          typical = Math.min(typical, (performance.now() - t0) / words.length);
          t0 = performance.now();
          for (let i = 0; i < 100; ++i) m.translate('attention', { beam, precision });
          attention = Math.min(attention, (performance.now() - t0) / 100);
        }
        out.push({ precision, beam, typical, attention });
      }
    m.delete();
    return { out, ua: navigator.userAgent };
  }, { words });
  console.log(`seq2seq decode in Chromium (${res.ua.match(/Chrome\/[\d.]+/)?.[0]}), g2p-cmudict, ms per translate() call, best of 5 passes`);
  for (const r of res.out)
    console.log(`  beam ${r.beam} ${r.precision.padEnd(5)}: typical word (mean over ${words.length}) ${r.typical.toFixed(3)} ms, "attention" ${r.attention.toFixed(3)} ms`);
} finally {
  await ctx.close();
}
