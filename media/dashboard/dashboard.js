// The Waymark project dashboard (webview side). Draws the view model the extension posts
// (src/core/project/dashboard.ts) with plain DOM and inline SVG; no remote content, no inline
// styles (the CSP allows our stylesheet and this nonce'd script only). Every action is a real
// button or link; clicks post { type: 'open' | 'start', id } back to the extension.
// @ts-check
(function () {
  // eslint-disable-next-line no-undef
  const vscode = acquireVsCodeApi();
  const app = /** @type {HTMLElement} */ (document.getElementById('app'));
  const SVG = 'http://www.w3.org/2000/svg';
  /** @type {{ scrollY?: number, focus?: string }} */
  let saved = vscode.getState() || {};

  /** @param {string} tag @param {Record<string, any>} [attrs] @param {...any} kids */
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of kids.flat(Infinity)) if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : String(c));
    return el;
  }
  /** @param {string} tag @param {Record<string, any>} [attrs] @param {...any} kids */
  function s(tag, attrs, ...kids) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
    for (const c of kids.flat(Infinity)) if (c) el.append(c instanceof Node ? c : String(c));
    return el;
  }

  const STATE_WORDS = { todo: 'ready', in_progress: 'in progress', review: 'in review', blocked: 'blocked', done: 'done', dropped: 'dropped' };

  function fmtTime(iso) {
    if (!iso) return '';
    const d = new Date(iso);
    return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
  }

  let model;
  let canWrite = false;
  let gitSkipped = false;
  let version = 0;

  function post(type, id) {
    vscode.postMessage({ type, id });
  }

  /** The item's title as a link that opens its file at the state line. */
  function openLink(item, label) {
    // A button, not <a href="#">: the webview host scrolls the page to the top on any `#` link.
    return h('button', {
      type: 'button', class: 'open link', 'data-open': item.id, 'aria-label': `Open ${item.title} at its state (${item.rel || item.id})`,
      onclick: () => { remember(item.id, 'open'); post('open', item.id); },
    }, label || item.title);
  }

  function startButton(item) {
    if (!canWrite || !item.startable) return null;
    return h('button', {
      type: 'button', class: 'start', 'data-start': item.id, 'aria-label': `Start ${item.title}`,
      onclick: () => { remember(item.id, 'start'); post('start', item.id); },
    }, '▶ Start');
  }

  function remember(id, kind) {
    saved = { ...saved, focus: `${kind}:${id}` };
    vscode.setState(saved);
  }

  function pill(state) {
    return h('span', { class: `pill s-${state}` }, STATE_WORDS[state] || state);
  }

  /** Where the item is ahead in another git worktree: `⎇ review in feat/2-3`, the sentence as its tooltip. */
  function worktreeChips(item) {
    const list = item.worktrees || [];
    if (!list.length) return null;
    return h('div', { class: 'worktrees' }, list.map((c) => h('span', { class: 'wt-chip', title: c.tooltip, 'aria-label': c.tooltip, 'data-worktree': item.id }, c.label)));
  }

  function card(item, extra) {
    return h('li', { class: `card s-${item.state}${item.stalled ? ' is-stalled' : ''}`, 'data-id': item.id },
      h('div', { class: 'card-head' }, openLink(item), pill(item.stalled ? 'stalled' : item.state)),
      h('div', { class: 'meta' }, item.kind === 'story' ? 'story · ' : item.kind === 'ticket' ? `ticket ${item.ref} · ` : '', item.assignee ? `@${item.assignee} · ` : '', item.rel || item.id),
      worktreeChips(item),
      extra);
  }

  /** The ticket stores: breaker state, failures, queued changes, the last error, and Project now. */
  function trackerSection() {
    const stores = model.tracker || [];
    if (!stores.length) return null;
    const multi = model.roots.length > 1;
    const rows = stores.map((t) => h('li', { class: `store b-${t.state}`, 'data-store': t.store },
      h('div', { class: 'card-head' },
        h('strong', {}, t.store, h('span', { class: 'meta' }, ` (${t.kind}${t.isDefault && stores.length > 1 ? ', default' : ''})`)),
        h('span', { class: `pill b-${t.state}` }, `breaker ${t.label}`)),
      h('div', { class: 'meta' },
        `${t.failures} failure${t.failures === 1 ? '' : 's'} · ${t.queued} change${t.queued === 1 ? '' : 's'} queued`,
        multi ? ` · ${t.root}` : ''),
      t.lastError ? h('div', { class: 'reason last-error' }, `last error: ${t.lastError}`) : null));
    const open = stores.filter((t) => t.state !== 'closed').length;
    const button = canWrite
      ? h('button', { type: 'button', class: 'start', 'data-action': 'projectTickets', onclick: () => vscode.postMessage({ type: 'projectTickets' }) }, '⇪ Project to tickets')
      : h('p', { class: 'meta' }, 'Projecting to tickets is off in Restricted Mode.');
    return section('tracker', 'Tickets', open ? `${open} store${open === 1 ? '' : 's'} unavailable: changes queue in .waymark/outbox` : 'one way: workflow files → tickets', h('ul', { class: 'stores' }, rows), button);
  }

  function summary() {
    const sm = model.summary;
    const chip = (n, label, cls) => h('li', { class: `chip ${cls}` }, h('strong', {}, String(n)), ` ${label}`);
    return h('ul', { class: 'summary', 'aria-label': 'Project summary' },
      chip(sm.ready, 'ready', 's-todo'), chip(sm.active, 'active', 's-in_progress'), chip(sm.review, 'in review', 's-review'),
      chip(sm.blocked, 'blocked', 's-blocked'), chip(sm.stalled, 'stalled', 's-stalled'), chip(sm.done, 'done', 's-done'),
      sm.problems ? chip(sm.problems, sm.problems === 1 ? 'problem' : 'problems', 's-problem') : null);
  }

  function frontierSection() {
    const list = model.frontier.map((id) => model.items[id]).filter(Boolean);
    const body = list.length
      ? h('ol', { class: 'frontier' }, list.slice(0, 12).map((item, i) =>
        h('li', { class: 'frontier-item', 'data-id': item.id },
          h('span', { class: 'rank', 'aria-hidden': 'true' }, String(i + 1)),
          h('div', { class: 'frontier-body' },
            h('div', { class: 'card-head' }, openLink(item), startButton(item)),
            h('div', { class: 'reason' }, item.reason),
            worktreeChips(item),
            item.unblocksIds.length ? h('div', { class: 'meta' }, 'unblocks: ', item.unblocksIds.slice(0, 6).map((d, j) => [j ? ', ' : '', linkTo(d)])) : null))))
      : h('p', { class: 'empty' }, model.summary.active || model.summary.review ? 'Nothing is ready to start: finish the work in progress or in review.' : 'Nothing is ready to start.');
    return section('frontier', 'Start next', `${list.length} ready, in the order to start them${canWrite ? '' : ' (read-only: Restricted Mode)'}`, body);
  }

  function linkTo(id) {
    const it = model.items[id];
    return it ? openLink(it, it.title) : h('span', {}, id);
  }

  function stalledSection() {
    const list = model.stalled.map((id) => model.items[id]).filter(Boolean);
    const body = list.length
      ? h('ul', { class: 'stalled' }, list.map((item) => {
        const st = item.stalled;
        return h('li', { class: 'stalled-item', 'data-id': item.id },
          h('div', { class: 'card-head' }, openLink(item), h('span', { class: 'idle' }, `idle ${st.idle}`)),
          worktreeChips(item),
          h('div', { class: 'meta' }, st.lastActivity ? `last: ${st.source}${st.who ? ` by ${st.who}` : ''} at ${fmtTime(st.lastActivity)}` : 'no activity found', ` · threshold ${st.threshold} (${st.kind})`));
      }))
      : h('p', { class: 'empty' }, 'Nothing has stalled: all work in progress has recent activity.');
    return section('stalled', 'Stalled', 'in progress, quiet past the threshold; most idle first', body);
  }

  function boardSection() {
    const cols = model.columns.map((c) => {
      const items = c.items.map((id) => model.items[id]).filter(Boolean);
      const shown = items.slice(0, 500);
      return h('section', { class: `column c-${c.key}`, 'aria-labelledby': `col-${c.key}` },
        h('h3', { id: `col-${c.key}` }, c.title, h('span', { class: 'count' }, String(items.length))),
        h('p', { class: 'hint' }, c.hint),
        shown.length ? h('ul', { class: 'cards' }, shown.map((item) => card(item, item.state === 'done' || item.state === 'dropped' ? null : h('div', { class: 'reason' }, item.reason)))) : h('p', { class: 'empty' }, 'none'));
    });
    return section('board', 'Board', `${model.summary.total} items by status`, h('div', { class: 'columns' }, cols));
  }

  function depsSection() {
    const cp = model.criticalPath;
    const path = cp.length
      ? h('ol', { class: 'chain', 'aria-label': 'Critical path' }, cp.map((id, i) => h('li', {}, i ? h('span', { class: 'arrow', 'aria-hidden': 'true' }, '→') : null, linkTo(id))))
      : h('p', { class: 'empty' }, 'No remaining work.');
    const chains = model.chains.length
      ? h('ul', { class: 'chains' }, model.chains.slice(0, 30).map((c) => h('li', {}, linkTo(c.id), ' waits on ', c.waitsOn.map((w, i) => [i ? ', ' : '', linkTo(w)]))))
      : h('p', { class: 'empty' }, 'Nothing waits on unfinished work.');
    return section('deps', 'Dependencies', `critical path: ${cp.length} step${cp.length === 1 ? '' : 's'}`, h('h3', {}, 'Critical path'), path, h('h3', {}, 'Waiting'), chains);
  }

  function timelineSection() {
    const t = model.timeline;
    if (!t.total) {
      return section('timeline', 'Timeline', 'state changes over time', h('p', { class: 'empty' }, gitSkipped
        ? 'No state changes in Waymark\u2019s history yet (git history is not read in Restricted Mode).'
        : 'No state changes recorded yet: Waymark\u2019s history and the files\u2019 git history are empty.'));
    }
    return section('timeline', 'Timeline', `${t.total} state change${t.total === 1 ? '' : 's'} from ${fmtTime(t.start).slice(0, 10)} to ${fmtTime(t.end).slice(0, 10)}`, activityChart(t.days), lanesChart(t));
  }

  function activityChart(days) {
    const W = 760, H = 120, pad = 28, bottom = 22;
    const max = Math.max(1, ...days.map((d) => d.waymark + d.git));
    const bw = (W - pad) / days.length;
    const y = (v) => (H - bottom) * (1 - v / max);
    const bars = days.map((d, i) => {
      const x = pad + i * bw;
      const total = d.waymark + d.git;
      const tip = `${d.date}: ${total} change${total === 1 ? '' : 's'} (${d.waymark} Waymark, ${d.git} git)`;
      const g = s('g', { class: 'bar', tabindex: total ? '0' : undefined, role: 'img', 'aria-label': tip }, s('title', {}, tip));
      g.append(s('rect', { class: 'slot', x: x, y: 0, width: Math.max(1, bw), height: H - bottom }));
      if (d.git) g.append(s('rect', { class: 'git', x: x + bw * 0.15, y: y(d.git), width: Math.max(1, bw * 0.7), height: H - bottom - y(d.git) }));
      if (d.waymark) g.append(s('rect', { class: 'waymark', x: x + bw * 0.15, y: y(total), width: Math.max(1, bw * 0.7), height: y(d.git) - y(total) }));
      return g;
    });
    const labels = [];
    const every = Math.max(1, Math.ceil(days.length / 8));
    days.forEach((d, i) => { if (i % every === 0 || i === days.length - 1) labels.push(s('text', { class: 'axis', x: pad + i * bw + bw / 2, y: H - 6, 'text-anchor': 'middle' }, d.date.slice(5))); });
    return h('figure', { class: 'chart' },
      h('figcaption', {}, 'Changes per day ', h('span', { class: 'key waymark' }, 'Waymark'), ' ', h('span', { class: 'key git' }, 'git')),
      s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'activity', role: 'group', 'aria-label': 'State changes per day' },
        s('line', { class: 'base', x1: pad, x2: W, y1: H - bottom, y2: H - bottom }),
        s('text', { class: 'axis', x: pad - 4, y: 10, 'text-anchor': 'end' }, String(max)),
        bars, labels));
  }

  function lanesChart(t) {
    const lanes = t.lanes;
    const labelW = 210, W = 760, rowH = 26, top = 6;
    const start = Date.parse(t.start), end = Math.max(Date.parse(t.end), start + 3600_000);
    const x = (iso) => labelW + 10 + ((Date.parse(iso) - start) / (end - start)) * (W - labelW - 24);
    const H = top + lanes.length * rowH + 18;
    const rows = lanes.map((lane, i) => {
      const yy = top + i * rowH + rowH / 2;
      const item = model.items[lane.id];
      const label = s('g', { class: 'lane-label', role: 'button', tabindex: item ? '0' : undefined, 'data-open': lane.id, 'aria-label': `Open ${lane.title}` }, s('title', {}, lane.title), s('text', { x: 0, y: yy + 4 }, lane.title.length > 30 ? `${lane.title.slice(0, 29)}…` : lane.title));
      label.addEventListener('click', () => { if (item) { remember(lane.id, 'open'); post('open', lane.id); } });
      label.addEventListener('keydown', (e) => { if ((e.key === 'Enter' || e.key === ' ') && item) { e.preventDefault(); remember(lane.id, 'open'); post('open', lane.id); } });
      const marks = lane.marks.map((m) => {
        const tip = `${lane.title} · ${fmtTime(m.time)} · ${m.operation}${m.actor ? ` by ${m.actor}` : ''}\n${m.label}`;
        return s('g', { class: `mark t-${m.tone} src-${m.source}`, tabindex: '0', role: 'img', 'aria-label': tip }, s('title', {}, tip),
          m.source === 'git' ? s('rect', { x: x(m.time) - 5, y: yy - 5, width: 10, height: 10, transform: `rotate(45 ${x(m.time)} ${yy})` }) : s('circle', { cx: x(m.time), cy: yy, r: 6 }));
      });
      return s('g', { class: `lane s-${lane.state || 'none'}` },
        s('line', { class: 'lane-line', x1: labelW + 4, x2: W - 8, y1: yy, y2: yy }), label, marks);
    });
    return h('figure', { class: 'chart' },
      h('figcaption', {}, 'Swimlanes: each item\u2019s state changes ',
        h('span', { class: 'key t-started' }, 'started'), ' ', h('span', { class: 'key t-step' }, 'step'), ' ', h('span', { class: 'key t-review' }, 'review'), ' ',
        h('span', { class: 'key t-blocked' }, 'blocked'), ' ', h('span', { class: 'key t-done' }, 'done'), ' ', h('span', { class: 'key t-other' }, 'other'), ' · ◆ git, ● Waymark'),
      s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'lanes', role: 'group', 'aria-label': 'State changes per item' },
        rows,
        s('text', { class: 'axis', x: labelW + 10, y: H - 3 }, fmtTime(t.start).slice(0, 10)),
        s('text', { class: 'axis', x: W - 8, y: H - 3, 'text-anchor': 'end' }, fmtTime(t.end).slice(0, 10))));
  }

  function section(id, title, sub, ...body) {
    return h('section', { class: `panel p-${id}`, id: `sec-${id}`, 'aria-labelledby': `h-${id}` },
      h('header', {}, h('h2', { id: `h-${id}` }, title), h('span', { class: 'sub' }, sub)), body);
  }

  function render() {
    const started = performance.now();
    const scrollY = window.scrollY || saved.scrollY || 0;
    const focusKey = document.activeElement && (document.activeElement.getAttribute('data-open') ? `open:${document.activeElement.getAttribute('data-open')}` : document.activeElement.getAttribute('data-start') ? `start:${document.activeElement.getAttribute('data-start')}` : undefined) || saved.focus;
    app.replaceChildren(
      h('header', { class: 'top' },
        h('h1', {}, 'Project'),
        summary(),
        h('span', { class: 'updated' }, `as of ${fmtTime(model.now)}${model.roots.length > 1 ? ` · ${model.roots.length} folders` : ''}`),
        canWrite ? null : h('p', { class: 'readonly', role: 'note' }, 'Restricted Mode: the dashboard is read-only. Trust the workspace to start work from here.')),
      h('div', { class: 'grid' }, frontierSection(), stalledSection()),
      trackerSection() || '',
      timelineSection(),
      depsSection(),
      boardSection());
    app.setAttribute('aria-busy', 'false');
    window.scrollTo(0, scrollY);
    if (focusKey) {
      const [kind, id] = [focusKey.slice(0, focusKey.indexOf(':')), focusKey.slice(focusKey.indexOf(':') + 1)];
      const el = /** @type {HTMLElement | null} */ (app.querySelector(`[data-${kind}="${CSS.escape(id)}"]`));
      if (el && document.hasFocus()) el.focus({ preventScroll: true });
    }
    const drawMs = performance.now() - started;
    requestAnimationFrame(() => {
      vscode.postMessage({ type: 'painted', version, drawMs, text: app.innerText.slice(0, 20000), cards: app.querySelectorAll('.card, .frontier-item').length, scrollY: Math.round(window.scrollY) });
    });
  }

  window.addEventListener('scroll', () => {
    saved = { ...saved, scrollY: window.scrollY };
    vscode.setState(saved);
  }, { passive: true });

  window.addEventListener('message', (e) => {
    const m = e.data;
    if (!m || typeof m !== 'object') return;
    if (m.type === 'model') {
      model = m.model;
      canWrite = !!m.canWrite;
      gitSkipped = !!m.gitSkipped;
      version = m.version;
      render();
    } else if (m.type === 'error') {
      app.replaceChildren(h('p', { class: 'error', role: 'alert' }, `Could not read the project: ${m.message}`));
    }
  });

  vscode.postMessage({ type: 'ready' });
})();
