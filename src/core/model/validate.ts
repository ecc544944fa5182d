import { SCOPES, STATUSES, type ProblemCode, type ProblemData, type Severity, type WorkflowState } from '../types';
import type { PathSeg, RangeTarget } from './positions';
import type { ParsedFrontmatter } from './frontmatter';
import type { WorkspaceContext } from '../store/workspaceContext';
import { stepIndexOf, type RawFacts } from './stepFacts';
import { STATE_KEYS, typoOf } from './stateKeys';
import { nearest } from './config';
import * as path from 'node:path';
import { BMAD_STATUS_MAP, lookupBmadWorkflow, statusKeyOf } from '../bmad/artifacts';
import { recordsProgress } from '../bmad/known';
import type { GateReadResult } from './gates';
import { clipMessages, quoted, valueList } from './text';

/** A problem before positions are resolved: a key path into the frontmatter. */
export interface Finding {
  path?: PathSeg[];
  target?: RangeTarget;
  severity: Severity;
  code: ProblemCode;
  message: string;
  data?: ProblemData;
}

const TYPES: Record<string, (v: unknown) => boolean> = {
  workflow: (v) => typeof v === 'string' && v.trim() !== '',
  workflowType: (v) => typeof v === 'string' && v.trim() !== '',
  status: (v) => typeof v === 'string',
  steps: Array.isArray,
  stepsCompleted: Array.isArray,
  currentStep: (v) => typeof v === 'string' || typeof v === 'number' || v === null,
  current_step: (v) => typeof v === 'string' || typeof v === 'number' || v === null,
  lastStep: (v) => typeof v === 'string' || typeof v === 'number' || v === null,
  scope: (v) => typeof v === 'string',
  blockedReason: (v) => typeof v === 'string' || v === null,
  delegation: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  session: (v) => typeof v === 'string' || typeof v === 'number' || v === null,
  updatedAt: (v) => typeof v === 'string' || v === null,
  ttl: (v) => typeof v === 'string' || typeof v === 'number' || v === null,
};

const TYPES_MAP = new Map(Object.entries(TYPES));

const EXPECTED: Record<string, string> = {
  workflow: 'a non-empty workflow id', workflowType: 'a non-empty workflow name', status: 'a status word', steps: 'a list of step ids',
  stepsCompleted: 'a list of step ids', currentStep: 'a step id', current_step: 'a step id', lastStep: 'a step id or number',
  scope: `one of ${SCOPES.join(', ')}`, blockedReason: 'text', delegation: 'a mapping {id, parent_id, root_id, depth, chain_path, agent}',
  session: 'text', updatedAt: 'an ISO date-time', ttl: 'a duration (e.g. 2h, 7d, seconds) or an ISO date-time',
};

