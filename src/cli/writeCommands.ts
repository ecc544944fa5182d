import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand, CliContext } from './framework';
import { flagString, requireFlag, requirePositional, wholeNumberFlag } from './framework';
import { WaymarkError, SCOPES, STATUSES, MUTATIONS, createStateCore, findWorkspaceRoot, isProblemCode, isSprintCode } from '../core/index';
import type { SprintFixResult } from '../core/index';
import type { MutationArg, MutationArgs, MutationName, MutationSpec } from '../core/index';
import type { StateCore, GateState, MutationOptions, MutationResult, Scope, Status, WorkflowState } from '../core/index';

const COMMON_HELP = `Options:
  --expect-hash HASH  refuse (exit 3) when the file's state hash is not HASH (a stale read)
  --actor NAME        who does this, recorded in history (default $WAYMARK_ACTOR or "cli")
  --session S         session marker recorded in history (default $WAYMARK_SESSION, else the
                      session started with waymark session start)
  --force             write although the file has error-level problems this change does not
                      fix, or the change rewinds completed work (recorded in history as forced)
  --json              print the result as JSON

Exit codes: 0 done; 1 the result would be invalid; 2 usage or unreadable file;
3 conflict (stale --expect-hash, file locked); 4 refused by a gate or the status rules.`;

function resolveFile(ctx: CliContext, raw: string): string {
  const abs = path.resolve(ctx.cwd, raw);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new WaymarkError('unreadable', `${raw} does not exist (looked at ${abs}).`, abs);
  }
  if (!st.isFile()) throw new WaymarkError('unreadable', `${raw} is not a file.`, abs);
  return abs;
}

function coreFor(ctx: CliContext, file: string) {
  const root = findWorkspaceRoot(file, ctx.cwd);
  // Same core as the editor: leases honoured, every write an event, completions feed memory.
  return createStateCore({
    roots: [root],
    actor: flagString(ctx.args, 'actor') ?? process.env.WAYMARK_ACTOR ?? 'cli',
    session: flagString(ctx.args, 'session') ?? process.env.WAYMARK_SESSION,
    origin: 'cli',
  });
}

function mutationOptions(ctx: CliContext): MutationOptions {
  const opts: MutationOptions = {};
  const expect = flagString(ctx.args, 'expect-hash');
  if (expect !== undefined) {
    if (!/^[0-9a-f]{64}$/i.test(expect)) throw new WaymarkError('usage', `--expect-hash must be a 64-character hex state hash (from waymark status --json); got ${expect}.`);
    opts.expectHash = expect.toLowerCase();
  }
  const actor = flagString(ctx.args, 'actor');
  if (actor) opts.actor = actor;
  const session = flagString(ctx.args, 'session');
  if (session) opts.session = session;
  if (ctx.args.flags.force === true) opts.force = true;
  return opts;
}

function brief(s: WorkflowState) {
  return {
    workflow: s.workflow,
    dialect: s.dialect,
    status: s.status ?? null,
    rawStatus: s.rawStatus ?? null,
    currentStep: s.currentStep ?? null,
    nextStep: s.nextStep ?? null,
    stepsCompleted: s.stepsCompleted,
    lastStep: s.lastStep ?? null,
    scope: s.scope ?? null,
    blockedReason: s.blockedReason ?? null,
    delegation: s.delegation ?? null,
    stateHash: s.stateHash,
  };
}

function rel(ctx: CliContext, file: string): string {
  const r = path.relative(ctx.cwd, file);
  return r && !/^\.\.(?:[\\/]|$)/.test(r) ? r : file;
}

