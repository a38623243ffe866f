// HAN view: a hierarchical attention network reads an email. Sentences are
// shaded by their sentence weight, words by their word weight (or the
// paper's combined score sqrt(p_sentence) * p_word).
import { weightColor, download, heatmap } from '../lib/plot.js';

const $ = (s) => document.querySelector(s);

export async function init(call, manifest) {
  const model = manifest.find((m) => m.kind === 'han');
  if (!model) {
    $('#han-body').hidden = true;
    $('#han-missing').hidden = false;
    return;
  }
  let samples = [];
  try {
    const j = await (await fetch('data/han-samples.json')).json();
    samples = Array.isArray(j) ? j : j.samples || [];
  } catch { /* optional */ }
  const sel = $('#han-sample');
  sel.replaceChildren(new Option('— pick a held-out message —', ''), ...samples.map((s, i) =>
    new Option(`${s.label === 'spam' || s.label === 1 ? 'spam' : 'ham'}${s.group ? ` (${s.group})` : ''}: ${(s.subject || s.text.replace(/^Subject:\s*/, '').slice(0, 60)).slice(0, 70)}`, String(i))));
  sel.addEventListener('change', () => {
    if (sel.value === '') return;
    $('#han-text').value = samples[Number(sel.value)].text;
    run();
  });
  let last = null;
  function render() {
    if (!last) return;
    const mode = $('#han-mode').value;
    const doc = $('#han-doc');
    // shade relative to the largest value in this email (hover shows the raw weights)
    const vals = last.sentences.flatMap((s) => (mode === 'sentence' ? [s.weight]
      : s.words.map((w) => (mode === 'word' ? w.weight : w.score))));
    const top = Math.max(1e-9, ...vals);
    doc.replaceChildren(...last.sentences.map((s) => {
      const p = document.createElement('p');
      p.className = 'sent';
      const sw = document.createElement('span');
      sw.className = 'sw';
      sw.textContent = s.weight.toFixed(2);
      sw.title = 'sentence weight';
      p.append(sw);
      if (mode === 'sentence') p.style.background = weightColor(s.weight / top);
      for (const w of s.words) {
        const span = document.createElement('span');
        span.className = 'w';
        span.textContent = w.text;
        const v = mode === 'word' ? w.weight : mode === 'combined' ? w.score : 0;
        if (mode !== 'sentence') span.style.background = weightColor(v / top);
        span.title = `word ${w.weight.toFixed(3)} · combined ${w.score.toFixed(3)}`;
        p.append(span, ' ');
      }
      return p;
    }));
    // the same weights as a map: sentences x word positions (positions past a sentence's end masked)
    const S = last.sentences.length, W = Math.max(1, ...last.sentences.map((s) => s.words.length));
    const values = new Float32Array(S * W), mask = new Uint8Array(S * W);
    last.sentences.forEach((s, r) => {
      for (let c = 0; c < W; ++c) {
        const w = s.words[c];
        if (!w) { mask[r * W + c] = 1; continue; }
        values[r * W + c] = mode === 'sentence' ? s.weight : mode === 'word' ? w.weight : w.score;
      }
    });
    const what = { sentence: 'sentence weight', word: 'word weight', combined: 'combined score' }[mode];
    heatmap($('#han-heatmap'), values, S, W, {
      rowLabels: last.sentences.map((s, i) => `s${i + 1} · ${s.weight.toFixed(2)}`),
      colLabels: Array.from({ length: W }, (_, i) => String(i + 1)), cell: 20, mask, max: 'data',
      rowTitle: 'sentence · its weight', colTitle: 'word position', valueLabel: what, name: `han-${mode}`,
      title: `HAN ${what}s`, cellLabel: (r, c) => `“${last.sentences[r].words[c]?.text ?? ''}”`,
      // the hovered (or keyboard-focused) cell's word is marked in the text above
      onHover: (r, c) => {
        for (const x of doc.querySelectorAll('.w.hl')) x.classList.remove('hl');
        if (r >= 0) doc.querySelectorAll('.sent')[r]?.querySelectorAll('.w')[c]?.classList.add('hl');
      },
    });
  }
  async function run() {
    const text = $('#han-text').value;
    try {
      const r = await call('classify', { url: model.url, text });
      last = r;
      $('#han-error').textContent = '';
      const spam = r.label === 'spam' || r.label === 1;
      const p = Math.max(...r.probs);
      const v = $('#han-verdict');
      v.textContent = `${spam ? 'spam' : 'ham'} (p = ${p.toFixed(3)}) · ${r.sentences.length} sentences · ${r.ms.toFixed(2)} ms in wasm`;
      v.className = spam ? 'verdict spam' : 'verdict ham';
      v.dataset.label = spam ? 'spam' : 'ham';
      render();
    } catch (e) {
      $('#han-error').textContent = e.message;
    }
  }
  $('#han-run').addEventListener('click', run);
  $('#han-mode').addEventListener('change', render);
  $('#han-json').addEventListener('click', () => last && download('han-attention.json', JSON.stringify(last)));
}
