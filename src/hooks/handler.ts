/**
 * The hook logic between the adapters and the core: a neutral event in, a neutral decision out.
 * Knows no agent. Loaded only when the fast path (quickCheck.ts) says an event may touch state.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  applyReplacements,
  checkProposedEdit,
  readCurrentText,
  recordAgentEdit,
  refusals,
  currentState,
  resumeRoot,
  saveEditSnapshot,
  sessionLeftovers,
  listLeases,
  describeOwner,
  isLedgerPath,
  storyStatus,
  WaymarkError,
  errorMessage,
  type ProposalProblem,
} from '../core/index';
import type { HookAdapter, HookDecision, NeutralEvent } from './port';
import { SHELL_WRITE, workspaceRootOf } from './quickCheck';

function formatProblems(problems: ProposalProblem[], max = 3): string {
  const lines = problems.slice(0, max).map((p) => `- ${p.message}${p.fix ? `\n  fix: ${p.fix}` : ''}`);
  if (problems.length > max) lines.push(`- and ${problems.length - max} more (waymark validate shows them all)`);
  return lines.join('\n');
}

/** Paths a shell command names that may be state files, resolved against `cwd`. */
export function namedPaths(command: string, cwd: string): string[] {
  const out = new Set<string>();
  for (const m of command.matchAll(/(?:^|[\s'"=<>|;&(])((?:\.{0,2}\/|~\/|[\w@-])[\w@%+,.~/-]*\.(?:md|markdown|ya?ml|gate|jsonl|csv))(?=$|[\s'";&|)<>])/gi)) {
    const p = m[1].startsWith('~/') ? path.join(process.env.HOME ?? '~', m[1].slice(2)) : m[1];
    out.add(path.resolve(cwd, p));
  }
  return [...out];
}

async function proposedEdit(event: Extract<NeutralEvent, { kind: 'proposed-edit' }>, adapter: HookAdapter, root: string): Promise<HookDecision> {
  const file = path.resolve(event.ctx.cwd, event.file);
  const current = readCurrentText(file);
  const c = event.change;
  const next = c.type === 'write' ? c.content : applyReplacements(current, c.edits);
  // The tool itself will fail (old_string not found or not unique): nothing lands, nothing to judge.
  if (next === undefined) return { kind: 'allow', note: `${event.tool} on ${file} will not apply (old_string not found or not unique); not checked.` };
  const verdict = await checkProposedEdit({ root, file, text: next, beforeText: current ?? null, actor: adapter.actor, session: event.ctx.session });
  if (!verdict.kind) return { kind: 'allow' };
  const errors = refusals(verdict);
  if (errors.length) {
    return { kind: 'deny', reason: `Waymark refused this edit of ${verdict.rel}:\n${formatProblems(errors)}` };
  }
  saveEditSnapshot(root, file, current);
  return { kind: 'allow' };
}

async function proposedCommand(event: Extract<NeutralEvent, { kind: 'proposed-command' }>, root: string): Promise<HookDecision> {
  if (!SHELL_WRITE.test(event.command)) return { kind: 'allow' };
  const hits: string[] = [];
  for (const file of namedPaths(event.command, event.ctx.cwd)) {
    let verdict;
    try {
      const text = readCurrentText(file);
      verdict = await checkProposedEdit({ root, file, text, beforeText: text ?? null });
    } catch (e) {
      if (WaymarkError.is(e, 'usage')) continue; // outside the workspace: not ours
      throw e;
    }
    if (verdict.kind) hits.push(verdict.rel);
  }
  if (!hits.length) return { kind: 'allow' };
  return {
    kind: 'deny',
    reason: `Waymark refused this command: it writes ${hits.join(', ')}, which hold${hits.length === 1 ? 's' : ''} workflow state, by shell, where the rules cannot be checked.\n- fix: change state with a waymark command (waymark advance|complete-step|set-status|gate pass ..., see waymark --help), or edit the file with the Edit tool so the change is checked.`,
  };
}

async function toolDone(event: Extract<NeutralEvent, { kind: 'tool-done' }>, adapter: HookAdapter, root: string): Promise<HookDecision> {
  const files = event.file !== undefined ? [path.resolve(event.ctx.cwd, event.file)] : namedPaths(event.command ?? '', event.ctx.cwd);
  const reports: string[] = [];
  let problem = false;
  for (const file of files) {
    let rec;
    try {
      rec = await recordAgentEdit({ root, file, actor: adapter.actor, session: event.ctx.session, tool: event.tool });
    } catch (e) {
      if (WaymarkError.is(e, 'usage')) continue;
      throw e;
    }
    const v = rec.verdict;
    if (!v.kind || !rec.problems.length) continue;
    const errors = rec.problems.filter((p) => p.severity === 'error');
    const warnings = rec.problems.filter((p) => p.severity === 'warning');
    if (errors.length) {
      problem = true;
      reports.push(`Waymark: the change to ${v.rel} breaks the workflow rules${rec.entry ? ` (recorded as history #${rec.entry.seq})` : ''}:\n${formatProblems(errors)}\nPut it right before going on.`);
    }
    if (warnings.length) reports.push(`Waymark: ${v.rel} now has ${warnings.length} new warning${warnings.length > 1 ? 's' : ''}:\n${formatProblems(warnings)}`);
  }
  return reports.length ? { kind: 'context', text: reports.join('\n'), problem } : { kind: 'allow' };
}

/** Where to continue, as a few lines of context for a new session. */
export async function sessionBriefing(root: string): Promise<string> {
  const rr = await resumeRoot(root);
  const lines: string[] = [];
  const open = rr.workflows.filter((w) => !w.done && w.degradation !== 'none' && !/archived/.test(w.sources.find((x) => x.tier === w.tier)?.status ?? ''));
  for (const w of open.slice(0, 8)) {
    lines.push(`- ${w.relFile} (${w.workflow}): ${w.step ? `continue at ${w.step}` : 'no next step known'} — tier ${w.tier} (${w.source}): ${w.reason}`);
    for (const warn of w.warnings.slice(0, 2)) lines.push(`  warning: ${warn}`);
  }
  if (open.length > 8) lines.push(`- and ${open.length - 8} more (waymark resume lists them all)`);
  const gates: string[] = [];
  for (const w of open.slice(0, 20)) {
    const state = await currentState(root, w.file);
    for (const [step, g] of Object.entries(state?.gates ?? {})) {
      if (!g.open && !state?.stepsCompleted.includes(step)) gates.push(`- gate ${g.name} of ${w.relFile} (step ${step}) is ${g.exists ? g.verdict ?? 'unreadable' : 'without a verdict'}: a reviewer records it with waymark gate pass ${w.relFile} ${step}`);
    }
  }
  const stories = inProgressStories(root);
  const leases = listLeases(root).filter((l) => !l.stale).map((l) => `- ${l.lease.key === 'root' ? 'the workspace' : l.lease.target} is leased to ${describeOwner(l.lease.owner)} until ${l.lease.expiresAt}`);
  const out = ['Waymark: where this workspace stands.'];
  out.push(lines.length ? `Workflows in progress:\n${lines.join('\n')}` : 'No workflow in progress.');
  if (stories.length) out.push(`Stories in progress:\n${stories.join('\n')}`);
  if (gates.length) out.push(`Open gates:\n${gates.slice(0, 8).join('\n')}`);
  if (leases.length) out.push(`Leases:\n${leases.join('\n')}`);
  for (const w of rr.warnings.slice(0, 3)) out.push(`warning: ${w}`);
  out.push('Change workflow state with the waymark CLI (waymark advance FILE, waymark gate pass FILE STEP, ...); direct edits of state are checked and refused when they break the rules.');
  return out.join('\n');
}

/** Stories the sprint ledger says are in progress or in review (BMAD). */
function inProgressStories(root: string): string[] {
  const out: string[] = [];
  for (const rel of ['_bmad-output/implementation-artifacts/sprint-status.yaml', '_bmad-output/sprint-status.yaml', 'docs/sprint-status.yaml']) {
    let text: string | undefined;
    try {
      text = readCurrentText(path.join(root, rel));
    } catch {
      text = undefined;
    }
    if (text === undefined || !isLedgerPath(rel)) continue;
    for (const m of text.matchAll(/^\s+([\w.-]+):\s*(in-progress|review)\s*(?:#.*)?$/gm)) {
      if (m[1].startsWith('epic-')) continue;
      const storyFile = [path.join(path.dirname(path.join(root, rel)), `${m[1]}.md`), path.join(path.dirname(path.join(root, rel)), 'stories', `${m[1]}.md`)].find((f) => fs.existsSync(f));
      const word = storyFile ? storyStatus(readCurrentText(storyFile) ?? '')?.word : undefined;
      out.push(`- story ${m[1]}: ${m[2]} in ${rel}${storyFile ? ` (${path.relative(root, storyFile).split(path.sep).join('/')}${word && word !== m[2] ? `, whose Status says ${word}` : ''})` : ''}`);
    }
    break;
  }
  return out;
}

async function stop(event: Extract<NeutralEvent, { kind: 'stop' }>, root: string): Promise<HookDecision> {
  if (!event.ctx.session) return { kind: 'allow' };
  const left = await sessionLeftovers(root, event.ctx.session);
  if (!left.length) return { kind: 'allow' };
  const lines = left.map((l) => `- ${l.rel}: ${l.message}${l.fix ? `\n  fix: ${l.fix}` : ''}`).join('\n');
  const workflowIssues = left.filter((l) => !/holds the lease/.test(l.message));
  // Keep the agent going once to put its workflows right; never loop (a second stop is let through).
  if (workflowIssues.length && !event.alreadyContinued) {
    return { kind: 'keep-going', reason: `Waymark: before stopping, put right what this session left inconsistent:\n${lines}` };
  }
  return { kind: 'notify', message: `Waymark: this ${event.subagent ? 'sub-agent' : 'session'} stops with:\n${lines}` };
}

/** Decides one event. Throws only for the hook's own failures (the caller renders them fail-open). */
export async function decide(event: NeutralEvent, adapter: HookAdapter): Promise<HookDecision> {
  const root = workspaceRootOf(event.ctx);
  try {
    switch (event.kind) {
      case 'proposed-edit':
        return await proposedEdit(event, adapter, root);
      case 'proposed-command':
        return await proposedCommand(event, root);
      case 'tool-done':
        return await toolDone(event, adapter, root);
      case 'session-start':
        return { kind: 'context', text: await sessionBriefing(root) };
      case 'stop':
        return await stop(event, root);
      case 'other':
        return { kind: 'allow' };
    }
  } catch (e) {
    // A file outside the workspace is not Waymark's to judge: say so, never block.
    if (WaymarkError.is(e, 'usage')) return { kind: 'allow', note: `${errorMessage(e)} Not checked.` };
    throw e;
  }
}
