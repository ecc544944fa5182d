// The grammar census: every story file whose status neither Waymark nor the truth reads, every
// ledger key skipped and ledger value unread, over folders of real BMAD project checkouts.
//
//   node scripts/corpus/census.mjs SPRINT_BUNDLE DIR... [--json] [--list]
//
// SPRINT_BUNDLE is a CommonJS bundle of Waymark's `loadSprints` (src/core/bmad/sprint.ts) and
// `normalizeStoryStatus`, `setAsideStatus` (story.ts), built
// with `npx esbuild ENTRY --bundle --platform=node --format=cjs`, so two builds (before and after a
// change) can be censused side by side in one process each; DIR holds one checkout per folder. Per
// story file it records whether each side reads a status, and sorts the files whose status is
// unread into families by their text (translated label, table, heading form, blockquote, HTML
// comment, code fence only, changelog only, none anywhere…). With --json it also lists, per file,
// the status Waymark reads and its line, so two runs can be compared file by file.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { truthFor } from './truth.mjs';
import { norm, toRepoRel } from './paths.mjs';

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const [bundle, ...dirs] = args.filter((a) => !a.startsWith('--'));
if (!bundle || !dirs.length) {
  process.stderr.write('usage: node scripts/corpus/census.mjs SPRINT_BUNDLE DIR... [--json] [--list]\n');
  process.exit(2);
}
const { loadSprints, normalizeStoryStatus, setAsideStatus } = createRequire(import.meta.url)(path.resolve(bundle));
const NOW = new Date('2026-11-28T12:00:00Z');

function readJson(p) {
  try { return JSON.parse(fs.readFileSync(p, 'utf8')); } catch { return null; }
}

/** Any language's Status label (and a few neighbours a team uses for it), as a label: before a colon, a cell's end or alone on a heading. */
const LABEL_WORDS = '(?:status|statut|estado|estatus|stato|zustand|статус|состояние|状态|狀態|状態|ステータス|상태|trạng thái|durum|situação|situacao|état|etat)';
const LABELS = new RegExp(`(?:^|[\\s*_|#>(\\[-])${LABEL_WORDS}(?:\\*\\*|__|\\*|_)?\\s*(?:[:：|=]|$)|^\\s{0,3}#{1,6}\\s.*${LABEL_WORDS}`, 'iu');

