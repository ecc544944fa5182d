// The corpus run: Waymark's built CLI over a folder of real BMAD project checkouts, measured
// against the independent truth (truth.mjs, which never calls Waymark).
//
//   npm run corpus -- DIR [--json] [--markdown] [--timeout SECONDS] [--cli PATH] [--only TEXT] [--keep OUTDIR]
//
// --keep writes each project's truth and each verb's JSON answer to OUTDIR/<project>/ (the
// grammar census, census.mjs, reads them).
//
// DIR holds one checkout per folder (named owner+name). Per project and per layout it prints:
// drift found / true drift (recall), warnings on clean stories, error-level problems, planning
// artifacts identified / total, `next` recommending finished or unidentified work, crashes
// (timeouts, stack traces, exits other than the documented ones, unreadable JSON) and time.
// The projects' files are only read: every command run is a read-only one.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { frontmatterBroken, truthFor } from './truth.mjs';
import { norm, toRepoRel } from './paths.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');

function usage(message) {
  if (message) process.stderr.write(`corpus: ${message}\n`);
  process.stderr.write('usage: npm run corpus -- DIR [--json] [--markdown] [--timeout SECONDS] [--cli PATH] [--only TEXT] [--keep OUTDIR]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { dir: null, json: false, markdown: false, timeout: 120, cli: path.join(REPO, 'dist', 'cli.js'), only: null, keep: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') opts.json = true;
    else if (a === '--markdown') opts.markdown = true;
    else if (a === '--timeout') opts.timeout = Number(argv[++i]);
    else if (a === '--cli') opts.cli = path.resolve(argv[++i] ?? '');
    else if (a === '--only') opts.only = argv[++i] ?? null;
    else if (a === '--keep') opts.keep = path.resolve(argv[++i] ?? '');
    else if (a === '--help' || a === '-h') usage();
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (!opts.dir) opts.dir = path.resolve(a);
    else usage(`one DIR only (got ${a})`);
  }
  if (!opts.dir) usage('DIR is required');
  if (!Number.isFinite(opts.timeout) || opts.timeout <= 0) usage('--timeout takes a number of seconds');
  if (!fs.existsSync(opts.cli)) usage(`no built CLI at ${opts.cli} (run: node esbuild.mjs)`);
  return opts;
}

/** The exit codes each verb documents for a project it can read (see `waymark --help`). */
// `sprint` exits 1 when it finds validation errors (a ledger that is not valid YAML), as `waymark --help` documents.
const OK_EXITS = { validate: [0, 1], sprint: [0, 1], status: [0], next: [0] };
const STACK = /\n\s+at .+(:\d+:\d+\)?|\(node:)/;

