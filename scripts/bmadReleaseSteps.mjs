// Writes src/core/bmad/releaseSteps.ts: every official BMAD release's step-file workflows and
// their step ids, read from the git histories of BMAD-METHOD (core, bmm, and the modules it
// carried in v6 alpha: bmb, bmgd), the BMad Builder (bmb), Test Architect (tea), Game Dev Studio
// (gds) and the Creative Intelligence Suite (cis). Names only: file names under each workflow's
// step folders (`steps/`, `steps-c/`, `steps-e/`, `steps-v/`, `technical-steps/`…), never their text.
//
//   node scripts/bmadReleaseSteps.mjs [--check] <git-dir>...
//
// Each argument is a bare git directory (a clone's `.git`, or a mirror) of one of those
// repositories; which one is told by its remote or folder name. Releases are the repository's
// version tags, or, when it has none, the commits that change package.json's version. One line is
// written per workflow and distinct step list, with the first and last release that shipped it.
// Not run by the tests: run it again when BMAD publishes a release, and commit the table.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'core', 'bmad', 'releaseSteps.ts');

const args = process.argv.slice(2);
const check = args.includes('--check');
const dirs = args.filter((a) => a !== '--check');
if (!dirs.length) {
  console.error('usage: node scripts/bmadReleaseSteps.mjs [--check] <git-dir>... (BMAD-METHOD, bmad-builder, tea, gds, cis clones)');
  process.exit(2);
}

const git = (dir, ...a) => execFileSync('git', [`--git-dir=${dir}`, ...a], { encoding: 'utf8', maxBuffer: 256 << 20 });

/** Which repository a git directory is, by its remote URL or its folder's name. */
function repoOf(dir) {
  let id = '';
  try {
    id = git(dir, 'config', '--get', 'remote.origin.url').trim();
  } catch {
    id = dir;
  }
  id = `${id} ${dir}`.toLowerCase();
  if (/test-architecture|testarch|[+/]tea\b/.test(id)) return { repo: 'bmad-method-test-architecture-enterprise', module: 'tea' };
  if (/game-dev-studio|bmgd/.test(id)) return { repo: 'bmad-module-game-dev-studio', module: 'gds' };
  if (/creative-intelligence/.test(id)) return { repo: 'bmad-module-creative-intelligence-suite', module: 'cis' };
  if (/bmad-builder/.test(id)) return { repo: 'bmad-builder', module: 'bmb' };
  if (/bmad-method/.test(id)) return { repo: 'BMAD-METHOD', module: undefined };
  throw new Error(`${dir}: not one of BMAD's official repositories (BMAD-METHOD, bmad-builder, test architect, game dev studio, creative intelligence suite)`);
}

/** A release's version from a tag (`v6.0.0-alpha.20`, `6.0.0-Beta.2`), or undefined for other tags. */
function versionOf(tag) {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([A-Za-z]+)\.?(\d+))?$/.exec(tag);
  if (!m) return undefined;
  return { tag, label: tag.replace(/^v/, ''), key: [Number(m[1]), Number(m[2]), Number(m[3]), m[4] ? ['alpha', 'beta', 'rc'].indexOf(m[4].toLowerCase()) : 9, m[5] ? Number(m[5]) : 0] };
}
const byVersion = (a, b) => {
  for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return a.key[i] - b.key[i];
  return 0;
};

/** The repository's releases, oldest first: its version tags, else the commits that set a new package.json version. */
function releasesOf(dir) {
  const tags = git(dir, 'tag').split('\n').map((t) => versionOf(t.trim())).filter(Boolean);
  if (tags.length) {
    const seen = new Set();
    return tags.sort(byVersion).filter((t) => (seen.has(t.label) ? false : seen.add(t.label))).map((t) => ({ ...t, tag: `refs/tags/${t.tag}` }));
  }
  const out = [];
  let last;
  for (const line of git(dir, 'log', '--reverse', '--format=%H', '--', 'package.json').split('\n').filter(Boolean)) {
    let version;
    try {
      version = JSON.parse(git(dir, 'show', `${line}:package.json`)).version;
    } catch {
      continue;
    }
    if (version && version !== last) {
      const v = versionOf(version);
      if (v) out.push({ ...v, tag: line });
      last = version;
    }
  }
  return out;
}

