// The attention playground: run one attention mechanism on your vectors and
// get every intermediate (scores, mask, weights, outputs, heads).
//   al.playground.attend({ score: 'additive', mode: 'local-p', window: 2, x, T, D })
//   al.playground.multihead({ x, T, E, heads: 4, causal: true })
import { plain, toF32 } from './util.js';

function withX(o, what) {
  if (o === null || typeof o !== 'object') throw new Error(`attnlab: ${what} expects an options object, got ${o === null ? 'null' : typeof o}`);
  const p = plain(o);
  return { ...p, x: toF32(p.x) };
}

export function install(api, mod) {
  api.playground = {
    /** Self-attention of T vectors of size D (x: T*D floats) with one score function. */
    attend: (o) => mod.playgroundAttend(withX(o, 'playground.attend')),
    /** Multi-head self-attention (random projections from seed), every head's weights. */
    multihead: (o) => mod.playgroundMultihead(withX(o, 'playground.multihead')),
    run: (o) => (o && o.heads ? api.playground.multihead(o) : api.playground.attend(o)),
  };
}
