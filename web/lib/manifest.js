// What the page reads from models/index.json (the shipped models), shared by the translate
// view and boot.js (which starts a first visit's model download before the view exists).

/** The translate view's models, in the list's order: RNN and Transformer seq2seq. */
export const translateModels = (manifest) => manifest.filter((m) => m.kind === 'seq2seq' || m.kind === 'transformer-seq2seq');

/** A model's name in the URL: its folder (models/<name>/model.safetensors); a local file has none. */
export const modelSlug = (m) => (m.file ? null : m.url.replace(/^models\//, '').replace(/\/model\.safetensors$/, '').replace(/\.safetensors$/, ''));

/**
 * The model file the translate view loads first (every view's first visit: it translates its
 * first example whichever view is shown): the one '#translate?model=<name>' names when the
 * hash shows that view, else the first of the list; null when the name is not a listed model.
 */
export function firstTranslateModel(manifest, view, params) {
  if (!Array.isArray(manifest)) return null;
  const models = translateModels(manifest);
  const slug = view === 'translate' ? params.get('model') : null;
  const m = slug == null ? models[0] : models.find((x) => modelSlug(x) === slug);
  return m && typeof m.url === 'string' ? m.url : null;
}
