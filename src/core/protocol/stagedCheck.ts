/**
 * The git pre-commit check: the staged version of every changed state file (`git show :path`)
 * judged against the committed one (`HEAD:path`) by the rules of a Waymark mutation, so a
 * commit cannot carry an edit the hooks or the CLI would have refused. History files must only
 * grow (append-only).
 */
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { runGit, repoTop } from './git';
import { checkProposedEdit, type ProposalVerdict } from './proposal';
import type { ProposalProblem } from '../model/proposal';
import { CONFIG_FILE, parseConfigText, type WaymarkConfig } from '../model/config';
import { gateTextHash, isGatePathIn } from '../model/gates';
import { checkGateRemoval } from './gateRemoval';
import { contextFor } from './states';
import { parseWorkflowText } from '../model/workflow';
import type { WorkflowState } from '../types';

export interface StagedFileReport {
  /** Path relative to the repository's top folder. */
  rel: string;
  problems: ProposalProblem[];
}

export interface StagedCheck {
  top: string;
  /** Changed staged files that hold state (checked). */
  checked: number;
  refused: StagedFileReport[];
  warnings: StagedFileReport[];
}

async function gitText(top: string, spec: string): Promise<string | undefined> {
  const r = await runGit(top, ['show', spec]);
  return r.code === 0 ? r.stdout : undefined;
}

/**
 * The settings the gate check goes by: the staged config and the committed one, so a commit
 * cannot loosen them for itself (`gates.trust: file` staged beside a hand-written gate file).
 */
async function gateSettings(top: string, hasHead: boolean): Promise<{ configs: WaymarkConfig[]; recorded: boolean }> {
  const configs: WaymarkConfig[] = [];
  for (const spec of [`:${CONFIG_FILE}`, ...(hasHead ? [`HEAD:${CONFIG_FILE}`] : [])]) {
    configs.push(parseConfigText(path.join(top, CONFIG_FILE), await gitText(top, spec)).config);
  }
  return { configs, recorded: configs.some((c) => c.gates.trust === 'recorded') };
}

/**
 * A staged gate file must be a verdict recorded through Waymark: its content's hash is the one
 * the last verdict line for its gate names in a staged history file. Undefined when it is.
 */
async function unrecordedGate(top: string, rel: string, staged: string, configs: WaymarkConfig[]): Promise<ProposalProblem | undefined> {
  const hash = gateTextHash(staged);
  const dirs = [...new Set(configs.map((c) => c.history.dir))];
  const found = await runGit(top, ['grep', '--cached', '-l', '-z', '-F', hash, '--', ...dirs]);
  for (const hist of found.code === 0 ? found.stdout.split('\0').filter((x) => x !== '') : []) {
    const text = await gitText(top, `:${hist}`);
    const latest = new Map<string, unknown>();
    for (const line of (text ?? '').split('\n')) {
      if (!line.includes('"gate-')) continue;
      try {
        const e = JSON.parse(line) as { operation?: unknown; detail?: { gate?: unknown; gateSha256?: unknown } };
        if (typeof e.operation === 'string' && e.operation.startsWith('gate-') && typeof e.detail?.gate === 'string') latest.set(e.detail.gate, e.detail.gateSha256);
      } catch {
        // a damaged line records nothing
      }
    }
    if ([...latest.values()].includes(hash)) return undefined;
  }
  return {
    severity: 'error',
    code: 'gate-unrecorded',
    message: `${rel} is a gate file that was not recorded through Waymark: no staged history line records this content as its gate's last verdict (empty, written or changed by hand, or its history line is not staged)`,
    fix: `record the verdict: waymark gate pass|concerns|fail|waive FILE STEP --by NAME, then stage the gate file with its history (git add ${rel} ${dirs[0]}); a team whose reviewers write gate files by hand sets gates.trust: file`,
  };
}

/** A workflow's staged version (`git show :PATH`), read as a workflow. */
function stagedStates(top: string): (file: string) => Promise<WorkflowState | undefined> {
  return async (file) => {
    const text = await gitText(top, `:${path.relative(top, file).split(path.sep).join('/')}`);
    return text === undefined ? undefined : parseWorkflowText(file, text, await contextFor(top)).state;
  };
}