/** Per-file checks on plain data. Cross-file delegation checks live in delegation.ts. */
export function validateParsed(state: WorkflowState, data: Record<string, unknown>, raw: RawFacts, fm: ParsedFrontmatter, ctx: WorkspaceContext): Finding[] {
  const out: Finding[] = valueList();
  const isBmad = state.dialect === 'bmad';
  for (const p of fm.unsafeKeys) {
    // The quick fix removes top-level keys only; a nested one is removed by hand.
    const top = p.length === 1;
    out.push({ path: p, severity: 'warning', code: 'unsafe-key', message: `Key ${quoted(p.join('.'))} is ignored: it could pollute object prototypes. ${top ? 'Rename or remove it.' : 'Remove it by hand.'}`, ...(top ? { data: { fix: 'removeKey', key: p[0] } } : {}) });
  }
  // Indexed loops on this path: a for-of allocates an iterator result each turn until V8 optimizes
  // the function, and a cold scan runs it unoptimized for its first thousands of files.
  const keys = Object.keys(data);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const to = typoOf(key);
    if (to && !Object.prototype.hasOwnProperty.call(data, to)) {
      out.push({ path: [key], severity: 'warning', code: 'unknown-key-typo', message: `Unknown key ${quoted(key)}: did you mean ${quoted(to)}? Waymark ignores ${quoted(key)}.`, data: { fix: 'renameKey', from: key, to } });
    }
  }
  // A frontmatter list that lost no entry to normalizing (steps.length equal) has no id twice.
  if (Array.isArray(data.steps) && !(state.stepsSource === 'frontmatter' && state.steps.length === (data.steps as unknown[]).length)) {
    const first = new Map<string, number>();
    (data.steps as unknown[]).forEach((e, i) => {
      const id = typeof e === 'string' || typeof e === 'number' ? String(e) : e && typeof e === 'object' && !Array.isArray(e) && typeof (e as { id?: unknown }).id === 'string' ? (e as { id: string }).id : undefined;
      if (id === undefined) return;
      const at = first.get(id);
      if (at === undefined) first.set(id, i);
      else out.push({ path: ['steps', i], severity: 'error', code: 'step-id-duplicate', message: `Step ${quoted(id)} is listed twice in steps (first at entry ${at + 1}); only the first counts. Give each step a unique id.` });
    });
  }
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const ok = TYPES_MAP.get(key);
    if (ok && !ok(data[key])) {
      out.push({ path: [key], target: 'value', severity: 'error', code: 'schema-type', message: `${quoted(key)} must be ${EXPECTED[key]}; found ${describe(data[key])}. Fix the value.`, data: { key } });
    }
  }
  if (!isBmad && !Object.prototype.hasOwnProperty.call(data, 'workflow')) {
    out.push({ severity: 'warning', code: 'workflow-missing', message: `No 'workflow:' id; using ${quoted(state.workflow)} (the file name). Add 'workflow: <id>'.`, data: { fix: 'addKey', key: 'workflow', value: state.workflow } });
  }
  // Status.
  if (state.rawStatus !== undefined && !raw.statusKnown) {
    const candidates = isBmad ? Object.keys(BMAD_STATUS_MAP) : [...STATUSES];
    const fromBmad = BMAD_STATUS_MAP[state.rawStatus.toLowerCase().replace(/\s+/g, '-')];
    const suggestion = nearest(state.rawStatus, candidates, 3) ?? (fromBmad && !isBmad ? fromBmad : undefined) ?? nearest(state.rawStatus.replace(/-/g, '_'), candidates, 3);
    out.push({
      path: [statusKeyOf(state)], target: 'value', severity: isBmad ? 'warning' : 'error', code: 'unknown-status',
      message: `Unknown status ${quoted(state.rawStatus)}. Use one of: ${isBmad ? 'complete, in-progress, draft, review, ready-for-dev, blocked, done' : STATUSES.join(', ')}.${suggestion ? ` Did you mean ${quoted(suggestion)}?` : ''}`,
      data: suggestion ? { fix: 'replaceStatus', value: suggestion } : undefined,
    });
  }
  if (typeof data.scope === 'string' && !state.scope) {
    const s = nearest(data.scope, SCOPES, 3);
    if (isBmad) {
      // BMAD documents use `scope` for their own text; it is not Waymark's scope.
    } else out.push({ path: ['scope'], target: 'value', severity: 'error', code: 'unknown-scope', message: `Unknown scope ${quoted(data.scope)}. Use one of: ${SCOPES.join(', ')}.${s ? ` Did you mean ${quoted(s)}?` : ''}`, data: s ? { fix: 'replaceScope', value: s } : undefined });
  }
  if (state.status === 'blocked' && !state.blockedReason) {
    out.push({ path: [statusKeyOf(state)], target: 'value', severity: 'info', code: 'blocked-without-reason', message: "Status is blocked but no 'blockedReason' says why. Add one so the next agent knows what to unblock." });
  }
  const steps = state.steps;
  const known = stepIndexOf(steps);
  // Shown in messages only (most files have none): a long list is cut (a message is one line a person reads).
  const stepListOf = () => steps.slice(0, 12).map((x) => x.id).join(', ') + (steps.length > 12 ? `, … (${steps.length} steps)` : '');
  if (steps.length === 0) {
    if (isBmad && state.identifiedBy === 'self') {
      out.push({ path: [Object.prototype.hasOwnProperty.call(data, 'workflowType') ? 'workflowType' : Object.prototype.hasOwnProperty.call(data, 'workflow') ? 'workflow' : 'stepsCompleted'], severity: 'info', code: 'bmad-workflow-not-installed', message: `This is an artifact of the ${quoted(state.workflow)} workflow (named by ${state.identifiedDetail ?? 'its own frontmatter'}), which no BMAD install in this checkout declares (a module not installed here, or a workflow of the team's own); its recorded steps and status are shown, but cannot be checked against the workflow's steps.` });
    } else if (isBmad && (state.identifiedBy === 'declared' || state.identifiedBy === 'known') && !recordsProgress(data)) {
      // A document recording no steps (quick-dev's spec: its title and status) has none to check.
    } else if (isBmad && (state.identifiedBy === 'declared' || state.identifiedBy === 'known')) {
      const why = /known from BMAD's releases/.test(state.identifiedDetail ?? '') ? `by its ${state.identifiedDetail}` : state.identifiedBy === 'declared' ? `by its ${state.identifiedDetail ?? 'declaration'}` : `by its ${state.identifiedDetail ?? 'file name'}, as BMAD's releases name it`;
      // The workflow is installed (BMB's workflow builder in `_bmad/bmb/workflows/workflow/`) but the file
      // is a plan of another of its modes (an edit plan of steps-e/): say what the install has.
      const installed = lookupBmadWorkflow(ctx.bmad, state.workflow);
      if (installed) {
        const where = path.relative(ctx.root, installed.dir).split(path.sep).join('/') || '.';
        const folders = [path.basename(installed.stepsDir), ...(installed.otherModes ?? [])].join(', ');
        out.push({ path: [Object.prototype.hasOwnProperty.call(data, 'workflowType') ? 'workflowType' : 'stepsCompleted'], severity: 'info', code: 'bmad-workflow-not-installed', message: `This is an artifact of BMAD's ${quoted(state.workflow)} workflow (${why}), which is installed here (${where}/, with ${folders}); this file is not an output its steps declare, so its recorded steps are not checked against them.` });
      } else out.push({ path: [Object.prototype.hasOwnProperty.call(data, 'workflowType') ? 'workflowType' : 'stepsCompleted'], severity: 'info', code: 'bmad-workflow-not-installed', message: `This is an artifact of BMAD's ${quoted(state.workflow)} workflow (${why}), which is not installed in this checkout (no steps-c/ or steps/ folder under ${ctx.config.bmad.dir}/ or the agent skill folders); its steps cannot be checked. Run \`npx bmad-method install\` to check them.` });
    } else if (isBmad) {
      out.push({ path: [Object.prototype.hasOwnProperty.call(data, 'workflowType') ? 'workflowType' : 'stepsCompleted'], severity: 'info', code: 'bmad-workflow-unknown', message: `No installed BMAD workflow ${quoted(state.workflow)} (looked in the BMAD install folder such as ${ctx.config.bmad.dir}/ and agent skill folders such as .claude/skills/bmad-*, for steps-c/ or steps/ folders and the _config/ manifests); steps cannot be checked.` });
    } else {
      out.push({ path: ['workflow'], severity: 'info', code: 'steps-missing', message: `Workflow ${quoted(state.workflow)} has no 'steps:' list and no definition ${ctx.config.workflowsDir}/${state.workflow}.yaml; steps cannot be checked. Add one.` });
    }
  }
  if (steps.length && isBmad && (state.identifiedBy === 'declared' || state.identifiedBy === 'known')) {
    // Steps of a release's list (releaseSteps.ts): the workflow is not installed, its steps are still checked.
    out.push({ path: ['stepsCompleted'], severity: 'info', code: 'bmad-workflow-not-installed', message: `This is an artifact of BMAD's ${quoted(state.workflow)} workflow (by its ${state.identifiedDetail ?? 'recorded steps'}), which is not installed in this checkout; its steps are checked against that release's list.` });
  }
  // currentStep.
  if (raw.currentStepKey && steps.length && state.currentStep !== undefined && data[raw.currentStepKey] !== null && !known.has(state.currentStep)) {
    const s = nearest(state.currentStep, [...known.keys()], 3);
    out.push({ path: [raw.currentStepKey], target: 'value', severity: 'error', code: 'current-step-unknown', message: `currentStep ${quoted(state.currentStep)} is not a step of ${quoted(state.workflow)}. Use one of: ${stepListOf()}.${s ? ` Did you mean ${quoted(s)}?` : ''}`, data: s ? { fix: 'setCurrentStep', value: s } : { steps: steps.map((x) => x.id) } });
  }
  // stepsCompleted entries.
  const a = raw.analysis;
  if (steps.length && Array.isArray(data.stepsCompleted)) {
    const seen = new Map<string, number>();
    const indexOf = known;
    let prevIndex = 0;
    let orderReported = false;
    const labels: { index: number; raw: unknown }[] = [];
    for (let k = 0; k < a.entries.length; k++) {
      const e = a.entries[k];
      const path: PathSeg[] = ['stepsCompleted', e.index];
      if (!e.id && isBmad) {
        // Another mode's step (edit, validate) is that mode's progress; anything else is the
        // user's own label: one warning for the file, not an error per entry.
        if (!raw.modeStepIds?.has(state.stepsCompleted[e.index])) labels.push({ index: e.index, raw: e.raw });
        continue;
      }
      if (!e.id) {
        const s = known.size <= 500 ? nearest(String(state.stepsCompleted[e.index]), [...known.keys()], 3) : undefined;
        out.push({ path, severity: 'error', code: 'step-unknown', message: `stepsCompleted entry ${JSON.stringify(e.raw)} is not a step of ${quoted(state.workflow)}.${s ? ` Did you mean ${quoted(s)}?` : ` Steps: ${stepListOf()}.`}`, data: s ? { fix: 'replaceStep', index: e.index, value: s } : { fix: 'removeStep', index: e.index } });
        continue;
      }
      if (seen.has(e.id)) {
        out.push({ path, severity: 'warning', code: 'step-duplicate', message: `Step ${quoted(e.id)} is listed twice in stepsCompleted (first at entry ${seen.get(e.id)! + 1}). Remove the duplicate.`, data: { fix: 'dedupeSteps' } });
        continue;
      }
      seen.set(e.id, e.index);
      const idx = indexOf.get(e.id)!;
      if (idx < prevIndex && !orderReported) {
        orderReported = true;
        out.push({ path, severity: 'warning', code: 'step-order', message: `stepsCompleted is out of order: ${quoted(e.id)} comes before steps listed earlier. Sort it in workflow order.`, data: { fix: 'sortSteps' } });
      }
      prevIndex = Math.max(prevIndex, idx);
    }
    if (labels.length) {
      const shown = labels.slice(0, 5).map((l) => JSON.stringify(l.raw)).join(', ') + (labels.length > 5 ? `, … (${labels.length})` : '');
      out.push({ path: ['stepsCompleted', labels[0].index], severity: 'warning', code: 'step-unknown', message: `stepsCompleted records ${labels.length === 1 ? 'an entry that is' : `${labels.length} entries that are`} no step of ${quoted(state.workflow)} (${shown}); Waymark keeps ${labels.length === 1 ? 'it' : 'them'} as your own label${labels.length === 1 ? '' : 's'} and does not count ${labels.length === 1 ? 'it' : 'them'} as steps. Steps: ${stepListOf()}.`, data: { labels: labels.map((l) => l.raw) } });
    }
    if (a.missing.length) {
      const names = a.missing.map((s) => s.id);
      const next = a.remaining[0];
      const lastStep = steps[steps.length - 1];
      out.push({
        path: ['stepsCompleted'], severity: 'warning', code: 'step-gap',
        message: `stepsCompleted skips ${names.join(', ')} (steps up to ${a.furthest!.id} are recorded as done). Resume at ${next.id}${a.done.has(lastStep.id) ? '' : `; the workflow never reached ${lastStep.id}`}.`,
        data: { missing: names, resumeAt: next.id },
      });
    }
  }
  // lastStep (BMAD).
  if (isBmad && raw.lastStepRaw !== undefined && raw.lastStepRaw !== null && steps.length) {
    const labelled = Array.isArray(data.stepsCompleted) && (data.stepsCompleted as unknown[]).some((e) => e === raw.lastStepRaw) && !raw.modeStepIds?.has(String(raw.lastStepRaw));
    if ((!state.lastStep || !known.has(state.lastStep)) && (labelled || raw.modeStepIds?.has(String(raw.lastStepRaw)))) {
      // The user's own label (already reported once for the file) or another mode's step.
    } else if (!state.lastStep || !known.has(state.lastStep)) {
      out.push({ path: ['lastStep'], target: 'value', severity: 'warning', code: 'step-unknown', message: `lastStep ${JSON.stringify(raw.lastStepRaw)} is not a step of ${quoted(state.workflow)}.`, data: a.furthest ? { fix: 'setLastStep', value: encodeLike(raw.lastStepRaw, a.furthest.id) } : undefined });
    } else if (a.furthest && state.lastStep !== a.furthest.id) {
      const value = encodeLike(raw.lastStepRaw, a.furthest.id);
      out.push({ path: ['lastStep'], target: 'value', severity: 'warning', code: 'last-step-mismatch', message: `lastStep is ${JSON.stringify(raw.lastStepRaw)} but the furthest step in stepsCompleted is ${a.furthest.id}. Set lastStep to ${JSON.stringify(value)}.`, data: { fix: 'setLastStep', value } });
    }
  }
  // lastStep vs integer stepsCompleted when no step list is installed: numbers still compare.
  if (isBmad && !steps.length && raw.lastStepRaw !== undefined && raw.lastStepRaw !== null && Array.isArray(data.stepsCompleted)) {
    const asInt = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined);
    const nums = (data.stepsCompleted as unknown[]).map(asInt);
    const last = asInt(raw.lastStepRaw);
    if (last !== undefined && nums.length && nums.every((n) => n !== undefined)) {
      const furthest = Math.max(...(nums as number[]));
      if (last !== furthest) {
        const value = typeof raw.lastStepRaw === 'number' ? furthest : String(furthest);
        out.push({ path: ['lastStep'], target: 'value', severity: 'warning', code: 'last-step-mismatch', message: `lastStep is ${JSON.stringify(raw.lastStepRaw)} but the furthest step in stepsCompleted is ${furthest}. Set lastStep to ${JSON.stringify(value)}.`, data: { fix: 'setLastStep', value } });
      }
    }
  }
  // Status vs steps.
  // A BMAD artifact that records no steps at all (generate-project-context writes `sections_completed`
  // and `status: complete`, no `stepsCompleted`) has no step record for its status to contradict.
  const recordsNoSteps = isBmad && !Object.prototype.hasOwnProperty.call(data, 'stepsCompleted') && (raw.lastStepRaw === undefined || raw.lastStepRaw === null);
  if (steps.length) {
    if (state.status === 'completed' && a.remaining.length && !state.statusDerived && !recordsNoSteps) {
      out.push({ path: [statusKeyOf(state)], target: 'value', severity: 'warning', code: 'status-complete-steps-remain', message: `Status is ${quoted(state.rawStatus)} but ${a.remaining.length} step(s) are not done (${a.remaining.slice(0, 3).map((s) => s.id).join(', ')}${a.remaining.length > 3 ? ', …' : ''}). Finish them or reopen the workflow.`, data: { remaining: a.remaining.map((s) => s.id) } });
    } else if (a.remaining.length === 0 && state.status !== 'completed' && state.status !== 'archived' && !state.statusDerived) {
      const value = isBmad ? 'complete' : 'completed';
      out.push({ path: [state.rawStatus !== undefined ? statusKeyOf(state) : 'stepsCompleted'], target: state.rawStatus !== undefined ? 'value' : 'key', severity: 'info', code: 'steps-done-status-open', message: `Every step is done but status is ${state.rawStatus === undefined ? 'missing' : `${quoted(state.rawStatus)}`}. Set status to ${quoted(value)}.`, data: { fix: 'replaceStatus', value } });
    }
  }
  // Gates: a completed gated step needs an open gate; a gate file not recorded through Waymark opens none.
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (!s.gate) continue;
    const g = state.gates[s.id] as GateReadResult | undefined;
    const entry = a.entries.find((e) => e.id === s.id);
    const path: PathSeg[] = entry ? ['stepsCompleted', entry.index] : ['stepsCompleted'];
    if (g?.unrecorded !== undefined) {
      out.push({ path, severity: 'warning', code: 'gate-unrecorded', message: `The gate file of step ${quoted(s.id)} (${g.file}) was not recorded through Waymark: ${g.unrecorded}. It does not open the gate (gates.trust: recorded). Record the verdict: waymark gate pass ${relativeHint(state)} ${s.id} --by NAME.`, data: { fix: 'recordGate', gate: s.gate, step: s.id, gateFile: g.file } });
    }
    if (!a.done.has(s.id)) continue;
    if (g?.error) {
      out.push({ path, severity: 'error', code: 'gate-invalid', message: `Gate ${quoted(s.gate)} for step ${quoted(s.id)} is unreadable (${g.error}): ${g.file}. Fix the gate file.`, data: { gate: s.gate, gateFile: g.file } });
    } else if (!g || !g.open) {
      const why = !g || !g.exists ? 'has no gate file' : g.unrecorded !== undefined ? 'was not recorded through Waymark' : g.verdict === 'WAIVED' ? 'has a waiver that is incomplete or expired' : `is ${g.verdict}`;
      out.push({ path, severity: 'error', code: 'gate-not-passed', message: `Step ${quoted(s.id)} is completed but its gate ${quoted(s.gate)} ${why}. Record a verdict: waymark gate pass ${relativeHint(state)} ${s.id} --by NAME.`, data: { fix: 'createGate', gate: s.gate, step: s.id, gateFile: g?.file } });
    }
  }
  // TTL.
  if (state.ttl !== undefined && state.ttl !== '') {
    const exp = ttlExpiryMs(state.ttl, state.updatedAt);
    if (exp === 'invalid') {
      out.push({ path: ['ttl'], target: 'value', severity: 'warning', code: 'ttl-invalid', message: `ttl ${typeof state.ttl === 'number' ? String(state.ttl) : JSON.stringify(state.ttl)} is neither a duration (30m, 2h, 7d, seconds) nor a date-time within reach. Fix the value.` });
    } else if (exp === 'no-base') {
      out.push({ path: ['ttl'], target: 'value', severity: 'info', code: 'ttl-invalid', message: `ttl ${JSON.stringify(state.ttl)} is a duration but there is no 'updatedAt' to count from. Add updatedAt.` });
    } else if (exp <= ctx.now().getTime() && state.status !== 'completed' && state.status !== 'archived') {
      const at = new Date(exp).toISOString();
      out.push({ path: ['ttl'], target: 'value', severity: 'warning', code: 'ttl-expired', message: `This workflow's ttl expired at ${at}. Resume it, extend ttl, or archive it.`, data: { expiredAt: at } });
    }
  }
  // Delegation (per file).
  out.push(...delegationFindings(state, data));
  // A value thousands of characters long is named, never shown whole (text.ts clipLongWords).
  return clipMessages(out);
}

