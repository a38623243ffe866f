// MMoE: multi-task mixtures of experts with softmax or attention gates.
//   const m = new al.MMoE({ inputDim: 100, experts: 8, expertUnits: 16, tasks: 2, gate: 'attention' });
//   const { x, y } = al.data.mmoeSynthetic({ n: 10000, p: 0.9, seed: 1 });
//   await m.fit(x, y, { epochs: 20, onEpoch: ({ epoch, loss }) => ... });
//   const { pred, gates } = m.predict(x.subarray(0, 100 * 100));
//   m.delete();
import { WasmObject, fetchBytes, plain, toF32, toU8 } from './util.js';

export function install(api, mod) {
  class MMoE extends WasmObject {
    /**
     * @param {object} opts inputDim, experts, expertUnits, tasks, towerUnits, attDim,
     *   bottomUnits, gate ('shared-bottom' | 'omoe' | 'softmax' | 'attention' | 'attention-x'),
     *   gateBias, seed. Every option is checked (type, whole number, range).
     */
    constructor(opts = {}, _handle = null) {
      super(_handle ?? mod.MMoEModel.create(plain(opts)), 'MMoE');
      const c = JSON.parse(this._h.config());
      this.config = {
        inputDim: c.input_dim, experts: c.experts, expertUnits: c.expert_units, tasks: c.tasks,
        towerUnits: c.tower_units, attDim: c.att_dim, gate: c.gate,
      };
    }
    /** Loads a model file (Uint8Array or ArrayBuffer of a .safetensors written by attnlab). */
    static fromBytes(bytes) {
      return new MMoE({}, mod.MMoEModel.fromBytes(toU8(bytes, 'MMoE.fromBytes')));
    }
    /** Loads from a URL (fetch), or in Node from a file path too. */
    static async fromUrl(src, init) { return MMoE.fromBytes(await fetchBytes(src, init)); }
    get paramCount() { return this.handle.paramCount(); }
    /** x: n * inputDim floats -> { pred: (n, tasks), gates: (tasks, n, experts), n } */
    predict(x) { const h = this.handle; return h.predict(toF32(x)); }
    /** One epoch; returns the train MSE per task. */
    trainEpoch(x, y, opts = {}) {
      const h = this.handle;
      return h.trainEpoch(toF32(x), toF32(y), plain(opts));
    }
    /**
     * Trains for `epochs`, calling onEpoch({ epoch, loss, val }) after each (val if
     * validation data is given); yields to the event loop between epochs.
     */
    async fit(x, y, { epochs = 20, batchSize = 128, lr = 1e-3, seed = 0, validation, onEpoch } = {}) {
      this.handle;
      if (!Number.isInteger(epochs) || epochs < 0 || epochs > 1e6)
        throw new Error(`attnlab: epochs: expected a whole number in [0, 1000000], got ${epochs}`);
      const xs = toF32(x), ys = toF32(y);
      const vx = validation ? toF32(validation.x) : null, vy = validation ? toF32(validation.y) : null;
      const history = [];
      for (let epoch = 0; epoch < epochs; ++epoch) {
        const loss = Array.from(this.handle.trainEpoch(xs, ys, { batchSize, lr, seed }));
        const val = validation ? Array.from(this.handle.evaluate(vx, vy)) : undefined;
        history.push({ epoch, loss, val });
        if (onEpoch && (await onEpoch({ epoch, loss, val })) === false) break;
        await new Promise((r) => setTimeout(r, 0));
      }
      return history;
    }
    evaluate(x, y) { const h = this.handle; return Array.from(h.evaluate(toF32(x), toF32(y))); }
    resetOptimizer() { this.handle.resetOptimizer(); }
    /** The model as safetensors bytes (f16 halves the size). */
    save(opts = {}) { return this.handle.save(plain(opts)); }
  }
  api.MMoE = MMoE;
  api.data = api.data || {};
  /**
   * The MMoE paper's synthetic two-task data: { x: n*dim, y: n*2 }. taskSeed
   * draws the pair of tasks (0: use seed); seed draws the samples. Defaults:
   * n 10000, dim 100, p 0.5, sines 10, noise 0.01, seed 0, taskSeed 0.
   */
  api.data.mmoeSynthetic = (opts = {}) => mod.mmoeSynthetic(plain(opts));
}
