// attnlab in a Vite app: the package finds its .wasm through
// new URL('./attnlab.wasm', import.meta.url), which Vite turns into an asset.
import { load } from 'attnlab';

const al = await load();
document.querySelector('#out').textContent =
  Array.from(al.softmax([1, 2, 3]), (v) => v.toFixed(3)).join(', ');

// the same package inside a module Worker
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
worker.onmessage = ({ data }) => { document.querySelector('#worker').textContent = data; };