function relativeHint(state: WorkflowState): string {
  const rel = state.file.startsWith(state.root) ? state.file.slice(state.root.length + 1) : state.file;
  return /\s/.test(rel) ? JSON.stringify(rel) : rel;
}

function encodeLike(raw: unknown, id: string): string | number {
  if (typeof raw === 'number') {
    const m = /^step-(\d+)(?:-|$)/.exec(id);
    if (m) return Number(m[1]);
  }
  if (typeof raw === 'string' && /\.md$/i.test(raw)) return `${id}.md`;
  return id;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)?$/i;

/**
 * Expiries already worked out, by ttl and updatedAt: a scan asks for each file's several times
 * (its checks, the index entry, the stored answer's validity) and `Date.parse` is not cheap.
 */
const expiries = new Map<string, number | 'invalid' | 'no-base'>();
const MAX_EXPIRIES = 50_000;

/** When a ttl expires: a date-time, or a duration counted from updatedAt. */
export function ttlExpiry(ttl: string | number, updatedAt: string | undefined): Date | 'invalid' | 'no-base' {
  const at = ttlExpiryMs(ttl, updatedAt);
  return typeof at === 'number' ? new Date(at) : at;
}

/**
 * ttlExpiry as a time in ms (always finite): what validation, the stored answer's next expiry and
 * the scan index's thresholds compare, for every state of a scan, without making a Date to do so.
 */
