import * as fs from 'node:fs';
import { listCandidates } from '../scan';
import type { WorkflowState } from '../types';
import { loadWorkspaceContext, type WorkspaceContext } from '../workspaceContext';
import { parseWorkflowText } from '../workflow';
import { splitFrontmatter } from '../frontmatter';
import { sha256 } from '../hash';

/** One workflow file as read for the protocol: its state (when readable), hashes and times. */
export interface FileRead {
  file: string;
  exists: boolean;
  text?: string;
  state?: WorkflowState;
  /** Why the state could not be read (missing file, no/broken frontmatter). */
  error?: string;
  /** sha256 of the Markdown body (everything after the frontmatter). */
  bodyHash?: string;
  mtimeMs?: number;
}

const contexts = new Map<string, Promise<WorkspaceContext>>();

/** The root's workspace context (config, definitions, BMAD catalog), loaded once per process. */
export function contextFor(root: string): Promise<WorkspaceContext> {
  let c = contexts.get(root);
  if (!c) {
    c = loadWorkspaceContext(root).then((r) => r.context);
    contexts.set(root, c);
  }
  return c;
}

export function bodyHashOf(text: string): string {
  const split = splitFrontmatter(text);
  return sha256(split.hasFrontmatter && split.closed ? split.body : text);
}

/** Reads and parses one workflow file; never throws for a missing or broken file. */
export function readWorkflowFile(ctx: WorkspaceContext, file: string): FileRead {
  let text: string;
  let mtimeMs: number;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return { file, exists: false, error: `${file} is not a file` };
    mtimeMs = st.mtimeMs;
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { file, exists: false, error: code === 'ENOENT' ? `${file} does not exist` : `cannot read ${file}: ${(e as Error).message}` };
  }
  const parsed = parseWorkflowText(file, text, ctx);
  const out: FileRead = { file, exists: true, text, mtimeMs, bodyHash: bodyHashOf(text) };
  if (parsed.state) out.state = parsed.state;
  else if (parsed.isWorkflow) out.error = parsed.problems[0]?.message ?? 'the frontmatter could not be read';
  else out.error = 'no workflow frontmatter';
  return out;
}

/**
 * Every workflow file of a root: the scan's candidates (config include/exclude globs) whose
 * frontmatter carries workflow state, plus those that try to but cannot be read.
 */
export async function listWorkflowFiles(root: string): Promise<FileRead[]> {
  const ctx = await contextFor(root);
  const out: FileRead[] = [];
  for (const p of listCandidates(ctx).files) {
    try {
      if (fs.statSync(p).size > ctx.config.limits.maxFileBytes) continue;
    } catch {
      continue;
    }
    const r = readWorkflowFile(ctx, p);
    if (r.state || (r.error && r.error !== 'no workflow frontmatter')) out.push(r);
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}
