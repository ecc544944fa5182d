import * as path from 'node:path';
import { WaymarkError } from '../core/index';
import type { MemoryService, RecordInput, MemoryRecord, MemoryType, RecallItem } from '../core/index';
import type { CliArgs, CliCommand, CliContext } from './framework';
import { flagString, requirePositional, wholeNumberFlag } from './framework';
import { rootArg, withCore } from './cliCore';

function flagList(args: CliArgs, name: string): string[] {
  const v = args.flags[name];
  if (v === undefined || v === false) return [];
  if (v === true) throw new WaymarkError('usage', `--${name} needs a value.`);
  return (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
}

/** A whole-number option of the memory verbs; days and waits are capped where a date or a timer would break (100,000 days, one day's wait). */
function flagInt(args: CliArgs, name: string, min = 0): number | undefined {
  return wholeNumberFlag(args, name, { min, max: name === 'older-than' ? 100_000 : name === 'wait-ms' ? 86_400_000 : undefined });
}

async function withMemory<T>(ctx: CliContext, fn: (m: MemoryService) => Promise<T>): Promise<T> {
  const root = rootArg(ctx);
  const waitMs = flagInt(ctx.args, 'wait-ms');
  const origin = flagString(ctx.args, 'origin') ?? process.env.WAYMARK_MEMORY_ORIGIN ?? 'cli';
  return withCore(ctx, root, (core) => fn(core.memory.forRoot(root, { waitMs, holdMs: 0 })), { origin });
}

function resolvePath(ctx: CliContext, p: string | undefined): string | undefined {
  return p === undefined ? undefined : path.resolve(ctx.cwd, p);
}

function sourceLine(m: MemoryRecord): string {
  const s = m.source;
  const parts = [s.workflow, s.step && `step ${s.step}`, s.agent && `agent ${s.agent}`, s.session && `session ${s.session}`, s.origin && `from ${s.origin}`].filter(Boolean);
  return parts.length ? parts.join(' · ') : 'no source';
}

function label(m: MemoryRecord): string {
  return m.category ? `${m.type}/${m.category}` : m.type;
}

function formatItem(i: RecallItem): string {
  const m = i.memory;
  const head = `${i.score.toFixed(2).padStart(5)}  [${label(m)}] ${m.title ? `${m.title}: ` : ''}${m.text}${i.superseded ? ' (superseded)' : ''}`;
  const lines = [head];
  if (m.rationale) lines.push(`        because: ${m.rationale}`);
  if (m.alternatives?.length) lines.push(`        alternatives: ${m.alternatives.join('; ')}`);
  lines.push(`        ${m.createdAt.slice(0, 16).replace('T', ' ')} · ${i.reason}${i.distance !== undefined ? ` (distance ${i.distance})` : ''} · ${sourceLine(m)} · ${m.id}`);
  return lines.join('\n');
}

/** Options every memory verb reads (withMemory). */
const MEMORY_OPTIONS = ['root', 'wait-ms', 'origin'];

const COMMON_HELP = `Common options:
  --root DIR        workspace folder (default: the nearest folder above holding .waymark, _bmad or .git)
  --wait-ms N       how long to wait for the memory database held by another process (default 1500)
  --origin NAME     who records (default $WAYMARK_MEMORY_ORIGIN, else cli)
  --json            machine-readable output`;

const record: CliCommand = {
  name: 'memory record',
  options: ['type', 'text', 'title', 'category', 'rationale', 'alternative', 'decided-by', 'supersedes', 'workflow', 'step', 'agent', 'session', 'file', 'entity', 'tag', 'kind', 'name', 'relates-to', 'relation', ...MEMORY_OPTIONS],
  usage: 'memory record --type learning|decision|summary|entity [TEXT] [options]',
  summary: 'Record a learning, decision, summary or entity (written to the inbox at once, then to the graph).',
  help: `Options:
  --text TEXT            the memory (or give it as the positional argument)
  --title TEXT           short title
  --category C           learning: ${['pattern', 'gotcha', 'preference', 'error', 'fix', 'security', 'observation'].join('|')}
                         summary: session|workflow|phase
  --rationale TEXT       decision: why
  --alternative TEXT     decision: an alternative considered (repeatable, or comma-separated)
  --decided-by WHO       decision: who decided
  --supersedes ID        decision: id of the decision this one replaces
  --workflow FILE --step S --agent A --session S   where it came from
  --file PATH            a file it is about (repeatable)
  --entity ID            an entity it is about, e.g. component:parser (repeatable)
  --tag TAG              (repeatable)
  entity: --kind file|component|agent|workflow|step --name NAME [--relates-to ID --relation R]
Tier 1 (decisions, errors, security, preferences, gotchas, fixes) reaches the graph now;
observations and patterns (tier 2) are consolidated when their step or workflow completes.
If the database is busy or unavailable the memory stays in .waymark/memory/inbox.jsonl and is
ingested later; nothing is lost.
${COMMON_HELP}
Examples:
  waymark memory record --type decision --text "Use Kuzu behind a port" --rationale "engine may change" --workflow docs/plan.md --step design
  waymark memory record --type learning --category error "npm ci fails without lockfile" --workflow docs/plan.md`,
  async run(ctx) {
    const a = ctx.args;
    const type = flagString(a, 'type');
    if (!type) throw new WaymarkError('usage', '--type is required: learning, decision, summary or entity.');
    const relTo = flagString(a, 'relates-to');
    const input: RecordInput = {
      type: type as RecordInput['type'],
      text: flagString(a, 'text') ?? (a.positionals.length ? a.positionals.join(' ') : undefined),
      title: flagString(a, 'title'),
      category: flagString(a, 'category'),
      rationale: flagString(a, 'rationale'),
      alternatives: flagList(a, 'alternative'),
      decidedBy: flagString(a, 'decided-by'),
      supersedes: flagString(a, 'supersedes'),
      workflow: resolvePath(ctx, flagString(a, 'workflow')),
      step: flagString(a, 'step'),
      agent: flagString(a, 'agent'),
      session: flagString(a, 'session'),
      files: flagList(a, 'file').map((f) => path.resolve(ctx.cwd, f)),
      entities: flagList(a, 'entity'),
      tags: flagList(a, 'tag'),
      kind: flagString(a, 'kind'),
      name: flagString(a, 'name'),
      relations: relTo ? [{ to: relTo, relation: flagString(a, 'relation') ?? 'related_to' }] : undefined,
    };
    const res = await withMemory(ctx, (m) => m.record(input));
    if (ctx.json) ctx.stdout(JSON.stringify(res) + '\n');
    else {
      ctx.stdout(`Recorded ${res.type} ${res.id}${res.tier ? ` (tier ${res.tier})` : ''}: ${res.stored === 'graph' ? 'in the graph' : 'in the inbox'}\n`);
      if (res.note) ctx.stdout(`  ${res.note}\n`);
    }
    return 0;
  },
};

const recall: CliCommand = {
  name: 'memory recall',
  options: ['workflow', 'step', 'file', 'entity', 'text', 'type', 'since', 'limit', ...MEMORY_OPTIONS],
  usage: 'memory recall [TEXT] [--workflow FILE [--step S]] [--file F] [--entity ID] [--type T] [--since DATE] [--limit N]',
  summary: 'What memory knows about a workflow, step, file, entity or text, ranked, with sources.',
  help: `Ranked by link distance (0 = linked directly, 1-2 = through related entities), type
(decisions and errors first) and recency. Superseded decisions are marked and ranked lower.
With no target: the most recent memories.
${COMMON_HELP}
Examples:
  waymark memory recall --workflow docs/plan.md --type decision
  waymark memory recall --workflow docs/plan.md --step test --type learning
  waymark memory recall --file src/core/scan.ts
  waymark memory recall "lockfile" (or --text TEXT)`,
  async run(ctx) {
    const a = ctx.args;
    const res = await withMemory(ctx, (m) =>
      m.recall({
        workflow: resolvePath(ctx, flagString(a, 'workflow')),
        step: flagString(a, 'step'),
        file: resolvePath(ctx, flagString(a, 'file')),
        entity: flagString(a, 'entity'),
        text: flagString(a, 'text') ?? (a.positionals.length ? a.positionals.join(' ') : undefined),
        types: flagList(a, 'type') as MemoryType[],
        since: flagString(a, 'since'),
        limit: flagInt(a, 'limit', 1),
      }),
    );
    if (ctx.json) ctx.stdout(JSON.stringify(res) + '\n');
    else {
      if (res.degraded) ctx.stderr(`memory: degraded: ${res.degraded} (answering from the journal)\n`);
      if (!res.items.length) ctx.stdout('Nothing recalled.\n');
      for (const i of res.items) ctx.stdout(formatItem(i) + '\n');
    }
    return 0;
  },
};

const importCmd: CliCommand = {
  name: 'memory import',
  options: MEMORY_OPTIONS,
  usage: 'memory import PATH',
  summary: 'Import MEMORY.md, knowledge_graph.json(l), BMAD *.memlog.md, {agent}_memories.md or an export (idempotent).',
  help: `PATH is a file or a folder searched for those names. Importing the same content twice adds nothing.
${COMMON_HELP}`,
  async run(ctx) {
    const p = requirePositional(ctx.args, 0, 'PATH (a memory file or a folder)');
    const res = await withMemory(ctx, (m) => m.importPath(path.resolve(ctx.cwd, p)));
    if (ctx.json) ctx.stdout(JSON.stringify(res) + '\n');
    else {
      for (const f of res.files) ctx.stdout(`  ${f.format.padEnd(15)} ${f.file}: ${f.memories} memories\n`);
      ctx.stdout(`Imported ${res.added} new of ${res.found} memories (${res.engine}).\n`);
    }
    return 0;
  },
};

const exportCmd: CliCommand = {
  name: 'memory export',
  options: ['out', ...MEMORY_OPTIONS],
  usage: 'memory export [--out FILE]',
  summary: 'Export memories, entities and relationships as JSON (default .waymark/memory/export.json).',
  help: COMMON_HELP,
  async run(ctx) {
    const out = resolvePath(ctx, flagString(ctx.args, 'out'));
    const res = await withMemory(ctx, (m) => m.exportAll(out));
    if (ctx.json) ctx.stdout(JSON.stringify(res) + '\n');
    else {
      ctx.stdout(`Exported ${res.counts.decision} decisions, ${res.counts.learning} learnings, ${res.counts.summary} summaries, ${res.counts.entity} entities to ${res.file} (${res.bytes} bytes).\n`);
      if (res.warning) ctx.stderr(`warning: ${res.warning}\n`);
    }
    return 0;
  },
};

const status: CliCommand = {
  name: 'memory status',
  options: MEMORY_OPTIONS,
  usage: 'memory status',
  summary: 'Memory engine state (ok or degraded, and why), counts, file sizes and size warnings.',
  help: COMMON_HELP,
  async run(ctx) {
    const s = await withMemory(ctx, (m) => m.status());
    if (ctx.json) ctx.stdout(JSON.stringify(s) + '\n');
    else {
      ctx.stdout(`${s.line}\n`);
      if (s.schemaVersion) ctx.stdout(`  schema v${s.schemaVersion}, database ${s.files.db}\n`);
      ctx.stdout(`  inbox ${s.files.inbox} (${s.sizes.inbox} bytes)\n  hot ${s.files.hot} (${s.sizes.hot} bytes)\n  cold ${s.files.cold} (${s.sizes.cold} bytes)\n`);
      if (s.session) ctx.stdout(`  session ${s.session.id} since ${s.session.startedAt}${s.session.objective ? `: ${s.session.objective}` : ''}\n`);
      for (const w of s.warnings) ctx.stdout(`  warning: ${w}\n`);
    }
    return 0;
  },
};

const prune: CliCommand = {
  name: 'memory prune',
  options: ['keep', 'older-than', ...MEMORY_OPTIONS],
  usage: 'memory prune [--keep N] [--older-than DAYS] [--force]',
  summary: 'Shrink memory: hot notes move to the cold file, a big cold file is archived, old consolidated observations leave the graph.',
  help: `  --keep N            working-memory notes to keep in the hot file (default 20)
  --force             trim the hot file even when under 10 KB
  --older-than DAYS   drop consolidated observations older than DAYS (their summaries stay)
${COMMON_HELP}`,
  booleanFlags: ['force'],
  async run(ctx) {
    const res = await withMemory(ctx, (m) => m.prune({ keepHot: flagInt(ctx.args, 'keep'), olderThanDays: flagInt(ctx.args, 'older-than'), force: ctx.args.flags.force === true }));
    if (ctx.json) ctx.stdout(JSON.stringify(res) + '\n');
    else ctx.stdout(`Moved ${res.movedFromHot} hot notes to the cold file; ${res.coldArchive ? `archived the cold file to ${res.coldArchive}; ` : ''}dropped ${res.forgotten} consolidated observations.\n`);
    return 0;
  },
};

const rebuild: CliCommand = {
  name: 'memory rebuild',
  options: MEMORY_OPTIONS,
  usage: 'memory rebuild',
  summary: 'Move an unreadable memory database aside and rebuild it from the journal.',
  help: COMMON_HELP,
  async run(ctx) {
    const res = await withMemory(ctx, (m) => m.rebuild());
    if (ctx.json) ctx.stdout(JSON.stringify(res) + '\n');
    else ctx.stdout(`Rebuilt the memory graph from the journal: ${res.added} memories${res.movedAside ? `; the old database is at ${res.movedAside}` : ''}.\n`);
    return 0;
  },
};

const sessionStart: CliCommand = {
  name: 'session start',
  options: ['objective', 'workflow', 'limit', ...MEMORY_OPTIONS],
  usage: 'session start [--objective TEXT] [--workflow FILE]',
  summary: 'Start a session: reset the hot memory file and recall what matters for the work.',
  help: `  --objective TEXT    what the session is for
  --workflow FILE     the workflow the session works on (recall starts there)
  --limit N           memories to recall (default 15)
${COMMON_HELP}`,
  async run(ctx) {
    const res = await withMemory(ctx, (m) => m.sessionStart({ objective: flagString(ctx.args, 'objective'), workflow: resolvePath(ctx, flagString(ctx.args, 'workflow')), limit: flagInt(ctx.args, 'limit', 1) }));
    if (ctx.json) ctx.stdout(JSON.stringify(res) + '\n');
    else {
      ctx.stdout(`Session ${res.session.id} started${res.previous ? ` (replacing ${res.previous.id}, which was not ended)` : ''}.\n`);
      if (res.recall.length) ctx.stdout('Recalled:\n' + res.recall.map(formatItem).join('\n') + '\n');
    }
    return 0;
  },
};

const sessionEnd: CliCommand = {
  name: 'session end',
  options: ['summary', ...MEMORY_OPTIONS],
  usage: 'session end [--summary TEXT]',
  summary: 'End the session: record its summary, move hot discoveries to the cold file, reset hot memory.',
  help: COMMON_HELP,
  async run(ctx) {
    const res = await withMemory(ctx, (m) => m.sessionEnd({ summary: flagString(ctx.args, 'summary') ?? (ctx.args.positionals.join(' ') || undefined) }));
    if (ctx.json) ctx.stdout(JSON.stringify(res) + '\n');
    else ctx.stdout(`Session ${res.session?.id ?? '(none running)'} ended; summary ${res.summary.id}; ${res.moved} notes moved to the cold file.\n`);
    return 0;
  },
};

export const memoryCommands: CliCommand[] = [record, recall, importCmd, exportCmd, status, prune, rebuild, sessionStart, sessionEnd];
