/**
 * What each workflow, story and epic becomes as a ticket. Pure: the project registry
 * (core/project buildRegistry: items and their dependency edges), the workflows (delegation
 * parents) and the sprints (epics) in; tickets in send order out — parents before children,
 * prerequisites before what waits on them.
 */
import * as path from 'node:path';
import type { ProjectRegistry, ProjectItem } from '../project/registry';
import type { SprintReport } from '../bmad/sprint';
import type { WorkflowState } from '../types';
import { sha256 } from '../model/hash';
import { WAYMARK_ID_LINE } from './port';

export interface ProjectedTicket {
  waymarkId: string;
  kind: 'workflow' | 'story' | 'epic';
  root: string;
  /** The artifact, when there is one (a ledger-only story and an epic have none). */
  file?: string;
  rel?: string;
  /** The file has YAML frontmatter: its mirror goes in a `tracker:` block there; else the sidecar. */
  hasFrontmatter: boolean;
  /** The state hash when projected: the mirror write refuses if the state moved meanwhile. */
  stateHash?: string;
  title: string;
  /** The artifact's text (frontmatter left out), before the link and id lines. */
  text: string;
  labels: string[];
  open: boolean;
  /** Waymark id of the parent (the delegating workflow, the story's epic). */
  parentId?: string;
  /** Waymark ids of the prerequisites. */
  blockedByIds: string[];
  /** Hash of everything sent: compared with the mirror's `syncedHash`. */
  hash: string;
}

export interface ProjectionInput {
  registry: ProjectRegistry;
  workflows: readonly WorkflowState[];
  sprints: readonly SprintReport[];
  /** The artifact's text without its frontmatter; undefined when unreadable. */
  readText(file: string): { text: string; hasFrontmatter: boolean } | undefined;
}

/** Longest artifact text put in a ticket body (trackers cap bodies; GitHub at 65,536 chars). */
export const MAX_TEXT_CHARS = 60_000;

function epicId(root: string, n: string, multi: boolean): string {
  return multi ? `epic:${path.basename(root)}:${n}` : `epic:${n}`;
}

/** Every ticket, in send order. */
export function projectTickets(input: ProjectionInput): ProjectedTicket[] {
  const { registry } = input;
  const multiRoot = new Set(input.sprints.map((s) => s.root)).size > 1;
  const out = new Map<string, ProjectedTicket>();
  const byFile = new Map(input.workflows.map((w) => [w.file, w]));
  const delegationOwner = new Map<string, string>();
  for (const item of registry.items) {
    const w = item.file ? byFile.get(item.file) : undefined;
    if (w?.delegation?.id) delegationOwner.set(w.delegation.id, item.id);
  }
  const storyEpic = new Map<string, string>();
  for (const sprint of input.sprints) {
    for (const epic of sprint.epics) {
      const id = epicId(sprint.root, epic.id, multiRoot);
      for (const s of epic.stories) storyEpic.set(`${sprint.root}\n${s.key}`, id);
      const done = epic.ledgerStatus === 'done' || (epic.stories.length > 0 && epic.stories.every((s) => s.status === 'done'));
      const title = `Epic ${epic.id}${epic.title ? `: ${epic.title}` : ''}`;
      const text = epic.stories.length ? `Stories:\n${epic.stories.map((s) => `- ${s.key}${s.title ? `: ${s.title}` : ''} (${s.status})`).join('\n')}` : '';
      const labels = ['waymark', 'waymark:epic', `status:${done ? 'done' : epic.ledgerStatus ?? 'todo'}`];
      out.set(id, finish({ waymarkId: id, kind: 'epic', root: sprint.root, hasFrontmatter: false, title, text, labels, open: !done, blockedByIds: [] }));
    }
  }
  for (const item of registry.items) {
    // A BMAD v7 ticket already lives in its own store (the repo's tree or BMAD's tracker).
    if (item.kind === 'ticket') continue;
    const w = item.file ? byFile.get(item.file) : undefined;
    const read = item.file ? input.readText(item.file) : undefined;
    const parentId = item.kind === 'story' ? storyEpic.get(`${item.root}\n${item.storyKey}`) : w?.delegation?.parent_id ? delegationOwner.get(w.delegation.parent_id) : undefined;
    // Delegation edges say a parent waits on its children: that is the parent link, not blocked-by.
    const blockedByIds = (registry.prerequisites.get(item.id) ?? []).filter((e) => e.kind !== 'delegation').map((e) => e.to);
    out.set(item.id, finish({
      waymarkId: item.id,
      kind: item.kind,
      root: item.root,
      file: item.file,
      rel: item.rel,
      hasFrontmatter: read?.hasFrontmatter ?? false,
      stateHash: w?.stateHash,
      title: item.title,
      text: [stateLine(item, w), read ? clip(read.text.trim()) : ''].filter(Boolean).join('\n\n'),
      labels: labelsOf(item, w),
      open: item.state !== 'done' && item.state !== 'dropped',
      parentId: parentId !== item.id ? parentId : undefined,
      blockedByIds,
    }));
  }
  return sendOrder(out);
}

