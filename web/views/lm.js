// Language model: a Transformer-XL character LM continues a prompt in the
// worker, character by character (streamed). Click any generated character to
// see, per layer, every head's attention over the keys that predicted it: the
// XL memory (left of the bar, carried over from earlier segments) and the
// current segment.
import { heatmap, colorLegend } from '../lib/plot.js';
import { bindState } from '../lib/urlstate.js';
import { onModelFile } from '../lib/modelfile.js';

const $ = (s) => document.querySelector(s);
const CELL = 12;

function labelOf(ch) {
  return ch === '\n' ? '⏎' : ch === ' ' ? '␣' : ch;
}

export function init(call, manifest) {
  const models = manifest.filter((m) => m.kind === 'char-lm');
  const sel = $('#lm-model');
  sel.replaceChildren(...models.map((m, i) => {
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = m.title;
    return o;
  }));
  if (!models.length) {
    $('#lm-error').textContent = 'no language model in models/index.json';
    return;
  }
  let last = null;
  // the URL holds the model and the generation options (generating is an action: it waits for the button)
  bindState('lm', { model: '#lm-model', prompt: '#lm-prompt', n: '#lm-n', temperature: '#lm-temp', topk: '#lm-topk', seed: '#lm-seed' });

  function showAttention(k) {
    const a = last.attention[k];
    const box = $('#lm-attention');
    box.replaceChildren();
    box.dataset.char = String(k);
    const seq = last.seq;
    const plen = seq.length - last.generated.length;  // characters before the first generated one
    // key j is the character at query + 1 - keys + j of the model's input
    const keyChars = Array.from({ length: a.keys }, (_, j) => labelOf(seq[a.query + 1 - a.keys + j] ?? '?'));
    const head = document.createElement('p');
    head.textContent = `“${labelOf(last.generated[k])}” was predicted from “${labelOf(seq[a.query])}”: ` +
      `${a.memory} keys from the memory (left of the bar), ${a.keys - a.memory} from the current segment; ` +
      'rows are heads, one map per layer, each row sums to 1.';
    box.append(head);
    // one colour scale for every layer (up to the largest weight of any head), one legend
    let top = 0;
    for (const v of a.weights) top = Math.max(top, v);
    colorLegend(box, { min: 0, max: top, label: 'attention weight', note: 'one scale for every layer and head' });
    for (let l = 0; l < a.layers; ++l) {
      const wrap = document.createElement('div');
      wrap.className = 'lm-layer';
      const values = a.weights.subarray(l * a.heads * a.keys, (l + 1) * a.heads * a.keys);
      const rowLabels = Array.from({ length: a.heads }, (_, h) => `L${l + 1} h${h + 1}`);
      // the memory boundary: a bar after the last memory key
      const decorate = a.memory > 0 ? (g, L) => {
        g.strokeStyle = '#d22';
        g.lineWidth = 2;
        g.beginPath();
        g.moveTo(L.padL + a.memory * L.cellW - 0.5, L.padT - 6);
        g.lineTo(L.padL + a.memory * L.cellW - 0.5, L.padT + L.rows * L.cellH);
        g.stroke();
      } : null;
      heatmap(wrap, values, a.heads, a.keys, {
        rowLabels, colLabels: keyChars, cell: CELL, title: `layer ${l + 1}`, name: `lm-layer-${l + 1}`, decorate,
        max: top, legend: false,
        rowTitle: 'head', colTitle: a.memory > 0 ? 'key: memory | current segment' : 'key (earlier character)',
        valueLabel: 'attention weight', cellLabel: (_r, c) => (c < a.memory ? 'memory' : 'segment'),
        // the hovered key's character is marked in the text (when it is a generated one)
        onHover: (_r, c) => {
          for (const x of document.querySelectorAll('#lm-output .lm-char.key')) x.classList.remove('key');
          const i = c < 0 ? -1 : a.query + 1 - a.keys + c - plen;
          if (i >= 0) document.querySelector(`#lm-output .lm-char[data-i="${i}"]`)?.classList.add('key');
        },
      });
      box.append(wrap);
    }
  }

  async function run() {
    const m = models[Number(sel.value)];
    const out = $('#lm-output');
    out.replaceChildren();
    delete out.dataset.text;
    $('#lm-error').textContent = '';
    $('#lm-attention').replaceChildren();
    const prompt = $('#lm-prompt').value;
    const p = document.createElement('span');
    p.className = 'lm-prompt';
    p.textContent = prompt;
    out.append(p);
    const btn = $('#lm-generate');
    btn.disabled = true;
    const spans = [];
    const t0 = performance.now();
    try {
      const args = { url: m.url, prompt, n: Number($('#lm-n').value), temperature: Number($('#lm-temp').value),
        topK: Number($('#lm-topk').value), seed: Number($('#lm-seed').value) };
      const r = await call('lmGenerate', args, ({ ch, i }) => {
        const s = document.createElement('span');
        s.className = 'lm-char';
        s.textContent = ch;
        s.dataset.i = String(i);
        spans.push(s);
        out.append(s);
      });
      const generated = [...r.text];
      last = { ...r, generated, seq: [...(prompt || '\n'), ...generated] };
      out.dataset.text = r.text;
      $('#lm-speed').textContent = `${generated.length} characters in ${((performance.now() - t0) / 1000).toFixed(2)} s ` +
        `(${(generated.length / ((performance.now() - t0) / 1000)).toFixed(0)} per second, with the attention recorded); ` +
        'click a character to see its attention';
      if (generated.length) showAttention(generated.length - 1);
    } catch (e) {
      $('#lm-error').textContent = e.message;
    } finally {
      btn.disabled = false;
    }
  }

  $('#lm-output').addEventListener('click', (ev) => {
    const i = ev.target.dataset?.i;
    if (i === undefined || !last) return;
    for (const s of document.querySelectorAll('#lm-output .lm-char.on')) s.classList.remove('on');
    ev.target.classList.add('on');
    showAttention(Number(i));
  });
  $('#lm-generate').addEventListener('click', run);
  // your own character LM (attnlab train lm), loaded in the worker; it replaces the previous file
  onModelFile($('#lm-file'), $('#lm-file-status'), 'LanguageModel', call, ({ url, info, file }) => {
    const c = info.config;
    const entry = { kind: 'char-lm', title: `your file: ${file.name} (${c.arch}, ${c.nLayer} layers × ${c.nHead} heads)`, url,
      file: file.name, about: `Loaded from your file ${file.name}; it stays in this tab only.` };
    const at = models.findIndex((x) => x.file);
    if (at >= 0) models.splice(at, 1, entry); else models.push(entry);
    sel.replaceChildren(...models.map((m, i) => new Option(m.title, String(i))));
    sel.value = String(models.indexOf(entry));
    $('#lm-about').textContent = entry.about;
    $('#lm-file-status').textContent = `${file.name}: loaded (${(file.size / 1024).toFixed(0)} KB); Generate uses it.`;
    $('#lm-file-status').dataset.loaded = file.name;
  }, (msg) => { $('#lm-error').textContent = msg; });
  $('#lm-about').textContent = models[0].about || '';
  sel.addEventListener('change', () => { $('#lm-about').textContent = models[Number(sel.value)].about || ''; });
}
