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
  console.log(lanes, mem, w, failed, names, b.gflops, peak, n, deleted);
}
main();
