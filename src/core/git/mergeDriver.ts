/**
 * Git's merge driver for Waymark state (`waymark merge-driver %O %A %B %P`). State is merged by
 * progress, with the rule resume and sync use (model/progress.ts): completed steps are united, a
 * status takes the later of the two, a task ticked on either side stays ticked (the same task by
 * its place in the task tree), the current step is one the united steps leave to do, and a
 * `blockedReason` goes when the merged status is not blocked. Every other byte
 * (the body, other keys, comments) goes through git's own three-way merge (`git merge-file`), so
 * it merges or conflicts exactly as it would without the driver.
 *
 * How: the state values are decided first, then written identically into all three versions
 * (base, ours, theirs), so git's text merge sees no change there and merges the rest as usual.
 * A value progress cannot decide gets a placeholder that becomes a normal conflict block whose
 * marker line says why. History files (JSONL) are merged by union of their lines.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { editFrontmatter, type EditScalar, type EditValue, type FrontmatterEdit } from '../model/edit';
import { parseFrontmatter } from '../model/frontmatter';
import { WORKFLOW_KEYS } from '../model/stateKeys';
import { parseLedger, applyLineEdits, parseStamp, type Ledger } from '../bmad/ledger';
import { parseStory, storyKeyFromName, type StoryTask } from '../bmad/story';
import { isMap, isScalar, isSeq, type Pair, type YAMLMap } from 'yaml';
import { parseDocument } from '../model/yamlDepth';
import { WaymarkError } from '../errors';
import type { HistoryEntry } from '../types';
import { mergePlanStatus, mergeTicketsToml } from './ticketsMerge';

/** Labels git prints on conflict markers (`<<<<<<< HEAD`, `>>>>>>> feature`). */
export interface MergeLabels {
  ours: string;
  base: string;
  theirs: string;
}

export interface StateMergeInput {
  base: string;
  ours: string;
  theirs: string;
  /** The file's path in the repository (git's %P): picks the kind of state. */
  path: string;
  labels?: Partial<MergeLabels>;
  /** Conflict marker length (git's %L); 7 by default. */
  markerSize?: number;
  /** Folder git's text merge runs in (the repository, so its merge.conflictStyle applies). */
  cwd?: string;
}

/** One state value the driver decided (or could not). */
export interface StateDecision {
  /** `status`, `stepsCompleted`, `development_status.2-3-login`, `task 3 "Write tests"`. */
  key: string;
  base?: string;
  ours?: string;
  theirs?: string;
  /** The value written; undefined for a conflict. */
  result?: string;
  /** Why, in words. */
  reason: string;
  conflict: boolean;
}

export type StateMergeKind = 'workflow' | 'ledger' | 'history' | 'gate' | 'tickets';

export interface StateMergeResult {
  text: string;
  kind: StateMergeKind;
  /** Conflict blocks left in `text` (git's and the driver's). */
  conflicts: number;
  decisions: StateDecision[];
}

/** Which kind of state a repository path holds. */
export function stateMergeKind(file: string): StateMergeKind {
  const p = file.split(path.sep).join('/');
  const base = p.slice(p.lastIndexOf('/') + 1);
  // Only history files and the events log are routed to the driver as JSONL (waymark git install);
  // both merge by union and re-sequencing.
  if (p.endsWith('.jsonl')) return 'history';
  if (base === 'sprint-status.yaml' || base === 'sprint-status.yml') return 'ledger';
  if (base === 'tickets.toml') return 'tickets';
  if (/\.(md|markdown)$/i.test(base)) return 'workflow';
  // The rest install routes here are gate files (`gates.path`, `.gate` by default).
  return 'gate';
}

// The status order. Finer than Waymark's (progress.ts) because git sees BMAD's words: review is
// after in-progress, ready-for-dev after backlog. Blocked is as far as in-progress.

const WORD_RANK: Record<string, number> = Object.assign(Object.create(null) as Record<string, number>, {
  draft: 0, backlog: 0, new: 0, todo: 0, created: 0, optional: 0, open: 0,
  'ready-for-dev': 1, ready: 1, 'implementation-ready': 1, contexted: 1,
  'in-progress': 2, started: 2, blocked: 2,
  review: 3, 'in-review': 3, 'ready-for-review': 3,
  done: 4, complete: 4, completed: 4, approved: 4, 'implementation-complete': 4, final: 4, finalized: 4, validated: 4,
  archived: 5,
});