/** The family a file's unread status belongs to, from its text. */
function family(text) {
  const t = text.replace(/^\uFEFF/, '');
  const lines = t.split(/\r\n|\n|\r/);
  const hits = [];
  let fence = false;
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (/^\s{0,3}(```|~~~)/.test(l)) { fence = !fence; continue; }
    const h = /^\s{0,3}(#{1,6})\s+(.*)$/.exec(l);
    if (h && !fence) section = h[2].toLowerCase();
    if (LABELS.test(l)) hits.push({ line: i + 1, text: l.slice(0, 160), fence, section: section.slice(0, 40), next: (lines[i + 1] ?? '').slice(0, 80), next2: (lines[i + 2] ?? '').slice(0, 80) });
  }
  const out = { hits: hits.slice(0, 6) };
  const live = hits.filter((x) => !x.fence);
  if (!hits.length) out.family = 'no status anywhere';
  else if (!live.length) out.family = 'status only in a code fence';
  else {
    const first = live[0];
    const l = first.text;
    if (/<!--/.test(l)) out.family = 'HTML comment';
    else if (/^\s*>/.test(l)) out.family = 'blockquote';
    else if (/^\s*\|/.test(l)) out.family = 'table';
    else if (/^\s*(=+|-+)\s*$/.test(first.next) && !/^\s*#/.test(l)) out.family = 'setext heading';
    else if (/change ?log|history|revision/.test(first.section)) out.family = 'status only in a changelog';
    else if (/[\u00a0\t]/.test(l)) out.family = 'NBSP/tab';
    else if (!/status/i.test(l) && LABELS.test(l)) out.family = 'translated label';
    else if (/^\s{0,3}#/.test(l)) out.family = 'heading form';
    else if (/^\s*[-*+]\s/.test(l)) out.family = 'list item';
    else if (first.line > 40) out.family = 'deep in the file';
    else out.family = 'other line form';
  }
  return out;
}

const report = { corpora: {}, families: {}, files: [], readings: {}, ledgerKeys: [], ledgerValues: [] };
for (const cdir of dirs.map((d) => path.resolve(d))) {
  const corpus = path.basename(cdir);
  const c = { projects: 0, storyFiles: 0, neither: 0, wmOnly: 0, truthOnly: 0, ledgerKeys: 0, ledgerValues: 0 };
  report.corpora[corpus] = c;
  for (const name of fs.readdirSync(cdir).sort()) {
    const repo = path.join(cdir, name);
    if (name.startsWith('.') || !fs.statSync(repo).isDirectory()) continue;
    let truth;
    let sprints = [];
    try { truth = truthFor(repo); } catch { continue; }
    try { sprints = loadSprints(repo, { now: NOW, cache: false }) ?? []; } catch (e) { report.files.push({ corpus, project: name, crash: String(e) }); }
    c.projects++;
    const byFile = new Map();
    const slot = (f) => {
      if (!byFile.has(f)) byFile.set(f, { file: f });
      return byFile.get(f);
    };
    const problems = [];
    for (const sp of sprints) {
      problems.push(...(sp.problems ?? []));
      for (const s of sp.stories ?? []) {
        if (!s.file) continue;
        const r = slot(toRepoRel(repo, s.file));
        const codes = new Map((s.problems ?? []).map((p) => [p.code, p.severity]));
        const unknown = (s.problems ?? []).find((p) => p.code === 'story-unknown-status');
        r.wm = s.fileStatus ?? null;
        r.wmLine = s.fileStatusLine ?? null;
        // Unread: no status, or a word in no vocabulary (a done-like word is read, as a suggestion).
        const norm = s.fileStatus == null ? {} : normalizeStoryStatus(s.fileStatus);
        r.wmUnread = s.fileStatus == null || codes.has('story-status-missing') || (!!unknown && norm.status === undefined && norm.suggestion === undefined && setAsideStatus(s.fileStatus) === undefined && !/^\W*blocked/i.test(s.fileStatus));
        report.readings[`${corpus}/${name}/${r.file}`] = { status: r.wm, key: s.key, codes: [...codes.keys()].sort() };
      }
    }
    for (const p of truth.projects) {
      for (const s of p.stories) {
        if (!s.file) continue;
        const r = slot(s.file);
        r.truth = s.fileStatus ?? null;
        r.truthRaw = s.fileRaw ?? null;
        r.truthUnread = s.fileStatus == null || s.fileStatus.startsWith('other:');
      }
    }
    for (const r of byFile.values()) {
      c.storyFiles++;
      const wmUnread = r.wmUnread ?? null;
      const truthUnread = r.truthUnread ?? null;
      let side = null;
      if (wmUnread && truthUnread) side = 'neither';
      else if (wmUnread && truthUnread === null) side = 'waymark, a file the truth does not take for a story';
      else if (wmUnread) side = 'waymark only';
      else if (truthUnread && r.wm != null) side = 'truth only';
      if (!side) continue;
      if (side === 'neither') c.neither++;
      else if (side === 'waymark only') c.wmOnly++;
      else if (side === 'truth only') c.truthOnly++;
      else c.notInTruth = (c.notInTruth ?? 0) + 1;
      let text = '';
      try { text = fs.readFileSync(path.join(repo, r.file), 'utf8'); } catch { /* gone */ }
      const f = family(text);
      const key = `${side}: ${f.family}`;
      report.families[key] = (report.families[key] ?? 0) + 1;
      report.files.push({ corpus, project: name, side, family: f.family, file: r.file, wm: r.wm ?? null, truth: r.truth ?? null, truthRaw: r.truthRaw ?? null, hits: f.hits });
    }
    for (const p of problems) {
      if (p.code === 'ledger-unknown-key' && p.data?.keys?.length) {
        c.ledgerKeys += p.data.keys.length;
        report.ledgerKeys.push({ corpus, project: name, file: toRepoRel(repo, p.file), keys: p.data.keys });
      }
      if (p.code === 'ledger-unknown-status' && p.severity === 'warning') {
        c.ledgerValues++;
        report.ledgerValues.push({ corpus, project: name, file: toRepoRel(repo, p.file), line: p.range?.start?.line + 1, message: p.message.slice(0, 160) });
      }
    }
  }
}

if (flags.has('--json')) {
  process.stdout.write(`${JSON.stringify(report, null, 1)}\n`);
} else {
  const tot = { projects: 0, storyFiles: 0, neither: 0, wmOnly: 0, truthOnly: 0, ledgerKeys: 0, ledgerValues: 0 };
  process.stdout.write('corpus        projects  story files  neither  waymark-only  truth-only  ledger keys skipped  ledger values unread\n');
  for (const [k, c] of Object.entries(report.corpora)) {
    for (const x of Object.keys(tot)) tot[x] += c[x];
    process.stdout.write(`${k.padEnd(14)}${String(c.projects).padStart(8)}${String(c.storyFiles).padStart(13)}${String(c.neither).padStart(9)}${String(c.wmOnly).padStart(14)}${String(c.truthOnly).padStart(12)}${String(c.ledgerKeys).padStart(21)}${String(c.ledgerValues).padStart(22)}\n`);
  }
  process.stdout.write(`${'all'.padEnd(14)}${String(tot.projects).padStart(8)}${String(tot.storyFiles).padStart(13)}${String(tot.neither).padStart(9)}${String(tot.wmOnly).padStart(14)}${String(tot.truthOnly).padStart(12)}${String(tot.ledgerKeys).padStart(21)}${String(tot.ledgerValues).padStart(22)}\n\nfamilies\n`);
  for (const [k, n] of Object.entries(report.families).sort((a, b) => b[1] - a[1])) process.stdout.write(`${String(n).padStart(6)}  ${k}\n`);
  if (flags.has('--list')) {
    for (const f of report.files) process.stdout.write(`\n[${f.side} / ${f.family}] ${f.corpus}/${f.project}/${f.file} (waymark ${f.wm ?? '-'}, truth ${f.truthRaw ?? f.truth ?? '-'})\n${f.hits.map((h) => `    ${h.line}${h.fence ? ' (fence)' : ''} [${h.section}] ${h.text}`).join('\n')}\n`);
  }
}
