/**
 * The hook logic between the adapters and the core: a neutral event in, a neutral decision out.
 * Knows no agent. Loaded only when the fast path (quickCheck.ts) says an event may touch state.
 */
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
  loadSprint,
  relPath,
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
  for (const m of command.matchAll(PATH_WORD)) {
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

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether one segment of a shell command (between `;`, `&&`, `||`, `|`) writes the file it names
 * as `word`: redirected into, edited in place, the target of cp/mv/install/ln/dd, removed or
 * truncated, or checked out/restored by git. Reading it (`cat`, `grep`, `cp it elsewhere`) is not.
 */
export function segmentWrites(segment: string, word: string): boolean {
  const w = `['"]?${escapeRe(word)}['"]?`;
  if (new RegExp(`(?:^|[^<>&0-9])>>?\\|?\\s*${w}(?=$|[\\s;&|)])`).test(segment)) return true;
  const args = segment.trim().split(/\s+/).map((a) => a.replace(/^['"]|['"]$/g, ''));
  const named = args.includes(word);
  if (!named) return /\bof=/.test(segment) && segment.includes(`of=${word}`);
  const cmd = args.find((a) => !/^[A-Z_]+=/.test(a) && a !== 'sudo' && a !== 'command') ?? '';
  const last = args.filter((a) => !a.startsWith('-')).pop();
  if (/^(?:sed|perl|ruby)$/.test(cmd)) return args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'));
  if (cmd === 'awk' || cmd === 'gawk') return /-i\s*inplace/.test(segment);
  if (/^(?:tee|rm|truncate|shred|unlink|mv|touch)$/.test(cmd)) return true;
  if (/^(?:cp|install|ln|rsync)$/.test(cmd)) return last === word;
  if (cmd === 'git') return /\bgit\s+(?:checkout|restore|reset|stash|apply|am|mv|rm)\b/.test(segment);
  return false;
}

/** The state-file paths named in `command` that it writes, as given (relative or absolute). */
function writtenWords(command: string): string[] {
  const out: string[] = [];
  // A here-doc's body is data, not commands: only its first line (the command) counts.
  const lines = command.split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    kept.push(lines[i]);
    const m = /<<-?\s*['"]?(\w+)['"]?/.exec(lines[i]);
    if (m) while (i + 1 < lines.length && lines[i + 1].trim() !== m[1]) i++;
  }
  for (const segment of kept.join('\n').split(/&&|\|\||[;|\n]/)) {
    for (const m of segment.matchAll(PATH_WORD)) if (segmentWrites(segment, m[1])) out.push(m[1]);
  }
  return out;
}

const PATH_WORD = /(?:^|[\s'"=<>|;&(])((?:\.{0,2}\/|~\/|[\w@-])[\w@%+,.~/-]*\.(?:md|markdown|ya?ml|gate|jsonl|csv))(?=$|[\s'";&|)<>])/gi;

async function proposedCommand(event: Extract<NeutralEvent, { kind: 'proposed-command' }>, root: string): Promise<HookDecision> {
  if (!SHELL_WRITE.test(event.command)) return { kind: 'allow' };
  const hits: string[] = [];
  const words = [...new Set(writtenWords(event.command))].map((w) => (w.startsWith('~/') ? path.join(process.env.HOME ?? '~', w.slice(2)) : w));
  for (const file of words.map((w) => path.resolve(event.ctx.cwd, w))) {
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

/** Stories in progress or in review (BMAD sprint: the ledger, else the story files). */
function inProgressStories(root: string): string[] {
  const sprint = loadSprint(root);
  if (!sprint) return [];
  return sprint.stories
    .filter((st) => st.status === 'in-progress' || st.status === 'review')
    .slice(0, 8)
    .map((st) => {
      const file = st.file ? relPath(root, st.file) : undefined;
      const drift = st.fileStatus && st.ledgerStatus && st.fileStatusMapped !== st.ledgerStatus ? `; its file says ${st.fileStatus}, the ledger ${st.ledgerStatus}` : '';
      return `- story ${st.key}: ${st.status}${file ? ` (${file}, tasks ${st.tasks.done}/${st.tasks.total}${drift})` : ''}`;
    });
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