function statusRank(word: string | undefined): number | undefined {
  if (word === undefined) return undefined;
  return WORD_RANK[word.trim().toLowerCase().replace(/[\s_]+/g, '-')];
}

/**
 * Decides one status from base, ours and theirs by progress. A change only one side made wins
 * when it moves forward, sideways, or back from review to in-progress (BMAD's code review sends a
 * story back); any other backward move loses to the side that kept the further status.
 * Both sides changed: the later status wins; equal rank and different words is a conflict.
 */
export function mergeStatus(base: string | undefined, ours: string | undefined, theirs: string | undefined): { value?: string; reason: string } {
  if (ours === theirs) return { value: ours, reason: 'same on both sides' };
  const ro = statusRank(ours);
  const rt = statusRank(theirs);
  const oneSided = (changed: string | undefined, rc: number | undefined, kept: string | undefined, rk: number | undefined, who: string) => {
    if (changed === undefined) return { value: kept, reason: `${who} removed it; kept` };
    if (rc === undefined || rk === undefined || rc >= rk) return { value: changed, reason: `only ${who} changed it` };
    if (rk === 3 && rc === 2) return { value: changed, reason: `only ${who} changed it (review → in-progress, the move back a code review makes)` };
    return { value: kept, reason: `${who} moved it back from ${kept} to ${changed}; progress keeps ${kept}` };
  };
  if (ours === base) return oneSided(theirs, rt, ours, ro, 'theirs');
  if (theirs === base) return oneSided(ours, ro, theirs, rt, 'ours');
  if (ours === undefined || theirs === undefined) return { value: ours ?? theirs, reason: 'one side removed it; kept' };
  if (ro !== undefined && rt !== undefined && ro !== rt) {
    return ro > rt ? { value: ours, reason: `both changed it; ${ours} is later than ${theirs}` } : { value: theirs, reason: `both changed it; ${theirs} is later than ${ours}` };
  }
  return { reason: `both sides changed it (${ours} / ${theirs}) and neither is further along` };
}

/** Completed steps of both sides, united: base order, then ours' new ones, then theirs'; numeric lists sorted. */
export function uniteSteps(base: readonly unknown[] | undefined, ours: readonly unknown[], theirs: readonly unknown[]): EditScalar[] {
  const seen = new Set<string>();
  const out: EditScalar[] = [];
  for (const v of [...(base ?? []).filter((x) => ours.some((o) => String(o) === String(x)) || theirs.some((t) => String(t) === String(x))), ...ours, ...theirs]) {
    const k = String(v);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(typeof v === 'number' || typeof v === 'boolean' || v === null ? v : String(v));
  }
  if (out.length && out.every((v) => typeof v === 'number')) (out as number[]).sort((a, b) => a - b);
  return out;
}

/** A plain value decided by who changed it: one side → that side; both → numbers max, dates later, else `tie`. */
function mergeScalar(base: unknown, ours: unknown, theirs: unknown, tie: () => unknown | undefined): { value?: unknown; reason: string } {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (same(ours, theirs)) return { value: ours, reason: 'same on both sides' };
  if (same(ours, base)) return { value: theirs, reason: 'only theirs changed it' };
  if (same(theirs, base)) return { value: ours, reason: 'only ours changed it' };
  if (typeof ours === 'number' && typeof theirs === 'number') return { value: Math.max(ours, theirs), reason: 'both changed it; the further one kept' };
  const dateOf = (v: unknown) => (typeof v === 'string' ? parseStamp(v)?.date : v instanceof Date ? v : undefined);
  const [d1, d2] = [dateOf(ours), dateOf(theirs)];
  if (d1 && d2) return d1 >= d2 ? { value: ours, reason: 'both changed it; the later time kept' } : { value: theirs, reason: 'both changed it; the later time kept' };
  const t = tie();
  if (t !== undefined) return { value: t, reason: 'both changed it; the side further along kept' };
  return { reason: `both sides changed it (${show(ours)} / ${show(theirs)}) and neither is further along` };
}

function show(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v) ?? 'nothing';
}


interface Versions {
  base: string;
  ours: string;
  theirs: string;
}

/** A conflict the driver writes itself: the placeholder written in the three versions, and the two values. */
interface Pending {
  token: string;
  ours: string;
  theirs: string;
  why: string;
}

class Plan {
  readonly decisions: StateDecision[] = [];
  readonly pending: Pending[] = [];
  private readonly salt = randomBytes(6).toString('hex');

