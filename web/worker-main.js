// All compute runs here, off the main thread; loaded by worker.js, which has started the
// .wasm's download and compile and the first calls' model downloads, and queued the calls
// that came meanwhile (self.attnlabWorkerStart). The package's modules are a dynamic import
// (the built site bundles them into this file).
const { WASM, wasmModule, fileBytes, receive, early, fetched, queue } = self.attnlabWorkerStart;
const ready = import('./pkg/index.js').then(({ load }) =>
  wasmModule.then(() => load({ wasmModule, wasmPath: WASM }), () => load({ wasmPath: WASM })));
// the bytes of url: fetched early (worker.js: prefetch) or now
function bytesOf(url) {
  fetched.add(url);
  const p = early.get(url);
  early.delete(url);
  return p || fileBytes(url);
}
const models = new Map();  // url -> loaded model (kept for repeated calls)
const tasks = new WeakMap();  // Seq2Seq -> its config's task ('dates', 'g2p', ...), read once
let files = 0;  // models opened from the user's files: keys 'file:<n>:<name>'

async function cachedModel(al, cls, url) {
  const key = `${cls}:${url}`;
  if (!models.has(key)) models.set(key, bytesOf(url).then((bytes) => al[cls].fromBytes(bytes)));
  try {
    return await models.get(key);
  } catch (e) {
    models.delete(key);
    throw e;
  }
}

// the model being trained on the user's pairs (Seq2Seq.create + fit), one at a time
let trainee = null;
async function runFit(t, options, progress) {
  let shown = 0;
  const r = await t.model.fit(t.pairs, {
    ...options,
    onStep: (s) => {  // at most every 150 ms
      const now = performance.now();
      if (now - shown > 150) { shown = now; progress({ kind: 'step', ...s }); }
    },
    onEpoch: (e) => progress({ kind: 'epoch', ...e }),
  });
  return { ...r, stats: t.model.stats() };
}

// mean gate weight per task and expert over the n samples: gates (K, n, E) -> K x E
function gateMeans(gates, K, n, E) {
  const out = [];
  for (let k = 0; k < K; ++k) {
    const m = new Array(E).fill(0);
    for (let s = 0; s < n; ++s) for (let e = 0; e < E; ++e) m[e] += gates[(k * n + s) * E + e] / n;
    out.push(m);
  }
  return out;
}

