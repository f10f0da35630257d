// The status console: renders /api/status and keeps it current in place.
// Every value from the daemon goes into the page as text (append,
// textContent) or an attribute (setAttribute), never as markup: ids,
// query names and node labels are the input's, and hostile.
'use strict';
(() => {
const REFRESH_MS = 2000;
const $ = (id) => document.getElementById(id);
let paused = false, timer = 0, refreshes = 0, last = null;
const openAlerts = new Set();

// el builds an element; strings among kids become text nodes.
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
  e.append(...kids.filter((k) => k !== null && k !== undefined));
  return e;
}
// setText changes a node's text only when it differs, so that a
// selection in an unchanged cell survives a refresh.
function setText(e, s) { s = String(s); if (e.textContent !== s) e.textContent = s; }
function setClass(e, c) { if (e.className !== c) e.className = c; }
const num = (v) => (v === null || v === undefined) ? 'unknown' : Number(v).toLocaleString('en-US', {maximumFractionDigits: 1});
function dur(s) {
  if (s === null || s === undefined) return 'unknown';
  const neg = s < 0; s = Math.abs(s);
  const out = s < 1 ? (s * 1000).toFixed(0) + ' ms' : s < 90 ? s.toFixed(1) + ' s' : s < 5400 ? (s / 60).toFixed(1) + ' min' :
    s < 172800 ? (s / 3600).toFixed(1) + ' h' : (s / 86400).toFixed(1) + ' d';
  return (neg ? '−' : '') + out;
}
// trails says how far a watermark trails the clock (a replay at speed
// runs ahead of it).
const trails = (s) => s < 0 ? 'ahead by ' + dur(-s) : dur(s);
const clock = (t) => t ? new Date(t).toISOString().slice(11, 19) : '';

// spark draws values (null: unknown, a gap), sampled at times (Unix ms),
// in svg on a time axis that ends at the newest sample and spans the
// history kept (at least a minute, at most the ring's capacity), the same
// for every sparkline.
function spark(svg, values, times) {
  const W = 120, H = 30, h = last.history, end = times.length ? times[times.length - 1] : 0;
  const span = Math.min(h.capacity * h.step_seconds * 1000, Math.max(60000, times.length ? end - times[0] : 0));
  let line = svg.querySelector('path.line'), area = svg.querySelector('path.area');
  if (!line) {
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('preserveAspectRatio', 'none');
    area = document.createElementNS('http://www.w3.org/2000/svg', 'path'); area.setAttribute('class', 'area');
    line = document.createElementNS('http://www.w3.org/2000/svg', 'path'); line.setAttribute('class', 'line');
    svg.append(area, line);
  }
  const known = values.filter((v) => v !== null);
  const max = Math.max(1e-9, ...known);
  let d = '', a = '', pen = false, start = 0, prevX = 0, points = 0;
  const close = () => { if (pen) a += `L${prevX.toFixed(1)},${H}L${start.toFixed(1)},${H}Z`; pen = false; };
  values.forEach((v, i) => {
    if (v === null) { close(); return; }
    const x = Math.max(0, W - ((end - times[i]) * W) / span), y = H - 1 - ((H - 2) * v) / max;
    d += `${pen ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`;
    a += pen ? `L${x.toFixed(1)},${y.toFixed(1)}` : `M${x.toFixed(1)},${H}L${x.toFixed(1)},${y.toFixed(1)}`;
    if (!pen) start = x;
    pen = true; prevX = x; points++;
  });
  close();
  line.setAttribute('d', d); area.setAttribute('d', a);
  svg.setAttribute('data-points', points);
  let title = svg.querySelector('title');
  if (!title) { title = document.createElementNS('http://www.w3.org/2000/svg', 'title'); svg.prepend(title); }
  setText(title, known.length ? `max ${num(max)}, min ${num(Math.min(...known))} over the last ${dur(span / 1000)}` : 'no samples yet');
}
const newSpark = () => { const s = document.createElementNS('http://www.w3.org/2000/svg', 'svg'); s.setAttribute('class', 'spark'); return s; };

// rows keeps tbody's rows one per item, by key, in order: a row whose
// item is still there is updated in place, never rebuilt.
function rows(tbody, items, key, make, update) {
  const have = new Map([...tbody.children].map((r) => [r.dataset.key, r]));
  let at = tbody.firstElementChild;
  for (const it of items) {
    const k = String(key(it));
    let r = have.get(k);
    if (r) have.delete(k); else { r = make(it); r.dataset.key = k; }
    update(r, it);
    if (r !== at) tbody.insertBefore(r, at); else at = at.nextElementSibling;
  }
  for (const r of have.values()) r.remove();
}
// cells returns a row of n cells (with classes) for rows' make.
const cells = (...cls) => el('tr', {}, ...cls.map((c) => el('td', c ? {class: c} : {})));

function header(s) {
  const h = s.header, b = h.build || {};
  setText($('version'), b.version + (b.revision ? ' · rev ' + b.revision.slice(0, 12) + (b.modified ? ' (modified)' : '') : '') + ' · ' + (b.go_version || ''));
  setText($('brokers'), (h.brokers || []).join(', '));
  setText($('topics'), `${h.edge_topic} → ${h.alert_topic} · dead letters ${h.dead_letter_topic}`);
  setText($('group'), h.group);
  setText($('config'), h.config_file || 'none (defaults, demo)');
  const e = s.engine;
  setText($('engine'), e.backend ? `${e.backend} (${e.workers} ${e.backend === 'gpu' ? 'devices' : 'workers'})` : 'starting');
  setText($('uptime'), dur(s.uptime_seconds));
}

function banner(s) {
  const b = $('banner'), items = [];
  let cls, head;
  if (!s.ready) { cls = 'notready'; head = 'NOT READY: ' + (s.not_ready || ''); }
  else if (s.conditions.length) { cls = 'degraded'; head = 'DEGRADED: running, but blind to part of the input'; }
  else { cls = 'ready'; head = 'ready: consuming, every partition read, no degraded condition'; }
  if (!s.brokers.reachable) items.push(['brokers unreachable', (s.brokers.problem || '') + ' (every lag is unknown until they answer)']);
  for (const c of s.conditions) items.push([c.name, c.reason]);
  setClass(b, cls);
  setText($('banner-head'), head);
  rows($('banner-list'), items, (i) => i[0], () => el('li', {}, el('b'), ': ', el('span')), (li, i) => {
    setText(li.children[0], i[0]); setText(li.children[1], i[1]);
  });
}

function history(s) {
  const h = s.history, n = (a) => a.length ? a[a.length - 1] : null;
  const card = (id, vals, fmt, bad, now) => {
    const c = $(id);
    spark(c.querySelector('svg'), vals, h.times);
    setText(c.querySelector('.v'), fmt(now === undefined ? n(vals) : now));
    c.classList.toggle('bad', !!bad);
  };
  card('h-edges', h.edges_per_second, num);
  card('h-lag', h.lag_records, num, s.ingest.lag_records === null, s.ingest.lag_records);
  card('h-latency', h.latency_p99_seconds, (v) => v === null ? 'no batch' : dur(v));
  card('h-rejected', h.rejected_per_second, num, n(h.rejected_per_second) > 0);
  setText($('h-span'), h.times.length ? `last ${dur((h.times[h.times.length - 1] - h.times[0]) / 1000)}, a sample every ${h.step_seconds} s` : 'no samples yet');
}

function input(s) {
  const i = s.input, recv = i.records_received;
  const share = (v) => recv > 0 ? ` (${(100 * v / recv).toFixed(1)}%)` : '';
  const dl = Object.values(i.dead_lettered).reduce((a, b) => a + b, 0);
  const lost = Object.values(i.dead_letter_lost).reduce((a, b) => a + b, 0);
  const by = (m) => Object.keys(m).sort().filter((k) => m[k] > 0).map((k) => `${k} ${num(m[k])}`).join(', ');
  const items = [
    ['records received', num(recv), 'from the edge topic, every partition'],
    ['edges accepted', num(i.edges_accepted) + share(i.edges_accepted), 'appended to the window and mined'],
    ['dead-lettered', num(dl) + share(dl), by(i.dead_lettered) || 'none', dl > 0],
    ['late', num(i.late), 'behind the watermark: dead-lettered as late', i.late > 0],
    ['future', num(i.future), `too far ahead of their partition: dead-lettered; ${num(i.held_future)} held now, waiting for confirmation`, i.future > 0],
    ['dead letters lost', num(lost), by(i.dead_letter_lost) || 'none: the dead-letter topic took every one', lost > 0],
    ['self loops', num(i.outcomes.self_loop || 0), 'never match'],
    ['watermark trails the wall clock by', i.watermark_delay_seconds === undefined ? 'no watermark yet' : trails(i.watermark_delay_seconds),
      s.ingest.watermark_time || ''],
  ];
  rows($('input'), items, (r) => r[0], () => cells('', 'n', ''), (r, it) => {
    setText(r.children[0], it[0]); setText(r.children[1], it[1]); setText(r.children[2], it[2]);
    setClass(r.children[1], it[3] ? 'n bad' : 'n');
  });
}

function partitions(s) {
  rows($('partitions'), s.partitions, (p) => p.partition, () => cells('n', 'n', 'n', '', 'n', 'n'), (r, p) => {
    const c = r.children;
    setText(c[0], p.partition); setText(c[1], num(p.records));
    setText(c[2], num(p.lag)); setClass(c[2], p.lag === null ? 'n unknown' : 'n');
    setText(c[3], p.watermark_time || (p.watermark !== undefined ? p.watermark : 'none yet'));
    setText(c[4], p.trails_seconds === undefined ? '' : trails(p.trails_seconds));
    setText(c[5], num(p.fetch_errors)); setClass(c[5], p.fetch_errors > 0 ? 'n bad' : 'n');
  });
  if (!s.partitions.length) rows($('partitions'), [0], () => 'none', () => el('tr', {}, el('td', {colspan: 6, class: 'muted'}, 'no partition read yet')), () => {});
  const r = s.last_reload, e = $('reload');
  if (!r) { setText(e, 'none since start'); setClass(e, 'muted'); return; }
  setText(e, `${r.result} at ${clock(r.at)}${r.error ? ': ' + r.error : ''}`);
  setClass(e, r.result === 'rejected' ? 'bad' : 'ok');
}

function queries(s) {
  const hist = s.history.matches_per_minute;
  rows($('queries'), s.queries, (q) => q.name, () => {
    const r = cells('', '', '', 'n', 'n', '', 'n', 'n', 'n', '');
    r.children[0].append(el('b'), el('div', {class: 'muted'}));
    r.children[5].append(newSpark(), el('span'));
    return r;
  }, (r, q) => {
    const c = r.children;
    setText(c[0].children[0], q.name); setText(c[0].children[1], q.description || '');
    setText(c[1], q.text); setText(c[2], q.delta + ', ' + q.mode + (q.group_by ? ', incidents by ' + q.group_by.join(', ') : ''));
    setText(c[3], q.estimate ? estimateText(q.estimate) : num(q.matches)); setText(c[4], q.estimate ? '' : num(q.matches_per_minute));
    spark(c[5].children[0], hist[q.name] || [], s.history.times);
    setText(c[6], num(q.alerts_written) + (q.alerts_failed ? ` (${num(q.alerts_failed)} failed)` : ''));
    setText(c[7], num(q.rate_limited)); setText(c[8], num(q.truncated)); setClass(c[8], q.truncated > 0 ? 'n bad' : 'n');
    setText(c[9], q.last_match ? clock(q.last_match) : 'never');
  });
}

// An estimated query's count: the value and its interval (never alerted).
function estimateText(e) {
  if (e.exact) return num(Math.round(e.value)) + ' (estimate: exact so far)';
  return `≈ ${num(Math.round(e.value))} [${num(Math.floor(e.lo))} – ${num(Math.ceil(e.hi))}] at ${Math.round(e.confidence * 100)}%, ${num(e.roots_sampled)} of ${num(e.roots)} roots`;
}

const alertID = (a) => a.match_id || a.incident_id || `${a.kind}/${a.query}/${a.detected_at}`;
function nodes(m) { return Object.keys(m || {}).sort().map((k) => `${k}=${m[k].id}${m[k].label ? ' (' + m[k].label + ')' : ''}`).join(' '); }
function alertRow(a) {
  const d = el('details', {class: 'alert', 'data-kind': a.kind, 'data-query': a.query, 'data-match-id': a.match_id || null});
  const when = a.first_time ? `${a.first_time.replace('T', ' ').replace('Z', '')} → ${a.last_time.slice(11).replace('Z', '')}` :
    (a.first !== undefined ? `${a.first} → ${a.last}` : `${clock(a.from)} – ${clock(a.to)}`);
  d.append(el('summary', {},
    el('span', {}, clock(a.detected_at)),
    el('span', {class: 'kind-' + a.kind}, a.kind + (a.count ? ' ×' + a.count : '') + (a.provisional ? ' (provisional)' : '')),
    el('span', {}, a.query), el('span', {}, nodes(a.nodes)), el('span', {title: when}, when)));
  d.append(el('div', {}, 'id ', el('code', {}, alertID(a)), a.description ? ' · ' + a.description : ''));
  // The query file's severity, labels and annotations (runbook links
  // stay text: they come from files an operator may not control).
  const kv = (m) => Object.keys(m || {}).sort().map((k) => `${k}=${m[k]}`).join(' ');
  if (a.severity || a.labels || a.annotations) {
    d.append(el('div', {class: 'muted'}, a.severity ? 'severity ' + a.severity : '', a.labels ? ' · labels ' + kv(a.labels) : '',
      a.annotations ? ' · ' + kv(a.annotations) : ''));
  }
  if (a.edges && a.edges.length) {
    const t = el('table', {class: 'edges'}, el('tr', {}, ...['src', 'dst', 'time', 'partition', 'offset', 'attributes'].map((h) => el('th', {}, h))));
    for (const e of a.edges) t.append(el('tr', {}, el('td', {}, e.src), el('td', {}, e.dst), el('td', {}, e.time || String(e.t)),
      el('td', {class: 'n'}, String(e.partition)), el('td', {class: 'n'}, String(e.offset)), el('td', {}, e.attrs ? JSON.stringify(e.attrs) : '')));
    d.append(t);
  } else if (a.match_ids && a.match_ids.length) {
    d.append(el('div', {}, 'matches: ', el('code', {}, a.match_ids.join(' ')), a.match_ids_omitted ? ` and ${a.match_ids_omitted} more` : ''));
  }
  d.addEventListener('toggle', () => { if (d.open) openAlerts.add(d.dataset.key); else openAlerts.delete(d.dataset.key); });
  return d;
}

function alertList(s) {
  const f = $('filter'), names = new Set(s.queries.map((q) => q.name));
  s.recent_alerts.forEach((a) => names.add(a.query));
  rows(f, [''].concat([...names].sort()), (n) => n, (n) => el('option', {value: n}, n || 'every query'), () => {});
  const want = f.value;
  rows($('alerts'), s.recent_alerts, alertID, alertRow, (d, a) => {
    const hide = want !== '' && a.query !== want;
    if (d.hidden !== hide) d.hidden = hide;
    if (openAlerts.has(d.dataset.key) && !d.open) d.open = true;
  });
  const shown = s.recent_alerts.filter((a) => want === '' || a.query === want).length;
  setText($('alerts-none'), shown ? '' : (want ? 'no recent alerts of ' + want : 'no alerts yet'));
}

function render(s) {
  last = s;
  for (const f of [header, banner, history, input, partitions, queries, alertList]) f(s);
  setText($('updated'), 'updated ' + clock(s.now));
  $('updated').dataset.refreshes = refreshes;
}

async function refresh() {
  timer = 0;
  try {
    const r = await fetch('api/status?compact', {cache: 'no-store'});
    if (!r.ok) throw new Error(r.status + ' ' + r.statusText);
    const s = await r.json();
    refreshes++;
    if (!paused) render(s);
    setText($('fetch-error'), '');
  } catch (e) {
    setText($('fetch-error'), 'cannot reach the daemon: ' + e.message + ' (showing the last answer)');
  }
  if (!paused) timer = setTimeout(refresh, REFRESH_MS);
}

function setPaused(p) {
  paused = p;
  setText($('pause'), p ? 'Resume' : 'Pause');
  setText($('mode'), p ? 'paused: not refreshing' : `refreshing every ${REFRESH_MS / 1000} s in place`);
  if (timer) { clearTimeout(timer); timer = 0; }
  if (!p) refresh();
}

$('pause').addEventListener('click', () => setPaused(!paused));
$('filter').addEventListener('change', () => last && alertList(last));
render(JSON.parse(document.body.dataset.initial));
setPaused(false);
})();
