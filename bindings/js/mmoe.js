// MMoE: multi-task mixtures of experts with softmax or attention gates.
//   const m = new al.MMoE({ inputDim: 100, experts: 8, expertUnits: 16, tasks: 2, gate: 'attention' });
//   const { x, y } = al.data.mmoeSynthetic({ n: 10000, p: 0.9, seed: 1 });
//   await m.fit(x, y, { epochs: 20, onEpoch: ({ epoch, loss }) => ... });
//   const { pred, gates } = m.predict(x.subarray(0, 100 * 100));
//   m.delete();
import { checkAlive, fetchBytes, toF32 } from './util.js';

const GATES = ['shared-bottom', 'omoe', 'softmax', 'attention', 'attention-x'];

export function install(api, mod) {
  class MMoE {
    /**
     * @param {object} opts inputDim, experts, expertUnits, tasks, towerUnits, attDim, gate, seed
     */
    constructor(opts = {}, _handle = null) {
      if (_handle) {
        this._h = _handle;
      } else {
        const gate = opts.gate ?? 'softmax';
        if (!GATES.includes(gate)) throw new Error(`attnlab: unknown gate '${gate}' (expected ${GATES.join(', ')})`);
        const cfg = {
          input_dim: opts.inputDim ?? 100, experts: opts.experts ?? 8, expert_units: opts.expertUnits ?? 16,
          tasks: opts.tasks ?? 2, tower_units: opts.towerUnits ?? 8, att_dim: opts.attDim ?? 16, gate,
        };
        this._h = new mod.MMoEModel(JSON.stringify(cfg), opts.seed ?? 0);
      }
      const c = JSON.parse(this._h.config());
      this.config = {
        inputDim: c.input_dim, experts: c.experts, expertUnits: c.expert_units, tasks: c.tasks,
        towerUnits: c.tower_units, attDim: c.att_dim, gate: c.gate,
      };
    }
    /** Loads a model file (Uint8Array or ArrayBuffer of a .safetensors written by attnlab). */
    static fromBytes(bytes) {
      const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
      return new MMoE({}, mod.MMoEModel.fromBytes(u8));
    }
    /** Loads from a URL (fetch), or in Node from a file path too. */
    static async fromUrl(src, init) { return MMoE.fromBytes(await fetchBytes(src, init)); }
    get paramCount() { checkAlive(this, 'MMoE'); return this._h.paramCount(); }
    /** x: n * inputDim floats -> { pred: (n, tasks), gates: (tasks, n, experts), n } */
    predict(x) { checkAlive(this, 'MMoE'); return this._h.predict(toF32(x)); }
    /** One epoch; returns the train MSE per task. */
    trainEpoch(x, y, { batchSize = 128, lr = 1e-3, seed = 0 } = {}) {
      checkAlive(this, 'MMoE');
      return this._h.trainEpoch(toF32(x), toF32(y), batchSize, lr, seed);
    }
    /**
     * Trains for `epochs`, calling onEpoch({ epoch, loss, val }) after each (val if
     * validation data is given); yields to the event loop between epochs.
     */
    async fit(x, y, { epochs = 20, batchSize = 128, lr = 1e-3, seed = 0, validation, onEpoch } = {}) {
      checkAlive(this, 'MMoE');
      const xs = toF32(x), ys = toF32(y);
      const history = [];
      for (let epoch = 0; epoch < epochs; ++epoch) {
        const loss = Array.from(this._h.trainEpoch(xs, ys, batchSize, lr, seed));
        const val = validation ? Array.from(this._h.evaluate(toF32(validation.x), toF32(validation.y))) : undefined;
        history.push({ epoch, loss, val });
        if (onEpoch && (await onEpoch({ epoch, loss, val })) === false) break;
        await new Promise((r) => setTimeout(r, 0));
      }
      return history;
    }
    evaluate(x, y) { checkAlive(this, 'MMoE'); return Array.from(this._h.evaluate(toF32(x), toF32(y))); }
    resetOptimizer() { checkAlive(this, 'MMoE'); this._h.resetOptimizer(); }
    /** The model as safetensors bytes (f16 halves the size). */
    save({ f16 = false } = {}) { checkAlive(this, 'MMoE'); return this._h.save(f16); }
    /** Frees the wasm memory; the object is unusable afterwards. */
    delete() { if (this._h) { this._h.delete(); this._h = null; } }
    get deleted() { return !this._h; }
  }
  api.MMoE = MMoE;
  api.data = api.data || {};
  /**
   * The MMoE paper's synthetic two-task data: { x: n*dim, y: n*2 }. taskSeed
   * draws the pair of tasks (0: use seed); seed draws the samples.
   */
  api.data.mmoeSynthetic = ({ n = 10000, dim = 100, p = 0.5, sines = 10, noise = 0.01, seed = 0, taskSeed = 0 } = {}) =>
    mod.mmoeSynthetic(n, dim, p, sines, noise, seed, taskSeed);
}