  placeholder(ours: string, theirs: string, why: string): string {
    const token = `WAYMARK-CONFLICT-${this.salt}-${this.pending.length}`;
    this.pending.push({ token, ours, theirs, why });
    return token;
  }
}

const FRONTMATTER_STEPS = ['stepsCompleted'];
const FRONTMATTER_STATUS = ['status'];
const FRONTMATTER_SCALARS = ['lastStep', 'currentStep', 'current_step', 'updatedAt', 'session', 'blockedReason'];

function frontmatterData(text: string): Record<string, unknown> | undefined {
  const p = parseFrontmatter(text);
  if (!p.split.hasFrontmatter || !p.split.closed || p.error) return undefined;
  if (p.split.language !== '' && p.split.language !== 'yaml' && p.split.language !== 'yml') return undefined;
  return p.data;
}

function stepCount(data: Record<string, unknown>): number {
  return Array.isArray(data.stepsCompleted) ? data.stepsCompleted.length : 0;
}

/** Frontmatter state: decides each state key and writes the decision into every version that has the key. */
function planFrontmatter(v: Versions, file: string, plan: Plan): Versions {
  const [b, o, t] = [frontmatterData(v.base) ?? {}, frontmatterData(v.ours), frontmatterData(v.theirs)];
  if (!o || !t) return v;
  // Only a workflow's (or a story's, or a BMAD v7 plan's) frontmatter is state; a blog post's `status: draft` is text.
  const isState = (d: Record<string, unknown>) => WORKFLOW_KEYS.some((k) => Object.prototype.hasOwnProperty.call(d, k));
  const has = (d: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(d, k);
  // A plan: any other `.md` whose frontmatter has `ticket` and whose `type` is not a leaf type (BMAD's tickets.py).
  const isPlan = (d: Record<string, unknown>) => has(d, 'ticket') && !['story', 'spike', 'bug'].includes(String(d.type));
  const planFile = isPlan(o) || isPlan(t);
  if (!storyKeyFromName(file) && !isState(o) && !isState(t) && !planFile) return v;
  const edits: FrontmatterEdit[] = [];
  // Edits written into every version, the key added where a version lacks it (a plan's blocked fields).
  const everywhere: FrontmatterEdit[] = [];
  let united: EditScalar[] | undefined;
  for (const key of FRONTMATTER_STEPS) {
    if (!Array.isArray(o[key]) || !Array.isArray(t[key])) continue;
    const base = Array.isArray(b[key]) ? (b[key] as unknown[]) : undefined;
    const value = uniteSteps(base, o[key] as unknown[], t[key] as unknown[]);
    united = value;
    edits.push({ key, value });
    plan.decisions.push({ key, base: show(base), ours: show(o[key]), theirs: show(t[key]), result: show(value), reason: 'completed steps of both sides united', conflict: false });
  }
  const further = () => {
    const [so, st] = [stepCount(o), stepCount(t)];
    return so === st ? undefined : so > st ? 'ours' : 'theirs';
  };
  let mergedStatus: string | undefined;
  for (const key of FRONTMATTER_STATUS) {
    if (!has(o, key) || !has(t, key) || typeof o[key] !== 'string' || typeof t[key] !== 'string') continue;
    const bs = typeof b[key] === 'string' ? (b[key] as string) : undefined;
    const r = planFile ? mergePlanStatus(bs, o[key] as string, t[key] as string) : mergeStatus(bs, o[key] as string, t[key] as string);
    if (key === 'status') mergedStatus = r.value;
    if (planFile && 'side' in r && r.side && o[key] !== t[key]) {
      // The blocked fields go with the status that won: set as that side has them, or removed.
      const from = r.side === 'ours' ? o : t;
      for (const k of ['blocked_at', 'blocked_reason']) {
        everywhere.push({ key: k, value: undefined });
        if (has(from, k) && typeof from[k] !== 'object') everywhere.push({ key: k, value: from[k] as EditScalar });
        if (has(o, k) || has(t, k)) plan.decisions.push({ key: k, ours: show(o[k]), theirs: show(t[k]), result: has(from, k) ? show(from[k]) : undefined, reason: `with the status ${r.side} set`, conflict: false });
      }
    }
    if (r.value !== undefined) edits.push({ key, value: r.value });
    else edits.push({ key, value: plan.placeholder(o[key] as string, t[key] as string, `${key}: ${r.reason}`) });
    plan.decisions.push({ key, base: bs, ours: o[key] as string, theirs: t[key] as string, result: r.value, reason: r.reason, conflict: r.value === undefined });
  }
  for (const key of FRONTMATTER_SCALARS) {
    if (key === 'blockedReason' && mergedStatus !== undefined && mergedStatus.trim().toLowerCase() !== 'blocked' && (has(o, key) || has(t, key))) {
      // A reason for a block the merged workflow is not in: removed wherever a side has it.
      edits.push({ key, value: undefined });
      plan.decisions.push({ key, ours: show(o[key]), theirs: show(t[key]), reason: `the merged status is ${mergedStatus}, not blocked; removed`, conflict: false });
      continue;
    }
    if (!has(o, key) || !has(t, key)) continue;
    const [ov, tv] = [o[key], t[key]];
    const scalar = (x: unknown) => x === null || ['string', 'number', 'boolean'].includes(typeof x);
    if (!scalar(ov) || !scalar(tv)) continue;
    // The current step follows the united steps when the file lists its steps: the first not done.
    const steps = Array.isArray(o.steps) && JSON.stringify(o.steps) === JSON.stringify(t.steps) ? (o.steps as unknown[]) : undefined;
    const done = new Set((united ?? []).map(String));
    const next = (key === 'currentStep' || key === 'current_step') && united && steps ? steps.find((x) => !done.has(String(x)) && (typeof x === 'string' || typeof x === 'number')) : undefined;
    if ((key === 'currentStep' || key === 'current_step') && united && steps && next === undefined && ov !== tv) {
      // Every listed step is done: no current step, as Waymark writes it when the last one completes.
      edits.push({ key, value: undefined });
      plan.decisions.push({ key, ours: show(ov), theirs: show(tv), reason: 'every step is done in the united steps; removed', conflict: false });
      continue;
    }
    let r: { value?: unknown; reason: string } =
      next !== undefined && ov !== tv
        ? { value: next, reason: 'the first step the united steps leave to do' }
        : mergeScalar(b[key], ov, tv, () => {
            const f = further();
            return f === 'ours' ? ov : f === 'theirs' ? tv : undefined;
          });
    if ((key === 'currentStep' || key === 'current_step') && united && r.value !== undefined && r.value !== null && done.has(String(r.value))) {
      // The value chosen names a step the united steps have done: the first step left to do when
      // the file lists its steps, else the other side's current step if it is not done, else none.
      const other = r.value === ov ? tv : ov;
      const pick = next ?? (other !== null && other !== undefined && !done.has(String(other)) && !steps ? other : undefined);
      if (pick === undefined) {
        edits.push({ key, value: undefined });
        plan.decisions.push({ key, base: show(b[key]), ours: show(ov), theirs: show(tv), reason: `${show(r.value)} is done in the united steps and no step is known to be next; removed`, conflict: false });
        continue;
      }
      r = { value: pick, reason: `${show(r.value)} is done in the united steps; ${show(pick)} is the step left to do` };
    }
    if (r.value !== undefined) edits.push({ key, value: r.value as EditValue });
    else edits.push({ key, value: plan.placeholder(show(ov), show(tv), `${key}: ${r.reason}`) });
    plan.decisions.push({ key, base: show(b[key]), ours: show(ov), theirs: show(tv), result: r.value === undefined ? undefined : show(r.value), reason: r.reason, conflict: r.value === undefined });
  }
  if (!edits.length && !everywhere.length) return v;
  const apply = (text: string, data: Record<string, unknown> | undefined) => {
    if (!data) return text;
    const mine = edits.filter((e) => has(data, e.key));
    const once = mine.length ? editFrontmatter(text, mine) : text;
    // Removed first, then added at the end: the same bytes in the same place in every version.
    const removed = everywhere.filter((e) => e.value === undefined && has(data, e.key));
    const gone = removed.length ? editFrontmatter(once, removed) : once;
    const added = everywhere.filter((e) => e.value !== undefined);
    return added.length ? editFrontmatter(gone, added) : gone;
  };
  return { base: apply(v.base, frontmatterData(v.base)), ours: apply(v.ours, o), theirs: apply(v.theirs, t) };
}

/** A BMAD story's `Status:` line and task checkboxes (the body state frontmatter does not hold). */
function planStory(v: Versions, file: string, plan: Plan): Versions {
  const [b, o, t] = [parseStory(file, v.base), parseStory(file, v.ours), parseStory(file, v.theirs)];
  // Checkboxes are state only in a story; elsewhere a task list is text like any other.
  if (!storyKeyFromName(file) && (!o.statusForm || o.statusForm === 'frontmatter')) return v;
  const edits = new Map<string, { line: number; start: number; end: number; value: string }[]>([['base', []], ['ours', []], ['theirs', []]]);
  const stories = { base: b, ours: o, theirs: t };
  if (o.statusForm && o.statusForm !== 'frontmatter' && t.statusForm && t.statusForm !== 'frontmatter' && o.status !== undefined && t.status !== undefined) {
    const bs = b.statusForm && b.statusForm !== 'frontmatter' ? b.status : undefined;
    const r = mergeStatus(bs, o.status, t.status);
    const value = r.value ?? plan.placeholder(o.status, t.status, `Status: ${r.reason}`);
    for (const [side, s] of Object.entries(stories)) {
      if (s.statusForm && s.statusForm !== 'frontmatter' && s.statusLine !== undefined && s.statusStart !== undefined && s.statusEnd !== undefined) {
        edits.get(side)!.push({ line: s.statusLine, start: s.statusStart, end: s.statusEnd, value });
      }
    }
    plan.decisions.push({ key: 'Status', base: bs, ours: o.status, theirs: t.status, result: r.value, reason: r.reason, conflict: r.value === undefined });
  }
  // A task ticked on either side stays ticked: the same task — the same place in the task tree,
  // its words and those of every task above it — is ticked in every version. Words alone are not
  // a task: BMAD stories repeat "Write tests" under several tasks.
  const ticked = new Set([...taskKeys(o.tasks), ...taskKeys(t.tasks)].filter(([k]) => k.checked).map(([, key]) => key));
  for (const [side, s] of Object.entries(stories)) {
    const text = side === 'base' ? v.base : side === 'ours' ? v.ours : v.theirs;
    const lines = text.split('\n');
    for (const [task, key] of taskKeys(s.tasks)) {
      if (task.checked || !ticked.has(key)) continue;
      const box = lines[task.line]?.slice(task.boxColumn, task.boxColumn + 3);
      if (box !== '[ ]') continue;
      edits.get(side)!.push({ line: task.line, start: task.boxColumn, end: task.boxColumn + 3, value: '[x]' });
      if (side !== 'base') plan.decisions.push({ key: `task ${task.number} "${task.text.trim()}"`, ours: side === 'ours' ? '[ ]' : '[x]', theirs: side === 'theirs' ? '[ ]' : '[x]', result: '[x]', reason: 'ticked on one side; a ticked task stays ticked', conflict: false });
    }
  }
  return {
    base: applyLineEdits(v.base, edits.get('base')!),
    ours: applyLineEdits(v.ours, edits.get('ours')!),
    theirs: applyLineEdits(v.theirs, edits.get('theirs')!),
  };
}

/**
 * Each task with its place in the task tree: the words of its ancestors and its own (each
 * checkbox under the nearest shallower one), and which occurrence of that path it is. A task
 * inserted elsewhere in the tree leaves the others' keys as they were.
 */
function taskKeys(tasks: readonly StoryTask[]): [StoryTask, string][] {
  const stack: { depth: number; text: string }[] = [];
  const seen = new Map<string, number>();
  return tasks.map((task) => {
    while (stack.length && stack[stack.length - 1].depth >= task.depth) stack.pop();
    stack.push({ depth: task.depth, text: task.text.trim() });
    const pathKey = `${task.review ? 'review' : 'task'}\u0000${stack.map((x) => x.text).join('\u0000')}`;
    const n = (seen.get(pathKey) ?? 0) + 1;
    seen.set(pathKey, n);
    return [task, `${pathKey}\u0000#${n}`];
  });
}

/** `sprint-status.yaml`: each development_status entry by the status rule, `last_updated` the later. */
function planLedger(v: Versions, file: string, plan: Plan): Versions | undefined {
  const [b, o, t] = [parseLedger(file, v.base), parseLedger(file, v.ours), parseLedger(file, v.theirs)];
  const broken = (l: Ledger) => l.problems.some((p) => p.code === 'ledger-yaml');
  if (broken(o) || broken(t)) return undefined;
  const ledgers = { base: b, ours: o, theirs: t };
  const edits = new Map<string, { line: number; start: number; end: number; value: string }[]>([['base', []], ['ours', []], ['theirs', []]]);
  const put = (key: string, value: string) => {
    for (const [side, l] of Object.entries(ledgers)) {
      const e = l.byKey.get(key);
      if (e && e.raw !== value) edits.get(side)!.push({ line: e.line, start: e.valueStart, end: e.valueEnd, value });
    }
  };
  for (const oe of o.entries) {
    const te = t.byKey.get(oe.key);
    if (!te || te.raw === oe.raw) continue;
    const be = b.byKey.get(oe.key);
    const r = mergeStatus(be?.raw, oe.raw, te.raw);
    put(oe.key, r.value ?? plan.placeholder(oe.raw, te.raw, `${oe.key}: ${r.reason}`));
    plan.decisions.push({ key: `development_status.${oe.key}`, base: be?.raw, ours: oe.raw, theirs: te.raw, result: r.value, reason: r.reason, conflict: r.value === undefined });
  }
  const [os, ts] = [o.lastUpdated, t.lastUpdated];
  if (os && ts && os.raw !== ts.raw) {
    const later = os.date && ts.date ? (os.date >= ts.date ? os.raw : ts.raw) : undefined;
    const value = later ?? plan.placeholder(os.raw, ts.raw, 'last_updated: not dates Waymark reads; cannot tell which is later');
    for (const [side, l] of Object.entries(ledgers)) {
      const s = l.lastUpdated;
      if (s && s.raw !== value) edits.get(side)!.push({ line: s.line, start: s.valueStart, end: s.valueEnd, value });
    }
    plan.decisions.push({ key: 'last_updated', base: b.lastUpdated?.raw, ours: os.raw, theirs: ts.raw, result: later, reason: later ? 'the later time kept' : 'not dates Waymark reads', conflict: !later });
  }
  return {
    base: applyLineEdits(v.base, edits.get('base')!),
    ours: applyLineEdits(v.ours, edits.get('ours')!),
    theirs: applyLineEdits(v.theirs, edits.get('theirs')!),
  };
}


/**
 * History JSONL: the union of both sides' lines. Lines both sides share keep their place; the
 * lines each side added after the common part follow in time order, re-sequenced after the last
 * shared sequence number so the merged branch appends from a consistent number. Lines that are
 * not JSON are kept as they are.
 */
export function mergeHistoryText(base: string, ours: string, theirs: string): string {
  const lines = (t: string) => t.split('\n').filter((l) => l.trim() !== '');
  const [bl, ol, tl] = [lines(base), lines(ours), lines(theirs)];
  const eol = ours.includes('\r\n') ? '\r\n' : '\n';
  const strip = (l: string) => l.replace(/\r$/, '');
  // The common prefix both sides kept (history is append-only, so normally the base itself).
  let common = 0;
  while (common < ol.length && common < tl.length && strip(ol[common]) === strip(tl[common])) common++;
  const shared = ol.slice(0, common).map(strip);
  const seen = new Set(shared);
  const added: { line: string; entry?: HistoryEntry; side: number; i: number }[] = [];
  for (const [side, list] of [ol, tl, bl].entries()) {
    list.slice(side === 2 ? 0 : common).forEach((raw, i) => {
      const line = strip(raw);
      if (seen.has(line)) return;
      seen.add(line);
      let entry: HistoryEntry | undefined;
      try {
        const parsed = JSON.parse(line) as unknown;
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) entry = parsed as HistoryEntry;
      } catch {
        // a damaged line stays as it was, after the shared part
      }
      added.push({ line, entry, side, i });
    });
  }
  // Same content added on both sides under different seq numbers is one entry.
  const identity = (e?: HistoryEntry) => (e ? JSON.stringify({ ...e, seq: undefined }) : undefined);
  const byIdentity = new Set(shared.map((l) => { try { return identity(JSON.parse(l) as HistoryEntry); } catch { return undefined; } }).filter(Boolean));
  const unique = added.filter((a) => {
    const id = identity(a.entry);
    if (!id) return true;
    if (byIdentity.has(id)) return false;
    byIdentity.add(id);
    return true;
  });
  unique.sort((x, y) => (x.entry?.time ?? '').localeCompare(y.entry?.time ?? '') || x.side - y.side || x.i - y.i);
  let seq = 0;
  for (const l of shared) {
    try {
      const s = (JSON.parse(l) as HistoryEntry).seq;
      if (typeof s === 'number' && s > seq) seq = s;
    } catch {
      // not JSON: no sequence number to follow
    }
  }
  const out = [...shared];
  for (const a of unique) {
    if (a.entry && typeof a.entry.seq === 'number') out.push(JSON.stringify({ ...a.entry, seq: ++seq }));
    else out.push(a.line);
  }
  return out.length ? out.join(eol) + eol : '';
}


