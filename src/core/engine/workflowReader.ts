import { WaymarkError, errorMessage } from '../errors';
import type { FileStat, FileSystem } from '../ports';
import type { Problem, WorkflowState } from '../types';
import type { WorkspaceContext } from '../store/workspaceContext';
import { parseWorkflowText } from '../model/workflow';
import { nodeFileSystem } from '../store/nodeFileSystem';
import { encodingRefusal } from '../store/safeRead';


/** A workflow file as the write path reads it: its text, its state and its per-file problems. */
export interface ReadFile {
  text: string;
  state: WorkflowState;
  problems: Problem[];
}

/**
 * Reads a workflow file's text for editing, refusing with a WaymarkError ('unreadable') what
 * Waymark must not edit: missing, not a regular file, over the size limit, UTF-16 or binary.
 */
export function readWorkflowText(abs: string, ctx: WorkspaceContext, fs: FileSystem = nodeFileSystem): string {
  return readWorkflowBytes(abs, ctx, fs).text;
}

/** readWorkflowText with the file's stat (the protocol dates a frontmatter by its mtime). */
export function readWorkflowBytes(abs: string, ctx: WorkspaceContext, fs: FileSystem = nodeFileSystem): { text: string; stat: FileStat } {
  let st: FileStat;
  try {
    st = fs.stat(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new WaymarkError('unreadable', `${abs} does not exist (deleted or moved since it was read?); rescan and retry.`, abs);
    throw new WaymarkError('unreadable', `Cannot read ${abs}: ${errorMessage(e)}.`, abs);
  }
  if (!st.isFile()) throw new WaymarkError('unreadable', `${abs} is not a file (a directory, pipe, socket or device named like a workflow file); point at a regular workflow file.`, abs);
  const max = ctx.config.limits.maxFileBytes;
  if (st.size > max) throw new WaymarkError('unreadable', `${abs} is ${st.size} bytes, over the ${max}-byte limit (limits.maxFileBytes in .waymark/config.yaml); Waymark will not edit it.`, abs);
  let buf: Buffer;
  try {
    const bytes = fs.readFile(abs, max);
    buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTREG') throw new WaymarkError('unreadable', `${abs} is not a regular file (it was replaced by a pipe, socket or folder); point at a regular workflow file.`, abs);
    if (code === 'EFBIG') throw new WaymarkError('unreadable', `${abs} grew over the ${max}-byte limit (limits.maxFileBytes in .waymark/config.yaml) while being read; Waymark will not edit it.`, abs);
    if (code === 'ENOENT') throw new WaymarkError('unreadable', `${abs} was deleted while being read; rescan and retry.`, abs);
    throw new WaymarkError('unreadable', `Cannot read ${abs}: ${errorMessage(e)}.`, abs);
  }
  const refusal = encodingRefusal(buf);
  if (refusal) throw new WaymarkError('unreadable', `${abs} is ${refusal.message}.`, abs, { encoding: refusal.reason });
  return { text: buf.toString('utf8'), stat: st };
}

/** Parses a workflow's text; refuses ('invalid' or 'usage') text that is not a workflow. */
export function parseWorkflowFile(abs: string, text: string, ctx: WorkspaceContext): ReadFile {
  const parsed = parseWorkflowText(abs, text, ctx);
  if (!parsed.isWorkflow || !parsed.state) {
    const first = parsed.problems.find((p) => p.severity === 'error');
    if (first) throw new WaymarkError('invalid', `${abs}:${first.range.start.line + 1}: ${first.message}`, abs, { code: first.code });
    throw new WaymarkError('usage', `${abs} is not a workflow file: its frontmatter has no workflow, workflowType, steps or stepsCompleted key. Point at a workflow file, or add \`workflow: <id>\` to its frontmatter.`, abs);
  }
  return { text, state: parsed.state, problems: parsed.problems };
}
