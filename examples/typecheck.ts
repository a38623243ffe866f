// Compiled with tsc --noEmit against index.d.ts by the package test: uses
// every declared API so a declaration that drifts from the code breaks it.
import { load, type Attnlab, type MMoEPrediction } from 'attnlab';

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
