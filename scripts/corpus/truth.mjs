// The independent truth for the corpus run: what a BMAD user would say about a project's
// stories, ledger and planning artifacts, read straight from the files.
//
// It must never import or call Waymark's code (src/ or dist/): it is the yardstick Waymark is
// measured with. It is written from BMAD-METHOD's own grammar:
// - the ledger: bmad-sprint-planning's sprint-status-template.yaml and sprint_plan.py (keys
//   `epic-N`, `epic-N-retrospective`, `N-M[a-z]-slug`; story statuses backlog, ready-for-dev,
//   in-progress, review, done; legacy `drafted` → ready-for-dev, `contexted` → in-progress);
// - v6 story files: bmad-create-story's template.md (`Status: ready-for-dev` under the title);
// - v4 story files: story-tmpl.yaml (a `## Status` section, choices Draft, Approved, InProgress,
//   Review, Done; files docs/stories/{epic}.{story}.{slug}.md);
// - the install's config: bmm/config.yaml (alpha `bmad/`, beta `.bmad/`, v6.0 `_bmad/`),
//   _bmad/config.toml (layered TOML), .bmad-core/core-config.yaml (v4);
// - step-tracked artifacts: Markdown whose frontmatter carries stepsCompleted, workflowType or
//   lastStep (the step-file workflows' state keys), in the output folders.
// Real projects write more than the strict grammar (lettered and sub-epics, module prefixes,
// bold or emoji Status lines, `## Status` sections); the truth reads those as a BMAD user would.
//
// Usage: node scripts/corpus/truth.mjs REPO_DIR  (prints JSON)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';

const SKIP_DIRS = new Set([
  'node_modules', '.git', 'dist', 'build', 'out', '.next', '.nuxt', 'vendor', '.vendor', '.venv', 'venv',
  '__pycache__', 'target', 'coverage', '.turbo', '.cache', 'Pods', '.gradle', 'bin', 'obj',
]);
/** Folders whose ledgers and stories are kept for the record, not worked from. */
// (An archive of something named with it, `docs-archive/`: jcom-dev/zmanim docs/index.md:138 "Historical
// documentation has been moved to `docs-archive/`", its ledger's story_location still docs/sprint-artifacts.)
// (Old copies and backups: `docs_old3/`, `_backups/`, `old_2025/`; not `backup-service/`.)
const RETIRED = /(^|\/)(archive[sd]?|_archive|deprecated|old|outdated|backup[s]?|legacy|fixtures?|examples?|templates?|5-ARCHIVE|[\w.-]+[-_]archive[sd]?|archive[sd]?[-_][\w.-]+|_?(?:old|backups?)\d*|[\w.-]+[-_]old\d*|(?:old|backups?)[-_]\d[\w.-]*)(\/|$)/i;
const INSTALL_DIRS = ['_bmad', '.bmad', 'bmad', '.bmad-core'];
const MAX_FILE = 2 * 1024 * 1024;

// ---------- small file helpers ----------
function isDir(p) {
  try { return fs.statSync(p).isDirectory(); } catch { return false; }
}
function isFile(p) {
  try { return fs.statSync(p).isFile(); } catch { return false; }
}
function readText(p) {
  try {
    const st = fs.statSync(p);
    if (!st.isFile() || st.size > MAX_FILE) return null;
    // A byte-order mark before the frontmatter's `---` (Windows editors write one) is not text.
    // UTF-16 with its byte-order mark (a Windows editor's "Unicode"): the text it holds.
    const bytes = fs.readFileSync(p);
    if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
    if (bytes[0] === 0xfe && bytes[1] === 0xff) return Buffer.from(bytes.subarray(2, bytes.length - (bytes.length % 2))).swap16().toString('utf16le');
    return bytes.toString('utf8').replace(/^\uFEFF/, '');
  } catch {
    return null;
  }
}
function rel(repo, p) {
  return path.relative(repo, p).split(path.sep).join('/');
}
/** Files under dir (depth-limited), skipping vendored and install folders. */
function walk(dir, depth, out, filter) {
  let entries;
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return out; }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      // An install is left out; a folder only named like one (`docs/bmad/`, an output folder) is read.
      if (SKIP_DIRS.has(e.name) || (INSTALL_DIRS.includes(e.name) && looksLikeInstall(p, e.name)) || e.name === '.claude' || e.name === '.agents') continue;
      if (depth > 0) walk(p, depth - 1, out, filter);
    } else if (e.isFile() && filter(e.name, p)) {
      out.push(p);
    }
  }
  return out;
}

// ---------- the install: where it is, what it declares ----------
function looksLikeInstall(dir, name) {
  if (!isDir(dir)) return false;
  if (name === '.bmad-core') return isFile(path.join(dir, 'core-config.yaml')) || isDir(path.join(dir, 'agents'));
  return ['bmm', 'core', '_cfg', '_config', 'config.toml'].some((x) => fs.existsSync(path.join(dir, x)));
}

/** Simple TOML reader for BMAD's installer output: [section] headers and key = "string" lines. */
function readTomlStrings(text) {
  const out = {};
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const sec = /^\[([^\]]+)\]$/.exec(line);
    if (sec) { section = sec[1].trim(); continue; }
    const kv = /^([A-Za-z0-9_.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(line);
    if (kv) out[(section ? section + '.' : '') + kv[1]] = kv[2] ?? kv[3];
  }
  return out;
}

function resolveDeclared(root, value) {
  if (typeof value !== 'string' || !value.trim()) return null;
  let v = value.trim().replace(/\{project-root\}|\{project_root\}/g, '').replace(/^[/\\]+/, '');
  if (/[{}]/.test(v)) {
    // {output_folder}/x — resolved by the caller when it knows output_folder
    return { pending: v };
  }
  // A folder named by the absolute path of the machine BMAD was installed on (`F:/Lastking/_bmad-output`,
  // `/home/ana/game/_bmad-output`; skyoxu/lastking _bmad/bmgd/config.yaml:8) and not here: the same folder
  // in this checkout, from the first of its segments that is a folder of the root.
  const raw = value.trim();
  if ((/^[a-z]:[\\/]/i.test(raw) || path.isAbsolute(raw)) && !isDir(raw)) {
    const segs = raw.replace(/^[a-z]:/i, '').split(/[\\/]+/).filter((x) => x && x !== '.' && x !== '..');
    const i = segs.findIndex((x) => isDir(path.resolve(root, x)));
    if (i >= 0) return path.resolve(root, ...segs.slice(i));
  }
  return path.resolve(root, v || '.');
}

/** What the install declares: output, planning, implementation and story folders. */
function readDeclaredFolders(root, installs) {
  const declared = {};
  const put = (k, v) => { if (v != null && declared[k] == null) declared[k] = v; };
  for (const inst of installs) {
    const dir = path.join(root, inst);
    if (inst === '.bmad-core') {
      const text = readText(path.join(dir, 'core-config.yaml'));
      if (text) {
        try {
          const y = parseYaml(text) ?? {};
          put('dev_story_location', y.devStoryLocation);
          put('qa_location', y.qa?.qaLocation ?? y.qaLocation);
        } catch { /* unreadable config: defaults apply */ }
      }
      continue;
    }
    for (const tomlFile of ['custom/config.user.toml', 'custom/config.toml', 'config.toml']) {
      const text = readText(path.join(dir, tomlFile));
      if (!text) continue;
      const t = readTomlStrings(text);
      for (const [k, v] of Object.entries(t)) {
        const key = k.split('.').pop();
        put(key, v);
      }
    }
    for (const mod of ['bmm', 'core']) {
      const text = readText(path.join(dir, mod, 'config.yaml'));
      if (!text) continue;
      try {
        const y = parseYaml(text) ?? {};
        for (const k of ['output_folder', 'planning_artifacts', 'implementation_artifacts', 'sprint_artifacts', 'dev_story_location', 'dev_ephemeral_location']) put(k, y[k]);
      } catch { /* unreadable config: defaults apply */ }
    }
  }
  const folders = {};
  const out = resolveDeclared(root, declared.output_folder);
  const outDir = out && !out.pending ? out : path.join(root, fs.existsSync(path.join(root, '_bmad-output')) ? '_bmad-output' : 'docs');
  folders.output = outDir;
  for (const k of ['planning_artifacts', 'implementation_artifacts', 'sprint_artifacts', 'dev_story_location', 'dev_ephemeral_location', 'qa_location']) {
    const r = resolveDeclared(root, declared[k]);
    if (!r) continue;
    folders[k] = r.pending ? path.resolve(outDir, r.pending.replace(/^\{output_folder\}[/\\]?/, '')) : r;
  }
  // Nothing declared (the install left out of git): bmm's module.yaml defaults, when those folders are there.
  // (v6 beta's sprint_artifacts default, `{output_folder}/sprint-artifacts`, likewise.)
  for (const [k, d] of [['planning_artifacts', 'planning-artifacts'], ['implementation_artifacts', 'implementation-artifacts'], ['sprint_artifacts', 'sprint-artifacts']]) {
    if (folders[k] == null && isDir(path.join(outDir, d))) folders[k] = path.join(outDir, d);
  }
  return folders;
}

/** The BMAD projects inside a repository: their roots, installs and layouts. */
function findProjects(repo) {
  const roots = new Map();
  const visit = (dir, depth) => {
    for (const name of INSTALL_DIRS) {
      if (looksLikeInstall(path.join(dir, name), name)) {
        const r = roots.get(dir) ?? { root: dir, installs: [] };
        r.installs.push(name);
        roots.set(dir, r);
      }
    }
    if (depth === 0) return;
    let entries;
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      if (!e.isDirectory() || SKIP_DIRS.has(e.name) || INSTALL_DIRS.includes(e.name) || e.name.startsWith('.') || e.name === '_bmad-output') continue;
      const p = path.join(dir, e.name);
      if (RETIRED.test(rel(repo, p))) continue;
      if (/^(test|tests|spec|__tests__)$/i.test(e.name)) continue;
      visit(p, depth - 1);
    }
  };
  visit(repo, 3);
  // Projects with outputs but no install left in the repository (the install was git-ignored).
  const outputLedgers = [
    '_bmad-output/implementation-artifacts/sprint-status.yaml', 'docs/sprint-artifacts/sprint-status.yaml',
    'docs/implementation-artifacts/sprint-status.yaml', 'docs/sprint-status.yaml', 'docs/stories',
    '_bmad-output/sprint-status.yaml',
    // The BMAD skills add-on's sprint plan ledger (MitKI-ai/CashflowMitKI: no install in git).
    '.bmad/sprint-status.yaml',
    // v6 beta's sprint artifacts folder holding story files, no ledger yet.
    'docs/sprint-artifacts',
    // v6's output folders with no ledger yet (stories made one at a time, the install git-ignored).
    '_bmad-output/implementation-artifacts', '_bmad-output/planning-artifacts',
    // (and with the output folder set to docs: bmm's `{output_folder}/planning-artifacts`, planning done, no story yet.)
    'docs/planning-artifacts',
  ];
  const visitOutputs = (dir, depth) => {
    if (!roots.has(dir) && outputLedgers.some((p) => fs.existsSync(path.join(dir, p)))) roots.set(dir, { root: dir, installs: [] });
    if (depth === 0) return;
    let entries;
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      if (!e.isDirectory() || SKIP_DIRS.has(e.name) || e.name.startsWith('.') || INSTALL_DIRS.includes(e.name) || ['docs', '_bmad-output'].includes(e.name)) continue;
      const p = path.join(dir, e.name);
      if (RETIRED.test(rel(repo, p)) || /^(test|tests|spec|__tests__)$/i.test(e.name)) continue;
      visitOutputs(p, depth - 1);
    }
  };
  // As deep as an install is looked for: a course or monorepo keeps its project three folders down.
  if (!roots.has(repo)) visitOutputs(repo, 3);
  // Nothing yet: a BMAD ledger anywhere in the repository (its install and usual folders left out of git).
  if (roots.size === 0 && anyLedgers(repo, repo).length > 0) roots.set(repo, { root: repo, installs: [], ledgerOnly: true });
  // A nested root inside another project's output folder is not a project of its own.
  const list = [...roots.values()].sort((a, b) => a.root.length - b.root.length);
  const kept = [];
  for (const r of list) {
    if (kept.some((k) => r.root.startsWith(k.root + path.sep) && r.installs.length === 0)) continue;
    kept.push(r);
  }
  return kept;
}

/** Every live BMAD ledger (a sprint-status.yaml with development_status) under dir, install and agent folders left out. */
function anyLedgers(repo, dir) {
  // (`.yml` too: a team that writes its ledger by hand names it so, and a BMAD user reads it the same.)
  const found = walk(dir, 4, [], (n) => /^sprint-status\.ya?ml$/.test(n));
  return found.filter((f) => !RETIRED.test(rel(repo, f)) && /^development_status:/m.test(readText(f) ?? ''));
}

