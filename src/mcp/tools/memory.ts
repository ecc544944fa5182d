// Tools over the memory of decisions and learnings: recall and record.
import { z } from 'zod';
import { LEARNING_CATEGORIES, MEMORY_TYPES, SUMMARY_SCOPES } from '../../core/index';
import { resolveInside } from '../host';
import { filePath, tool, READ, WRITE } from './shared';

export const memoryRecall = tool({
  name: 'waymark_memory_recall',
  referenceName: 'waymarkRecall',
  title: 'Recall project memory',
  description:
    'Recall decisions, learnings and summaries recorded earlier (by you, other agents or people), ranked by relevance to a workflow, step, file or text. Says when the memory database is held by another process and the answer came from the journal. ' +
    'Use it before starting a step, to learn what was decided and what went wrong before. Do not use it for workflow state (use waymark_status).',
  input: {
    text: z.string().min(1).max(2000).optional().describe('Words to match.'),
    workflow: filePath.optional().describe('Workflow file the memories are about.'),
    step: z.string().min(1).max(500).optional().describe('Step of that workflow (needs workflow).'),
    file: z.string().min(1).max(4096).optional().describe('A source file the memories mention.'),
    types: z.array(z.enum(MEMORY_TYPES)).max(3).optional(),
    limit: z.number().int().min(1).max(50).optional().describe('At most this many (default 10).'),
  },
  output: {
    engine: z.enum(['kuzu', 'journal']),
    degraded: z.string().optional().describe('Why the graph was not used (another process holds it, ...): the answer came from the journal.'),
    items: z.array(z.object({ id: z.string(), type: z.string(), category: z.string().optional(), title: z.string().optional(), text: z.string(), rationale: z.string().optional(), score: z.number(), reason: z.string(), createdAt: z.string(), workflow: z.string().optional(), step: z.string().optional(), agent: z.string().optional() })),
  },
  annotations: READ,
  async run(input, host) {
    const root = input.workflow !== undefined ? resolveInside(host.roots, input.workflow).root : host.roots[0];
    const workflow = input.workflow !== undefined ? resolveInside(host.roots, input.workflow).abs : undefined;
    const file = input.file !== undefined ? resolveInside(host.roots, input.file).abs : undefined;
    await host.core.memory.settled();
    const m = host.memory(root);
    const r = await m.recall({ text: input.text, workflow, step: input.step, file, types: input.types, limit: input.limit ?? 10 }, { waitMs: 300 });
    return {
      engine: r.engine,
      ...(r.degraded ? { degraded: r.degraded } : {}),
      items: r.items.map((i) => ({
        id: i.memory.id,
        type: i.memory.type,
        ...(i.memory.category ? { category: i.memory.category } : {}),
        ...(i.memory.title ? { title: i.memory.title } : {}),
        text: i.memory.text.length > 2000 ? `${i.memory.text.slice(0, 2000)}…` : i.memory.text,
        ...(i.memory.rationale ? { rationale: i.memory.rationale } : {}),
        score: Math.round(i.score * 100) / 100,
        reason: i.reason,
        createdAt: i.memory.createdAt,
        ...(i.memory.source.workflow ? { workflow: i.memory.source.workflow } : {}),
        ...(i.memory.source.step ? { step: i.memory.source.step } : {}),
        ...(i.memory.source.agent ? { agent: i.memory.source.agent } : {}),
      })),
    };
  },
});

export const memoryRecord = tool({
  name: 'waymark_memory_record',
  referenceName: 'waymarkRecord',
  title: 'Record a decision or learning',
  description:
    'Record a decision (with rationale), a learning (pattern, gotcha, error, fix, preference, security, observation) or a summary, linked to a workflow, step and files, so later sessions and other agents recall it. Always kept (written to the journal first); stored says whether it also reached the graph now or waits in the inbox because another process holds the database. ' +
    'Use it when you decide something, hit a pitfall, or finish a session. Do not use it for workflow state (use waymark_advance / waymark_set_status).',
  input: {
    type: z.enum(MEMORY_TYPES),
    text: z.string().min(1).max(8000),
    title: z.string().min(1).max(200).optional(),
    category: z.enum([...LEARNING_CATEGORIES, ...SUMMARY_SCOPES] as [string, ...string[]]).optional().describe(`learning: ${LEARNING_CATEGORIES.join('|')}; summary: ${SUMMARY_SCOPES.join('|')}.`),
    rationale: z.string().min(1).max(4000).optional().describe('decision: why.'),
    alternatives: z.array(z.string().min(1).max(500)).max(10).optional().describe('decision: the options not taken.'),
    workflow: filePath.optional(),
    step: z.string().min(1).max(500).optional(),
    files: z.array(z.string().min(1).max(4096)).max(20).optional().describe('Source files it concerns (relative to the workspace).'),
    tags: z.array(z.string().min(1).max(100)).max(20).optional(),
    agent: z.string().min(1).max(200).optional().describe('Who learned or decided this. Default: the server\'s actor.'),
  },
  output: {
    id: z.string(),
    type: z.string(),
    tier: z.number().optional(),
    stored: z.enum(['graph', 'inbox']),
    note: z.string().optional(),
  },
  annotations: WRITE,
  async run(input, host) {
    host.assertCanWrite('Record memory');
    const wf = input.workflow !== undefined ? resolveInside(host.roots, input.workflow) : undefined;
    const files = (input.files ?? []).map((f) => resolveInside(host.roots, f).abs);
    const root = wf?.root ?? host.roots[0];
    await host.core.memory.settled();
    const r = await host.memory(root).record(
      {
        type: input.type,
        text: input.text,
        title: input.title,
        category: input.category,
        rationale: input.rationale,
        alternatives: input.alternatives,
        workflow: wf?.abs,
        step: input.step,
        files,
        tags: input.tags,
        agent: input.agent ?? host.actor,
      },
      { waitMs: 300 },
    );
    return { id: r.id, type: r.type, ...(r.tier ? { tier: r.tier } : {}), stored: r.stored, ...(r.note ? { note: r.note } : {}) };
  },
});
