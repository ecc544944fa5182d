// Tools for agents working in parallel: leases, the frontier of what can run next, the board.
import { z } from 'zod';
import { WaymarkError, describeOwner, parseTtl, frontierEntryJson, BOARD_COLUMNS } from '../../core/index';
import type { BoardColumn, FrontierEntry, ProjectView } from '../../core/index';
import { relativeTo, resolveInside } from '../host';
import type { ToolHost } from '../host';
import { DEFAULT_LIMIT, MAX_LIMIT, filePath, limit, cursor, problemOut, frontierEntryOut, tool, AnswerCache, READ, WRITE, problemJson, page, ticketTreeOut, ticketTreeSummary } from './shared';

export const lease = tool({
  name: 'waymark_lease',
  referenceName: 'waymarkLease',
  title: 'Take or release a lease',
  description:
    'Take (acquire) or give back (release) the lease on a workflow file, or on the whole workspace without file, so that other agents\' writes are refused while you work ("locked by ..."). A lease expires (ttl, default 1h) and lapses when this server exits. ' +
    'Use it before a long run of changes that others must not interleave with, and release it when done. Do not use it for a single write (writes are already atomic and hash-checked).',
  input: {
    action: z.enum(['acquire', 'release']),
    file: filePath.optional().describe('The workflow file; omit for the whole workspace.'),
    ttl: z.string().max(20).optional().describe('Lease length, e.g. 90s, 30m, 2h (acquire only; default 1h).'),
  },
  output: {
    action: z.enum(['acquire', 'release']),
    outcome: z.enum(['acquired', 'renewed', 'broke-stale', 'released', 'not-held']),
    target: z.string(),
    holder: z.string(),
    expiresAt: z.string().optional(),
  },
  annotations: WRITE,
  async run(input, host) {
    host.assertCanWrite(input.action === 'acquire' ? 'Acquire a lease' : 'Release a lease');
    const t = input.file !== undefined ? resolveInside(host.roots, input.file) : { abs: undefined, root: host.roots[0] };
    const owner = host.owner();
    if (input.action === 'acquire') {
      let ttlMs: number | undefined;
      if (input.ttl !== undefined) {
        ttlMs = parseTtl(input.ttl);
        if (ttlMs === undefined) throw new WaymarkError('usage', `ttl '${input.ttl}' is not a duration (e.g. 90s, 30m, 2h, 1d).`);
      }
      const r = await host.core.protocol.acquireLease(t.root, t.abs, owner, { ttlMs });
      return { action: input.action, outcome: r.outcome, target: r.lease.target, holder: describeOwner(r.lease.owner), expiresAt: r.lease.expiresAt };
    }
    const r = await host.core.protocol.releaseLease(t.root, t.abs, owner);
    return { action: input.action, outcome: r.released ? ('released' as const) : ('not-held' as const), target: r.lease?.target ?? (t.abs ? relativeTo(host.roots, t.abs) : '*'), holder: describeOwner(r.lease?.owner ?? owner) };
  },
});

function entryOut(host: ToolHost, e: FrontierEntry): z.infer<ReturnType<typeof frontierEntryOut>> {
  return frontierEntryJson(e, (file) => (file ? relativeTo(host.roots, file) : null));
}

const nextOutput = {
  now: z.string(),
  next: frontierEntryOut().nullable().describe('The first ready item; null when nothing is ready.'),
  ready: z.array(frontierEntryOut()),
  readyTotal: z.number(),
  review: z.array(frontierEntryOut()),
  stalled: z.array(frontierEntryOut()),
  criticalPath: z.array(z.string()).describe('The longest chain of remaining work, first to do → last, by id.'),
  problems: z.array(problemOut),
  tickets: ticketTreeOut().optional().describe('BMAD v7\'s ticket tree (initiatives, tickets.toml, plans), when the project has one.'),
};