const STEP_FILE = /^step-(\d+)([a-z]?)-(.+)\.md$/i;
const MODE_STEP_FILE = /^(?:step-)?([a-z])-(\d+)([a-z]?)-(.+)\.md$/i;
const MODE_NAMES = { e: 'edit', v: 'validate', c: 'create' };
/** Examples, samples, tests and the repository's own installed skills are not the method's workflows. */
const NOT_SHIPPED = /(^|\/)(samples?|examples?|reference|data|templates?|test|tests|docs|website|\.[^/]+)\//i;

/** The module a workflow's path belongs to. */
function moduleOf(path, fixed) {
  if (fixed) return fixed;
  const m = /^src\/(?:modules\/)?([a-z]+)(?:-skills)?\//.exec(path);
  if (!m) return undefined;
  return { bmm: 'bmm', core: 'core', bmb: 'bmb', bmgd: 'bmgd', cis: 'cis', tea: 'tea' }[m[1]];
}

/** Workflow folder → its step folders' file names, at one release. */
function workflowsAt(dir, rev, fixedModule) {
  const found = new Map();
  for (const p of git(dir, 'ls-tree', '-r', '--name-only', rev).split('\n')) {
    const m = /^(.*)\/(steps(?:-[a-z])?|[a-z]+-steps)\/([^/]+\.md)$/i.exec(p);
    if (!m || NOT_SHIPPED.test(`${m[1]}/`)) continue;
    const module = moduleOf(m[1], fixedModule);
    if (!module) continue;
    const key = `${module}\t${m[1]}`;
    if (!found.has(key)) found.set(key, new Map());
    const folders = found.get(key);
    if (!folders.has(m[2])) folders.set(m[2], []);
    folders.get(m[2]).push(m[3]);
  }
  const out = [];
  for (const [key, folders] of found) {
    const [module, path] = key.split('\t');
    const base = basename(path);
    const main = folders.has('steps-c') ? 'steps-c' : folders.has('steps') ? 'steps' : undefined;
    const typed = main ? [] : [...folders.keys()].filter((f) => /^[a-z]+-steps$/i.test(f)).sort();
    const sets = main ? [[main, base]] : typed.length === 1 ? [[typed[0], base]] : typed.map((t) => [t, `${t.replace(/-steps$/i, '')}-${base}`]);
    for (const [folder, name] of sets) {
      const steps = orderedSteps(folders.get(folder));
      if (!steps.length) continue;
      const modes = {};
      for (const f of [...folders.keys()].filter((x) => /^steps-[a-z]$/.test(x) && x !== 'steps-c').sort()) {
        const ids = orderedModeSteps(folders.get(f));
        if (ids.length) modes[MODE_NAMES[f.slice(-1)] ?? f] = ids;
      }
      if (folder === 'steps-c' && folders.has('steps')) {
        const ids = orderedModeSteps(folders.get('steps'));
        if (ids.length) modes.plain = ids;
      }
      out.push({ module, workflow: workflowName(name), steps, modes });
    }
  }
  return out;
}

/** A workflow's name without BMAD's and its modules' prefixes (`bmad-create-prd` → `create-prd`, `gds-create-gdd` → `create-gdd`). */
function workflowName(folder) {
  return folder.toLowerCase().replace(/^bmad-/, '').replace(/^(?:gds|cis|bmb|tea)-/, '');
}

