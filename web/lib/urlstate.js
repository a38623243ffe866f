// The URL holds the view and its state: #view?key=value&... A view binds its
// controls (model, input, options); every change rewrites the URL in place
// (history.replaceState, no new history entry), so a reload or a pasted link
// opens the same view with the same model, input and options.

/** The view and its parameters of a location hash ('#translate?model=dates&input=...'). */
export function parseHash(hash = location.hash) {
  const h = String(hash).replace(/^#/, '');
  const q = h.indexOf('?');
  return { view: (q < 0 ? h : h.slice(0, q)) || 'home', params: new URLSearchParams(q < 0 ? '' : h.slice(q + 1)) };
}

const bindings = new Map();  // view -> { get, set }

function write(view, state) {
  if (parseHash().view !== view) return;  // only the shown view owns the URL
  const p = new URLSearchParams(state);
  const s = p.toString();
  const hash = `#${view}${s ? `?${s}` : ''}`;
  if (hash !== location.hash) history.replaceState(history.state, '', hash);
}

const same = (a, b) => {
  const x = new URLSearchParams(a), y = new URLSearchParams(b);
  x.sort(); y.sort();
  return x.toString() === y.toString();
};

/**
 * Binds a view's state to the URL. fields: { key: selector | element | { el, get, set } }
 * (plain controls: inputs, selects, checkboxes; custom fields give get() -> string and
 * set(value, or null when the URL leaves the field out) and the element whose 'input' / 'change' events mean a change).
 * A field left at the value it had when bound is left out of the URL, unless
 * always: [keys] lists it. apply() runs after state from the URL was set (e.g. recompute).
 * If the URL shown when binding holds state for this view, it is applied at once.
 * Returns { save, applied }: save() rewrites the URL (call it after programmatic changes).
 */
export function bindState(view, fields, { apply = null, always = [] } = {}) {
  const f = Object.entries(fields).map(([key, spec]) => {
    const custom = spec && typeof spec === 'object' && !(spec instanceof Element) && (spec.get || spec.set);
    const el = custom ? (typeof spec.el === 'string' ? document.querySelector(spec.el) : spec.el)
      : typeof spec === 'string' ? document.querySelector(spec) : spec;
    const get = custom ? spec.get : () => (el.type === 'checkbox' ? (el.checked ? '1' : '0') : el.value);
    const initial = get();
    const set = custom ? spec.set : (v0) => {
      const v = v0 ?? initial;
      if (el.type === 'checkbox') el.checked = v === '1' || v === 'true';
      else if (el.tagName === 'SELECT') { if ([...el.options].some((o) => o.value === v)) el.value = v; }
      else el.value = v;
    };
    return { key, el, get, set, initial };
  });
  const state = () => {
    const out = {};
    for (const x of f) {
      const v = x.get();
      if (v != null && (always.includes(x.key) || v !== x.initial)) out[x.key] = v;
    }
    return out;
  };
  const save = () => write(view, state());
  const b = {
    get: state,
    set(params) {
      for (const x of f) x.set(params.has(x.key) ? params.get(x.key) : null);
      apply?.();
      save();
    },
  };
  bindings.set(view, b);
  for (const x of f) {
    x.el?.addEventListener('input', save);
    x.el?.addEventListener('change', save);
  }
  const { view: shown, params } = parseHash();
  let applied = false;
  if (shown === view && [...params.keys()].length) {
    b.set(params);
    applied = true;
  } else save();
  return { save, applied };
}

/**
 * The router's part: a view shown with parameters in the URL takes them (when they
 * differ from its state); a view shown without writes its state into the URL.
 */
export function routeState(view, params) {
  const b = bindings.get(view);
  if (!b) return;
  if ([...params.keys()].length && !same(params, b.get())) b.set(params);
  else write(view, b.get());
}
