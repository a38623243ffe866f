// The n-best list of a beam search: every finished hypothesis with its score, best
// first; choosing one shows its attention (onPick). A list of toggle buttons, so it
// works by keyboard and says which one is shown (aria-pressed).
//   renderNBest(holder, r.nBest, { beam, onPick: (h, k) => ... })   // r.nBest: [] or undefined hides it

export function renderNBest(holder, list, { beam, join = ' ', onPick }) {
  holder.replaceChildren();
  holder.hidden = !list || !list.length;
  if (holder.hidden) return;
  const h = document.createElement('h3');
  h.id = 'tr-nbest-title';
  h.textContent = `Beam ${beam}: ${list.length} finished hypothes${list.length === 1 ? 'is' : 'es'}, best first`;
  const note = document.createElement('p');
  note.className = 'stat';
  note.textContent = 'score = log p / ((5 + length) / 6)^0.6 (GNMT length normalization, length counting the end ' +
    'token); a hypothesis cut at the length limit has no end token. Choose one to see its attention.';
  const ol = document.createElement('ol');
  ol.className = 'nbest';
  ol.setAttribute('aria-labelledby', h.id);
  const buttons = list.map((hyp, k) => {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.k = String(k);
    b.dataset.score = String(hyp.score);
    b.dataset.text = hyp.tokens.join(join);
    b.setAttribute('aria-pressed', k === 0 ? 'true' : 'false');
    const text = document.createElement('span');
    text.className = 'nbest-text';
    text.textContent = hyp.tokens.join(join) || '(empty)';
    const stat = document.createElement('span');
    stat.className = 'stat';
    stat.textContent = ` score ${hyp.score.toFixed(3)} · log p ${hyp.logprob.toFixed(3)}` +
      `${hyp.eosProb > 0 ? '' : ' · cut at the length limit'}`;
    b.append(text, stat);
    b.addEventListener('click', () => {
      buttons.forEach((x) => x.setAttribute('aria-pressed', x === b ? 'true' : 'false'));
      onPick(hyp, k);
    });
    li.append(b);
    ol.append(li);
    return b;
  });
  holder.append(h, note, ol);
}