/** The keys of a gate file that are its verdict: all taken together from the newest one. */
const GATE_VERDICT_KEYS = ['gate', 'reviewer', 'reason', 'updated', 'waiver'];

/**
 * A gate file, key by key: the newest verdict (top-level `gate`, `reviewer`, `reason`, `updated`,
 * `waiver`, together, from the side that recorded it last) and the `history` lists of both sides
 * united in time order are written identically into all three versions; every other key and
 * comment then goes through git's three-way text merge, as the rest of a workflow file does.
 * Undefined when a side is not a gate file Waymark reads (git's text merge decides then).
 */
export function mergeGateText(base: string, ours: string, theirs: string, labels: MergeLabels = { ours: 'ours', base: 'base', theirs: 'theirs' }, markerSize = 7, cwd?: string): { text: string; conflicts: number } | undefined {
  const docs = [ours, theirs].map((t) => parseDocument(t, { prettyErrors: false }));
  if (docs.some((d) => d.errors.length || !isMap(d.contents))) return undefined;
  const updated = docs.map((d) => String(d.get('updated') ?? ''));
  const newer = docs[updated[1] > updated[0] ? 1 : 0];
  const entries: unknown[] = [];
  const seen = new Set<string>();
  for (const d of docs) {
    const h = d.get('history', true);
    if (h !== undefined && !isSeq(h)) return undefined;
    for (const e of (d.toJS() as { history?: unknown[] }).history ?? []) {
      const k = JSON.stringify(e);
      if (!seen.has(k)) {
        seen.add(k);
        entries.push(e);
      }
    }
  }
  const at = (e: unknown) => String((e as { updated?: unknown } | null)?.updated ?? '');
  entries.sort((a, b) => at(a).localeCompare(at(b)));
  const baseDoc = parseDocument(base, { prettyErrors: false });
  const verdict = newer.toJS() as Record<string, unknown>;
  // The same verdict keys in the same place in every version (after the other keys, in one
  // order; `history` last), so git's text merge sees no change there and merges the other keys
  // and comments as it merges any text.
  const decide = (d: ReturnType<typeof parseDocument>): string => {
    for (const k of GATE_VERDICT_KEYS) {
      d.delete(k);
      if (Object.prototype.hasOwnProperty.call(verdict, k)) d.set(k, d.createNode(verdict[k]));
    }
    if (entries.length) {
      d.delete('history');
      d.set('history', d.createNode(entries));
    }
    const map = d.contents as YAMLMap;
    const keyOf = (p: Pair) => (isScalar(p.key) ? String(p.key.value) : String(p.key));
    const rank = (p: Pair) => {
      const k = keyOf(p);
      const i = GATE_VERDICT_KEYS.indexOf(k);
      return i >= 0 ? i + 1 : k === 'history' ? GATE_VERDICT_KEYS.length + 1 : 0;
    };
    map.items = map.items.map((p, i) => ({ p, i })).sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i).map((x) => x.p);
    return d.toString();
  };
  const texts = docs.map(decide);
  const baseText = !baseDoc.errors.length && isMap(baseDoc.contents) ? decide(baseDoc) : '';
  return gitMergeFile({ base: baseText, ours: texts[0], theirs: texts[1] }, labels, markerSize, cwd);
}

