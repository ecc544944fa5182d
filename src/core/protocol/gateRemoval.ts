/**
 * Gates defined away: a change that takes a gate from a gated step before that step is done —
 * switching a file's `workflow:` to another definition, editing an inline `{id: s02, gate: true}`
 * to `s02`, dropping `gate:` from `.waymark/workflows/<def>.yaml`, pointing `gates.path` of
 * `.waymark/config.yaml` elsewhere (or `gates.trust` to `file`). Each would complete the step
 * without a reviewer's verdict. Judged for agent hooks beside checkProposedEdit.
 */
import * as path from 'node:path';
import { parse as parseYaml } from '../model/yamlDepth';
import type { WorkflowState } from '../types';
import type { ProposalProblem } from '../model/proposal';
import { normalizeStepList } from '../model/definitions';
import { parseWorkflowText } from '../model/workflow';
import { contextFor, listWorkflowFiles } from './states';
import { relPath } from './paths';

const DEFINITION = /^\.waymark\/workflows\/([^/]+)\.ya?ml$/;
const CONFIG = /^\.waymark\/config\.ya?ml$/;

/** The gated steps of a state that are not done yet: step → gate name. */
function pendingGates(state: WorkflowState | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const [step, g] of Object.entries(state?.gates ?? {})) if (!state!.stepsCompleted.includes(step)) out.set(step, g.name);
  return out;
}

function yamlOf(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return parseYaml(text);
  } catch {
    return undefined;
  }
}

/** A definition's gated steps: step → gate (none when the text is not a readable definition). */
function gatedSteps(text: string | undefined): Map<string, string> {
  const y = yamlOf(text) as { steps?: unknown } | undefined;
  const out = new Map<string, string>();
  if (!y || typeof y !== 'object' || !Array.isArray(y.steps)) return out;
  for (const s of normalizeStepList(y.steps).steps) if (s.gate) out.set(s.id, s.gate);
  return out;
}

function gatesConfig(text: string | undefined): { path?: unknown; trust?: unknown } {
  const y = yamlOf(text) as { gates?: unknown } | undefined;
  return y && typeof y === 'object' && y.gates && typeof y.gates === 'object' ? (y.gates as { path?: unknown; trust?: unknown }) : {};
}

const FIX = 'finish the gated step first (a reviewer records its verdict: waymark gate pass FILE STEP --by NAME), then change what defines the gate';

/**
 * The gated steps still waiting in a workflow: in its state on disk, and in its other version when
 * one is given (the pre-commit check passes the staged one, so a step marked done in the working
 * tree only does not hide a gate the commit takes away).
 */
async function waiting(w: { file: string; state?: WorkflowState }, other: ((file: string) => Promise<WorkflowState | undefined>) | undefined): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const s of [w.state, other ? await other(w.file) : undefined]) for (const [step, gate] of pendingGates(s)) out.set(step, gate);
  return out;
}

/**
 * Problems (errors) when the proposed text of `file` takes a gate away from a gated step that is
 * not done, in this file or in the workflows that use this definition or configuration.
 * `otherVersion` gives a workflow's other version to judge beside the one on disk (the staged one).
 */
export async function checkGateRemoval(input: {
  root: string;
  file: string;
  beforeText: string | undefined;
  text: string | undefined;
  otherVersion?: (file: string) => Promise<WorkflowState | undefined>;
  /**
   * The states of `beforeText` and `text` as checkProposedEdit parsed them (its verdict's `before`
   * and `after`, when its kind is `workflow`): a caller that judged the same texts hands them on,
   * so a large proposed text is not parsed (and hashed) again.
   */
  parsed?: { before: WorkflowState | undefined; after: WorkflowState | undefined };
}): Promise<ProposalProblem[]> {
  if (input.beforeText === input.text) return [];
  const root = path.resolve(input.root);
  const file = path.resolve(root, input.file);
  const rel = relPath(root, file);
  // A missing configuration is the default one: creating it may move the gates too.
  if (input.beforeText === undefined && !CONFIG.test(rel)) return [];
  const def = DEFINITION.exec(rel);
  if (def) {
    const after = gatedSteps(input.text);
    const lost = [...gatedSteps(input.beforeText)].filter(([step]) => !after.has(step));
    if (!lost.length) return [];
    const out: ProposalProblem[] = [];
    for (const w of await listWorkflowFiles(root)) {
      // By the steps done, not by the state's gate map: that comes from the definition on disk,
      // which may already be the changed one (the pre-commit check runs after the edit).
      const versions = [w.state, input.otherVersion ? await input.otherVersion(w.file) : undefined].filter((v): v is WorkflowState => v?.workflow === def[1]);
      for (const [step, gate] of lost) {
        if (versions.some((v) => !v.stepsCompleted.includes(step))) out.push({ severity: 'error', code: 'gate-removed', message: `this drops gate ${gate} of step ${step} from definition ${def[1]} while ${relPath(root, w.file)} has not done that step`, fix: FIX });
      }
    }
    return out;
  }
  if (CONFIG.test(rel)) {
    const before = gatesConfig(input.beforeText);
    const after = gatesConfig(input.text);
    const moved = JSON.stringify(before.path) !== JSON.stringify(after.path);
    const loosened = after.trust === 'file' && before.trust !== 'file';
    if (!moved && !loosened) return [];
    const held: { file: string }[] = [];
    for (const w of await listWorkflowFiles(root)) if ((await waiting(w, input.otherVersion)).size) held.push(w);
    if (!held.length) return [];
    const what = moved ? `points gates.path elsewhere (${String(before.path ?? 'the default')} → ${String(after.path ?? 'the default')})` : 'sets gates.trust to file';
    return [{ severity: 'error', code: 'gate-removed', message: `this ${what} while gated steps wait for a verdict (${held.slice(0, 3).map((w) => relPath(root, w.file)).join(', ')}${held.length > 3 ? ', ...' : ''})`, fix: FIX }];
  }
  if (input.text === undefined || input.beforeText === undefined) return [];
  const ctx = input.parsed ? undefined : await contextFor(root);
  const before = input.parsed ? input.parsed.before : parseWorkflowText(file, input.beforeText, ctx!).state;
  const pending = pendingGates(before);
  if (!pending.size) return [];
  const after = input.parsed ? input.parsed.after : parseWorkflowText(file, input.text, ctx!).state;
  const out: ProposalProblem[] = [];
  for (const [step, gate] of pending) {
    if (after?.gates[step]) continue;
    const how = after && after.workflow !== before!.workflow ? `switches workflow: from ${before!.workflow} to ${after.workflow}` : `takes the gate from step ${step}`;
    out.push({ severity: 'error', code: 'gate-removed', message: `this ${how}, so step ${step} would lose its gate ${gate} before it is done`, fix: FIX });
  }
  return out;
}
