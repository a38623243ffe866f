// Compiled with tsc --noEmit against index.d.ts by the package test: uses
// every declared API so a declaration that drifts from the code breaks it.
import { load, type Attnlab, type LayerKind, type MMoEPrediction, type Tensor, type TrainableSeq2Seq, type Seq2SeqFitEpoch } from 'attnlab';

async function main(): Promise<void> {
  const al: Attnlab = await load({ wasmPath: './attnlab.wasm' });
  const info = al.simdInfo();
  const lanes: number = info.lanes;
  const mem: number = al.memory().used;
  const w: Float32Array = al.softmax([1, 2, 3]);
  const report = al.kernels.selftest(1);
  const failed: number = report.failed;
  const names: string[] = al.kernels.list().map((k) => k.name);
  const b = al.kernels.bench('gemm_nn', [64, 64, 64], { minMs: 10 });
  const peak: number = al.kernels.peakGflops(10);
  const { x, y } = al.data.mmoeSynthetic({ n: 100, p: 0.5, seed: 1, taskSeed: 1 });
  const pg = al.playground.attend({ x: new Float32Array(8), T: 2, D: 4, score: 'additive', mode: 'local-p', window: 1 });
  const pos: Float32Array | undefined = pg.positions;
  const mh = al.playground.multihead({ x: new Float32Array(8), T: 2, E: 4, heads: 2 });
  const dis: number = mh.disagreement.subspace + pg.weights[0];
  const ms: number = al.kernels.attention('mha', { T: 16, D: 8, heads: 2 });
  const g2p = await al.Seq2Seq.fromUrl('g2p.safetensors');
  const t = g2p.translate('PHONE', { beam: 4, maxLen: 20, alpha: 0.6, precision: 'int8' });
  const cells: number = t.rows * t.cols + t.attention[0] + t.probs[0] + t.logprob + t.ms;
  const phones: string = t.tokens.join(' ') + t.inputTokens.join('') + g2p.info().score + g2p.info().tgtVocab[0];
  const dates = al.Seq2Seq.fromBytes(new Uint8Array(8));
  dates.delete(); g2p.delete();
  const han = await al.HAN.fromUrl('han.safetensors');
  const c = han.classify('Subject: hi');
  const top: number = c.probs[c.labelId] + c.sentences[0].weight + c.sentences[0].words[0].score + han.paramCount;
  const lab: string = c.label + han.config.labels[0] + String(c.truncated) + String(han.deleted);
  han.delete();
  const m = new al.MMoE({ gate: 'attention', experts: 4 });
  const hist = await m.fit(x, y, { epochs: 1, onEpoch: ({ epoch, loss }) => loss[0] + epoch });
  const p: MMoEPrediction = m.predict(x);
  const mse: number[] = m.evaluate(x, y);
  const step: Float32Array = m.trainEpoch(x, y, { batchSize: 32 });
  const bytes: Uint8Array = m.save({ f16: true });
  const m2 = al.MMoE.fromBytes(bytes);
  const m3 = await al.MMoE.fromUrl('model.safetensors');
  const n: number = m2.paramCount + m.config.experts + p.n + hist.length + step.length + mse[0];
  m.resetOptimizer();
  m.delete(); m2.delete(); m3.delete();
  const deleted: boolean = m.deleted;
  console.log(lanes, mem, w, failed, names, b.gflops, peak, n, deleted, pos, dis, ms, cells, phones, top, lab);
}
main();

// the layer-level API: layer files exported from PyTorch, functional attention
async function layers(al: Attnlab): Promise<void> {
  const t = (shape: number[]): Tensor => ({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)), shape });
  const layer = await al.layers.fromUrl('mha.safetensors');
  const kinds: LayerKind[] = al.layers.kinds();
  if (layer.kind === 'MultiheadAttention') {
    const r = layer.forward(t([5, 2, 8]), null, null, {
      keyPaddingMask: { data: new Uint8Array(10), shape: [2, 5] }, attnMask: { data: new Float32Array(25), shape: [5, 5] },
      isCausal: true, needWeights: true, averageAttnWeights: false, batchFirst: false,
    });
    const out: Tensor = r.out;
    const heads: number = r.weights ? r.weights.shape[1] : 0;
    console.log(out.shape, heads);
  } else if (layer.kind === 'GRU' || layer.kind === 'LSTM') {
    const r = layer.forward(t([5, 2, 4]), { h0: t([1, 2, 6]), lengths: [5, 3], batchFirst: false });
    const hN: Tensor = r.hN;
    console.log(hN, r.cN?.shape);
  } else if (layer.kind === 'TransformerEncoderLayer') {
    const y: Tensor = layer.forward(t([5, 2, 8]), { srcKeyPaddingMask: { data: [false, true], shape: [1, 2] } });
    console.log(y);
  } else {
    const y: Tensor = layer.forward(t([3, 2, 8]), t([5, 2, 8]), { tgtIsCausal: true });
    console.log(y);
  }
  const cfg = layer.config;
  const params: number = layer.paramCount;
  layer.delete();
  const s = al.attention.scaledDot(t([2, 3, 4]), t([2, 5, 4]), t([2, 5, 6]), { causal: true, scale: 0.5, needWeights: false });
  // outputs written into the caller's own array (no allocation per call)
  const into = new Float32Array(2 * 3 * 6);
  const s2 = al.attention.scaledDot(t([2, 3, 4]), t([2, 5, 4]), t([2, 5, 6]), { needWeights: false, into: { out: into } });
  const same: Float32Array = s2.out.data;
  const a = al.attention.additive(t([3, 4]), t([5, 6]), t([5, 2]), { wq: t([7, 4]), wk: t([7, 6]), va: t([7]) });
  const aw: Tensor = a.weights;
  console.log(kinds, cfg, params, s.out, s.weights, aw, same);
}
void layers;

// training a seq2seq model on pairs in memory
async function ownPairs(al: Attnlab) {
  const pairs: [string, string][] = al.data.numberPairs({ count: 100, language: 'en' });
  const m: TrainableSeq2Seq = al.Seq2Seq.create({ srcTokens: 'word', rnn: 'gru', hidden: 32 });
  const ctl = new AbortController();
  const r = await m.fit(pairs, { epochs: 1, batchSize: 16, signal: ctl.signal,
    onEpoch: (e: Seq2SeqFitEpoch) => { console.log(e.loss, e.valExactMatch); } });
  const last: Seq2SeqFitEpoch | undefined = r.history[0];
  const bytes: Uint8Array = m.save('f16');
  console.log(r.stopped, last, m.translate('seven').text, bytes.length, m.stats()?.params);
  m.delete();
}
void ownPairs;