function readOr(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function runVerb(cli, verb, cwd, timeoutMs) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [cli, verb, '.', '--json'], {
    // No scan index: every run reads the project as a first-time user's does, and writes nothing into it.
    cwd, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 512 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', WAYMARK_SCAN_INDEX: '0' },
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const out = { verb, ms: Math.round(ms), exit: r.status, signal: r.signal ?? null, stderr: (r.stderr ?? '').slice(0, 4000), json: null, crash: null };
  if (r.error && r.error.code === 'ETIMEDOUT') out.crash = `timeout after ${timeoutMs / 1000}s`;
  else if (r.error) out.crash = `spawn: ${r.error.message}`;
  else if (r.signal) out.crash = `killed by ${r.signal}`;
  else if (STACK.test(out.stderr)) out.crash = `stack trace: ${out.stderr.split('\n').slice(0, 2).join(' ').slice(0, 200)}`;
  if (!out.crash && r.status === 2) out.refused = out.stderr.trim().split('\n')[0].slice(0, 300);
  if (!out.crash && !out.refused && !OK_EXITS[verb].includes(r.status)) out.crash = `exit ${r.status}: ${out.stderr.trim().split('\n')[0].slice(0, 200)}`;
  if (!out.crash && !out.refused) {
    try {
      out.json = JSON.parse(r.stdout);
    } catch (e) {
      out.crash = `unreadable JSON on stdout (${String(e.message).slice(0, 80)})`;
    }
  }
  return out;
}

function sprintStories(json) {
  if (!json) return [];
  const out = [];
  for (const e of json.epics ?? []) for (const s of e.stories ?? []) out.push(s);
  for (const s of json.stories ?? []) out.push(s);
  for (const p of json.projects ?? []) out.push(...sprintStories(p));
  return out;
}

function measure(name, repoDir, opts) {
  const result = { name, layout: 'none', truth: null, verbs: {}, crashes: [], refused: [], ms: 0 };
  let truth;
  try {
    truth = truthFor(repoDir);
  } catch (e) {
    result.truthError = String(e?.stack ?? e).split('\n').slice(0, 3).join(' ');
    return result;
  }
  result.layout = truth.layout;
  const timeoutMs = opts.timeout * 1000;
  for (const verb of ['validate', 'sprint', 'status', 'next']) {
    const r = runVerb(opts.cli, verb, repoDir, timeoutMs);
    result.verbs[verb] = r;
    result.ms += r.ms;
    if (r.crash) result.crashes.push({ verb, what: r.crash });
    if (r.refused) result.refused.push({ verb, what: r.refused });
  }
  if (opts.keep) {
    const dir = path.join(opts.keep, name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'truth.json'), JSON.stringify(truth));
    for (const [verb, r] of Object.entries(result.verbs)) fs.writeFileSync(path.join(dir, `${verb}.json`), JSON.stringify(r.json));
  }
  const validate = result.verbs.validate.json;
  const sprint = result.verbs.sprint.json;
  const status = result.verbs.status.json;
  const next = result.verbs.next.json;
  const problems = (validate?.problems ?? []).map((p) => ({ ...p, rfile: toRepoRel(repoDir, p.file) }));
  const sprintRoot = sprint?.root && path.isAbsolute(sprint.root) ? sprint.root : repoDir;
  for (const s of sprintStories(sprint)) {
    for (const p of s.problems ?? []) problems.push({ ...p, rfile: toRepoRel(repoDir, p.file, sprintRoot), fromSprint: true });
  }
  for (const p of sprint?.problems ?? []) problems.push({ ...p, rfile: toRepoRel(repoDir, p.file, sprintRoot), fromSprint: true });

  const stories = truth.projects.flatMap((p) => p.stories);
  const artifacts = truth.projects.flatMap((p) => p.artifacts);

  // Drift: a true drift is found when Waymark reports story-status-drift on its story (by key or file).
  const driftKeys = new Set();
  const driftFiles = new Set();
  for (const p of problems) {
    if (p.code !== 'story-status-drift') continue;
    if (p.data?.key) driftKeys.add(String(p.data.key));
    if (p.rfile) driftFiles.add(p.rfile);
  }
  const trueDrift = stories.filter((s) => s.drift);
  const missed = trueDrift.filter((s) => !driftKeys.has(s.key) && !driftFiles.has(s.file));
  // Drift Waymark reports on a story the truth calls clean.
  const clean = stories.filter((s) => s.clean);
  const cleanWarned = [];
  for (const s of clean) {
    const on = problems.filter((p) => (p.severity === 'warning' || p.severity === 'error')
      && p.code !== 'work-stalled'
      && ((s.file && p.rfile === s.file) || (p.data?.key != null && String(p.data.key) === s.key && (!s.ledger || p.rfile === s.ledger || p.rfile === s.file))));
    if (on.length) cleanWarned.push({ key: s.key, file: s.file, codes: [...new Set(on.map((p) => p.code))], first: on[0] });
  }
  // Error-level problems on files that are fine: a file the truth knows to be broken (a ledger that
  // is not valid YAML, a story done over a failed QA review) earns its error; those are counted apart.
  const broken = new Set(truth.projects.flatMap((p) => (p.broken ?? []).map((b) => b.file)));
  const allErrors = (validate?.problems ?? []).filter((p) => p.severity === 'error');
  // A frontmatter that is not valid YAML (a key written twice, a bad indent) is broken wherever the
  // file is: the truth's own parser says so, file by file.
  const unreadable = (p) => /^(yaml-|frontmatter-)/.test(p.code) && frontmatterBroken(readOr(path.resolve(repoDir, toRepoRel(repoDir, p.file))));
  const errors = allErrors.filter((p) => !broken.has(toRepoRel(repoDir, p.file)) && !unreadable(p));

  // Planning artifacts: identified when `status` lists the file and `validate` does not call its workflow unknown.
  const listed = new Map();
  for (const w of status?.workflows ?? []) listed.set(toRepoRel(repoDir, w.file), w);
  const unknown = new Set(problems.filter((p) => p.code === 'bmad-workflow-unknown').map((p) => p.rfile));
  const artMissed = [];
  let artFound = 0;
  for (const a of artifacts) {
    const w = listed.get(a.file);
    if (w && !unknown.has(a.file)) artFound++;
    else artMissed.push({ file: a.file, workflowType: a.workflowType, why: w ? 'bmad-workflow-unknown' : 'not listed by status' });
  }

  // `next`: its first recommendation must not be finished or unidentified work.
  let nextBad = null;
  const top = next?.next;
  if (top) {
    const f = top.file ? toRepoRel(repoDir, top.file) : null;
    const key = String(top.id ?? '').replace(/^story:/, '');
    const story = stories.find((s) => s.key === key || (f && s.file === f));
    const art = f ? artifacts.find((a) => a.file === f) : null;
    if (story && (story.fileStatus === 'done' || (story.ledgerStatus === 'done' && !story.file))) nextBad = { what: 'a done story', id: top.id, file: f };
    else if (art && art.finished) nextBad = { what: 'a finished artifact', id: top.id, file: f };
    else if (top.kind === 'workflow' && f && !art && !story) nextBad = { what: 'an unidentified file', id: top.id, file: f };
  }

  // A BMAD project in a subfolder must read the same from its own folder (issue 20 item 8).
  result.subfolders = [];
  for (const p of truth.projects) {
    if (p.root === '.' || result.crashes.length) continue;
    const cwd = path.join(repoDir, p.root);
    const st = runVerb(opts.cli, 'status', cwd, timeoutMs);
    const va = runVerb(opts.cli, 'validate', cwd, timeoutMs);
    const sp = runVerb(opts.cli, 'sprint', cwd, timeoutMs);
    result.ms += st.ms + va.ms + sp.ms;
    for (const r of [st, va, sp]) if (r.crash) result.crashes.push({ verb: `${r.verb} (from ${p.root})`, what: r.crash });
    const subListed = new Set((st.json?.workflows ?? []).map((w) => toRepoRel(repoDir, w.file, cwd)));
    const subUnknown = new Set((va.json?.problems ?? []).filter((x) => x.code === 'bmad-workflow-unknown').map((x) => toRepoRel(repoDir, x.file, cwd)));
    const arts = p.artifacts.filter((a) => subListed.has(a.file) && !subUnknown.has(a.file)).length;
    result.subfolders.push({ root: p.root, artifacts: { total: p.artifacts.length, identified: arts }, sprintStories: sprintStories(sp.json).length, truthStories: p.stories.length });
  }
  result.truth = {
    projects: truth.projects.map((p) => ({ root: p.root, layout: p.layout, ledgers: p.ledgers })),
    stories: stories.length, storyFiles: stories.filter((s) => s.file).length,
  };
  // Stories `sprint` lists from the repository's root (its sub-projects' too) against the truth's:
  // a story the reader never sees is in no other figure (no drift to find, no clean story to warn).
  result.stories = { truth: stories.length, listed: sprintStories(sprint).length };
  result.drift = { true: trueDrift.length, found: trueDrift.length - missed.length, missed: missed.map((s) => ({ key: s.key, file: s.file, line: s.fileStatusLine, fileRaw: s.fileRaw, ledgerRaw: s.ledgerRaw })) };
  result.clean = { total: clean.length, warned: cleanWarned.length, examples: cleanWarned.slice(0, 40) };
  result.errors = { count: errors.length, onBroken: allErrors.length - errors.length, examples: errors.slice(0, 40).map((p) => ({ file: p.file, line: p.line, code: p.code, message: p.message })) };
  result.artifacts = { total: artifacts.length, identified: artFound, missed: artMissed.slice(0, 60) };
  result.next = nextBad;
  result.wm = {
    validateMs: result.verbs.validate.ms, sprintMs: result.verbs.sprint.ms,
    sprintStories: sprintStories(sprint).length, sprintLayout: sprint?.layout ?? null, sprintLedger: sprint?.ledger ?? null,
  };
  for (const v of Object.values(result.verbs)) { delete v.json; if (!v.crash && !v.refused) v.stderr = v.stderr.slice(0, 300); }
  return result;
}

