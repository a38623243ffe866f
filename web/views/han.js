// HAN view: a hierarchical attention network reads an email. Sentences are
// shaded by their sentence weight, words by their word weight (or the
// paper's combined score sqrt(p_sentence) * p_word). Text on a shaded cell
// switches colour so it keeps WCAG AA contrast (4.5:1) on every shade.
import { weightColor, download, heatmap } from '../lib/plot.js';
import { textOn, weightRgb } from '../lib/color.js';
import { bindState } from '../lib/urlstate.js';
import { onModelFile } from '../lib/modelfile.js';
import { initExplain, explainHan, clearExplain } from './explain.js';

const $ = (s) => document.querySelector(s);
const URL_TEXT_MAX = 2000;  // longer messages are not written into the URL

function shade(el, t) {
  el.style.background = weightColor(t);
  el.style.color = textOn(weightRgb(t));
}

export async function init(call, manifest) {
  let model = manifest.find((m) => m.kind === 'han');
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
  let last = null, seq = 0;
  const exportOn = (on) => { $('#han-json').disabled = !on; };
  exportOn(false);
  function render() {
    if (!last) return;
    const r = last.output;
    const mode = $('#han-mode').value;
    const doc = $('#han-doc');
    // shade relative to the largest value in this email (hover shows the raw weights)
    const vals = r.sentences.flatMap((s) => (mode === 'sentence' ? [s.weight]
      : s.words.map((w) => (mode === 'word' ? w.weight : w.score))));
    const top = Math.max(1e-9, ...vals);
    doc.dataset.mode = mode;
    doc.replaceChildren(...r.sentences.map((s) => {
      const p = document.createElement('p');
      p.className = 'sent';
      const sw = document.createElement('span');
      sw.className = 'sw';
      sw.textContent = s.weight.toFixed(2);
      sw.title = 'sentence weight';
      p.append(sw);
      if (mode === 'sentence') { shade(p, s.weight / top); sw.style.color = p.style.color; }
      const lone = s.words.length === 1;
      for (const w of s.words) {
        const span = document.createElement('span');
        span.className = lone ? 'w lone' : 'w';
        span.textContent = w.text;
        const v = mode === 'word' ? w.weight : mode === 'combined' ? w.score : 0;
        if (mode !== 'sentence') shade(span, v / top);
        span.title = `word ${w.weight.toFixed(3)} · combined ${w.score.toFixed(3)}` +
          (lone ? ' · the only word of its sentence: word weight 1 by construction' : '');
        p.append(span, ' ');
      }
      return p;
    }));
    const lone = r.sentences.filter((s) => s.words.length === 1).length;
    $('#han-lone').textContent = lone && mode !== 'sentence'
      ? `${lone} sentence${lone > 1 ? 's have' : ' has'} a single word (dotted underline): a lone word always gets word weight 1 ` +
        '(attention over one word), so it is dark here whatever it says; its sentence weight tells how much it counted.'
      : '';
    // the same weights as a map: sentences x word positions (positions past a sentence's end masked)
    const S = r.sentences.length, W = Math.max(1, ...r.sentences.map((s) => s.words.length));
    if (!S) { $('#han-heatmap').replaceChildren(); return; }
    const values = new Float32Array(S * W), mask = new Uint8Array(S * W);
    r.sentences.forEach((s, i) => {
      for (let c = 0; c < W; ++c) {
        const w = s.words[c];
        if (!w) { mask[i * W + c] = 1; continue; }
        values[i * W + c] = mode === 'sentence' ? s.weight : mode === 'word' ? w.weight : w.score;
      }
    });
    const what = { sentence: 'sentence weight', word: 'word weight', combined: 'combined score' }[mode];
    heatmap($('#han-heatmap'), values, S, W, {
      rowLabels: r.sentences.map((s, i) => `s${i + 1} · ${s.weight.toFixed(2)}`),
      colLabels: Array.from({ length: W }, (_, i) => String(i + 1)), cell: 20, mask, max: 'data',
      rowTitle: 'sentence · its weight', colTitle: 'word position', valueLabel: what, name: `han-${mode}`,
      title: `HAN ${what}s`, cellLabel: (i, c) => `“${r.sentences[i].words[c]?.text ?? ''}”`,
      meta: { model: last.model, input: last.input.length > 300 ? `${last.input.slice(0, 300)}…` : last.input,
        output: `${r.label} (p = ${Math.max(...r.probs).toFixed(3)})` },
      // the hovered (or keyboard-focused) cell's word is marked in the text above
      onHover: (i, c) => {
        for (const x of doc.querySelectorAll('.w.hl')) x.classList.remove('hl');
        if (i >= 0) doc.querySelectorAll('.sent')[i]?.querySelectorAll('.w')[c]?.classList.add('hl');
      },
    });
  }
  function clear(message) {
    last = null;
    exportOn(false);
    $('#han-error').textContent = message;
    const v = $('#han-verdict');
    v.textContent = '';
    v.className = 'verdict';
    delete v.dataset.label;
    $('#han-notes').replaceChildren();
    $('#han-lone').textContent = '';
    $('#han-doc').replaceChildren();
    $('#han-heatmap').replaceChildren();
    clearExplain('han');
  }
  async function run() {
    const text = $('#han-text').value;
    const my = ++seq;
    try {
      const r = await call('classify', { url: model.url, text });
      if (my !== seq) return;
      last = { model: model.title, modelUrl: model.file ? `file: ${model.file}` : model.url, input: text,
        output: { label: r.label, labelId: r.labelId, probs: r.probs, truncated: r.truncated, empty: r.empty,
          sentences: r.sentences }, limits: { maxSentences: r.maxSentences, maxWords: r.maxWords }, ms: r.ms };
      $('#han-error').textContent = '';
      const spam = r.label === 'spam' || r.label === 1;
      const p = Math.max(...r.probs);
      const v = $('#han-verdict');
      const notes = [];
      if (r.empty) {
        // no words: the probabilities answer an empty document, they are no verdict on this message
        v.textContent = `no verdict: the message has no words the model reads · ${r.ms.toFixed(2)} ms in wasm`;
        v.className = 'verdict';
        v.dataset.label = 'empty';
        notes.push(`An empty document gets p(${r.label}) = ${p.toFixed(3)} from this model: its prior, not a reading of the message.`);
      } else {
        v.textContent = `${spam ? 'spam' : 'ham'} (p = ${p.toFixed(3)}) · ${r.sentences.length} sentences · ${r.ms.toFixed(2)} ms in wasm`;
        v.className = spam ? 'verdict spam' : 'verdict ham';
        v.dataset.label = spam ? 'spam' : 'ham';
      }
      if (r.truncated) {
        // the package says that it cut, not how much: what can be said from the limits is said
        const full = r.sentences.filter((s) => s.words.length >= r.maxWords).length;
        notes.push(`Truncated: the model reads at most ${r.maxSentences} sentences of ${r.maxWords} words (and 1 MiB of text); ` +
          `${r.sentences.length} sentence${r.sentences.length === 1 ? ' was' : 's were'} kept` +
          `${full ? `, ${full} of them cut at ${r.maxWords} words` : ''}. The rest of the message was not read ` +
          '(the package does not report how many sentences the message had).');
      }
      $('#han-notes').replaceChildren(...notes.map((t) => Object.assign(document.createElement('p'), { textContent: t })));
      $('#han-notes').dataset.truncated = String(Boolean(r.truncated));
      $('#han-notes').dataset.empty = String(Boolean(r.empty));
      exportOn(true);
      render();
      await explainHan(call, model.url, text, () => my === seq);
    } catch (e) {
      if (my === seq) clear(e.message);
    }
  }
  $('#han-run').addEventListener('click', run);
  $('#han-mode').addEventListener('change', render);
  initExplain('han', run);
  $('#han-json').addEventListener('click', () => last && download('han-attention.json', JSON.stringify(last, null, 1)));

  // your own HAN model file, loaded in the worker
  onModelFile($('#han-file'), $('#han-file-status'), 'HAN', call, ({ url, info, file }) => {
    model = { kind: 'han', title: `your file: ${file.name}`, url, file: file.name };
    $('#han-file-status').textContent = `${file.name}: loaded (${(file.size / 1024).toFixed(0)} KB, ${info.config.labels.join(' / ')}); ` +
      'Classify uses it in this tab.';
    $('#han-file-status').dataset.loaded = file.name;
    run();
  }, clear);

  // the URL holds the shading, and the message: a sample by its number, or the text when
  // typed (up to URL_TEXT_MAX characters)
  const defaultText = $('#han-text').value;
  const sampleText = () => (sel.value === '' ? null : samples[Number(sel.value)]?.text);
  const url_ = bindState('han', {
    mode: '#han-mode',
    sample: '#han-sample',
    text: { el: '#han-text', get: () => {
      const t = $('#han-text').value;
      return t === sampleText() || t.length > URL_TEXT_MAX ? null : t;
    }, set: (v) => { $('#han-text').value = v ?? sampleText() ?? defaultText; } },
  }, { apply: () => run() });
  $('#han-text').addEventListener('input', () => { if (sel.value !== '' && $('#han-text').value !== sampleText()) { sel.value = ''; url_.save(); } });
}
