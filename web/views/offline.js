// Offline: an indicator in the header while the browser is offline, and on the
// home view the list of shipped models with their sizes, which of them are saved
// for offline use, and an action that saves all of them (with progress).
import { cachedSize, remoteSize, saveForOffline } from '../lib/offline.js';

const $ = (s) => document.querySelector(s);

export function formatBytes(n) {
  if (n === null || n === undefined) return 'size unknown';
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${Math.round(n / 1e3)} kB`;
  return `${n} B`;
}

export function init(_call, manifest) {
  const net = $('#net-state');
  const showNet = () => {
    net.hidden = navigator.onLine;
    document.body.dataset.online = navigator.onLine ? '1' : '0';
  };
  addEventListener('online', () => { showNet(); onHome(); });
  addEventListener('offline', () => { showNet(); onHome(); });
  showNet();

  // every model file the views load, once
  const seen = new Set();
  const models = manifest.filter((m) => m.url && !seen.has(m.url) && seen.add(m.url));
  const btn = $('#offline-all'), bar = $('#offline-progress'), text = $('#offline-progress-text');
  const rows = new Map();  // url -> { size, saved }
  if (!('caches' in self)) {
    $('#offline-summary').textContent = 'This browser gives the page no offline storage here (a secure context is needed).';
    btn.disabled = true;
    return;
  }

  let busy = false;
  async function refresh() {
    if (busy) return;
    await Promise.all(models.map(async (m) => {
      const saved = await cachedSize(m.url);
      const prev = rows.get(m.url);
      const size = saved ?? prev?.size ?? (navigator.onLine ? await remoteSize(m.url) : null);
      rows.set(m.url, { size, saved: saved !== null });
    }));
    const tbody = $('#offline-models tbody');
    tbody.replaceChildren(...models.map((m) => {
      const r = rows.get(m.url);
      const tr = document.createElement('tr');
      tr.dataset.url = m.url;
      tr.dataset.saved = r.saved ? '1' : '0';
      for (const t of [m.title, formatBytes(r.size), r.saved ? 'saved' : 'not saved']) {
        const td = document.createElement('td');
        td.textContent = t;
        tr.append(td);
      }
      return tr;
    }));
    const saved = models.filter((m) => rows.get(m.url).saved);
    const missing = models.filter((m) => !rows.get(m.url).saved);
    const bytes = (list) => list.reduce((a, m) => a + (rows.get(m.url).size || 0), 0);
    $('#offline-summary').textContent = `${saved.length} of ${models.length} models saved for offline use ` +
      `(${formatBytes(bytes(saved))})` + (missing.length ? `; ${formatBytes(bytes(missing))} more to save all.` : '.');
    $('#offline-summary').dataset.saved = String(saved.length);
    $('#offline-summary').dataset.total = String(models.length);
    btn.disabled = !missing.length || !navigator.onLine;
    btn.textContent = !missing.length ? 'All models are available offline'
      : navigator.onLine ? `Make all models available offline (${formatBytes(bytes(missing))})`
        : `Go online to save the other models (${formatBytes(bytes(missing))})`;
  }

  btn.addEventListener('click', async () => {
    const missing = models.filter((m) => !rows.get(m.url)?.saved);
    if (!missing.length) return;
    busy = true;
    btn.disabled = true;
    navigator.storage?.persist?.().catch(() => {});  // ask the browser not to evict the saved models
    const total = missing.reduce((a, m) => a + (rows.get(m.url)?.size || 0), 0);
    bar.hidden = false;
    bar.max = total || missing.length;
    let done = 0, failed = 0;
    try {
      for (const [i, m] of missing.entries()) {
        try {
          const n = await saveForOffline(m.url, (got) => {
            bar.value = total ? done + got : i;
            text.textContent = `saving ${m.title}: ${formatBytes(done + got)} of ${formatBytes(total)}`;
          });
          done += n;
        } catch (e) {
          ++failed;
          text.textContent = `${m.title}: ${e.message}`;
        }
      }
      bar.value = bar.max;
      text.textContent = failed ? `${failed} model(s) could not be saved` : `saved ${missing.length} models (${formatBytes(done)})`;
    } finally {
      busy = false;
      await refresh();
    }
  });
  // sizes are looked up (HEAD requests) only when the home view, which lists them, is shown
  const onHome = () => { if (!$('#view-home').hidden) refresh(); };
  addEventListener('hashchange', onHome);
  onHome();
}
