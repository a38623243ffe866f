// Click-through models with attention, trained on their synthetic data in one call:
//   const r = al.recsys.din({ pooling: 'attention', epochs: 6 });   // DIN (Zhou et al. 2018)
//   r.history   // [{ epoch, loss, auc }] test ROC-AUC after every epoch
//   r.examples  // histories with the activation weight of every behaviour
//   const a = al.recsys.autoint({ layers: 2, heads: 2 });            // AutoInt (Song et al. 2019)
//   a.attention // Float32Array (layers, heads, fields, fields), mean over test samples
import { plain } from './util.js';

export function install(api, mod) {
  api.recsys = {
    /** Trains DIN (or its sum-pooling Base) on synthetic behaviour data. */
    din: (opts = {}) => mod.recsysDin(plain(opts)),
    /** Trains AutoInt on synthetic fields with one planted pairwise interaction. */
    autoint: (opts = {}) => mod.recsysAutoInt(plain(opts)),
  };
}