function layoutOf(repo, project) {
  const { root, installs } = project;
  let base;
  if (installs.includes('_bmad')) {
    const d = path.join(root, '_bmad');
    const skills = isFile(path.join(d, '_config', 'skill-manifest.csv'))
      && ['.claude/skills', '.agents/skills', '.agent/skills', '.cursor/skills', '.gemini/skills', '.github/skills', '.opencode/skills', '.windsurf/skills', '.codex/skills', '.qoder/skills', '.kiro/skills', '.roo/skills']
        .some((s) => { try { return fs.readdirSync(path.join(root, s)).some((n) => n.startsWith('bmad')); } catch { return false; } });
    if (isFile(path.join(d, 'config.toml'))) base = 'v6-toml';
    else if (skills) base = 'v6-skills';
    else base = 'v6.0';
  } else if (installs.includes('.bmad')) base = 'v6-beta';
  else if (installs.includes('bmad')) base = 'v6-alpha';
  else if (installs.includes('.bmad-core')) base = 'v4';
  else if (fs.existsSync(path.join(root, '_bmad-output'))) base = 'v6.0';
  // (v6.0's output folder set to docs: its ledger and stories in `docs/implementation-artifacts`.)
  else if (fs.existsSync(path.join(root, 'docs/implementation-artifacts')) || fs.existsSync(path.join(root, 'docs/planning-artifacts'))) base = 'v6.0';
  else if (fs.existsSync(path.join(root, 'docs/sprint-artifacts'))) base = 'v6-beta';
  else if (fs.existsSync(path.join(root, 'docs/sprint-status.yaml'))) base = 'v6-alpha';
  else if (project.ledgerOnly) base = 'ledger-only';
  else base = 'v4';
  return root === repo ? base : `monorepo(${base})`;
}