function printResult(ctx: CliContext, r: MutationResult): number {
  if (ctx.json) {
    ctx.stdout(JSON.stringify({ file: r.file, operation: r.operation, written: r.written, changed: r.changed !== false, seq: r.seq ?? null, stateHash: r.after.stateHash, before: brief(r.before), after: brief(r.after) }) + '\n');
    return 0;
  }
  const b = r.before;
  const a = r.after;
  const parts: string[] = [];
  if (r.operation === 'delegate') {
    parts.push(`created ${rel(ctx, r.file)} for ${a.delegation?.agent ?? 'the agent'} (id ${a.delegation?.id}, depth ${a.delegation?.depth})`);
  } else if (r.changed === false) {
    parts.push('no change (the state is already so; nothing written, no history line)');
  } else {
    if (b.rawStatus !== a.rawStatus) parts.push(`status ${b.rawStatus ?? '(none)'} → ${a.rawStatus}`);
    const had = new Set(b.stepsCompleted);
    const newlyDone = a.stepsCompleted.filter((x) => !had.has(x));
    if (newlyDone.length) parts.push(`completed ${newlyDone.join(', ')}`);
    if (b.currentStep !== a.currentStep || newlyDone.length) parts.push(a.nextStep ? `next: ${a.nextStep}` : 'all steps done');
    if (b.scope !== a.scope) parts.push(`scope ${b.scope ?? '(none)'} → ${a.scope}`);
    if (b.blockedReason !== a.blockedReason && a.blockedReason) parts.push(`reason: ${a.blockedReason}`);
    if (!parts.length) parts.push(r.written ? 'frontmatter updated' : 'no change needed');
  }
  ctx.stdout(`${r.operation} ${rel(ctx, r.operation === 'delegate' ? r.before.file : r.file)}: ${parts.join('; ')}${r.seq ? ` (history #${r.seq})` : ''}\nstate hash ${r.after.stateHash}\n`);
  return 0;
}

/** `gate show` answers "may the step be passed?": a closed gate is a "no" (exit 1). */
function printGate(ctx: CliContext, g: GateState & { error?: string }, verb: string): number {
  const code = verb === 'show' && !g.open ? 1 : 0;
  if (ctx.json) {
    ctx.stdout(JSON.stringify({ gate: g }) + '\n');
    return code;
  }
  const lines = [`gate ${g.name}: ${g.exists ? g.verdict ?? 'invalid' : 'no verdict yet'}${g.open ? ' (open: the step may be passed)' : ' (closed)'}`];
  if (g.reviewer) lines.push(`  reviewer: ${g.reviewer}`);
  if (g.updated) lines.push(`  updated:  ${g.updated}`);
  if (g.reason) lines.push(`  reason:   ${g.reason}`);
  if (g.waiver) lines.push(`  waiver:   ${g.waiver.reason} (approved by ${g.waiver.approved_by}${g.waiver.expires ? `, expires ${g.waiver.expires}` : ''})`);
  if (g.error) lines.push(`  error:    ${g.error}`);
  if (g.unrecorded !== undefined) lines.push(`  not recorded through Waymark (${g.unrecorded}): it does not open the gate; record it with waymark gate pass|concerns|fail|waive FILE STEP --by NAME`);
  if (verb === 'show' && g.history.length) lines.push(`  history:  ${g.history.length} verdict(s), last ${g.history[g.history.length - 1].gate}`);
  lines.push(`  file:     ${rel(ctx, g.file)}`);
  ctx.stdout(lines.join('\n') + '\n');
  return code;
}

/** Options every mutating verb takes. */
const MUTATION_OPTIONS = ['expect-hash', 'actor', 'session'];

function mutating(name: string, usage: string, summary: string, extraHelp: string, run: (ctx: CliContext, file: string, core: StateCore, opts: MutationOptions) => Promise<MutationResult>, options: string[] = []): CliCommand {
  return {
    name,
    options: [...MUTATION_OPTIONS, ...options],
    booleanFlags: ['force'],
    usage,
    summary,
    help: `${extraHelp ? `${extraHelp}\n\n` : ''}${COMMON_HELP}`,
    async run(ctx) {
      const file = resolveFile(ctx, requirePositional(ctx.args, 0, 'FILE (the workflow Markdown file)'));
      const opts = mutationOptions(ctx);
      const core = coreFor(ctx, file);
      try {
        return printResult(ctx, await run(ctx, file, core, opts));
      } finally {
        await core.close();
      }
    },
  };
}

/**
 * The verb of a core mutation, declared from its entry in MUTATIONS: required arguments are
 * positionals after FILE (in the order declared), optional ones `--name VALUE`; choices are
 * checked here so a typo is a usage error that names the words.
 */
function mutationVerb<N extends MutationName>(operation: N, extraHelp = ''): CliCommand {
  const m = MUTATIONS[operation] as MutationSpec<Record<string, unknown>>;
  const entries = Object.entries(m.args) as [string, MutationArg][];
  const required = entries.filter(([, a]) => !a.optional);
  const optional = entries.filter(([, a]) => a.optional);
  const usage = [operation, 'FILE', ...required.map(([k]) => k.toUpperCase()), ...optional.map(([k]) => `[--${k} ${k.toUpperCase()}]`)].join(' ');
  const argHelp = entries.map(([k, a]) => `${k.toUpperCase()}: ${a.description}${a.choices ? ` (${a.choices.join(', ')})` : ''}.`).join('\n');
  return mutating(operation, usage, m.summary, [argHelp, extraHelp].filter(Boolean).join('\n'), (c, f, core, o) => {
    const args: Record<string, unknown> = {};
    required.forEach(([k, a], i) => (args[k] = requirePositional(c.args, i + 1, `${k.toUpperCase()} (${a.description})`)));
    for (const [k] of optional) args[k] = flagString(c.args, k);
    for (const [k, a] of entries) {
      if (a.choices && args[k] !== undefined && !a.choices.includes(String(args[k]))) throw new WaymarkError('usage', `Unknown ${k} ${String(args[k])}; use one of ${a.choices.join(', ')}.`);
    }
    return core.apply(f, operation, args as MutationArgs<N>, o);
  }, optional.map(([k]) => k));
}

function gateVerb(verb: 'pass' | 'fail' | 'concerns' | 'waive'): CliCommand {
  const verdict = verb === 'waive' ? 'WAIVED' : verb.toUpperCase();
  return {
    name: `gate ${verb}`,
    options: [...MUTATION_OPTIONS, 'reason', 'by', ...(verb === 'waive' ? ['expires'] : [])],
    usage: `gate ${verb} FILE STEP ${verb === 'waive' ? '--reason TEXT --by NAME [--expires DATE]' : '[--reason TEXT] [--by NAME]'}`,
    summary: `Record a ${verdict} verdict in the gate file of a step.`,
    help: `Writes the step's gate file (YAML, atomically) and appends the verdict to its history list.
${verb === 'waive' ? 'A waiver needs --reason and --by (who approved it); --expires DATE makes it lapse.\n' : ''}
${COMMON_HELP}`,
    async run(ctx) {
      const file = resolveFile(ctx, requirePositional(ctx.args, 0, 'FILE (the workflow Markdown file)'));
      const step = requirePositional(ctx.args, 1, 'STEP (the gated step id)');
      const opts = mutationOptions(ctx);
      const reason = flagString(ctx.args, 'reason');
      const by = flagString(ctx.args, 'by');
      const core = coreFor(ctx, file);
      try {
        let g: GateState;
        if (verb === 'waive') {
          g = await core.gateWaive(file, step, { reason: requireFlag(ctx.args, 'reason', 'why the gate is waived'), by: requireFlag(ctx.args, 'by', 'who approved the waiver'), expires: flagString(ctx.args, 'expires') }, opts);
        } else if (verb === 'pass') g = await core.gatePass(file, step, { reason, by }, opts);
        else if (verb === 'fail') g = await core.gateFail(file, step, { reason, by }, opts);
        else g = await core.gateConcerns(file, step, { reason, by }, opts);
        return printGate(ctx, g, verb);
      } finally {
        await core.close();
      }
    },
  };
}

/**
 * `fix FILE CODE [--line N]`: the quick fix the editor offers for that problem. Workflow-file
 * problems go through the core's mutation pipeline; sprint problems (story files and
 * sprint-status.yaml) through core.sprint.fix, the function the editor's quick fix calls too.
 */
const fixCommand: CliCommand = {
  name: 'fix',
  options: [...MUTATION_OPTIONS, 'line'],
  booleanFlags: ['force'],
  usage: 'fix FILE CODE [--line N]',
  summary: 'Apply the quick fix of a problem (see waymark validate).',
  help: `CODE is the problem code (e.g. last-step-mismatch, story-unknown-status, ledger-legacy-status); --line picks one when several share it.\n\n${COMMON_HELP}`,
  async run(ctx) {
    const f = resolveFile(ctx, requirePositional(ctx.args, 0, 'FILE (the file with the problem)'));
    const code = requirePositional(ctx.args, 1, 'CODE (a problem code from waymark validate)');
    if (!isProblemCode(code)) throw new WaymarkError('usage', `${code} is not a problem code; run waymark validate ${rel(ctx, f)} to list the file's problems (codes: docs/problems.md).`, f);
    const line = wholeNumberFlag(ctx.args, 'line', { min: 1 });
    const o = mutationOptions(ctx);
    const core = coreFor(ctx, f);
    try {
      if (isSprintCode(code)) {
        const root = findWorkspaceRoot(f, ctx.cwd);
        return printSprintFix(ctx, await core.sprint.fix(root, f, code, { ...o, line }));
      }
      const { problems, state } = await core.readWorkflow(f);
      const matching = problems.filter((p) => p.code === code && (line === undefined || p.range.start.line + 1 === line));
      if (!matching.length) throw new WaymarkError('usage', `${rel(ctx, f)} has no problem ${code}${line !== undefined ? ` at line ${line}` : ''}; run waymark validate ${rel(ctx, f)} to list them.`, f);
      const fixable = matching.find((p) => p.data && typeof p.data.fix === 'string');
      if (!fixable) throw new WaymarkError('usage', `Problem ${code} has no quick fix; ${matching[0].message}`, f);
      // The fix was computed from this read: refuse it if the file changes before it lands.
      return printResult(ctx, await core.applyFix(f, fixable, { expectHash: state?.stateHash, ...o }));
    } finally {
      await core.close();
    }
  },
};

function printSprintFix(ctx: CliContext, r: SprintFixResult): number {
  if (ctx.json) {
    ctx.stdout(JSON.stringify({ file: r.file, code: r.code, line: r.line, fix: r.fix, key: r.key, value: r.value, ...(r.ledgerFile ? { ledger: rel(ctx, r.ledgerFile) } : {}), changed: r.changed, written: r.written.map((w) => rel(ctx, w)), seq: r.seq ?? null }) + '\n');
    return 0;
  }
  // A ledger fix names the ledger it edits as the other paths here are named (from the folder it was run in).
  const title = r.ledgerFile ? `Set ${r.key} to ${r.value} in ${rel(ctx, r.ledgerFile)}` : r.title;
  ctx.stdout(`fix ${rel(ctx, r.file)}:${r.line} ${r.code}: ${title}${r.changed ? ` (wrote ${r.written.map((w) => rel(ctx, w)).join(', ')}${r.seq ? `, history #${r.seq}` : ''})` : ' (already so; nothing written)'}\n`);
  return 0;
}

export const writeCommands: CliCommand[] = [
  mutationVerb('start'),
  mutationVerb('advance', 'On the last step the workflow becomes completed.'),
  mutating('complete-step', 'complete-step FILE STEP', 'Mark one named step completed.', 'STEP is a step id (step-03-success), a number (3) or a step file name.', (c, f, core, o) =>
    core.completeStep(f, requirePositional(c.args, 1, 'STEP (a step id)'), o),
  ),
  mutating('set-status', 'set-status FILE STATUS [--reason TEXT]', 'Set the status (created → in_progress ⇄ blocked → completed → archived).', `STATUS is one of ${STATUSES.join(', ')}. Blocking needs --reason.`, (c, f, core, o) => {
    const status = requirePositional(c.args, 1, `STATUS (one of ${STATUSES.join(', ')})`);
    if (!(STATUSES as readonly string[]).includes(status)) throw new WaymarkError('usage', `Unknown status ${status}; use one of ${STATUSES.join(', ')}.`);
    return core.setStatus(f, status as Status, { ...o, reason: flagString(c.args, 'reason') });
  }, ['reason']),
  mutating('block', 'block FILE --reason TEXT', 'Block a workflow, saying what is in the way.', '', (c, f, core, o) => core.block(f, requireFlag(c.args, 'reason', 'what blocks the workflow'), o), ['reason']),
  mutationVerb('unblock'),
  mutating('scope', 'scope FILE SCOPE', 'Set the scope of a workflow.', `SCOPE is one of ${SCOPES.join(', ')}.`, (c, f, core, o) => core.setScope(f, requirePositional(c.args, 1, `SCOPE (one of ${SCOPES.join(', ')})`) as Scope, o)),
  mutating('delegate', 'delegate FILE --agent NAME [--out PATH] [--workflow ID]', 'Create a child workflow file delegated to an agent, with its chain computed.', 'The child goes beside the parent (<parent>.<agent>.md) unless --out says where; an existing file is never overwritten.', async (c, f, core, o) => {
    await core.scan();
    const out = flagString(c.args, 'out');
    return core.delegate(f, { agent: requireFlag(c.args, 'agent', 'the agent the work is delegated to'), out: out ? path.resolve(c.cwd, out) : undefined, workflow: flagString(c.args, 'workflow') }, o);
  }, ['agent', 'out', 'workflow']),
  fixCommand,
  gateVerb('pass'),
  gateVerb('fail'),
  gateVerb('concerns'),
  gateVerb('waive'),
  {
    name: 'gate show',
    options: [],
    usage: 'gate show FILE STEP',
    summary: "Show a step's gate: verdict, reviewer, waiver, history.",
    help: 'Options:\n  --json  print the gate as JSON\n\nExit codes: 0 the gate is open (the step may be passed); 1 it is closed; 2 usage or unreadable file.',
    async run(ctx) {
      const file = resolveFile(ctx, requirePositional(ctx.args, 0, 'FILE (the workflow Markdown file)'));
      const step = requirePositional(ctx.args, 1, 'STEP (the gated step id)');
      const core = coreFor(ctx, file);
      try {
        return printGate(ctx, await core.gateShow(file, step), 'show');
      } finally {
        await core.close();
      }
    },
  },
];
