// The attention playground: run one attention mechanism on your vectors and
// get every intermediate (scores, mask, weights, outputs, heads).
//   al.playground.attend({ score: 'additive', mode: 'local-p', window: 2, x, T, D })
//   al.playground.multihead({ x, T, E, heads: 4, causal: true })
import { toF32 } from './util.js';

export function install(api, mod) {
  api.playground = {
    /** Self-attention of T vectors of size D (x: T*D floats) with one score function. */
    attend: (o) => mod.playgroundAttend({ ...o, x: toF32(o.x) }),
    /** Multi-head self-attention (random projections from seed), every head's weights. */
    multihead: (o) => mod.playgroundMultihead({ ...o, x: toF32(o.x) }),
    run: (o) => (o.heads ? api.playground.multihead(o) : api.playground.attend(o)),
  };
}
