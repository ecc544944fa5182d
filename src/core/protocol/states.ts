import * as fs from 'node:fs';
import * as path from 'node:path';
import { listCandidates } from '../store/scan';
import type { WorkflowState } from '../types';
import type { WorkspaceContext } from '../store/workspaceContext';
import { ContextCache, type ContextSource } from '../engine/contextCache';
import { readWorkflowBytes } from '../engine/workflowReader';
import { nodeFileSystem } from '../store/nodeFileSystem';
import type { FileSystem } from '../ports';
import { WaymarkError, errorMessage } from '../errors';
import { parseWorkflowText } from '../model/workflow';
import { splitFrontmatter } from '../model/frontmatter';
import { sha256 } from '../model/hash';

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

/** Contexts for protocol calls made outside a core (tests, one-off scripts): re-validated per lookup. */
const standalone = new ContextCache([], { revalidate: true });

/** The root's workspace context from `source` (a core's cache), else from the standalone cache. */
export function contextFor(root: string, source?: ContextSource): Promise<WorkspaceContext> {
  return (source ?? standalone).contextOfRoot(root);
}

export function bodyHashOf(text: string): string {
  const split = splitFrontmatter(text);
  return sha256(split.hasFrontmatter && split.closed ? split.body : text);
}

/** Reads and parses one workflow file through the core's one reader; never throws for a missing or broken file. */
export function readWorkflowFile(ctx: WorkspaceContext, file: string, fs: FileSystem = nodeFileSystem): FileRead {
  let text: string;
  let mtimeMs: number;
  try {
    const r = readWorkflowBytes(file, ctx, fs);
    text = r.text;
    mtimeMs = r.stat.mtimeMs;
  } catch (e) {
    return { file, exists: false, error: WaymarkError.is(e) ? e.message : `cannot read ${file}: ${errorMessage(e)}` };
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
export async function listWorkflowFiles(root: string, source?: ContextSource): Promise<FileRead[]> {
  const ctx = await contextFor(root, source);
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