function pct(a, b) {
  return b === 0 ? '–' : `${((100 * a) / b).toFixed(1)}%`;
}

function sum(rows) {
  const t = { projects: rows.length, stories: 0, storiesListed: 0, driftTrue: 0, driftFound: 0, clean: 0, cleanWarned: 0, errors: 0, errorsOnBroken: 0, artTotal: 0, artFound: 0, nextBad: 0, crashes: 0, refused: 0, ms: 0, maxValidateMs: 0, maxSprintMs: 0 };
  for (const r of rows) {
    if (!r.truth) { t.crashes++; continue; }
    t.stories += r.truth.stories;
    // Capped at the truth's count: a project listing more (ledger keys with no file) makes up for no other's miss.
    t.storiesListed += Math.min(r.stories?.listed ?? 0, r.truth.stories);
    t.driftTrue += r.drift.true;
    t.driftFound += r.drift.found;
    t.clean += r.clean.total;
    t.cleanWarned += r.clean.warned;
    t.errors += r.errors.count;
    t.errorsOnBroken += r.errors.onBroken ?? 0;
    t.artTotal += r.artifacts.total;
    t.artFound += r.artifacts.identified;
    t.nextBad += r.next ? 1 : 0;
    t.crashes += r.crashes.length;
    t.refused += r.refused.length;
    t.ms += r.ms;
    t.maxValidateMs = Math.max(t.maxValidateMs, r.wm.validateMs);
    t.maxSprintMs = Math.max(t.maxSprintMs, r.wm.sprintMs);
  }
  return t;
}

