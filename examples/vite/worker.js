import { load } from 'attnlab';

const al = await load();
const m = new al.MMoE({ gate: 'attention' });
const { x } = al.data.mmoeSynthetic({ n: 4, seed: 1 });
const { gates } = m.predict(x);
m.delete();
self.postMessage(`${al.simdInfo().arch}, gate sum ${gates.slice(0, 8).reduce((a, b) => a + b, 0).toFixed(3)}`);