/** Step ids in workflow order, continuation files (`step-01b-continue`) left out, as the catalog orders them. */
function orderedSteps(names) {
  const parsed = [];
  for (const n of names) {
    const m = STEP_FILE.exec(n);
    if (!m || /^(continu|resume)/i.test(m[3])) continue;
    parsed.push({ id: n.slice(0, -3), num: Number(m[1]), letter: m[2].toLowerCase() });
  }
  parsed.sort((a, b) => a.num - b.num || cmp(a.letter, b.letter) || cmp(a.id, b.id));
  return parsed.map((p) => p.id);
}

function orderedModeSteps(names) {
  const parsed = names.map((n) => ({ n, m: MODE_STEP_FILE.exec(n) ?? STEP_FILE.exec(n) })).filter((x) => x.m);
  const num = (x) => (x.length === 5 ? [Number(x[2]), x[3]] : [Number(x[1]), x[2]]);
  parsed.sort((a, b) => num(a.m)[0] - num(b.m)[0] || cmp(num(a.m)[1], num(b.m)[1]) || cmp(a.n, b.n));
  return parsed.map((p) => p.n.slice(0, -3));
}

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

const rows = new Map();
for (const dir of dirs) {
  const { repo, module } = repoOf(dir);
  const releases = releasesOf(dir);
  console.error(`${repo}: ${releases.length} releases`);
  for (const rel of releases) {
    for (const wf of workflowsAt(dir, rel.tag, module)) {
      const ids = [wf.steps.join(' '), ...Object.entries(wf.modes).map(([m, s]) => `${m}: ${s.join(' ')}`)].join(' | ');
      const key = `${wf.module}\t${wf.workflow}\t${ids}`;
      let row = rows.get(key);
      if (!row) rows.set(key, (row = { module: wf.module, workflow: wf.workflow, first: rel, repos: new Map(), steps: wf.steps, modes: wf.modes }));
      const span = row.repos.get(repo);
      if (span) span.last = rel;
      else row.repos.set(repo, { first: rel, last: rel });
    }
  }
}

const order = [...rows.values()].sort((a, b) => cmp(a.module, b.module) || cmp(a.workflow, b.workflow) || cmp([...a.repos.keys()][0], [...b.repos.keys()][0]) || byVersion(a.first, b.first));
const lines = order.map((r) => {
  const releases = [...r.repos].map(([repo, { first, last }]) => `${repo} ${first.label === last.label ? first.label : `${first.label}…${last.label}`}`).join(', ');
  const fields = [`${r.module} ${r.workflow}`, releases, r.steps.join(' '), ...Object.entries(r.modes).map(([m, ids]) => `${m}: ${ids.join(' ')}`)];
  for (const id of [r.workflow, ...r.steps, ...Object.values(r.modes).flat()]) if (!/^[\w.-]+$/.test(id)) throw new Error(`${r.workflow}: a step id that is not a plain name: ${id}`);
  return fields.join(' | ');
});
// One template string, split when first asked for (releaseSteps in known.ts): a string is one token
// to V8, where 89 object literals were parsed and compiled on every CLI start (~27 M instructions).
const text = `// Generated by scripts/bmadReleaseSteps.mjs from the git histories of BMAD's official repositories
// (see README.md): do not edit by hand. Step ids only, one line per workflow and distinct step list:
// \`module workflow | releases that shipped it | its steps (create mode, or its only mode) | mode: its steps…\`
// (modes: \`steps-e/\` edit, \`steps-v/\` validate, \`steps/\` beside \`steps-c/\` plain, others by folder).
export const RELEASE_STEPS_TEXT = \`
${lines.join('\n')}
\`;
`;
if (check) {
  const had = readFileSync(OUT, 'utf8');
  if (had !== text) {
    console.error(`${OUT} is not what the sources give: run the script without --check`);
    process.exit(1);
  }
  console.error(`${OUT} holds ${lines.length} lines, as the sources give`);
} else {
  writeFileSync(OUT, text);
  console.error(`wrote ${lines.length} lines to ${OUT}`);
}