export const next = tool({
  name: 'waymark_next',
  referenceName: 'waymarkNext',
  title: 'What to start next',
  description:
    'The project frontier: the work ready to start (every prerequisite done), in the order to start it — what unblocks the most work first, then priority, then age — each with the reason; work waiting for review; stalled work (in progress with no activity for longer than the threshold, with who last touched it); the critical path; dependency problems (unknown dependsOn/after targets, cycles). ' +
    'In a BMAD v7 project also the ticket tree as BMAD\'s tickets.py next groups it (tickets: readyToRefine, readyToStart, inProgress, blocked with what each waits on, as refs). ' +
    'Use it to choose what to work on, or to check whether something you want to start still waits on another item. Do not use it for the detail of one workflow (use waymark_status).',
  input: { limit },
  output: nextOutput,
  annotations: READ,
  async run(input, host) {
    const view = await host.project();
    const n = Math.min(input.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
    // The warm view is the same object until something changed: so is the answer built from it,
    // and with the host's kept ticket tree (read on each call by hosts that keep none) the answer with it.
    const answer = nextAnswers.get(host, view, String(n), () => nextJson(host, view, n));
    const tickets = await ticketTreeSummary(host, n);
    return tickets ? withTickets(answer, tickets) : answer;
  },
});

type NextAnswer = z.infer<z.ZodObject<typeof nextOutput>>;
const nextAnswers = new AnswerCache<ProjectView, NextAnswer>();
const joined = new WeakMap<NextAnswer, WeakMap<object, NextAnswer>>();

/** `answer` with the ticket tree's summary, the same object while both are. */
function withTickets(answer: NextAnswer, tickets: NonNullable<NextAnswer['tickets']>): NextAnswer {
  let byTickets = joined.get(answer);
  if (!byTickets) joined.set(answer, (byTickets = new WeakMap()));
  let a = byTickets.get(tickets);
  if (!a) byTickets.set(tickets, (a = { ...answer, tickets }));
  return a;
}

function nextJson(host: ToolHost, view: ProjectView, n: number): NextAnswer {
  const f = view.frontier;
  return {
    now: view.now,
    next: f.ready[0] ? entryOut(host, f.ready[0]) : null,
    ready: f.ready.slice(0, n).map((e) => entryOut(host, e)),
    readyTotal: f.ready.length,
    review: f.review.slice(0, n).map((e) => entryOut(host, e)),
    stalled: f.stalled.slice(0, n).map((e) => entryOut(host, e)),
    criticalPath: f.criticalPath,
    problems: f.problems.filter((p) => p.code !== 'work-stalled').slice(0, n).map((p) => problemJson(host, p)),
  };
}

const COLUMN_KEYS = BOARD_COLUMNS.map(([k]) => k) as [BoardColumn, ...BoardColumn[]];

export const board = tool({
  name: 'waymark_board',
  referenceName: 'waymarkBoard',
  title: 'Project board',
  description:
    'Every workflow and BMAD story of the workspace by board column — ready, inProgress, review, blocked (and by what), done, dropped — with counts, the stalled ids and the critical path. ' +
    'Use it for the whole picture (an orchestrator planning, a lead reporting); pass column to list one column. Paged: pass nextCursor to continue. Do not use it to pick what to start (waymark_next is shorter) or for one workflow (waymark_status).',
  input: {
    column: z.enum(COLUMN_KEYS).optional().describe('Only this column (default: all, in column order).'),
    limit,
    cursor,
  },
  output: {
    counts: z.record(z.number()).describe('Items per column.'),
    items: z.array(frontierEntryOut()),
    total: z.number(),
    nextCursor: z.string().optional(),
    stalled: z.array(z.string()),
    criticalPath: z.array(z.string()),
  },
  annotations: READ,
  async run(input, host) {
    const f = (await host.project()).frontier;
    const counts: Record<string, number> = {};
    for (const [key] of BOARD_COLUMNS) counts[key] = f[key].length;
    const items = input.column ? f[input.column] : BOARD_COLUMNS.flatMap(([key]) => f[key]);
    return page(items, input, (slice, nextCursor) => ({
      counts,
      items: slice.map((e) => entryOut(host, e)),
      total: items.length,
      ...(nextCursor ? { nextCursor } : {}),
      stalled: f.stalled.map((e) => e.id),
      criticalPath: f.criticalPath,
    }));
  },
});