function byLayout(rows) {
  const groups = new Map();
  for (const r of rows) {
    const l = r.layout.replace(/^monorepo\(.*\)$/, 'monorepo');
    if (!groups.has(l)) groups.set(l, []);
    groups.get(l).push(r);
  }
  return [...groups.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([layout, rs]) => ({ layout, ...sum(rs) }));
}

function lineOf(label, t) {
  return [
    label.padEnd(44),
    String(t.stories ?? '').padStart(5),
    `${t.storiesListed}/${t.stories}`.padStart(11), pct(t.storiesListed, t.stories).padStart(7),
    `${t.driftFound}/${t.driftTrue}`.padStart(9), pct(t.driftFound, t.driftTrue).padStart(7),
    `${t.cleanWarned}/${t.clean}`.padStart(9), pct(t.cleanWarned, t.clean).padStart(7),
    String(t.errors).padStart(6),
    `${t.artFound}/${t.artTotal}`.padStart(8), pct(t.artFound, t.artTotal).padStart(7),
    String(t.nextBad).padStart(5), String(t.crashes).padStart(6), String(t.refused).padStart(5),
    `${(t.ms / 1000).toFixed(1)}s`.padStart(7),
  ].join(' ');
}

const HEADER = [
  'project'.padEnd(44), 'story'.padStart(5), 'listed'.padStart(11), 'read'.padStart(7), 'drift'.padStart(9), 'recall'.padStart(7), 'warned'.padStart(9), 'rate'.padStart(7),
  'errors'.padStart(6), 'artif.'.padStart(8), 'ident.'.padStart(7), 'next!'.padStart(5), 'crash'.padStart(6), 'exit2'.padStart(5), 'time'.padStart(7),
].join(' ');