export function ttlExpiryMs(ttl: string | number, updatedAt: string | undefined): number | 'invalid' | 'no-base' {
  const t = String(ttl);
  // The length prefix marks where ttl ends, whatever characters it holds.
  const key = updatedAt === undefined ? `${t.length}:${t}` : `${t.length}:${t}\n${updatedAt}`;
  let at = expiries.get(key);
  if (at === undefined) {
    if (expiries.size >= MAX_EXPIRIES) expiries.clear();
    const d = computeTtlExpiry(ttl, updatedAt);
    at = d instanceof Date ? d.getTime() : d;
    expiries.set(key, at);
  }
  return at;
}

function computeTtlExpiry(ttl: string | number, updatedAt: string | undefined): Date | 'invalid' | 'no-base' {
  const s = String(ttl).trim();
  const m = DURATION.exec(s);
  if (m) {
    const mult = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 }[(m[2] ?? 's').toLowerCase() as 's'];
    if (!updatedAt) return 'no-base';
    const base = Date.parse(updatedAt);
    if (Number.isNaN(base)) return 'no-base';
    const at = new Date(base + Number(m[1]) * mult * 1000);
    // Beyond the Date range (±8.64e15 ms): not a usable expiry.
    return Number.isNaN(at.getTime()) ? 'invalid' : at;
  }
  const t = Date.parse(s);
  return Number.isNaN(t) ? 'invalid' : new Date(t);
}