/** The state at a glance, first line of the body: status, steps done, next step, why blocked. */
function stateLine(item: ProjectItem, w: WorkflowState | undefined): string {
  const parts = [`Status: ${item.rawStatus ?? item.state}`];
  if (w?.steps.length) parts.push(`steps ${w.stepsCompleted.length}/${w.steps.length}`);
  if (w?.nextStep && item.state !== 'done') parts.push(`next: ${w.nextStep}`);
  if (item.blockedReason) parts.push(`blocked: ${item.blockedReason}`);
  return `_${parts.join(' · ')}_`;
}

function labelsOf(item: ProjectItem, w: WorkflowState | undefined): string[] {
  const labels = ['waymark', `waymark:${item.kind}`, `status:${item.state}`];
  if (w?.scope) labels.push(`scope:${w.scope}`);
  return labels;
}

function clip(text: string): string {
  return text.length > MAX_TEXT_CHARS ? `${text.slice(0, MAX_TEXT_CHARS)}\n\n… (cut at ${MAX_TEXT_CHARS} characters; the file has the rest)` : text;
}

function finish(t: Omit<ProjectedTicket, 'hash'>): ProjectedTicket {
  return { ...t, hash: sha256(JSON.stringify([t.title, t.text, t.labels, t.open, t.parentId ?? null, t.blockedByIds, t.rel ?? null])) };
}

/**
 * Topological order: a ticket after its parent and its prerequisites (Kahn, ties in registry
 * order). What a cycle leaves (a parent that waits on its own child) follows in registry order;
 * its missing links are filled in by the next run (the mirror records a partial sync).
 */
export function sendOrder(tickets: Map<string, ProjectedTicket>): ProjectedTicket[] {
  const needs = new Map<string, Set<string>>();
  const waiting = new Map<string, string[]>();
  for (const t of tickets.values()) {
    const deps = new Set([...(t.parentId ? [t.parentId] : []), ...t.blockedByIds].filter((d) => d !== t.waymarkId && tickets.has(d)));
    needs.set(t.waymarkId, deps);
    for (const d of deps) (waiting.get(d) ?? waiting.set(d, []).get(d)!).push(t.waymarkId);
  }
  const order: ProjectedTicket[] = [];
  const done = new Set<string>();
  const ready = [...tickets.keys()].filter((id) => needs.get(id)!.size === 0);
  for (let i = 0; i < ready.length; i++) {
    const id = ready[i];
    if (done.has(id)) continue;
    done.add(id);
    order.push(tickets.get(id)!);
    for (const w of waiting.get(id) ?? []) {
      const n = needs.get(w)!;
      n.delete(id);
      if (n.size === 0) ready.push(w);
    }
  }
  for (const t of tickets.values()) if (!done.has(t.waymarkId)) order.push(t);
  return order;
}

/** The body sent: the artifact's text, the links a store cannot express, the source, the id line. */
export function renderBody(t: ProjectedTicket, links: { parent?: string; blockedBy: string[] }): string {
  const parts: string[] = [];
  if (t.text) parts.push(t.text, '');
  parts.push('---');
  if (links.parent) parts.push(`Parent: ${links.parent}`);
  if (links.blockedBy.length) parts.push(`Blocked by: ${links.blockedBy.join(', ')}`);
  parts.push(t.rel ? `Projected by Waymark from \`${t.rel}\` (one-way: change the file, not this ticket).` : 'Projected by Waymark (one-way: change the workspace, not this ticket).');
  parts.push(`${WAYMARK_ID_LINE} ${t.waymarkId}`);
  return parts.join('\n') + '\n';
}