function markdown(layouts, total) {
  const rows = [
    '| Layout | Projects | Stories | Stories `sprint` lists | Drift found / true drift | Warnings on clean stories | Error-level problems | Planning artifacts identified | `next` on finished work | Crashes | Time (4 commands) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const row = (label, t) => `| ${label} | ${t.projects} | ${t.stories} | ${t.storiesListed}/${t.stories} (${pct(t.storiesListed, t.stories)}) | ${t.driftFound}/${t.driftTrue} (${pct(t.driftFound, t.driftTrue)}) | ${t.cleanWarned}/${t.clean} (${pct(t.cleanWarned, t.clean)}) | ${t.errors} | ${t.artFound}/${t.artTotal} (${pct(t.artFound, t.artTotal)}) | ${t.nextBad} | ${t.crashes} | ${(t.ms / 1000).toFixed(1)} s |`;
  for (const l of layouts) rows.push(row(l.layout, l));
  rows.push(row('**All**', total));
  return rows.join('\n');
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  let names;
  try {
    names = fs.readdirSync(opts.dir, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
  } catch (e) {
    usage(`cannot read ${opts.dir}: ${e.message}`);
  }
  if (opts.only) names = names.filter((n) => n.includes(opts.only));
  const rows = [];
  if (!opts.json && !opts.markdown) process.stdout.write(`${HEADER}\n`);
  for (const name of names) {
    let r;
    try {
      r = measure(name, path.join(opts.dir, name), opts);
    } catch (e) {
      r = { name, layout: 'none', truthError: `runner: ${String(e?.message ?? e)}`, crashes: [], refused: [], ms: 0 };
    }
    rows.push(r);
    if (!opts.json && !opts.markdown) {
      if (!r.truth) process.stdout.write(`${name.padEnd(44)} truth failed: ${r.truthError}\n`);
      else {
        const t = sum([r]);
        process.stdout.write(`${lineOf(`${name} [${r.layout}]`.slice(0, 44), t)}\n`);
        for (const c of r.crashes) process.stdout.write(`    crash ${c.verb}: ${c.what}\n`);
        for (const c of r.refused) process.stdout.write(`    exit 2 ${c.verb}: ${c.what}\n`);
        for (const f of r.subfolders ?? []) process.stdout.write(`    from ${f.root}/: artifacts ${f.artifacts.identified}/${f.artifacts.total}, sprint stories ${f.sprintStories} (truth ${f.truthStories})\n`);
      }
    }
  }
  const layouts = byLayout(rows);
  const total = sum(rows);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ cli: opts.cli, dir: opts.dir, total, layouts, projects: rows }, null, 2)}\n`);
    return;
  }
  if (opts.markdown) {
    process.stdout.write(`${markdown(layouts, total)}\n`);
    return;
  }
  process.stdout.write(`\n${HEADER.replace('project'.padEnd(44), 'layout'.padEnd(44))}\n`);
  for (const l of layouts) process.stdout.write(`${lineOf(`${l.layout} (${l.projects} projects)`, l)}\n`);
  process.stdout.write(`${lineOf(`ALL (${total.projects} projects)`, total)}\n`);
  process.stdout.write(`\nslowest validate ${(total.maxValidateMs / 1000).toFixed(2)} s, slowest sprint ${(total.maxSprintMs / 1000).toFixed(2)} s (whole processes)\n`);
}

main();