// ---------- statuses, as BMAD means them ----------
const STATUS_WORDS = [
  // [pattern over the cleaned text, meaning]
  // A story no longer used, or folded into another (`not used - merged into story 3-9`): set aside.
  [/^(not[ -]used|not[ -]needed|unused|(?:merged|consolidated|folded|absorbed|combined)[ -]+into)\b/, 'dropped'],
  // Approved for what comes after review (`approved for production`): finished.
  [/^approved[ -]for[ -](production|prod|release|deploy(ment)?|launch|go[ -]live|ship(ping)?|merge)\b/, 'done'],
  // Ready for what comes after review (`production ready`, `ready for production`): finished.
  [/^((?:production|prod)[ -]ready|ready[ -](?:for|to)[ -](?:production|prod|release|deploy(?:ment)?|launch|go[ -]live|ship(?:ping)?))\b/, 'done'],
  // Waiting on its merge (`ready-for-merge`, `awaiting merge`): the work is built and its pull request
  // waits, not merged; a story waiting on others' check, as review is (not `ready` for dev, below).
  [/^(ready[ -](?:for|to)[ -]merg(?:e|ing)|(?:awaiting|pending|waiting[ -]for)[ -]merge)\b/, 'review'],
  [/^(backlog|not[ -]started|to[ -]?do|pending|planned|new|open|proposed|deferred|postponed|shelved|future(?: story)?$|future story\b)\b/, 'backlog'],
  [/^(reviewed|review(ed)?[ -](passed|complete[d]?|approved|accepted|done)|code[ -]review[ -](passed|complete[d]?|approved|accepted|done)|qa[ -](passed|approved|complete[d]?|done|verified))\b/, 'done'],
  [/^(dev(?:elopment)?[ -]complete[d]?|implementation[ -]complete[d]?|ready[ -]for[ -]review|in[ -]review|review[ -]ready|code[ -]review|needs[ -]review|under[ -]review|review|qa|in[ -]qa|ready[ -]for[ -]qa|verifying|validating|(?:in|under)[ -](?:verification|validation|testing))\b/, 'review'],
  [/^(ready[ -]for[ -]dev(elopment)?|ready[ -]to[ -]dev|ready[ -]for[ -]implementation|ready|dev[ -]ready|drafted|draft|approved?|story[ -]ready|contextreadydraft)\b/, 'ready-for-dev'],
  [/^(in[ -]?progress|wip|started|in[ -]development|implementing|in[ -]dev|contexted|doing|active|(?:partially|partly|mostly|half)[ -](?:implemented|complete[d]?|done|built))\b/, 'in-progress'],
  // (`published`: out in the world, as shipped and delivered are.)
  [/^(done|complete|completed|finished|closed|merged|shipped|delivered|published|implemented|resolved|accepted|fixed|live|(?:production|prod)[ -]deployed|deployed[ -](?:to|in|on)[ -](?:production|prod))\b/, 'done'],
  // (`deployed` alone stays the project's own word: a ledger at `deployed` against a file at `done` is
  // drift, as Waymark reports it; `production deployed` is a story file's way of saying done.)
  [/^(blocked|on[ -]hold)\b/, 'blocked'],
  [/^(cancell?ed|dropped|deferred|superseded|obsolete|skipped|won'?t[ -]do|abandoned|descoped|removed|deprecated|optional|archived|retired|quarantined|split[ -]+into)\b/, 'dropped'],
];

/** The text of a status as written, without markdown, emoji and commentary. */
export function cleanStatusText(raw) {
  if (raw == null) return '';
  let s = String(raw);
  s = s.replace(/<!--.*?-->/g, ' ');
  // `ready_for_QA`: an underscore between letters parts words; elsewhere it is emphasis
  s = s.replace(/(?<=\p{L})_(?=\p{L})/gu, ' ');
  s = s.replace(/[*_`~]+/g, '');
  s = s.replace(/^\s*[-+>]\s+/, '');
  s = s.replace(/^\[[ xX]\]\s*/, '');
  // leading emoji / symbols
  s = s.replace(/^[^\p{L}\p{N}]+/u, '');
  s = s.toLowerCase().replace(/\s+/g, ' ').trim();
  return s;
}

/**
 * Status words in the languages BMAD writes a project's documents in (`document_output_language`),
 * accents dropped: French, Spanish, Portuguese, Italian, German, Russian, Korean; Chinese and Japanese
 * by the word a status starts with (they write no spaces: `已完成并发布`).
 */
const LOCAL_WORDS = [
  [/^(termine|terminee|fait|fini|acheve|valide|validee|livree?|entregad[oa]|entregue|consegnat[oa]|(?:aus)?geliefert|completado|completada|terminado|terminada|hecho|finalizad[oa]|concluid[oa]|feito|completat[oa]|fatto|erledigt|abgeschlossen|fertig|готово|выполнено|завершено|сделано|완료)(?![\p{L}])/u, 'done'],
  [/^(开发完成|開發完成|开发已完成|审核中|審核中|评审中|評審中|待评审|待审核|审查中|レビュー中|レビュー待ち|en revue|en revision|em revisao|in revisione|на ревью|на проверке)/u, 'review'],
  [/^(已完成|完成|已实现|已交付|已上线|完了|済み|完毕|已结束)/u, 'done'],
  [/^(进行中|進行中|开发中|開發中|实施中|處理中|处理中|對応中|対応中|作業中|修复中|(?:已审核|已審核)?(?:待修复|待修復|需修复|待修改)|en cours|en progreso|en curso|em andamento|em progresso|in corso|in arbeit|in bearbeitung|в работе|в процессе|진행 ?중)/u, 'in-progress'],
  [/^(待开发|待開發|待实施|待實施|待实现|就绪|就緒|准备就绪|可开发|已批准|pret|approuvee?|listo|aprobad[oa]|pronto|aprovad[oa]|approvato)(?![\p{L}])/u, 'ready-for-dev'],
  [/^(待办|待辦|待开始|待開始|未开始|未開始|待定|计划中|未着手|未实现|未實現|未实施|未开发|未開發|未启动|a faire|en attente|pendiente|por hacer|pendente|a fazer|da fare)(?![\p{L}])/u, 'backlog'],
];

export function normalizeStatus(raw) {
  // `Backlog -> In Progress`, `Draft → Approved`: a transition; a user reads where it went.
  const moves = String(raw ?? '').split(/\s*(?:-+>|=+>|→|⟶)\s*/);
  if (moves.length > 1) {
    const to = normalizeStatus(moves[moves.length - 1]);
    if (to && !to.startsWith('other:')) return to;
  }
  const s = cleanStatusText(raw);
  if (!s) return null;
  const plain = s.normalize('NFD').replace(/\p{M}/gu, '');
  for (const [re, meaning] of LOCAL_WORDS) if (re.test(plain)) return meaning;
  const compact = s.replace(/^inprogress\b/, 'in-progress').replace(/^readyfordev\b/, 'ready-for-dev').replace(/^readyforreview\b/, 'review');
  for (const [re, meaning] of STATUS_WORDS) if (re.test(compact)) return meaning;
  // `Refined - Ready for Development`, `Maximum readiness: ready for dev`: a status word opening a later part
  for (const part of compact.split(/\s+[-—–|]\s+|[:;(),]\s*/).slice(1)) {
    const t = part.trim();
    for (const [re, meaning] of STATUS_WORDS) if (re.test(t)) return meaning;
  }
  return `other:${compact.split(/[\s(,;:.—–-]/)[0]}`;
}

// ---------- the ledger ----------
const STORY_KEY = /^(?:([a-z]{1,6})-)?(\d+[a-z]?)(?:[-.](\d+[a-z]?))*?[-.](\d+[a-z]?)(?:-(.*))?$/i;

/** `e-01-1-slug`, `e0-1-slug`, `ep2-3-slug`: the letter(s) say "epic" (the ledger's `epic-01`); the numbers are the story's. */
const EPIC_LETTER = /^ep?-?(?=\d)/i;

/** `e1-s1-slug`, `ep2-s3-slug`: epic and story each lettered; read as `1-1-slug`. */
// (Dotted too, v4's `{epic}.{story}.story.md` with the words: `epic1.story2.story.md` is story 1.2, as `1.2.story.md` is.)
const LETTERED = /^e(?:p|pic)?[-_]?(\d+[a-z]?)[-_.]s(?:tory)?[-_]?(\d+[a-z]?)(?=[-.]|$)/i;
/** `10-e4-s1-pl-tab`: a sprint plan's row number (its table's `#`) before the lettered id E4-S1: story 4.1. */
const PLAN_ROW = /^\d{1,3}-(?=e(?:p|pic)?[-_]?\d+[a-z]?[-_]s(?:tory)?[-_]?\d)/i;
/** `g-01-browse-listings`, `r-0-blueprint`: a story numbered in a lettered series (a role's G-01, epic R's R.0). */
const SERIES_KEY = /^[a-z]-\d+-[a-z]/i;

function classifyKey(key) {
  if (SERIES_KEY.test(key)) return 'story';
  key = key.replace(PLAN_ROW, '').replace(LETTERED, '$1-$2').replace(EPIC_LETTER, '');
  if (/^epic-.+-retrospective$/i.test(key) || /-retro(spective)?$/i.test(key)) return 'retrospective';
  if (/^epic-[\w.-]+$/i.test(key)) return 'epic';
  if (STORY_KEY.test(key)) return 'story';
  return 'other';
}

/** The numeric id of a story key: `1-2-foo` → ['1','2']; `0-5-1-foo` → ['0','5','1']; `pm-01-1-x` → ['pm','01','1']. */
function keyId(key) {
  const parts = key.replace(PLAN_ROW, '').replace(LETTERED, '$1-$2').replace(EPIC_LETTER, '').split(/[-.]/);
  const id = [];
  let i = 0;
  // (`p4-1-slug`: a team's series p4, declared by the ledger's `epic-p4`, is an id part like `pm`.)
  if (/^[a-z](?:[a-z]{0,5}|[a-z0-9]{0,5}\d[a-z]?)$/i.test(parts[0]) && parts.length > 2 && /^\d/.test(parts[1])) id.push(parts[i++].toLowerCase());
  while (i < parts.length && /^\d+[a-z]?$/i.test(parts[i])) id.push(parts[i++].toLowerCase());
  return { id, slug: parts.slice(i).join('-').toLowerCase() };
}

/** The `development_status:` block alone (to the next top-level key), parsed on its own; null when it does not parse either. */
/** The lines [start, end) of the development_status block: from its key to the next top-level key; null when there is none. */
function devBlock(lines) {
  const start = lines.findIndex((l) => /^development_status:\s*(#.*)?$/.test(l));
  if (start < 0) return null;
  // The block runs to the next top-level key; a stray line (`´  4-6-…: done`) is inside it, and
  // makes it invalid YAML as it makes the file.
  let end = start + 1;
  while (end < lines.length && !/^(?:[A-Za-z_][\w-]*\s*:|---|\.\.\.)/.test(lines[end])) end++;
  return { start, end };
}

function developmentStatusBlock(text) {
  const lines = text.split(/\r?\n/);
  const block = devBlock(lines);
  if (!block) return null;
  const { start, end } = block;
  const storyLocation = lines.map((l) => /^story_location:\s*["']?([^"'#]+?)["']?\s*(#.*)?$/.exec(l)).find(Boolean)?.[1] ?? null;
  try {
    const y = parseYaml(lines.slice(start, end).join('\n'), { uniqueKeys: false });
    return y && typeof y === 'object' ? { ...y, story_location: storyLocation } : null;
  } catch {
    // A block a YAML parser refuses (a line indented under `13-6-slug: done`) is still a list a BMAD
    // user reads: its first-level `key: value` lines are the entries.
    // (An entry indented a space off its neighbours is still one of them; a line indented under
    // an entry is that entry's detail.)
    // (A key in the project's own script, `1-1-作为玩家…`, parted from its status by a fullwidth
    // colon `：` as a Chinese input method writes it, is an entry too.)
    const indents = lines.slice(start + 1, end).map((l) => /^(\s+)[^\s:：#"'][^:：#"']*?\s*[:：]/.exec(l)?.[1].length).filter((n) => n !== undefined);
    if (!indents.length) return null;
    const indent = Math.min(...indents);
    const dev = {};
    for (const l of lines.slice(start + 1, end)) {
      const m = /^(\s+)([^\s:：#"'][^:：#"']*?)\s*[:：]\s*["']?([^"'#]*?)["']?\s*(#.*)?$/.exec(l);
      if (m && m[1].length <= indent + 1 && /^[\w .-]*$/.test(m[3]) && !(m[2] in dev)) dev[m[2]] = m[3] || null;
    }
    if (!Object.keys(dev).length) return null;
    return { development_status: dev, story_location: storyLocation, lineByLine: true };
  }
}

/** Can `short` be spelled from the starts of `words`, in order, each used word giving one or more of its first letters? */
function spelledBy(short, words, needAll) {
  if (short === '') return !needAll || words.length === 0;
  if (words.length === 0) return false;
  for (let n = 1; n <= Math.min(words[0].length, short.length); n++) {
    if (short.slice(0, n) === words[0].slice(0, n) && spelledBy(short.slice(n), words.slice(1), needAll)) return true;
  }
  return false;
}

/** Is `key` a story listed under the ledger key `head`, as a series the header names (see readLedger)? */
function underHeader(head, key) {
  const wordEpic = /^epic-([a-z][a-z0-9]*)$/.exec(head);
  if (wordEpic) {
    const m = /^([a-z][a-z-]*?)-s?\d+[a-z]?(?:-|$)/.exec(key);
    return !!m && (m[1] === wordEpic[1] || (m[1].includes('-') && spelledBy(wordEpic[1], m[1].split('-'), true)));
  }
  if (!/^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/.test(head)) return false;
  const headWords = head.split('-').filter((w) => /^[a-z]/.test(w));
  const headNumber = head.split('-').filter((w) => /^\d+$/.test(w)).pop();
  const m = /^([a-z]+)(\d*)-(.+)$/.exec(key);
  if (!m || m[1] === headWords[0]) return false;
  if (headNumber !== undefined ? m[2] === '' || Number(m[2]) !== Number(headNumber) : m[2] !== '') return false;
  if (!headWords.some((_, k) => spelledBy(m[1], headWords.slice(k), false))) return false;
  // A number for the story, or the header's number carried by the prefix.
  return /^\d/.test(m[3]) || headNumber !== undefined;
}

/** development_status keys written more than once: key → 'same' (one status every time) or 'different'. */
function repeatedKeys(text) {
  const lines = text.split(/\r?\n/);
  const block = devBlock(lines);
  const out = new Map();
  if (!block) return out;
  const seen = new Map();
  let indent = null;
  for (let i = block.start + 1; i < block.end; i++) {
    const l = lines[i];
    const m = /^(\s+)["']?([^\s:#"'][^:#"']*?)["']?\s*:\s*["']?([^"'#]*?)["']?\s*(#.*)?$/.exec(l);
    if (!m) continue;
    indent ??= m[1].length;
    if (m[1].length !== indent) continue;
    const value = m[3].trim().toLowerCase();
    if (seen.has(m[2])) out.set(m[2], out.get(m[2]) === 'different' || seen.get(m[2]) !== value ? 'different' : 'same');
    else seen.set(m[2], value);
  }
  return out;
}

/** The statuses of a ledger whose epics nest their stories, as one flat map (epic, then its stories); null when it has none. */
function nestedStatuses(data) {
  const out = {};
  const isMap = (v) => v && typeof v === 'object' && !Array.isArray(v);
  const epics = [...Object.entries(isMap(data.epics) ? data.epics : {}), ...Object.entries(data)];
  for (const [key, epic] of epics) {
    if (!/^epic-[\w.-]+$/i.test(key) || !isMap(epic) || !isMap(epic.stories) || key in out) continue;
    out[key] = epic.status ?? null;
    for (const [sk, sv] of Object.entries(epic.stories)) if (!(sk in out)) out[sk] = sv;
  }
  return Object.keys(out).length ? out : null;
}

/**
 * No development_status and no nested epics, but BMAD's story keys at the top level, each with its
 * status (`epic-1: done`, `1-1-slug: done`: jodykwong/Prompt-Enhancement docs/sprint-status.yaml:37-42,
 * the `development_status:` line left out): a BMAD user (and the agent updating it) reads those keys
 * as the ledger's entries. Only keys of BMAD's own grammar; the header and `summary:` are not entries.
 */
function marginStatuses(data) {
  const isMap = (v) => v && typeof v === 'object' && !Array.isArray(v);
  if (!isMap(data)) return null;
  const out = {};
  let stories = 0;
  for (const [key, value] of Object.entries(data)) {
    if (value == null || typeof value === 'object') continue;
    if (/^\d+[a-z]?-\d+[a-z]?-[a-z0-9][\w-]*$/i.test(key)) stories++;
    else if (!/^epic-\d+[a-z]?(?:-retro(?:spective)?)?$/i.test(key)) continue;
    out[key] = value;
  }
  return stories ? out : null;
}

/**
 * No development_status and no nested epics, the stories listed as items (the BMAD skills add-on's
 * sprint plan, MitKI-ai/CashflowMitKI .bmad/sprint-status.yaml:15-22, delorenj/choreograph
 * .bmad/sprint-status.yaml:7-21, TVeskilt/tradelog docs/sprint-status.yaml:18-31 and 68-77): each
 * sprint's `stories:` list under `sprints:`, or a `stories:` list at the top, each item a story's id
 * (`story_id:`, `id:`, or the id alone) with its `status:`. A user reads each story's status where
 * it is listed last with one (a story carried into the next sprint, or described in `stories:`).
 */
function listedStatuses(data) {
  const isMap = (v) => v && typeof v === 'object' && !Array.isArray(v);
  if (!isMap(data)) return null;
  const lists = [];
  for (const sp of Array.isArray(data.sprints) ? data.sprints : []) if (isMap(sp) && Array.isArray(sp.stories)) lists.push(sp.stories);
  if (Array.isArray(data.stories)) lists.push(data.stories);
  // A list of epics, each with its stories' list (`epics: - id: PERTH-5 … stories: - id: STORY-005,
  // status: completed`, delorenj/perth docs/sprint-status.yaml:32-52): each epic's `stories:` items.
  for (const ep of Array.isArray(data.epics) ? data.epics : []) if (isMap(ep) && Array.isArray(ep.stories)) lists.push(ep.stories);
  // `stories:` holding one list per epic (`epic_1: - id: "1.1" … status: done`, a team's sprint plan,
  // thecontstruct/ai-memory _bmad-output/planning-artifacts/sprint-status.yaml:32-45): each epic's items.
  for (const [k, v] of Object.entries(isMap(data.stories) ? data.stories : {})) if (/^epic[-_]?\d+[a-z]?$/i.test(k) && Array.isArray(v)) lists.push(v);
  const out = {};
  // A `stories:` mapping keyed by the stories' ids, each with its `status:` (`"1.1": {title, status, epic}`:
  // a team's generated ledger, shotcowboystyle/hyzer-app _bmad-output/implementation-artifacts/sprint-status.yaml:15-19).
  if (isMap(data.stories)) {
    for (const [id, v] of Object.entries(data.stories)) if (/^\d+[a-z]?\.\d+[a-z]?$/i.test(id) && isMap(v) && v.status != null) out[id] = v.status;
  }
  for (const list of lists) {
    for (const item of list) {
      const id = typeof item === 'string' ? item : isMap(item) ? item.story_id ?? item.story_key ?? item.id ?? item.key ?? item.story : null;
      if (typeof id !== 'string' || !/^[a-z0-9][\w.-]*$/i.test(id)) continue;
      const status = isMap(item) && item.status != null ? item.status : null;
      if (status == null && id in out) continue;
      out[id] = status;
    }
  }
  return Object.keys(out).length ? out : null;
}

/** The `story_file` paths a nested ledger's stories give (relative to the project). */
function nestedStoryFiles(data) {
  const isMap = (v) => v && typeof v === 'object' && !Array.isArray(v);
  const out = [];
  for (const [key, epic] of [...Object.entries(isMap(data.epics) ? data.epics : {}), ...Object.entries(data)]) {
    if (!/^epic-[\w.-]+$/i.test(key) || !isMap(epic) || !isMap(epic.stories)) continue;
    for (const v of Object.values(epic.stories)) if (isMap(v) && typeof v.story_file === 'string' && /[\\/].*\.md$/i.test(v.story_file)) out.push(v.story_file);
  }
  return out;
}

function readLedger(file) {
  const text = readText(file);
  if (text == null) return { error: 'unreadable' };
  let data;
  let broken = null;
  try {
    data = parseYaml(text, { uniqueKeys: false });
  } catch (e) {
    // A header line a YAML parser refuses (`last_updated: 2026-07-23 (dev-story 4-8 → review: …)`)
    // does not hide the entries from a BMAD user, who reads the development_status block.
    data = developmentStatusBlock(text);
    if (!data) return { error: `yaml: ${String(e.message).split('\n')[0]}` };
    // Read by its lines only: the file itself is not valid YAML (BMAD's own tools cannot load it).
    if (data.lineByLine) broken = `not valid YAML (${String(e.message).split('\n')[0]})`;
    // A second YAML document appended after `---` (a status note): BMAD's sprint_plan.py loads the
    // ledger as one document (ruamel's load) and refuses the file; the entries still read.
    else if (/multiple documents/i.test(String(e.message))) broken = 'several YAML documents (BMAD\'s sprint_plan.py loads one)';
  }
  if (!data || typeof data !== 'object') return { error: 'not a mapping' };
  // No development_status, the epics holding their stories (`epics: epic-1: {status, stories:
  // {1-1-slug: done}}`, or `epic-1:` at the top): a BMAD user reads the same statuses one level down.
  // (`epic_status:` and `story_status:` maps: the same entries parted by kind.)
  const parted = data.story_status && typeof data.story_status === 'object' ? { ...(data.epic_status && typeof data.epic_status === 'object' ? data.epic_status : {}), ...data.story_status } : null;
  const dev = data.development_status ?? parted ?? nestedStatuses(data) ?? marginStatuses(data) ?? listedStatuses(data);
  const entries = [];
  // A key listed twice: BMAD's sprint_plan.py and its retrospective script load the ledger with
  // ruamel's round-trip loader, which refuses a repeated key; with two different statuses, which
  // one the story has is a guess (no drift is counted for it).
  const repeated = repeatedKeys(text);
  if (repeated.size && !broken) broken = `a key listed twice (${[...repeated.keys()].slice(0, 3).join(', ')}): BMAD's sprint_plan.py (ruamel) refuses a repeated key`;
  if (dev && typeof dev === 'object' && !Array.isArray(dev)) {
    for (const [key, value] of Object.entries(dev)) {
      let raw = value;
      if (value && typeof value === 'object') raw = value.status ?? value.Status ?? null;
      const guess = repeated.get(String(key)) === 'different';
      entries.push({ key: String(key), kind: classifyKey(String(key)), raw: raw == null ? null : String(raw), status: guess ? null : normalizeStatus(raw) });
    }
    // `epic-p4` above `p4-1-slug`: an epic named by a team's series of letters and digits numbers
    // the stories under it (`p4-1` is story 1 of p4); so does one named by a number and words
    // (`epic-1a-plus` above `1a-plus-1-slug`: the project's epic "1a+").
    const SERIES_ID = '[a-z][a-z0-9]*\\d[a-z]?|\\d+[a-z]*(?:-(?!retro(?:spective)?$)[a-z][a-z0-9]*)+';
    const series = new Set(entries.map((e) => new RegExp(`^epic-(${SERIES_ID})$`, 'i').exec(e.key)?.[1].toLowerCase()).filter(Boolean));
    for (const e of entries) {
      const id = [...series].find((s) => e.key.toLowerCase().startsWith(`${s}-`) && /^\d+(?:-|$)/.test(e.key.slice(s.length + 1)));
      if (e.kind === 'other' && id) e.kind = 'story';
    }
    // `p2-epic-1` above `p2-1-1-slug`: a series' epic written with the series first (phase 2's
    // epic 1) numbers the stories under `p2-1`.
    // (Its title may follow: `billing-epic-1-foundation` above `billing-1-1-slug`, innovaassolutions/
    // innovaasflowforge docs/sprint-artifacts/sprint-status.yaml, the story file saying `**Epic:** billing-epic-1-foundation`.)
    const SERIES_EPIC = /^([a-z][a-z0-9]*)-epic-(\d+)(?:-(?!retro(?:spective)?$)[a-z][\w-]*)?$/i;
    const seriesFirst = new Set(entries.map((e) => SERIES_EPIC.exec(e.key)).filter(Boolean).map((m) => `${m[1]}-${m[2]}`.toLowerCase()));
    for (const e of entries) {
      const m = /^([a-z][a-z0-9]*)-epic-(\d+)(-retro(?:spective)?)?$/i.exec(e.key) ?? SERIES_EPIC.exec(e.key);
      if (m && seriesFirst.has(`${m[1]}-${m[2]}`.toLowerCase())) e.kind = m[3] ? 'retrospective' : 'epic';
      const id = /^([a-z][a-z0-9]*-\d+)-\d+(?:-|$)/i.exec(e.key)?.[1].toLowerCase();
      if (e.kind === 'other' && id && seriesFirst.has(id)) e.kind = 'story';
    }
    // A series the ledger names by its header alone, its stories listed right under it: `supp-epic-1`
    // above `se1-1-slug` (the prefix is the header's initials and number), `rust-phase-7` above
    // `r7-slug`, `epic-fc` above `fill-confirm-1-slug` (the header's id is the key's initials).
    for (let i = 0; i < entries.length; i++) {
      const head = entries[i];
      if (head.kind !== 'other' && head.kind !== 'epic') continue;
      let j = i + 1;
      while (j < entries.length && entries[j].kind === 'other' && underHeader(head.key.toLowerCase(), entries[j].key.toLowerCase())) entries[j++].kind = 'story';
      if (j > i + 1 && head.kind === 'other') head.kind = 'epic';
    }
    // Inside an epic's block: `15-R1-slug` / `2-ux1-slug` after a declared epic-15 / epic-2 (a story
    // numbered with letters), and a key of a series with one number (`CORE-001`, `td-cross-1-slug`)
    // between `epic-X` and `epic-X-retrospective`.
    const epicsDeclared = new Set(entries.filter((e) => e.kind === 'epic' || e.kind === 'retrospective').map((e) => /^epic-(.+?)(?:-retro(?:spective)?)?$/i.exec(e.key)?.[1].toLowerCase()).filter(Boolean));
    let block = null;
    let waiting = [];
    for (const e of entries) {
      const k = e.key.toLowerCase();
      if (e.kind === 'epic') { block = /^epic-(.+)$/.exec(k)?.[1] ?? null; waiting = []; continue; }
      if (e.kind === 'retrospective') {
        // (A story's own retrospective inside the block, `EXP-001-retrospective`, does not close it.)
        if (!block || !k.startsWith(`epic-${block}-retro`)) continue;
        for (const w of waiting) w.kind = 'story';
        block = null;
        waiting = [];
        continue;
      }
      if (e.kind !== 'other') continue;
      const lettered = /^(\d+(?:[.-]\d+)*[a-z]?)-(?:[a-z]+\d+[a-z]?|\d+[a-z]\d+[a-z]?)(?:-|$)/.exec(k);
      if (lettered && epicsDeclared.has(lettered[1])) e.kind = 'story';
      else if (block && !k.startsWith('epic-') && /^[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*-\d+[a-z]?(?:-.*)?$/.test(k)) waiting.push(e);
      // (or numbered within the epic alone, `1a-frontend-setup-base-components` and `4-end-to-end-integration-testing`
      // between epic-1 and epic-1-retrospective: fundottz/copilot-kit-demo docs/sprint-artifacts/sprint-status.yaml,
      // the story file titled `# Story 1A: …`)
      else if (block && /^\d+[a-z]?-[a-z][\w.-]*$/.test(k)) waiting.push(e);
    }
    // A series' key under no epic (`debug-1-slug`, `BF-2-slug` before the first epic or after an
    // epic's retrospective): story n of the series its word names.
    let inEpic = false;
    for (const e of entries) {
      if (e.kind === 'epic') inEpic = true;
      else if (e.kind === 'retrospective') inEpic = false;
      else if (e.kind === 'other' && !inEpic && /^([a-z]+)-\d+[a-z]?-[a-z][\w.-]*$/i.test(e.key) && !/^(epic|story)-/i.test(e.key)) e.kind = 'story';
    }
    // `STORY-001`: the word story and one number, the add-on's id of a story planned with no epic.
    for (const e of entries) if (e.kind === 'other' && /^story[-_]?\d{1,4}$/i.test(e.key)) e.kind = 'story';
    // One number: `story-night-watch-1` (v6 alpha's level-1 key), `story-7-mend-the-nets`.
    for (const e of entries) if (e.kind === 'other' && /^story-(?:[a-z][a-z0-9-]*-\d+|\d+-[a-z][\w-]*)$/i.test(e.key)) e.kind = 'story';
    // Notes a team keeps about a story as keys beside it (`e1-1-jira-id: SCRUM-11`, `e1-1-completed:
    // 2025-11-25`, `e3-1-notes: |` under `e1-1-set-up-project: done`, hoferino/manda-platform
    // docs/sprint-artifacts/sprint-status.yaml:265-282): the number is a story's already listed with a
    // status, the value no status (a date, id, number, path, sentence or block of text). A user reads
    // them as that story's notes, not as stories; a second key of that number with a status word stays one.
    const words = (raw) => (String(raw).split('(')[0].match(/[\p{L}\p{N}_]+/gu) ?? []).length;
    const isStatus = (raw) => raw != null && !/\n/.test(String(raw)) && normalizeStatus(raw) != null && (!normalizeStatus(raw).startsWith('other:') ? words(raw) <= 3 : /^\p{L}[\p{L}_-]*$/u.test(String(raw).trim()) && !/^(?:true|false|yes|no|null|none|tbd|n\/a)$/i.test(String(raw).trim()));
    const withStatus = new Set();
    for (const e of entries) {
      if (e.kind !== 'story') continue;
      const id = keyId(e.key).id.join('.');
      if (!id) continue;
      if (!withStatus.has(id)) { if (isStatus(e.raw)) withStatus.add(id); continue; }
      if (!isStatus(e.raw)) e.kind = 'note';
    }
  }
  // (A nested ledger's story naming its file, `story_file: stories/story-1-1-slug.md`, says where its stories are.)
  const storyFolders = dev && !data.development_status ? [...new Set(nestedStoryFiles(data).map((f) => path.dirname(f)))] : [];
  return { entries, storyLocation: typeof data.story_location === 'string' ? data.story_location : null, storyFolders, broken };
}

// ---------- story files ----------
function frontmatter(text) {
  if (!/^---\r?\n/.test(text)) return null;
  const end = text.search(/\r?\n---\s*(\r?\n|$)/);
  if (end < 0) return null;
  // (Up to the line break before `---`, whole: a CRLF file's `\r` alone after a quoted value is no YAML's.)
  const body = `${text.slice(text.indexOf('\n') + 1, end)}\n`;
  try {
    const y = parseYaml(body);
    return y && typeof y === 'object' && !Array.isArray(y) ? y : null;
  } catch {
    return null;
  }
}

/** The Status of a story file, as written: frontmatter, a Status line, a `## Status` heading or section. */
export function storyStatus(text) {
  const fm = frontmatter(text);
  if (fm) {
    const k = Object.keys(fm).find((x) => x.toLowerCase() === 'status');
    if (k && fm[k] != null && typeof fm[k] !== 'object') return { raw: String(fm[k]), where: 'frontmatter' };
  }
  const lines = text.split(/\r?\n/);
  let fence = false;
  // The `##` section a line is in, and whether a deeper heading opened since (the Dev Agent Record's
  // `### Completion Notes` is a log, not the record's own lines).
  let h2 = '';
  let sub = false;
  // A fenced block under a `## Metadata` heading is the story's metadata (`status: done`); elsewhere it is code.
  let metaFence = false;
  // `**Story Status:** x` anywhere outside the acceptance criteria and tasks: the story's status
  // when nothing else states one.
  let storyLabel = null;
  // The file's closing block, after a thematic break (`---`) with no heading below it: teams keep the
  // story's record there (`---`, `**Status:** Done`, `**Completed:** …`); its Status is the story's
  // when nothing else states one.
  let afterRule = false;
  let trailer = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!fence && /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/.test(line) && !(lines[i - 1] ?? '').trim()) { afterRule = true; continue; }
    if (!fence && /^\s{0,3}#{1,6}\s/.test(line)) { afterRule = false; trailer = null; }
    if (!fence && afterRule && !trailer) {
      const t = /^\s*(?:[-*+]\s+)?(?:\*\*|__)?\s*(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.+)$/i.exec(line);
      if (t && normalizeStatus(t[1]) && !normalizeStatus(t[1]).startsWith('other:')) trailer = { raw: t[1], where: 'trailer', line: i + 1 };
    }
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      fence = !fence;
      metaFence = fence && /^(?:story )?(?:metadata|meta|information|info|details)$/.test(h2.replace(/[^\p{L}\p{N} ]/gu, '').trim());
      continue;
    }
    if (fence) {
      const fm2 = metaFence ? /^\s*(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)\s*[:：]\s*["']?([^"'#]+)/i.exec(line) : null;
      if (fm2 && cleanStatusText(fm2[1])) return { raw: fm2[1], where: 'fenced metadata', line: i + 1 };
      continue;
    }
    if (!storyLabel && !/^(?:acceptance criteria\b|tasks?\b)/.test(h2)) {
      const sl = /^\s*(?:[-*+]\s+)?(?:\*\*|__)?story\s+(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.+)$/i.exec(line);
      if (sl && cleanStatusText(sl[1])) storyLabel = { raw: sl[1], where: 'story label', line: i + 1 };
    }
    const h = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      if (h[1].length <= 2) { h2 = h[1].length === 2 ? h[2].replace(/[*_`]/g, '').trim().toLowerCase() : ''; sub = false; } else sub = true;
    }
    // Sections about the work (Acceptance Criteria, Technical/Dev Notes): a Status there is an ADR's,
    // a criterion's, not the story's. The Dev Agent Record's own lines state the story's, however far down.
    const workNotes = /^(?:acceptance criteria\b|.*\bnotes?$)/.test(h2);
    // (So do those of a section recording the finished work in its place: `## ✅ Implementation Complete`.)
    const record = (h2.startsWith('dev agent record') || /^(?:implementation|development) completed?$/.test(h2.replace(/[^\p{L}\p{N} ]/gu, '').trim())) && !sub;
    // `## Status: done`, `### Status - Done`
    // (a dash only with space before it: `### Status-to-Timeline Mapping` is another heading)
    let m = /^\s{0,3}#{1,6}\s*(?:\*\*)?\s*(?:story\s+|current\s+)?(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)(?:\*\*)?\s*(?:[:：]|\s[—–-])\s*(.+)$/i.exec(line);
    if (m && cleanStatusText(m[1])) return { raw: m[1], where: 'heading', line: i + 1 };
    // `## Status` then its first line
    if (/^\s{0,3}#{1,6}\s*(?:\*\*)?\s*(?:story\s+|current\s+)?(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)\s*(?:\*\*)?\s*:?\s*$/i.test(line)) {
      // A checklist of the stages the story went through (`- [x] Draft` … `- [x] Done`): the last
      // ticked stage is where the story is; none ticked states none.
      let stages = false;
      let lastStage = null;
      for (let j = i + 1; j < Math.min(lines.length, i + 12); j++) {
        const l = lines[j];
        if (!l.trim() || /^\s*<!--.*-->\s*$/.test(l)) continue;
        const stageBox = /^\s*(?:[-*+]\s+)?\[([ xX])\]\s*(.+)$/.exec(l);
        const stage = stageBox ? normalizeStatus(stageBox[2]) : null;
        if (stage && !stage.startsWith('other:')) {
          stages = true;
          if (stageBox[1] !== ' ') lastStage = { raw: stageBox[2], where: 'section', line: j + 1 };
          continue;
        }
        if (stages) break;
        if (/^\s{0,3}#{1,6}\s/.test(l)) break;
        // a table (`| Field | Value |`, `| **Status** | done |`): the Status row gives it, the rest is read past
        const row = /^\s*\|(.*)\|\s*$/.exec(l);
        if (row) {
          const cells = row[1].split('|').map((c) => c.trim());
          if (cells.length >= 2 && /^(?:\*\*|__)?\s*(?:story\s+|current\s+)?(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)\s*(?:\*\*|__)?$/i.test(cells[0]) && cleanStatusText(cells[1]) && !/^\s*\|?\s*:?-{3,}/.test(lines[j + 1] ?? '')) return { raw: cells[1], where: 'section', line: j + 1 };
          continue;
        }
        // a checklist item (`- [x] Tasks/Subtasks completed`) is not the status, unless it is a status word
        if (/^\s*[-*+]\s+\[[ xX]\]/.test(l) && normalizeStatus(l)?.startsWith('other:')) continue;
        const inner = /^\s*(?:[-*+]\s*)?(?:\*\*|__)?[^:*_]*(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)[^:*_]*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.+)$/i.exec(l);
        if (inner) return { raw: inner[1], where: 'section', line: j + 1 };
        // a dated fact (`- **Started**: 2025-11-30`, `- **Completed**: 2025-11-30`): when a stage
        // happened, not the status (the section's `- **Status**: COMPLETE` line below says it); read on
        if (/^\s*(?:[-*+]\s*)?(?:\*\*|__)?[^:]{1,40}(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*\d{4}-\d{2}-\d{2}\b/.test(l)) continue;
        // another labelled fact (`- **Sprint**: 11`): not the status; read on
        if (/^\s*(?:[-*+]\s*)?(?:\*\*|__)?[^:]{1,40}(?:\*\*|__)?\s*[:：]/.test(l) && !normalizeStatus(l)?.match(/^(backlog|ready-for-dev|in-progress|review|done|blocked|dropped)$/)) continue;
        return { raw: l, where: 'section', line: j + 1 };
      }
      if (lastStage) return lastStage;
      continue;
    }
    // a metadata table near the top: `| Status | done |`
    const near = (i < 60 && !workNotes) || record;
    const row = near ? /^\s*\|\s*(?:\*\*|__)?\s*(?:story\s+|current\s+)?(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)\s*(?:\*\*|__)?\s*\|([^|]+)\|/i.exec(line) : null;
    if (row && cleanStatusText(row[1]) && !/^\s*\|?\s*:?-{3,}/.test(lines[i + 1] ?? '')) return { raw: row[1], where: 'line', line: i + 1 };
    // `Status: done`, `**Status:** done`, `- **Status**: done`, `> Status: done`
    m = near ? /^\s*(?:[-*+>]\s*)?(?:\*\*|__)?\s*(?:story\s+|current\s+)?(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.+)$/i.exec(line) : null;
    if (m && cleanStatusText(m[1])) return { raw: m[1], where: 'line', line: i + 1 };
    // `Status:` closing its line, the value wrapped onto the paragraph's next line
    const open = near && /^\s*(?:\*\*|__)?\s*(?:story\s+|current\s+)?(?:status|statut|estado|estatus|stato)\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*$/i.test(line);
    const nextLine = lines[i + 1] ?? '';
    if (open && nextLine.trim() && !/^\s*(?:#|[-*+]\s|\d+[.)]\s|\||>|```)/.test(nextLine) && !normalizeStatus(nextLine)?.startsWith('other:')) return { raw: nextLine, where: 'wrapped', line: i + 2 };
  }
  // inline metadata near the top: `**Epic:** 1 **Story ID:** 1.1 **Status:** done`
  fence = false;
  h2 = '';
  for (let i = 0; i < Math.min(lines.length, 40); i++) {
    if (/^\s{0,3}(```|~~~)/.test(lines[i])) { fence = !fence; continue; }
    if (fence) continue;
    const h = /^\s{0,3}##\s+(.*?)\s*#*\s*$/.exec(lines[i]);
    if (h) h2 = h[1].replace(/[*_`]/g, '').trim().toLowerCase();
    if (/^(?:acceptance criteria\b|.*\bnotes?$)/.test(h2)) continue;
    const m = /(?:\*\*|__)(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)\s*[:：]?\s*(?:\*\*|__)\s*[:：]?\s*([^*|_]+)/i.exec(lines[i]);
    if (m && cleanStatusText(m[1])) return { raw: m[1], where: 'inline', line: i + 1 };
    // the line ends at the label: the paragraph goes on with the value (`**Status**:` ⏎ `Approved **Story Points**: 6`)
    const end = /(?:\*\*|__)(?:status|statut|estado|estatus|stato)\s*[:：]?\s*(?:\*\*|__)\s*[:：]?\s*$/i.test(lines[i]);
    const cont = lines[i + 1] ?? '';
    if (end && cont.trim() && !/^\s*(?:#|[-*+]\s|\||>|```)/.test(cont)) {
      const word = /^([^*|_]+)/.exec(cont)?.[1];
      if (word && !normalizeStatus(word)?.startsWith('other:')) return { raw: word, where: 'inline', line: i + 2 };
    }
  }
  return storyLabel ?? trailer ?? closingStatus(lines);
}

/**
 * The file's last line of text, when it is a Status label stating a status (`**Status:** ✅ Concluída |
 * **Data:** …`, a team's closing record line) in one of the story's own `##` sections: not the notes
 * or QA results, nor an item of the acceptance criteria or tasks, nor a deeper heading's subsection
 * (an ADR's `Status: Accepted`), nor a fenced block.
 */
function closingStatus(lines) {
  let fence = false;
  let h2 = '';
  let sub = false;
  let last = -1;
  let lastOk = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s{0,3}(```|~~~)/.test(line)) { fence = !fence; last = -1; continue; }
    if (fence) continue;
    const h = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      if (h[1].length <= 2) { h2 = h[1].length === 2 ? h[2].replace(/[^\p{L}\p{N} ]/gu, '').trim().toLowerCase() : ''; sub = false; } else sub = true;
      last = -1;
      continue;
    }
    if (!line.trim()) continue;
    last = i;
    // (In the criteria or tasks, a list item is one of them; a plain label line after them closes the file.)
    lastOk = !sub && !/^(?:qa\b|.*\bnotes?$)/.test(h2) && !(/^(?:acceptance criteria\b|crit[eé]rios?\b|tasks?\b|tarefas\b)/.test(h2) && /^\s*(?:[-*+]|\d+[.)])\s/.test(line));
  }
  if (last < 0 || !lastOk) return null;
  const m = /^\s*(?:[-*+]\s*)?(?:\*\*|__)?\s*(?:story\s+)?(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.+)$/i.exec(lines[last]);
  if (!m || !cleanStatusText(m[1])) return null;
  const v = normalizeStatus(m[1]);
  if (!v || v.startsWith('other:')) return null;
  return { raw: m[1], where: 'closing line', line: last + 1 };
}

/**
 * A second statement of the status where BMAD's story templates put it — the `Status:` line under
 * the title (before the first `##` section) or a `## Status` section — in a file whose frontmatter
 * has a `status:` too. Teams that keep both can leave one behind; null when there is none.
 */
export function bodyStatus(text) {
  const m = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return null;
  const lines = text.slice(m[0].length).split(/\r?\n/);
  const kept = [];
  let head = true;
  let inStatus = false;
  for (const line of lines) {
    const h = /^\s{0,3}(#{1,6})\s+(.*)$/.exec(line);
    if (h && h[1].length >= 2) {
      head = false;
      inStatus = /^(?:\*\*)?\s*(?:story\s+|current\s+)?(?:status|statut|estado|estatus|stato|статус|状态|狀態|ステータス|상태)(?![a-z])/i.test(h[2]);
    }
    if (head || inStatus) kept.push(line);
  }
  return storyStatus(kept.join('\n'));
}

/** Unchecked task boxes in the story's Tasks section (a done story with open tasks is not clean). */
function openTasks(text) {
  const lines = text.split(/\r?\n/);
  let inTasks = false;
  let level = 0;
  let open = 0;
  let fence = false;
  // The QA agent's section (v4's review-story writes `## QA Results` with an `### Improvements Checklist`:
  // what it fixed ticked, what it suggests left open): the reviewer's list, not the story's tasks.
  let qaLevel = 0;
  for (const line of lines) {
    if (/^\s{0,3}(```|~~~)/.test(line)) { fence = !fence; continue; }
    if (fence) continue;
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      if (inTasks && h[1].length <= level) inTasks = false;
      if (qaLevel && h[1].length <= qaLevel) qaLevel = 0;
      if (!qaLevel && /^\W*qa\b/i.test(h[2])) { qaLevel = h[1].length; inTasks = false; }
      // `Tasks / Subtasks`, and the checklist stories written outside the template keep instead (`Implementation Checklist`)
      if (!inTasks && !qaLevel && /task|checklist/i.test(h[2])) { inTasks = true; level = h[1].length; }
      continue;
    }
    // A task struck through (`- [ ] ~~Run git commit~~ - Skipped per user request`) was dropped, not left open.
    if (inTasks && /^\s*[-*+]\s+\[ \]/.test(line) && !/^\s*[-*+]\s+\[ \]\s*~~[^~]+~~/.test(line)) open++;
  }
  return open;
}

/**
 * The last QA gate verdict the story's own QA Results record (v4's review-story writes
 * `Gate: FAIL → docs/qa/gates/4.3-….yml` under `### Gate Status`), if any.
 */
/**
 * The verdict of the story's v4 QA gate file (`{qaLocation}/gates/{epic}.{story}-{slug}.yml`, its
 * `gate:` line), as written; null when there is none. Review-story writes PASS, CONCERNS, FAIL or
 * WAIVED; a team's own word there (`BLOCKED`) stops the story as FAIL does.
 */
function gateFileVerdict(qaDir, storyFile) {
  if (!qaDir) return null;
  const id = idOfFileName(path.basename(storyFile)).id.slice(0, 2);
  if (id.length < 2) return null;
  const gates = path.join(qaDir, 'gates');
  if (!isDir(gates)) return null;
  const name = `${id.map(Number).join('.')}`;
  for (const g of fs.readdirSync(gates)) {
    if (!/\.ya?ml$/i.test(g) || !(g.startsWith(`${name}-`) || g.startsWith(`${name}.`) && !/^\d/.test(g.slice(name.length + 1)))) continue;
    const m = /^gate:\s*["']?([A-Za-z_-]+)/m.exec(readText(path.join(gates, g)) ?? '');
    if (m) return m[1].toUpperCase();
  }
  return null;
}

function ownGateVerdict(text) {
  let verdict = null;
  for (const m of text.matchAll(/^\s*(?:[-*]\s+)?(?:\*\*)?Gate(?: Status| Decision)?:?(?:\*\*)?:?\s*(?:\*\*)?\s*(PASS|CONCERNS|FAIL|WAIVED)\b/gim)) verdict = m[1].toUpperCase();
  return verdict;
}

/**
 * Stories kept beside their epic, one folder per epic (`epics/epic-4/stories/4-1-slug.md`): the
 * `stories` folder of each `epic…` folder in an `epics` folder of the docs, output or planning folder.
 */
function perEpicStoryDirs(bases) {
  const out = [];
  for (const b of new Set(bases.filter(Boolean))) {
    const epics = path.join(b, 'epics');
    if (!isDir(epics)) continue;
    for (const e of fs.readdirSync(epics, { withFileTypes: true })) {
      if (!e.isDirectory() || !/^epic/i.test(e.name)) continue;
      if (isDir(path.join(epics, e.name, 'stories'))) out.push(path.join(epics, e.name, 'stories'));
      // Or the epic's folder itself, its story files beside its index (`epics/epic-05-llm/story-5.1-x.md`:
      // Gguignard/Briefly _bmad-output/planning-artifacts/epics/epic-05-llm/index.md links `./story-5.1-llm-service.md`).
      else out.push(path.join(epics, e.name));
    }
  }
  return out;
}

/**
 * A report BMAD's validate-workflow task writes about a document (core/tasks/validate-workflow.xml,
 * "Generate Report": `# Validation Report`, then `**Document:**` and `**Checklist:**` lines), kept
 * beside the stories it checked (`STORY-1.1-validation-report.md`): a report, not a story.
 */
function isValidationReport(f) {
  const head = (readText(f) ?? '').slice(0, 1500);
  return /^(?:---[\s\S]*?\n---\s*\n)?\s*#\s+validation report\b/i.test(head) && /^\s*\*\*checklist:?\*\*/im.test(head);
}

/**
 * A file inside a PRD sharded by BMAD's shard-doc (a `prd/` folder with its `index.md`) below a story
 * folder: a shard of the plan, not a story, whatever its name says.
 */
function inShardedPrd(top, f) {
  for (let dir = path.dirname(f); dir.startsWith(top + path.sep); dir = path.dirname(dir)) {
    if (/^prd(?:[-_.][\w.-]*)?$/i.test(path.basename(dir)) && isFile(path.join(dir, 'index.md'))) return true;
  }
  return false;
}

function storyFileIndex(dirs) {
  const files = [];
  const seen = new Set();
  for (const d of dirs) {
    if (!d || !isDir(d)) continue;
    for (const f of walk(d, 3, [], (n) => n.toLowerCase().endsWith('.md'))) {
      if (seen.has(f)) continue;
      seen.add(f);
      if (isValidationReport(f) || inShardedPrd(d, f)) continue;
      files.push(f);
    }
  }
  return files;
}

/**
 * The number of a story kept in its epic's folder and numbered only within it: `epic-01/story-02-x.md`,
 * `epic-2-maps/stories/03-x.md` are stories 1.2 and 2.3 (`02-x.md` names no epic itself). The epic is
 * the file's own folder, or the one holding its `stories/` folder; a folder further up says nothing.
 */
function epicFolderId(f) {
  const m = /^(?:story[-_ ]?)?(\d{1,3})([a-z]?)(?:[-_ ][a-z][^.]*)?\.md$/i.exec(path.basename(f));
  if (!m) return null;
  const epicOf = (name) => /^epic[-_ ]?(\d{1,3})(?:[-_ ].*)?$/i.exec(name);
  const dir = path.dirname(f);
  const e = epicOf(path.basename(dir)) ?? (path.basename(dir).toLowerCase() === 'stories' ? epicOf(path.basename(path.dirname(dir))) : null);
  return e ? [String(Number(e[1])), `${Number(m[1])}${m[2].toLowerCase()}`] : null;
}

/**
 * `1.1 COMPLETE project-setup.md`, `2.1e1 COMPLETE core-cache.md`, `2.1.COMPLETE.now-next.md`: a v4 story's
 * number, then the word a team marks a finished file with, in capitals, then the slug (niozzo/KN-React-App
 * docs/stories/): the word is no part of the story's name.
 */
const STATE_WORD_IN_NAME = /^(\d+\.\d+(?:[a-z]\d?)?(?:\.\d+)?)[ .-](?:COMPLETE|COMPLETED|DONE|FINISHED)[ .-](?=[a-z])/;
/** `2.1g.3.1-IMPLEMENTATION-PLAN.md`, `-QUICK-REFERENCE.md`: a story's number, then a document's name in capitals: a note beside it. */
const NOTE_NAME = /^\d+\.\d+[a-z]?\d?(?:\.\d+)*[-_](?:[A-Z]+[-_])*(?:PLAN|REFERENCE|SUMMARY|REPORT|GUIDE|NOTES)\.md$/;

function idOfFileName(base) {
  // BMAD's build skill writes an epic story's spec as `{implementation_artifacts}/spec-{slug}.md`, the slug
  // led by the story's numbers (`spec-3-2-digest-delivery.md`), and finds its ledger key by those two
  // numbers alone (bmad-build step-01 "Story-key resolution"): story 3.2's, whatever slug follows.
  const spec = /^spec-(\d+)-(\d+)(?:-(.*))?\.md$/i.exec(base);
  if (spec) return { id: [spec[1], spec[2]], slug: (spec[3] ?? '').toLowerCase(), spec: true };
  // 1-2-slug, 1.2.slug, story-1.2-slug, story-1-2, 3a-1-slug, pm-01-1-slug
  const b = base.replace(STATE_WORD_IN_NAME, '$1.').replace(/\.md$/i, '').replace(/\.story$/i, '').replace(/^story[-_ .]?/i, '').replace(PLAN_ROW, '').replace(LETTERED, '$1-$2').replace(EPIC_LETTER, '').toLowerCase();
  // `tea-stream-001.1-slug`, `tea-builtin-001.6.1.slug`: a team's story id of several words, then the
  // epic's and the story's numbers dotted (two groups or more; one number names the series' epic).
  const series = /^([a-z]+(?:-[a-z]+)+)-(\d+[a-z]?(?:\.\d+[a-z]?)+)(?:[-.](.*))?$/.exec(b);
  // (`qa-report-story-1.1.md`, `# QA Test Report: Story 1.1 …`: words naming a document about a story are no
  // team's series: khalsa-jio/checkright-saas docs/stories/qa-report-story-1.1.md:1.)
  if (series && !/(?:^|-)(?:story|stories|epics?|qa|report|review|summary|notes)(?:-|$)/.test(series[1])) return { id: [series[1], ...series[2].split('.')], slug: (series[3] ?? '').split(/[-.]/).join('-') };
  if (series) return { id: [], slug: b };
  const parts = b.split(/[-.]/);
  const id = [];
  let i = 0;
  // (`task-1-1-slug.md`, titled `# Task 1.1: …` under a `**Story**:` it belongs to: a story's task, numbered in
  // its plan, not story 1.1 of a module `task`: wtthornton/ha-ingestor docs/stories/task-1-1-add-context7-architect.md:1-4.)
  if (/^[a-z](?:[a-z]{0,5}|[a-z0-9]{0,5}\d[a-z]?)$/.test(parts[0]) && !/^(?:sub)?tasks?$/.test(parts[0]) && parts.length > 2 && /^\d/.test(parts[1])) id.push(parts[i++]);
  // (`2.1e1`: the letter's own number, story 2.1e's part 1.)
  while (i < parts.length && /^\d+(?:[a-z]\d?)?$/.test(parts[i])) id.push(parts[i++]);
  return { id, slug: parts.slice(i).join('-') };
}

function sameId(a, b) {
  if (a.length !== b.length) return false;
  return a.every((x, i) => x === b[i] || (/^\d+$/.test(x) && /^\d+$/.test(b[i]) && Number(x) === Number(b[i])));
}

function findStoryFile(key, index) {
  const exact = index.filter((f) => path.basename(f).toLowerCase() === `${key.toLowerCase()}.md`);
  // The key's own file kept in two story folders saying different things (`docs/stories/6-1-x.md`
  // done, `.bmad-ephemeral/stories/6-1-x.md` with no status): which is the story nobody can tell
  // from the files.
  if (exact.length > 1) {
    const said = new Set(exact.map((f) => { const st = storyStatus(readText(f) ?? ''); return st ? normalizeStatus(st.raw) : null; }));
    if (said.size > 1) return { file: exact[0], candidates: exact.length, ambiguous: true };
  }
  if (exact.length >= 1) return { file: exact[0], candidates: exact.length };
  // `6-5-a-reservations-types` names the lettered story 6.5a (its file `story-6.5a-reservations-types.md`)
  const lettered = /^(.*?\d+)-([a-z])-(.+)$/i.exec(key);
  if (lettered && keyId(key).id.length >= 2) {
    const r = findStoryFileById(`${lettered[1]}${lettered[2]}-${lettered[3]}`, index);
    if (r.file) return r;
    // no file of 6.5e: the parent story's file (6.5) is not its file; `2-3-a-new-thing.md` still is
    const plain = findStoryFileById(key, index);
    return plain.file && idOfFileName(path.basename(plain.file)).slug.startsWith(`${lettered[2].toLowerCase()}-`) ? plain : { file: null, candidates: 0 };
  }
  return findStoryFileById(key, index);
}

function findStoryFileById(key, index) {
  const { id, slug } = keyId(key);
  if (id.length < 2) return { file: null, candidates: 0 };
  const words = (x) => new Set(x.split('-').filter((w) => w.length > 2));
  const kw = words(slug);
  const related = (candSlug) => {
    if (!candSlug || !slug || candSlug === slug || slug.startsWith(candSlug) || candSlug.startsWith(slug)) return true;
    const cw = words(candSlug);
    let common = 0;
    for (const w of cw) if (kw.has(w)) common++;
    return common >= Math.max(1, Math.ceil(Math.min(cw.size, kw.size) / 2));
  };
  // A file named by number alone (`3.6.story.md`) whose title names another story (`# Story 3.6:
  // Example Teaching Agent` for `3-6-tips-annotation-error-archiving`: no word in common, an earlier
  // plan's story 3.6) is not this key's.
  const titleFits = (f) => {
    if (!slug) return true;
    const m = /^#\s+(?:story\s+)?[\w.-]*\d[\w.-]*\s*[:：—–-]\s*(.+)$/im.exec((readText(f) ?? '').slice(0, 2000));
    if (!m) return true;
    const tw = new Set((m[1].toLowerCase().match(/[a-z][a-z0-9]+/g) ?? []).filter((w) => w.length > 2));
    if (tw.size < 2) return true;
    // (a shared word, or a shared stem of five letters: `archiving` and `archive`)
    for (const w of kw) if (tw.has(w) || (w.length >= 5 && [...tw].some((t) => t.startsWith(w.slice(0, 5))))) return true;
    return false;
  };
  const all = index.filter((f) => { const c = idOfFileName(path.basename(f)); return sameId(c.id, id) && (c.spec || (related(c.slug) && (c.slug || titleFits(f)))); });
  // (A build spec is the story's file only when no file of the story's own is there: it is then its spec.)
  const own = all.filter((f) => !idOfFileName(path.basename(f)).spec);
  const cands = own.length ? own : all;
  if (cands.length === 0) return { file: null, candidates: 0 };
  // A file named by number alone beside another file of the same number named for another story
  // (`2.5.story.md` and `epic-2/2-5-error-extraction.md` for `2-5-reranker-upgrade`): two plans
  // numbered the same; neither name says which is the key's.
  if (cands.length === 1 && !idOfFileName(path.basename(cands[0])).slug && index.some((f) => f !== cands[0] && sameId(idOfFileName(path.basename(f)).id, id))) {
    return { file: cands[0], candidates: 2, ambiguous: true };
  }
  if (cands.length === 1) return { file: cands[0], candidates: 1 };
  // A companion note next to the story (10-1-e2e-evidence.md): take the one whose slug is the key's.
  const bySlug = cands.filter((f) => idOfFileName(path.basename(f)).slug === slug);
  if (bySlug.length === 1) return { file: bySlug[0], candidates: cands.length };
  const withStatus = cands.filter((f) => { const t = readText(f); return t != null && storyStatus(t) != null; });
  if (withStatus.length === 1) return { file: withStatus[0], candidates: cands.length };
  return { file: withStatus[0] ?? cands[0], candidates: cands.length, ambiguous: true };
}

/** The keys a frontmatter may name its story by, most specific first (`id:` is any record's: the content must be a story's). */
const FM_ID_NAMES = ['story_key', 'story_id', 'storyid', 'story', 'key', 'id'];

/**
 * The story id a file's frontmatter gives it, when the file is a story: the id one token holding a digit,
 * a `status:` beside it, and a story's content (a `#` title with the word Story, the user story, or both
 * Acceptance Criteria and Tasks sections). A decision record (`id: ADR-12`, `# Decision: …`) is none.
 */
export function frontmatterStoryId(text) {
  const fm = frontmatter(text);
  if (!fm || !Object.keys(fm).some((k) => k.toLowerCase() === 'status')) return null;
  let id = null;
  for (const want of FM_ID_NAMES) {
    const k = Object.keys(fm).find((x) => x.toLowerCase() === want);
    const v = k === undefined ? undefined : fm[k];
    if ((typeof v === 'string' || typeof v === 'number') && /^[a-z0-9][\w.-]*$/i.test(String(v)) && /\d/.test(String(v))) { id = String(v); break; }
  }
  if (!id) return null;
  const title = /^#\s.*$/m.exec(text.slice(0, 4000))?.[0] ?? '';
  const isStory = /\bstory\b/i.test(title) || holdsUserStory(text)
    || (/^#{1,6}\s+[^\n]*\bacceptance criteria\b/im.test(text) && /^#{1,6}\s+[^\n]*\btasks?\b/im.test(text));
  return isStory ? id : null;
}

/** Files of a story folder named by no story number whose frontmatter names their story id, by that id (lower case). */
function frontmatterIdFiles(files) {
  const out = new Map();
  for (const f of files) {
    if (idOfFileName(path.basename(f)).id.length >= 2) continue;
    const id = frontmatterStoryId(readText(f) ?? '');
    if (id) out.set(id.toLowerCase(), [...(out.get(id.toLowerCase()) ?? []), f]);
  }
  return out;
}

// ---------- planning artifacts ----------
const STEP_KEYS = ['stepsCompleted', 'workflowType', 'lastStep'];
const FINISHED = /^(complete|completed|done|final|finalized|approved|finished|closed)$/i;

/** True when the file opens a frontmatter block that is not valid YAML (its state cannot be read by any tool). */
export function frontmatterBroken(text) {
  if (!/^---\r?\n/.test(text)) return false;
  const end = text.search(/\r?\n---\s*(\r?\n|$)/);
  if (end < 0) return false;
  try {
    parseYaml(`${text.slice(text.indexOf('\n') + 1, end)}\n`);
    return false;
  } catch {
    return true;
  }
}

/** BMAD's story template: a `## Story` section, or the user story's "As a …, I want …". */
function holdsUserStory(text) {
  return /^#{2,3}\s+(?:user\s+)?story\s*$/im.test(text) || /^\s*(?:\*\*)?as an?\b[^\n]*\n(?:[^\n]*\n){0,2}?\s*(?:\*\*)?i want\b/im.test(text);
}

// (`stories`: files counted as stories, measured as stories, not as planning artifacts: a story
// file carrying `stepsCompleted: []` is the sprint's, whatever keys its template added.)
function artifactsOf(repo, folders, broken = [], stories = new Set()) {
  const dirs = new Set([folders.output, folders.planning_artifacts, folders.implementation_artifacts, folders.sprint_artifacts].filter(Boolean));
  const out = [];
  const seen = new Set();
  for (const d of dirs) {
    if (!isDir(d)) continue;
    for (const f of walk(d, 8, [], (n) => n.toLowerCase().endsWith('.md'))) {
      if (seen.has(f)) continue;
      seen.add(f);
      const r = rel(repo, f);
      if (RETIRED.test(r) || /-template\.md$/i.test(f)) continue;
      const text = readText(f);
      if (!text || !text.startsWith('---')) continue;
      if (frontmatterBroken(text)) broken.push({ file: r, why: 'frontmatter not valid YAML' });
      if (stories.has(r)) continue;
      const fm = frontmatter(text);
      if (!fm || !STEP_KEYS.some((k) => k in fm)) continue;
      const steps = Array.isArray(fm.stepsCompleted) ? fm.stepsCompleted.length : null;
      const finished = FINISHED.test(String(fm.status ?? '').trim())
        || fm.workflow_completed === true || fm.workflowComplete === true || fm.completed === true
        || /complete/i.test(String(fm.lastStep ?? '')) || /complete/i.test(String(fm.workflowStatus ?? ''));
      out.push({ file: r, workflowType: fm.workflowType ?? null, steps, lastStep: fm.lastStep ?? null, status: fm.status ?? null, finished });
    }
  }
  return out;
}

/** The ledger file a project config names by `sprint_status_file:` (a top-level `bmad*` folder's config.yaml or a module config), when inside the project. */
function ledgerFileNamed(root) {
  let names = [];
  try {
    names = fs.readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory() && /^[._]?bmad(?:[-_][\w.-]+)?$/i.test(e.name)).map((e) => e.name);
  } catch {
    return null;
  }
  for (const n of names) {
    for (const c of [path.join(root, n, 'config.yaml'), path.join(root, n, 'bmm', 'config.yaml')]) {
      const m = /^\s*sprint_status_file\s*:\s*["']?([^"'#\n]+?)["']?\s*(?:#.*)?$/m.exec(readText(c) ?? '');
      if (!m) continue;
      const f = path.resolve(root, m[1].replace(/^\{project-root\}\//, ''));
      let real;
      try {
        real = fs.realpathSync(f);
      } catch {
        continue;
      }
      if (!real.startsWith(fs.realpathSync(root) + path.sep) || !isFile(real)) continue;
      return f;
    }
  }
  return null;
}

// ---------- one repository ----------
export function truthFor(repoDir) {
  const repo = path.resolve(repoDir);
  const projects = [];
  for (const p of findProjects(repo)) {
    const folders = readDeclaredFolders(p.root, p.installs);
    const layout = layoutOf(repo, p);
    // The ledger BMAD reads: the declared implementation/sprint folder, else the output folder;
    // when none is there, every live ledger in the project's docs/output folders.
    // v6 beta's sprint planning writes the ledger to `dev_ephemeral_location` (`.bmad-ephemeral/`), its stories to `stories/` there.
    // A declared folder that does not exist, beside one folder named the same but for separators and case
    // (`sprint_artifacts: '{project-root}/sprint status'`, the team's `sprint-status/` holding the ledger:
    // on-device-ai-inc/gallery .bmad/bmm/config.yaml:8): the folder meant, as for the story folders below.
    const folderWords = (n) => n.toLowerCase().replace(/[-_ .]+/g, '');
    const meant = (d) => {
      if (!d || isDir(d) || !isDir(path.dirname(d))) return d;
      const same = fs.readdirSync(path.dirname(d), { withFileTypes: true }).filter((e) => e.isDirectory() && folderWords(e.name) === folderWords(path.basename(d)));
      return same.length === 1 ? path.join(path.dirname(d), same[0].name) : d;
    };
    const declaredLedgers = [folders.implementation_artifacts, folders.sprint_artifacts, folders.dev_ephemeral_location, folders.output, folders.dev_story_location && path.dirname(folders.dev_story_location)]
      .filter(Boolean).map((d) => path.join(meant(d), 'sprint-status.yaml')).filter(isFile);
    let ledgerFiles = [...new Set(declaredLedgers)].filter((f) => (readLedger(f).entries ?? []).some((e) => e.kind === 'story')).slice(0, 1);
    // The ledger file a config names itself (the BMAD skills add-on's `bmad/config.yaml`, `bmm:
    // sprint_status_file: docs/sprint-status.yaml`, in the folder or one renamed `bmad-legacy/`): the
    // file its agents update, over any found by folder; never one whose real path leaves the project.
    const namedLedger = ledgerFileNamed(p.root);
    if (namedLedger && (readLedger(namedLedger).entries ?? []).some((e) => e.kind === 'story')) ledgerFiles = [namedLedger];
    if (ledgerFiles.length === 0) {
      const found = [];
      // The declared implementation (or sprint) folder's own subfolders too: a ledger per sprint
      // (`sprints/sprint-6/sprint-status.yaml`) when the folder's own file is not BMAD's.
      for (const d of [path.join(p.root, 'docs'), path.join(p.root, '_bmad-output'), folders.output, folders.implementation_artifacts, folders.sprint_artifacts]) {
        if (d && isDir(d)) walk(d, 4, found, (n) => n === 'sprint-status.yaml');
      }
      // v6 beta's default dev_ephemeral_location, `{project-root}/.bmad-ephemeral`, when the config does not name one.
      const ephemeral = path.join(p.root, '.bmad-ephemeral', 'sprint-status.yaml');
      if (!found.length && isFile(ephemeral)) found.push(ephemeral);
      // The BMAD skills add-on keeps its sprint plan's ledger at `.bmad/sprint-status.yaml`.
      // (Or in the install folder the add-on was put in, `bmad/`: joaocg/financial-market-personal bmad/sprint-status.yaml.)
      const addOn = [path.join(p.root, '.bmad', 'sprint-status.yaml'), path.join(p.root, 'bmad', 'sprint-status.yaml')].find(isFile);
      if (!found.length && addOn) found.push(addOn);
      ledgerFiles = [...new Set(found)].filter((f) => !RETIRED.test(rel(repo, f)));
    }
    // A live ledger kept at the project's root (the output folder set to the root, or the file moved
    // there): a BMAD user reads it as the project's ledger when no declared or output folder holds one.
    // The same with BMAD's implementation folder under a root output folder (`{project-root}/implementation-artifacts/`,
    // what v6's `{output_folder}/implementation-artifacts` is when the output folder was the root), the
    // config since pointed elsewhere (zolijavos/KGC-3: `_bmad/bmm/config.yaml` names `_bmad-output/…`, whose
    // folder holds no ledger, while `implementation-artifacts/sprint-status.yaml` is the one the team updates).
    if (ledgerFiles.length === 0) {
      const atRoot = [path.join(p.root, 'sprint-status.yaml'), path.join(p.root, 'implementation-artifacts', 'sprint-status.yaml')]
        .find((f) => isFile(f) && (readLedger(f).entries ?? []).some((e) => e.kind === 'story'));
      if (atRoot) ledgerFiles = [atRoot];
    }
    if (ledgerFiles.length === 0 && p.ledgerOnly) ledgerFiles = anyLedgers(repo, p.root);
    const stories = [];
    const ledgers = [];
    // Files a BMAD user would not call fine (an error on them is not a false one): why, by file.
    const broken = [];
    // v4's QA gate files live under qa.qaLocation (docs/qa by default).
    const qaDir = folders.qa_location ?? (p.installs.includes('.bmad-core') ? path.join(p.root, 'docs', 'qa') : null);
    // A sprint-status.yaml of another format (no development_status: `sprints:` lists) that is not
    // valid YAML: BMAD's tools cannot load it either; an error on it is not a false one.
    const anyStatus = [];
    for (const d of [path.join(p.root, 'docs'), path.join(p.root, '_bmad-output'), folders.output]) {
      if (d && isDir(d)) walk(d, 4, anyStatus, (n) => n === 'sprint-status.yaml');
    }
    for (const f of new Set(anyStatus)) {
      const text = RETIRED.test(rel(repo, f)) ? null : readText(f);
      if (text == null || /^development_status:/m.test(text)) continue;
      try {
        parseYaml(text, { uniqueKeys: false });
      } catch (e) {
        broken.push({ file: rel(repo, f), why: `not valid YAML (${String(e.message).split('\n')[0]})` });
      }
    }
    const storyDirsBase = [folders.implementation_artifacts, folders.sprint_artifacts, folders.dev_story_location,
      folders.dev_ephemeral_location && path.join(folders.dev_ephemeral_location, 'stories'),
      path.join(folders.output, 'stories'), path.join(p.root, 'docs', 'stories'),
      ...perEpicStoryDirs([path.join(p.root, 'docs'), folders.output, folders.planning_artifacts])];
    for (const lf of ledgerFiles) {
      const led = readLedger(lf);
      ledgers.push({ file: rel(repo, lf), error: led.error ?? null, entries: led.entries?.length ?? 0 });
      if (led.error) continue;
      if (led.broken) broken.push({ file: rel(repo, lf), why: `ledger ${led.broken}` });
      // (and the `stories/` folder beside the ledger's own: `docs/requirements/sprint-status.yml`, `docs/stories/`)
      const beside = path.join(path.dirname(path.dirname(lf)), 'stories');
      const dirs = [path.dirname(lf), path.join(path.dirname(lf), 'stories'), ...(beside.startsWith(p.root + path.sep) ? [beside] : []), ...storyDirsBase];
      if (led.storyLocation) {
        const r = resolveDeclared(p.root, led.storyLocation);
        if (r && !r.pending) dirs.unshift(r);
      }
      for (const d of led.storyFolders ?? []) dirs.push(path.resolve(p.root, d));
      const index = storyFileIndex(dirs).filter((f) => !RETIRED.test(rel(repo, f)) && path.basename(f) !== 'sprint-status.yaml');
      // A key no story grammar reads whose file sits in a story folder under its own name or with
      // `story-` before it (`story-production-deployment: done` beside `story-production-deployment.md`,
      // `content-remediation` beside `story-content-remediation.md`: samueladegoke/Learning_Tracker
      // docs/sprint-artifacts/sprint-status.yaml:13-27): the story that file is, of no epic.
      const named = new Map();
      // A file that names its key only in its frontmatter (`id: GRAFT-E-01`, `story: …`, `story_key: …`), no
      // number in its name (sparkle-aiox's `story: AIOS-E-01` stories): that key's story file, when nothing
      // else is and the file is a story (a status and a story's content).
      const byFmId = frontmatterIdFiles(index);
      for (const e of led.entries) {
        if (!/^[a-z0-9][\w.-]*[a-z0-9]$/i.test(e.key) || (e.kind !== 'other' && e.kind !== 'story')) continue;
        const own = byFmId.get(e.key.toLowerCase());
        if (own?.length === 1 && (e.kind === 'other' || !findStoryFile(e.key, index).file)) {
          e.kind = 'story';
          named.set(e, own[0]);
          continue;
        }
        if (e.kind !== 'other') continue;
        const k = e.key.toLowerCase();
        const want = k.startsWith('story-') ? [`${k}.md`] : [`${k}.md`, `story-${k}.md`];
        const f = dirs.map((d) => { try { return fs.readdirSync(d).filter((n) => want.includes(n.toLowerCase())).map((n) => path.join(d, n)).find(isFile); } catch { return undefined; } }).find(Boolean);
        if (f && !RETIRED.test(rel(repo, f))) {
          e.kind = 'story';
          named.set(e, f);
        }
      }
      const claimed = new Map();
      for (const e of led.entries) {
        if (e.kind !== 'story') continue;
        const f = named.get(e) ?? findStoryFile(e.key, index).file;
        if (f && path.basename(f).toLowerCase() !== `${e.key.toLowerCase()}.md`) claimed.set(f, (claimed.get(f) ?? 0) + 1);
      }
      for (const e of led.entries) {
        if (e.kind !== 'story') continue;
        const found = named.has(e) ? { file: named.get(e), candidates: 1 } : findStoryFile(e.key, index);
        if (found.file && claimed.get(found.file) > 1) found.ambiguous = true;
        const s = { key: e.key, ledger: rel(repo, lf), ledgerRaw: e.raw, ledgerStatus: e.status, file: null, fileRaw: null, fileStatus: null };
        if (found.file) {
          const text = readText(found.file) ?? '';
          const st = storyStatus(text);
          s.file = rel(repo, found.file);
          s.fileRaw = st ? cleanStatusText(st.raw) : null;
          s.fileStatus = st ? normalizeStatus(st.raw) : null;
          s.fileStatusLine = st?.line ?? null;
          s.ambiguous = !!found.ambiguous;
          s.openTasks = openTasks(text);
          s.ownGate = ownGateVerdict(text);
          // Frontmatter that is not YAML (`tasks:` written as `- [x] Build it`): not a file a user would call fine.
          s.brokenFrontmatter = frontmatterBroken(text);
          // A file stating its status twice (frontmatter and Status line): each statement counts.
          const second = st?.where === 'frontmatter' ? bodyStatus(text) : null;
          const secondStatus = second ? normalizeStatus(second.raw) : null;
          if (secondStatus && !secondStatus.startsWith('other:') && secondStatus !== s.fileStatus) s.fileStatus2 = secondStatus;
        }
        // A file status in no vocabulary (`dones`, `completedcompleted`: a typo) says nothing a BMAD
        // user can compare with the ledger: an unreadable status (neither drift nor clean), not drift.
        s.drift = !!(s.file && !s.ambiguous && s.ledgerStatus && s.fileStatus && !s.fileStatus.startsWith('other:') && (s.ledgerStatus !== s.fileStatus || (s.fileStatus2 && s.fileStatus2 !== s.ledgerStatus)));
        // Done over a failed QA review the story itself records is not clean (BMAD's QA would not pass it).
        const fileGate = found.file ? gateFileVerdict(qaDir, found.file) : null;
        const stopped = fileGate && !['PASS', 'CONCERNS', 'WAIVED'].includes(fileGate);
        const failedGate = (s.ownGate === 'FAIL' || stopped) && (s.ledgerStatus === 'done' || s.fileStatus === 'done');
        if (failedGate) broken.push({ file: s.file, why: s.ownGate === 'FAIL' ? 'done, its own QA Results record Gate: FAIL' : `done, its QA gate file says ${fileGate}` });
        s.clean = !!(s.file && !s.ambiguous && !s.brokenFrontmatter && s.ledgerStatus && s.fileStatus && s.ledgerStatus === s.fileStatus && !s.fileStatus2
          && !s.ledgerStatus.startsWith('other:') && !(s.fileStatus === 'done' && s.openTasks > 0) && !failedGate);
        stories.push(s);
      }
    }
    // A story file two ledgers list with different statuses: which ledger is live nobody can say
    // from the files, so it is neither drift nor clean.
    const ledgerSaid = new Map();
    for (const s of stories) if (s.file && s.ledgerStatus) ledgerSaid.set(s.file, [...(ledgerSaid.get(s.file) ?? []), s.ledgerStatus]);
    for (const s of stories) {
      if (!s.file || new Set(ledgerSaid.get(s.file) ?? []).size < 2) continue;
      s.ambiguous = true;
      s.drift = false;
      s.clean = false;
    }
    // v4 and ledger-less projects: the story files alone (no drift is possible; a well-formed one is clean).
    // So with ledgers that list no story (empty, or another tool's format): the files are the stories.
    if (ledgerFiles.length === 0 || !stories.length) {
      // (and the stories kept one folder per epic where sharded epics live, as with a ledger above)
      const dirs = [folders.dev_story_location, path.join(p.root, 'docs', 'stories'), folders.implementation_artifacts, folders.sprint_artifacts,
        ...perEpicStoryDirs([path.join(p.root, 'docs'), folders.output, folders.planning_artifacts])].filter(Boolean);
      // A declared folder that does not exist, beside one folder named the same but for separators and
      // case (`sprint_artifacts: docs/sprint-artifacts`, the team's `docs/sprint_artifacts/`): the folder meant.
      const words = (n) => n.toLowerCase().replace(/[-_ .]+/g, '');
      for (const d of [folders.dev_story_location, folders.implementation_artifacts, folders.sprint_artifacts]) {
        if (!d || isDir(d) || !isDir(path.dirname(d))) continue;
        const same = fs.readdirSync(path.dirname(d), { withFileTypes: true }).filter((e) => e.isDirectory() && words(e.name) === words(path.basename(d)));
        if (same.length === 1) dirs.push(path.join(path.dirname(d), same[0].name));
      }
      // No story folder at all: a `stories/` folder at the project's root is where the team keeps them.
      if (!dirs.some((d) => isDir(d))) dirs.push(path.join(p.root, 'stories'));
      // A word before the numbers (`pm-01-1-slug`) is a module's epic prefix: a story needs two numbers after it
      // (`week-3-build-plan.md` is a plan of week 3, not story 3 of an epic `week`).
      const storyId = (id) => id.length >= 2 && (/^\d/.test(id[0]) || id.length >= 3);
      // (`story-harbour-lights-1.md`: v6 alpha's level-1 story, named by its epic's slug and its number.)
      const level1 = (b) => /^story-[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*-\d{1,3}\.md$/i.test(b);
      // A name opening with a date (`2026-02-28-story-10.1-qa-report.md`, `2026-03-02-wave40-kickoff-pm.md`)
      // is a dated document (a report, a meeting's notes), not story 28 of epic 2026.02.
      const dated = (b) => /^(?:19|20)\d\d-[01]\d-[0-3]\d(?:[-_.]|$)/.test(b);
      // A file titled as an epic (`7.0.epic.md`, `7.0.sprint-plan.md`: `# Epic 7 — Sprint Plan`): the
      // epic's own document kept among its stories (its overview, plan, reviews), not a story.
      // (A title naming the story after its epic, `# Epic 1, Story 1: Oven setup`, is the story's: gabadi/intellipost-ia
      // docs/stories/epic1.story1.story.md:1.)
      const epicDocument = (f) => /^#\s+(?:\S+\s+)?epic\b(?![^\n]*\bstory\s+\d)/i.test(/^#\s.*$/m.exec((readText(f) ?? '').slice(0, 2000))?.[0] ?? '') && !/^#\s+(?:\S+\s+)?story\b/im.test((readText(f) ?? '').slice(0, 2000));
      // A name opening with a span of story numbers (`4.0-4.25-complete-review.md`, `# Stories 4.0-4.25
      // Complete Review`; `4.5-4.25-changes-required.md`): a document about those stories, not story 4.0.
      const span = (b) => /^(?:story[-_. ]?)?\d+\.\d+[a-z]?-\d+\.\d+[a-z]?(?:[-_.]|$)/i.test(b);
      // A file titled as several stories (`# Stories 20 & 21 Completion Status`, named `story-20-21-completion-status.md`:
      // raphaelbgr/bill-splitter-ai-app docs/stories/completed/story-20-21-completion-status.md:1): a report about them, not story 20.21.
      const several = (f) => /^#\s+(?:\S+\s+)?stories\b/i.test(/^#\s.*$/m.exec((readText(f) ?? '').slice(0, 2000))?.[0] ?? '');
      // Stories kept one folder per epic, numbered within it (`epic-01/story-02-contracts.md`,
      // `epics/epic-2-maps/stories/03-square-cells.md`): the folder names the epic, the file only the
      // story's number; a story when it says so (a `# Story …` heading or a status), as a reader of the folder would take it.
      const inEpic = (f) => !!epicFolderId(f) && (!!storyStatus(readText(f) ?? '') || /^#\s+(?:\S+\s+)?story\b/im.test((readText(f) ?? '').slice(0, 2000)));
      // A team's one-number series (`TD.10.checkpoint-persistence.md`, `BUG.001.x.md`): its name alone
      // says little (`notes.2.draft.md`); a story when its content is the story template's: a status,
      // an Acceptance Criteria section and a Tasks section.
      const oneSeries = (f) => {
        if (!/^[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*\.\d{1,4}[a-z]?\.[a-z][^.]*\.md$/i.test(path.basename(f))) return false;
        const text = readText(f) ?? '';
        return !!storyStatus(text) && /^#{1,6}\s+[^\n]*\bacceptance criteria\b/im.test(text) && /^#{1,6}\s+[^\n]*\btasks?\b/im.test(text);
      };
      // A file with a story's name whose sections are all the Test Architect's (`## TEA - NFR
      // Assessment`, `## TEA - Requirements Trace`), no status: TEA's record, written under the
      // story's name when it found no story file ("source story not found … created as part of the
      // NFR assessment workflow"), not a story.
      const noStory = (f) => {
        const text = readText(f) ?? '';
        const sections = text.match(/^##\s+.*$/gm) ?? [];
        if (!storyStatus(text) && sections.length > 0 && sections.every((h) => /^##\s+TEA\s+[-—–:]/.test(h))) return true;
        // A file with nothing of a story in it: empty, or text with no heading, no frontmatter, no status, no
        // first line naming a story and no user story (a terminal log pasted under `1.1.md`:
        // tiagoelesbao/trade docs/stories/1.1.md; a 0-byte `2.4.story.md`: Andre-Silva-code/prospect-hunter).
        const first = /^\s*(\S[^\n]*)/.exec(text)?.[1] ?? '';
        return !storyStatus(text) && !/^#{1,6}\s+\S/m.test(text) && !/^---\s*$/m.test(text.split('\n')[0] ?? '') && !/^(?:\*\*)?story\b/i.test(first) && !holdsUserStory(text);
      };
      // A story numbered in one series with no epic (`STORY-001.md`, `story-4-offline-mode.md`, `story7.md`:
      // BMAD's quick flow and teams planning without epics), in the declared story folder: a story when
      // the file says so itself, its title naming that number as a story's (`# STORY-001: Project
      // Setup`, `# Story 4: …`) and the user story BMAD's template holds ("As a …, I want …").
      const oneNumber = (f) => {
        const m = /^story[-_ ]?0*(\d{1,4})(?:[-_ ][a-z][^.]*)?\.md$/i.exec(path.basename(f));
        if (!m) return false;
        const text = readText(f) ?? '';
        const t = /^#\s+(?:\*\*)?story[-_ ]?0*(\d{1,4})\b/im.exec(text.slice(0, 2000));
        return !!t && Number(t[1]) === Number(m[1]) && holdsUserStory(text);
      };
      // One story per epic, named by the epic's number alone (`2.feedback-layer.md`, titled `# Story 2 — Feedback
      // Layer`, `**Epic:** 2` below: MuhandiramTB/speaksmart-ai docs/stories/): the epic's story, as its
      // reader takes it, when title and epic line both give the name's number.
      const epicOne = (f) => {
        const m = /^(\d{1,3})\.[a-z][\w-]*\.md$/i.exec(path.basename(f));
        if (!m) return false;
        const head = (readText(f) ?? '').slice(0, 2000);
        const title = /^#\s.*$/m.exec(head)?.[0] ?? '';
        const t = /^#\s+story\s+(\d+)\s*[:—–-]/i.exec(title);
        const e = /^[-*\s]*(?:\*\*|__)?epic(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(\d+)\b/im.exec(head);
        return !!t && !!e && Number(t[1]) === Number(m[1]) && Number(e[1]) === Number(m[1]);
      };
      // v4's worded name with the epic in words (`tech-debt.story-1.md`, `# Story TD-1`, `**Status**: …`:
      // sbrill95/eduhu-pwa-prototype docs/stories/): a story of that epic when the file states a status.
      const wordEpic = (f) => {
        const m = /^([a-z]+(?:-[a-z]+)*)\.story[-_]?\d{1,3}(?:[-.][a-z][^.]*)?\.md$/i.exec(path.basename(f));
        return !!m && !/^(?:epics?|stories|story|release|report|review|plan)$/i.test(m[1]) && !!storyStatus(readText(f) ?? '');
      };
      // A story its frontmatter alone names (`story: GRD-E-01` beside `status:`, a story's content), its file
      // name giving no number: that story, as a reader of the folder takes it.
      const fmNamed = (f) => idOfFileName(path.basename(f)).id.length < 2 && !!frontmatterStoryId(readText(f) ?? '');
      // BMAD's 2D game packs' story (`stories/{epic_name}/{story_id}-{story_name}.md`, story ids "EPIC-XXX"):
      // `# Story: {title}` and under it `**Story ID:** UI-001` (the v2 template) or `**ID**: UI-001` (the first),
      // the id the file is named by (McCrossin/Phaser-Game-Template docs/stories/template-migration/).
      const gamePack = (f) => {
        const m = /^([a-z]{2,8})-(\d{1,4})-[a-z][a-z0-9]*(?:-[a-z0-9]+)*\.md$/i.exec(path.basename(f));
        if (!m) return false;
        const lines = (readText(f) ?? '').slice(0, 3000).split(/\r?\n/);
        const h = lines.findIndex((l) => /^#\s/.test(l));
        if (h < 0 || !/^#\s+story\s*:\s*\S/i.test(lines[h])) return false;
        return lines.slice(h + 1, h + 15).some((l) => {
          const id = /^\s*(?:\*\*)?(?:story\s+)?id(?:\*\*)?\s*:\s*(?:\*\*)?\s*([a-z]{2,8})-(\d{1,4})\b/i.exec(l);
          return !!id && id[1].toLowerCase() === m[1].toLowerCase() && Number(id[2]) === Number(m[2]);
        });
      };
      // A retrospective over several epics (`epics-1-8-retro-2026-04-07.md`, as BMAD's retrospective names its
      // `epic-{N}-retro-{date}.md`): no story 1.8 (shotcowboystyle/hyzer-app _bmad-output/implementation-artifacts/).
      const retro = (b) => /^epics?[-_]\d+(?:[-_]\d+)*[-_]retro(?:spective)?(?:[-_.]|$)/i.test(b)
        // (and a review or report named by a document's word before the story's numbers, `review-15-1-findings.md`,
        // titled `# Story 15.1 Code Review — …`: shotcowboystyle/hyzer-app _bmad-output/implementation-artifacts/)
        || /^(?:reviews?|report|validation|handoff)[-_]\d/i.test(b);
      const named = storyFileIndex(dirs).filter((f) => !RETIRED.test(rel(repo, f)) && !NOTE_NAME.test(path.basename(f)) && !dated(path.basename(f)) && !retro(path.basename(f)) && !span(path.basename(f)) && !several(f) && (storyId(idOfFileName(path.basename(f)).id) || level1(path.basename(f)) || inEpic(f) || oneSeries(f) || oneNumber(f) || epicOne(f) || wordEpic(f) || fmNamed(f) || gamePack(f)) && !epicDocument(f) && !noStory(f));
      const fileId = (f) => epicFolderId(f) ?? idOfFileName(path.basename(f)).id;
      // Files sharing one story number (`1-1-initialize-monorepo.md`, `STORY-1-1-COMPLETION.md`): when
      // exactly one of them holds the story itself (BMAD's story template: a `## Story` section, the
      // "As a …, I want …" statement), the others are notes about it (a completion report, evidence),
      // not more stories.
      const idKey = (f) => fileId(f).map((x) => (/^\d+$/.test(x) ? String(Number(x)) : x)).join('.');
      const byNumber = new Map();
      for (const f of named) byNumber.set(idKey(f), [...(byNumber.get(idKey(f)) ?? []), f]);
      // (A file of the same number titled as a story of its own, `# Story 1.6: Filament v4 Upgrade` beside
      // `# Story 1.6: User-Initiated Password Reset`, with a status and no note's word in its title: a second
      // story numbered the same (khalsa-jio/checkright-saas docs/stories/Story-1.6-Filament-v4-Upgrade.md:1-4).)
      const ownStoryTitle = (f) => /^#\s+story\s+[\w.-]*\d[\w.-]*\s*:\s*(.+)$/im.exec((readText(f) ?? '').slice(0, 2000))?.[1].trim().toLowerCase() ?? null;
      const secondStory = (f, holder) => {
        const t = ownStoryTitle(f);
        const u = ownStoryTitle(holder);
        return !!t && !!u && !!storyStatus(readText(f) ?? '') && !t.startsWith(u) && !u.startsWith(t)
          && !/\b(?:report|summary|completion|evidence|review|notes?|plan|checklist|reference|guide|analysis|handoff)\b/.test(t);
      };
      const whole = named.filter((f) => {
        const same = byNumber.get(idKey(f));
        if (same.length < 2 || level1(path.basename(f))) return true;
        const holding = same.filter((g) => holdsUserStory(readText(g) ?? ''));
        return holding.length !== 1 || holding[0] === f || secondStory(f, holding[0]);
      });
      // A companion note beside its story (`story-9.3-implementation-summary.md`, titled `# Story 9.3:
      // Status Controls - Implementation Summary` next to `# Story 9.3: Status Controls`): its title is
      // the story's title with more words after it, the same number in its name; not a second story.
      const titleOf = (f) => /^#\s+(.+?)\s*$/m.exec((readText(f) ?? '').slice(0, 2000))?.[1].toLowerCase() ?? null;
      const index = whole.filter((f) => {
        const id = fileId(f);
        const t = titleOf(f);
        if (!t || id.length < 2) return true;
        return !named.some((g) => {
          if (g === f || path.dirname(g) !== path.dirname(f) || !sameId(fileId(g), id)) return false;
          const u = titleOf(g);
          // (`# Story 1.3: Registration (Updated for the mobile starter)` beside `# Story 1.3: Registration`: the story
          // written again, a story, not a note about it: khalsa-jio/checkright-saas 1.3.…-updated.md:1.)
          return !!u && u.length >= 8 && t.length > u.length && t.startsWith(u) && /^\s*[-—–:(|]/.test(t.slice(u.length)) && !/^\s*\(\s*(?:updated|revised|rewritten)\b/.test(t.slice(u.length));
        });
      });
      for (const f of index) {
        const text = readText(f) ?? '';
        const st = storyStatus(text);
        const fileStatus = st ? normalizeStatus(st.raw) : null;
        const open = openTasks(text);
        // A file stating its status twice, differently (frontmatter `ready-for-dev`, a `## Status`
        // section `complete`): which one is current nobody can say from the file, so it is not clean.
        const second = st?.where === 'frontmatter' ? bodyStatus(text) : null;
        const secondStatus = second ? normalizeStatus(second.raw) : null;
        const twice = !!(secondStatus && !secondStatus.startsWith('other:') && secondStatus !== fileStatus);
        const fileGate = gateFileVerdict(qaDir, f);
        const failedGate = fileStatus === 'done' && (ownGateVerdict(text) === 'FAIL' || !!(fileGate && !['PASS', 'CONCERNS', 'WAIVED'].includes(fileGate)));
        if (failedGate) broken.push({ file: rel(repo, f), why: ownGateVerdict(text) === 'FAIL' ? 'done, its own QA Results record Gate: FAIL' : `done, its QA gate file says ${fileGate}` });
        stories.push({
          key: path.basename(f, '.md'), ledger: null, ledgerRaw: null, ledgerStatus: null, file: rel(repo, f),
          fileRaw: st ? cleanStatusText(st.raw) : null, fileStatus, fileStatusLine: st?.line ?? null, openTasks: open, drift: false,
          clean: !!(fileStatus && !fileStatus.startsWith('other:') && !twice && !(fileStatus === 'done' && open > 0) && !failedGate && !frontmatterBroken(text)),
        });
      }
    }
    projects.push({
      root: rel(repo, p.root) || '.', installs: p.installs, layout,
      folders: Object.fromEntries(Object.entries(folders).map(([k, v]) => [k, rel(repo, v)])),
      ledgers, stories, broken, artifacts: artifactsOf(repo, folders, broken, new Set(stories.map((s) => s.file).filter(Boolean))),
    });
  }
  const layout = projects.length === 0 ? 'none' : projects.find((x) => x.root === '.')?.layout ?? projects[0].layout;
  return { repo: path.basename(repo), layout, projects };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: node scripts/corpus/truth.mjs REPO_DIR\n');
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(truthFor(dir), null, 2) + '\n');
}
