// Node example: train MMoE with attention gates on the paper's synthetic data
// and print per-task MSE and the gate weights of one sample.
//   npm install attnlab   (or: npm install ./attnlab-0.1.0.tgz)
//   node node-mmoe.mjs
import { load } from 'attnlab';

const al = await load();
const { x, y } = al.data.mmoeSynthetic({ n: 5000, p: 0.9, sines: 3, seed: 1 });
const m = new al.MMoE({ gate: 'attention', experts: 8 });
try {
  await m.fit(x, y, { epochs: 5, lr: 2e-3, onEpoch: ({ epoch, loss }) =>
    console.log(`epoch ${epoch + 1}: train MSE ${loss.map((v) => v.toFixed(3)).join(' / ')}`) });
  const { gates } = m.predict(x.subarray(0, 100));
  console.log('task 1 gate of sample 0:', Array.from(gates.subarray(0, 8), (g) => g.toFixed(2)).join(' '));
} finally {
  m.delete();
}