/** Delegation checks that need only this file. */
export function delegationFindings(state: WorkflowState, data: Record<string, unknown>): Finding[] {
  const d = state.delegation;
  const raw = data.delegation as Record<string, unknown> | undefined;
  if (!d || !raw) return [];
  const out: Finding[] = valueList();
  const P = (k: string): PathSeg[] => ['delegation', k];
  for (const k of ['id', 'root_id'] as const) {
    if (!d[k]) out.push({ path: Object.prototype.hasOwnProperty.call(raw, k) ? P(k) : ['delegation'], target: 'value', severity: 'error', code: 'delegation-schema', message: `delegation.${k} is missing or empty. Add it.` });
  }
  if (!Array.isArray(raw.chain_path)) {
    out.push({ path: Object.prototype.hasOwnProperty.call(raw, 'chain_path') ? P('chain_path') : ['delegation'], target: 'value', severity: 'error', code: 'delegation-schema', message: 'delegation.chain_path must be the list of ids from the root to this workflow. Add it.' });
    return out;
  }
  const chain = d.chain_path;
  if (!Number.isInteger(d.depth) || d.depth !== chain.length - 1) {
    out.push({ path: Object.prototype.hasOwnProperty.call(raw, 'depth') ? P('depth') : ['delegation'], target: 'value', severity: 'error', code: 'delegation-depth', message: `delegation.depth is ${JSON.stringify(raw.depth ?? null)} but chain_path has ${chain.length} link(s), so depth must be ${chain.length - 1}.`, data: { fix: 'setDepth', value: chain.length - 1 } });
  }
  if (chain.length && d.root_id && chain[0] !== d.root_id) {
    out.push({ path: P('chain_path'), target: 'value', severity: 'error', code: 'delegation-chain-root', message: `chain_path starts at ${quoted(chain[0])} but root_id is ${quoted(d.root_id)}. The chain must start at the root.` });
  }
  if (chain.length && d.id && chain[chain.length - 1] !== d.id) {
    out.push({ path: P('chain_path'), target: 'value', severity: 'error', code: 'delegation-chain-end', message: `chain_path ends at ${quoted(chain[chain.length - 1])} but id is ${quoted(d.id)}. The chain must end at this workflow's id.` });
  }
  const expectedParent = chain.length >= 2 ? chain[chain.length - 2] : null;
  if ((d.parent_id ?? null) !== expectedParent) {
    out.push({ path: Object.prototype.hasOwnProperty.call(raw, 'parent_id') ? P('parent_id') : ['delegation'], target: 'value', severity: 'error', code: 'delegation-parent-mismatch', message: expectedParent === null ? `parent_id is ${quoted(d.parent_id)} but chain_path has only this workflow; a root has no parent (parent_id: null).` : `parent_id is ${JSON.stringify(d.parent_id ?? null)} but the previous link in chain_path is ${quoted(expectedParent)}.`, data: { fix: 'setParent', value: expectedParent } });
  }
  if (new Set(chain).size !== chain.length) {
    out.push({ path: P('chain_path'), target: 'value', severity: 'error', code: 'delegation-cycle', message: 'chain_path lists the same id twice: a delegation chain cannot loop.' });
  }
  return out;
}

