// The tool that sets a BMAD story's status: a v7 ticket's plan (as tickets.py mark writes it) or
// a v6 story file and its sprint-status.yaml line, through the core's one transaction.
import { z } from 'zod';
import { WaymarkError, hasTicketTree } from '../../core/index';
import { relativeTo } from '../host';
import { actor, tool, WRITE } from './shared';

export const storySetStatus = tool({
  name: 'waymark_story_set_status',
  referenceName: 'waymarkStorySetStatus',
  title: 'Set a BMAD story or ticket status',
  description:
    'Set the status of one BMAD story. In a BMAD v7 project (a ticket tree): ref is the ticket\'s E.N ref from waymark_next (or its file name, or title words naming one ticket), status one of draft, ready-for-dev, in-progress, in-review, built, done, blocked (with blocked, the reason), dropped; the plan is written as BMAD\'s tickets.py mark writes it, created with only its frontmatter when there is none. In BMAD v6: ref is the story key (1-2-login or 1.2), status backlog, ready-for-dev, in-progress, review or done, written to the story file and sprint-status.yaml. ' +
    'The status rules refuse moving done work back and done before a finished build or review (reason transition); a tracker store (github, jira...) is refused (its status comes from the tracker). Use it instead of editing a plan, tickets.toml, a story file or the ledger by hand. Do not use it for a workflow file (use waymark_set_status).',
  input: {
    ref: z.string().min(1).max(500).describe('The story: E.N, a file name or title words (v7); the story key (v6).'),
    status: z.string().min(1).max(40),
    blocked: z.string().min(1).max(2000).optional().describe('v7: what is in the way (sets blocked_at and blocked_reason); without it both are cleared.'),
    assignee: z.string().min(1).max(200).optional().describe('v7: who works on it.'),
    actor,
  },
  output: {
    kind: z.enum(['ticket', 'story']),
    ref: z.string(),
    status: z.string(),
    state: z.string().optional().describe('v7: the board state the new status gives.'),
    changed: z.boolean().describe('False when it already had this status (nothing written).'),
    written: z.array(z.string()),
    plan: z.string().optional().describe('v7: the plan written.'),
    created: z.boolean().optional().describe('v7: the plan was created.'),
    historySeq: z.number().nullable(),
  },
  annotations: { ...WRITE, destructiveHint: true },
  async run(input, host) {
    host.assertCanWrite('Set story status');
    const root = host.roots[0];
    const who = { actor: input.actor ?? host.actor };
    if (hasTicketTree(root)) {
      const r = await host.core.sprint.setTicketStatus(root, input.ref, input.status, { ...who, blocked: input.blocked, assignee: input.assignee });
      return { kind: 'ticket' as const, ref: r.ref, status: r.after.status, state: r.after.state, changed: r.changed, written: r.written.map((f) => relativeTo(host.roots, f)), plan: relativeTo(host.roots, r.plan), created: r.created, historySeq: r.seq ?? null };
    }
    if (input.blocked !== undefined || input.assignee !== undefined) throw new WaymarkError('usage', 'blocked and assignee apply to a BMAD v7 ticket tree; this project keeps a v6 sprint (sprint-status.yaml).');
    const r = await host.core.sprint.setStoryStatus(root, input.ref, input.status, who);
    return { kind: 'story' as const, ref: r.key, status: r.after.status, changed: r.changed, written: r.written.map((f) => relativeTo(host.roots, f)), historySeq: r.seq ?? null };
  },
});
