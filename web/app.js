// The page: routing between views, and the main compute worker.
import { WorkerClient } from './lib/client.js';
// Every view is a module with the same entry: init(call, manifest) wires its
// controls (call runs an operation in the worker, manifest is models/index.json)
// and may return a function the page calls with the worker's info once it is ready.
import { init as initTranslate } from './views/translate.js';
import { init as initTrainSeq2Seq } from './views/train_seq2seq.js';
import { init as initHAN } from './views/han.js';
import { init as initMMoE } from './views/mmoe.js';
import { init as initRecsys } from './views/recsys.js';
import { init as initPlayground } from './views/playground.js';
import { init as initLM } from './views/lm.js';
import { init as initEngine } from './views/engine.js';
import { init as initOffline } from './views/offline.js';
import { parseHash, routeState } from './lib/urlstate.js';

const VIEWS = [initTranslate, initTrainSeq2Seq, initHAN, initMMoE, initRecsys, initLM, initPlayground, initEngine, initOffline];

const client = new WorkerClient((msg) => setStatus(`worker failed: ${msg}`, true), { boot: true });
export const call = (op, args, onProgress) => client.call(op, args, onProgress);

const $ = (sel) => document.querySelector(sel);
function setStatus(text, error = false) {
  const s = $('#status');
  s.textContent = text;
  s.classList.toggle('error', error);
}

// #view?state: the view to show, and its state (lib/urlstate.js). Choosing a
// view moves the focus to its heading, so keyboard and screen-reader users land
// on what they chose instead of staying in the navigation.
let shown = null;
function route() {
  const { view, params } = parseHash();
  const views = document.querySelectorAll('.view');
  let el = null;
  for (const v of views) {
    const on = v.id === `view-${view}`;
    v.hidden = !on;
    if (on) el = v;
  }
  if (!el) { el = $('#view-home'); el.hidden = false; }
  for (const a of document.querySelectorAll('nav a')) {
    if (a.getAttribute('href') === `#${view}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  routeState(view, params);
  if (shown !== null && shown !== el) focusHeading(el);
  shown = el;
}
function focusHeading(view = document.querySelector('.view:not([hidden])')) {
  const h = view?.querySelector('h2');
  if (!h) return;
  h.tabIndex = -1;
  h.focus();
}
addEventListener('hashchange', route);
route();
// the skip link goes to the shown view's heading (its own href would change the route)
$('#skip-link').addEventListener('click', (ev) => { ev.preventDefault(); focusHeading(); });

// models/index.json lists the shipped models the views can load (boot.js asked for it already)
const manifest = (client.bootManifest ?? fetch('models/index.json').then((r) => (r.ok ? r.json() : [])))
  .catch((e) => {
    setStatus(`could not read the model list: ${e.message}`, true);
    return [];
  });
const onReady = manifest.then((m) => VIEWS.map((init) => {
  const r = init(call, m);
  if (r && typeof r.catch === 'function') r.catch((e) => setStatus(e.message, true));  // async views
  return r;
}).filter((f) => typeof f === 'function'));

// 'info' is asked once the views have sent their first calls: the first translation goes
// first in the worker's queue
onReady.then((ready) => call('info').then((info) => {
  for (const f of ready) f(info);
  setStatus('ready');
  document.body.dataset.ready = '1';
  // offline once loaded (service workers need a secure context: https or localhost); registered
  // once the page is ready and its first calls are answered: the install downloads every file of
  // the page, which on a first visit would compete with the downloads the first result waits for
  if ('serviceWorker' in navigator && window.isSecureContext) {
    client.idle().then(() => navigator.serviceWorker.register('sw.js')).catch(() => {});
  }
})).catch((e) => setStatus(`could not start: ${e.message}`, true));