const CANDIDATE = /\.(?:md|markdown)$|(?:^|\/)sprint-status\.ya?ml$|^\.waymark\/history\/.+\.jsonl$/i;
/** What defines a gate outside the workflow files: definitions and the configuration (`gates.path`, `gates.trust`). */
const GATE_SETTING = /^\.waymark\/(?:workflows\/[^/]+|config)\.ya?ml$/;

/** Judges the staged changes of the repository holding `cwd`. */
export async function checkStagedChanges(cwd: string): Promise<StagedCheck> {
  const top = await repoTop(cwd);
  const diff = await runGit(top, ['diff', '--cached', '--name-status', '-z', '--no-renames', '--diff-filter=ACMDT']);
  if (diff.code !== 0) throw new WaymarkError('io', `git diff --cached failed: ${diff.stderr.trim()}`);
  const parts = diff.stdout.split('\0').filter((x) => x !== '');
  const hasHead = (await runGit(top, ['rev-parse', '--verify', '-q', 'HEAD'])).code === 0;
  const out: StagedCheck = { top, checked: 0, refused: [], warnings: [] };
  let gates: { configs: WaymarkConfig[]; recorded: boolean } | undefined;
  let stagedState: ((file: string) => Promise<WorkflowState | undefined>) | undefined;
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i];
    const rel = parts[i + 1];
    if (status !== 'D') {
      gates ??= await gateSettings(top, hasHead);
      if (gates.recorded && gates.configs.some((config) => isGatePathIn({ root: top, config }, path.join(top, rel)))) {
        out.checked++;
        const problem = await unrecordedGate(top, rel, (await gitText(top, `:${rel}`)) ?? '', gates.configs);
        if (problem) out.refused.push({ rel, problems: [problem] });
        continue;
      }
    }
    const setting = GATE_SETTING.test(rel);
    if (!setting && !CANDIDATE.test(rel)) continue;
    const staged = status === 'D' ? undefined : await gitText(top, `:${rel}`);
    const head = hasHead && status !== 'A' ? await gitText(top, `HEAD:${rel}`) : undefined;
    // A gate taken from a gated step that is not done: a definition, `gates.path`, an inline `gate:`, a `workflow:` switch.
    // A workflow file's is judged from the states its verdict below parsed (a large text parsed and hashed once).
    const gateRemoval = (parsed?: { before: WorkflowState | undefined; after: WorkflowState | undefined }) =>
      checkGateRemoval({ root: top, file: path.join(top, rel), beforeText: head, text: staged, otherVersion: setting ? (stagedState ??= stagedStates(top)) : undefined, parsed });
    if (setting) {
      const removed = await gateRemoval();
      out.checked++;
      if (removed.length) out.refused.push({ rel, problems: removed });
      continue;
    }
    if (rel.startsWith('.waymark/history/')) {
      out.checked++;
      if (head !== undefined && (staged === undefined || !staged.startsWith(head))) {
        out.refused.push({ rel, problems: [{ severity: 'error', code: 'history-rewritten', message: `${rel} is append-only but the staged version ${staged === undefined ? 'deletes it' : 'changes or drops committed lines'}`, fix: `restore it: git checkout HEAD -- ${rel} (then stage only appended lines)` }] });
      }
      continue;
    }
    let verdict: ProposalVerdict;
    try {
      verdict = await checkProposedEdit({ root: top, file: path.join(top, rel), text: staged, beforeText: head ?? null, leases: false });
    } catch (e) {
      if (WaymarkError.is(e, 'usage')) continue;
      throw e;
    }
    if (!verdict.kind) continue;
    out.checked++;
    const removed = await gateRemoval(verdict.kind === 'workflow' ? { before: verdict.before, after: verdict.after } : undefined);
    const errors = [...verdict.problems.filter((p) => p.severity === 'error'), ...removed];
    const warnings = verdict.problems.filter((p) => p.severity === 'warning');
    if (errors.length) out.refused.push({ rel, problems: errors });
    if (warnings.length) out.warnings.push({ rel, problems: warnings });
  }
  return out;
}