const ops = {
  info: (al) => al.simdInfo(),
  scoreKinds: (al) => al.scoreKinds(),
  softmax: (al, { logits }) => al.softmax(new Float32Array(logits)),
  selftest: (al, { seed }) => al.kernels.selftest(seed),
  bench: (al, { name, shape, minMs }) => al.kernels.bench(name, shape, { minMs, withRef: true }),
  peak: (al, { minMs }) => al.kernels.peakGflops(minMs),

  // Train one MMoE on fresh synthetic data, reporting every epoch.
  async mmoeTrain(al, a, progress) {
    const dim = 100, nVal = 2000, strip = 64;
    const data = al.data.mmoeSynthetic({ n: a.n + nVal, dim, p: a.p, sines: a.sines ?? 10, seed: a.dataSeed ?? 1 });
    const xTrain = data.x.subarray(0, a.n * dim), yTrain = data.y.subarray(0, a.n * 2);
    const xVal = data.x.subarray(a.n * dim), yVal = data.y.subarray(a.n * 2);
    const m = new al.MMoE({ inputDim: dim, experts: a.experts, gate: a.gate, seed: a.seed ?? 1 });
    try {
      const t0 = performance.now();
      const history = [];
      for (let epoch = 0; epoch < a.epochs; ++epoch) {
        const loss = Array.from(m.trainEpoch(xTrain, yTrain, { batchSize: a.batch ?? 128, lr: a.lr ?? 1e-3, seed: a.seed ?? 1 }));
        const val = m.evaluate(xVal, yVal);
        const g = a.gate === 'shared-bottom' ? null : m.predict(xVal.subarray(0, 500 * dim));
        const h = { epoch, loss, val, ms: performance.now() - t0,
          gateMeans: g ? gateMeans(g.gates, 2, g.n, a.experts) : null };
        history.push(h);
        progress(h);
      }
      const seconds = (performance.now() - t0) / 1000;
      let gates = null;
      if (a.gate !== 'shared-bottom') gates = Array.from(m.predict(xVal.subarray(0, strip * dim)).gates);
      return { history, seconds, gates, strip, experts: a.experts, params: m.paramCount };
    } finally {
      m.delete();
    }
  },

  // A shipped MMoE on fresh data: its test MSE and gate weights.
  async mmoeShipped(al, { url, p, sines = 10, taskSeed = 1 }) {
    const m = await cachedModel(al, 'MMoE', url);
    const dim = m.config.inputDim, n = 2000;
    const data = al.data.mmoeSynthetic({ n, dim, p, sines, seed: 999, taskSeed });
    const mse = m.evaluate(data.x, data.y);
    const g = m.predict(data.x.subarray(0, 500 * dim));
    return { mse, config: m.config, gateMeans: gateMeans(g.gates, m.config.tasks, g.n, m.config.experts),
      params: m.paramCount };
  },

  // DIN / AutoInt: train on synthetic click data, return history and attention
  recsysDin: (al, args) => al.recsys.din(args),
  recsysAutoInt: (al, args) => al.recsys.autoint(args),

  // seq2seq: translate a word or a date with a shipped model
  async translate(al, { url, text, beam, precision = 'int8', attribution, steps, rollout }) {
    const m = await cachedModel(al, 'Seq2Seq', url);
    const r = m.translate(text, { beam, precision, nBest: beam > 1, ...(attribution ? { attribution, steps } : {}) });
    // Transformer models: attention rollout of the encoder self-attention (inputs x inputs)
    if (rollout && r.heads) {
      const e = r.heads.encSelf;
      r.rollout = { rows: e.rows, cols: e.cols, values: m.rollout(e.data, e.layers, e.heads, e.rows) };
    }
    if (!tasks.has(m)) tasks.set(m, m.info().config?.task ?? '');
    // r.ms: the decode in wasm; r.headsMs: the head maps' pass
    return { ...r, task: tasks.get(m) };
  },

  // Train your own seq2seq: pairs as TSV text; a new call replaces the previous model
  numberPairs: (al, opts) => al.data.numberPairs(opts),
  fitStart(al, { tsv, config, options }, progress) {
    if (trainee) { trainee.model.delete(); trainee = null; }
    const model = al.Seq2Seq.create(config);
    trainee = { model, pairs: tsv };
    return runFit(trainee, options, progress);
  },
  fitResume(al, { epochs }, progress) {
    if (!trainee) throw new Error('nothing to continue: train a model first');
    return runFit(trainee, { epochs }, progress);
  },
  fitStop: () => { trainee?.model.stop(); return Boolean(trainee); },
  fitSave: () => {
    if (!trainee) throw new Error('no trained model: train one first');
    return trainee.model.save('f32');
  },

  // A model file the user picked (bytes): loaded as cls ('Seq2Seq', 'HAN' or 'LanguageModel'); later calls
  // name it by the returned url. The previous file of the same class is freed.
  async openFile(al, { cls, name, bytes }) {
    if (!['Seq2Seq', 'HAN', 'LanguageModel'].includes(cls)) {
      throw new Error(`openFile: expected the class 'Seq2Seq', 'HAN' or 'LanguageModel', got '${cls}'`);
    }
    const m = al[cls].fromBytes(bytes);  // a file of another kind throws with what it found
    for (const [key, p] of models) {
      if (key.startsWith(`${cls}:file:`)) { models.delete(key); p.then((x) => x.delete(), () => {}); }
    }
    const url = `file:${++files}:${name}`;
    models.set(`${cls}:${url}`, Promise.resolve(m));
    return { url, info: cls === 'Seq2Seq' ? m.info() : { kind: cls === 'HAN' ? 'han' : 'char-lm', config: m.config } };
  },

  // HAN: classify an email with the shipped model
  async classify(al, { url, text, attribution, steps }) {
    const m = await cachedModel(al, 'HAN', url);
    const t0 = performance.now();
    // with attribution: words also carry attribution and attention, r.explain tau and removal
    const r = attribution ? m.classify(text, { attribution, steps }) : m.classify(text);
    return { ...r, ms: performance.now() - t0, maxSentences: m.config.maxSentences, maxWords: m.config.maxWords };
  },

  // Continue a prompt with a shipped character LM; each character streams as progress.
  async lmGenerate(al, { url, prompt, n, temperature, topK, seed }, progress) {
    const lm = await cachedModel(al, 'LanguageModel', url);
    const r = lm.generate(prompt, { n, temperature, topK, seed, attention: true,
      onToken: (ch, i) => { progress({ ch, i }); } });
    return r;
  },

  // Attention playground (the functions arrive with the playground bindings)
  playground: (al, args) => {
    if (!al.playground) throw new Error('the attention playground is not in this build');
    return al.playground.run(args);
  },
};

async function onCall({ data }) {
  if (receive(data)) return;  // a model file the page downloaded (worker.js)
  const { id, op, args } = data;
  try {
    const al = await ready;
    if (!ops[op]) throw new Error(`unknown operation '${op}'`);
    const progress = (p) => self.postMessage({ id, progress: p });
    self.postMessage({ id, ok: true, result: await ops[op](al, args || {}, progress) });
  } catch (e) {
    self.postMessage({ id, ok: false, error: e && e.message ? e.message : String(e) });
  }
}
self.onmessage = onCall;
for (const e of queue.splice(0)) onCall(e);