/** Git's three-way text merge of three texts (`git merge-file -p`): the result and its conflict count. */
export function gitMergeFile(v: Versions, labels: MergeLabels, markerSize = 7, cwd?: string): { text: string; conflicts: number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-merge-'));
  try {
    const [b, o, t] = ['base', 'ours', 'theirs'].map((n) => path.join(dir, n));
    fs.writeFileSync(b, v.base);
    fs.writeFileSync(o, v.ours);
    fs.writeFileSync(t, v.theirs);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: most CLI verbs never start git, and child_process costs every process milliseconds to load
    const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
    const r = spawnSync('git', ['merge-file', '-p', `--marker-size=${markerSize}`, '-L', labels.ours, '-L', labels.base, '-L', labels.theirs, o, b, t], {
      cwd: cwd ?? dir,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    if (r.error) throw new WaymarkError('unavailable', `git merge-file could not run (${r.error.message}); install git or put it on PATH.`);
    if (r.status === null || r.status < 0 || r.status > 127) throw new WaymarkError('io', `git merge-file failed: ${r.stderr.trim() || `exit ${r.status}`}`);
    return { text: r.stdout, conflicts: r.status };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Turns the driver's placeholders into conflict blocks (or into each side's value inside git's own blocks). */
function resolvePlaceholders(text: string, pending: Pending[], labels: MergeLabels, size: number): { text: string; added: number } {
  if (!pending.length) return { text, added: 0 };
  const open = '<'.repeat(size);
  const mid = '='.repeat(size);
  const base = '|'.repeat(size);
  const close = '>'.repeat(size);
  const lines = text.split('\n');
  const out: string[] = [];
  let region: 'none' | 'ours' | 'base' | 'theirs' = 'none';
  let added = 0;
  for (const line of lines) {
    const bare = line.replace(/\r$/, '');
    if (bare.startsWith(open + ' ') || bare === open) region = 'ours';
    else if (bare.startsWith(base + ' ') || bare === base) region = 'base';
    else if (bare === mid) region = 'theirs';
    else if (bare.startsWith(close + ' ') || bare === close) region = 'none';
    const p = pending.find((x) => line.includes(x.token));
    if (!p) {
      out.push(line);
      continue;
    }
    if (region === 'ours' || region === 'base') out.push(line.replace(p.token, p.ours));
    else if (region === 'theirs') out.push(line.replace(p.token, p.theirs));
    else {
      const cr = line.endsWith('\r') ? '\r' : '';
      out.push(`${open} ${labels.ours} (waymark: ${p.why})${cr}`, line.replace(p.token, p.ours), `${mid}${cr}`, line.replace(p.token, p.theirs), `${close} ${labels.theirs}${cr}`);
      added++;
    }
  }
  return { text: out.join('\n'), added };
}

/**
 * Merges one file's three versions the way `waymark merge-driver` does: state by progress,
 * everything else by git's text merge. Throws WaymarkError only when git cannot run.
 */
export function mergeStateFile(input: StateMergeInput): StateMergeResult {
  const labels: MergeLabels = { ours: input.labels?.ours ?? 'ours', base: input.labels?.base ?? 'base', theirs: input.labels?.theirs ?? 'theirs' };
  const size = input.markerSize && input.markerSize > 0 ? input.markerSize : 7;
  const kind = stateMergeKind(input.path);
  if (kind === 'history') {
    return { text: mergeHistoryText(input.base, input.ours, input.theirs), kind, conflicts: 0, decisions: [{ key: 'history', reason: 'lines of both sides united, new ones re-sequenced', conflict: false }] };
  }
  if (kind === 'gate') {
    const merged = mergeGateText(input.base, input.ours, input.theirs, labels, size, input.cwd);
    if (merged !== undefined) return { text: merged.text, kind, conflicts: merged.conflicts, decisions: [{ key: 'gate', reason: 'newest verdict kept, verdict history of both sides united, other keys merged by git', conflict: merged.conflicts > 0 }] };
  }
  if (kind === 'tickets') {
    const m = mergeTicketsToml(input.base, input.ours, input.theirs, { labels, markerSize: size });
    if (!('unreadable' in m)) return { text: m.text, kind, conflicts: m.conflicts, decisions: m.decisions };
    const merged = gitMergeFile({ base: input.base, ours: input.ours, theirs: input.theirs }, labels, size, input.cwd);
    return { text: merged.text, kind, conflicts: merged.conflicts, decisions: [{ key: 'tickets', reason: `not merged entry by entry (${m.unreadable}); git's text merge decides`, conflict: merged.conflicts > 0 }] };
  }
  const plan = new Plan();
  let v: Versions = { base: input.base, ours: input.ours, theirs: input.theirs };
  try {
    if (kind === 'ledger') v = planLedger(v, input.path, plan) ?? v;
    else if (kind === 'workflow') v = planStory(planFrontmatter(v, input.path, plan), input.path, plan);
  } catch (e) {
    // State the driver cannot read (broken YAML on one side) is left to git's text merge whole:
    // a driver that failed would leave git with our side unmerged and no conflict markers.
    v = { base: input.base, ours: input.ours, theirs: input.theirs };
    plan.decisions.length = 0;
    plan.pending.length = 0;
    plan.decisions.push({ key: 'state', reason: `not merged by progress (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); git's text merge decides`, conflict: false });
  }
  const merged = gitMergeFile(v, labels, size, input.cwd);
  const resolved = resolvePlaceholders(merged.text, plan.pending, labels, size);
  return { text: resolved.text, kind, conflicts: merged.conflicts + resolved.added, decisions: plan.decisions };
}
