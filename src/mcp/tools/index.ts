// The one table of Waymark's agent tools, shared by the MCP server (src/mcp/server.ts) and the
// VS Code language-model tools (src/extension/lmTools.ts): name, description (when to use it
// and when not), zod input and output schemas, annotations, and a handler over the core.
// Each kind of tool lives beside this file (workspace, workflow, memory, protocol); this file
// assembles the table and shapes every answer.
import { EXIT_CODES, WaymarkError, errorMessage } from '../../core/index';
import type { WaymarkErrorReason } from '../../core/index';
import { relativeTo } from '../host';
import type { ToolHost } from '../host';
import type { WaymarkTool } from './shared';
import { memoryRecall, memoryRecord } from './memory';
import { board, lease, next } from './protocol';
import { advance, gate, resumeTool, setStatus, status } from './workflow';
import { fixTool, summary, validate } from './workspace';
import { storySetStatus } from './stories';

export type { WaymarkTool };

/** Every tool, in the order agents see them. */
export const TOOLS: WaymarkTool[] = [summary, status, resumeTool, next, board, advance, setStatus, storySetStatus, gate, validate, fixTool, memoryRecall, memoryRecord, lease] as unknown as WaymarkTool[];

// ---- answers -----------------------------------------------------------------------------

/** One line saying what to do about a failure, per reason. */
export const ADVICE: Record<WaymarkErrorReason, string> = {
  usage: 'Fix the arguments (see the tool description) and call again.',
  unreadable: 'Check the path with waymark_summary; the file must be a readable UTF-8 workflow file inside the workspace.',
  invalid: 'Run waymark_validate on the file, fix the problem it names, then retry.',
  conflict: 'The file changed since you read it: call waymark_status for the new state and stateHash, decide again, then retry with that expectHash.',
  locked: 'Someone else holds the file or its lease: wait and retry, or ask its holder to release it.',
  'gate-closed': 'The step\'s gate is closed: get a PASS, CONCERNS or WAIVED verdict recorded (waymark_gate), then advance.',
  transition: 'The status rules refuse this move: read the allowed moves in the message; completed work is not moved backwards.',
  refused: 'Enforcement refuses this write: fix the error-level problems the message names (waymark_validate), or wait for the orchestrator that blocks the workflow; a person may force it from the CLI (--force, recorded in history).',
  io: 'The file system refused the write (read-only, full disk); nothing was changed unless the message says so.',
  unavailable: 'This is not available here (for example a workspace not trusted in VS Code); the message says why.',
};

/** A tool's answer, the same for MCP and VS Code. */
export interface ToolAnswer {
  isError: boolean;
  /** `JSON.stringify(structured)`, exactly (the MCP transport writes it as the structured content's JSON). */
  text: string;
  structured: Record<string, unknown>;
}

/** The error answer: the CLI's reason code and exit code, the message, and one line of advice. */
export function errorAnswer(e: unknown, roots: readonly string[]): ToolAnswer {
  const known = WaymarkError.is(e);
  const reason: WaymarkErrorReason = known ? e.reason : 'io';
  const file = known && e.file ? relativeTo(roots, e.file) : undefined;
  const structured = {
    error: {
      reason,
      exitCode: EXIT_CODES[reason],
      message: known ? e.message : `unexpected error: ${errorMessage(e)}`,
      ...(file ? { file } : {}),
      advice: ADVICE[reason],
      ...(known && e.data ? { data: e.data } : {}),
    },
  };
  return { isError: true, text: JSON.stringify(structured), structured };
}

/** The JSON text of each answer object, made once. */
const texts = new WeakMap<object, string>();

/** Validates the input, runs the tool, and shapes the answer (errors included). Never throws. */
export async function runTool(t: WaymarkTool, rawInput: unknown, host: ToolHost): Promise<ToolAnswer> {
  const input = checkedInput(t, rawInput ?? {});
  if (!input.ok) return errorAnswer(new WaymarkError('usage', `Invalid arguments for ${t.name}: ${input.message}.`), host.roots);
  try {
    const structured = (await t.run(input.data, host)) as Record<string, unknown>;
    // A read answered again from the warm model is the same object: serialised once.
    let text = texts.get(structured);
    if (text === undefined) texts.set(structured, (text = JSON.stringify(structured)));
    return { isError: false, text, structured };
  } catch (e) {
    return errorAnswer(e, host.roots);
  }
}

type Checked = { ok: true; data: never } | { ok: false; message: string };

/**
 * A read tool's arguments checked before, by their JSON: an agent asks the same few questions
 * again and again. Only flat arguments (strings, finite numbers, booleans: JSON says exactly what
 * they were) are kept, at most KEPT_INPUTS per tool; writes carry a new expectHash each time.
 */
const checkedInputs = new WeakMap<WaymarkTool, Map<string, Checked>>();
const KEPT_INPUTS = 256;

function checkedInput(t: WaymarkTool, raw: unknown): Checked {
  const key = t.annotations.readOnlyHint ? flatJson(raw) : undefined;
  let kept = key === undefined ? undefined : checkedInputs.get(t);
  const known = kept?.get(key!);
  if (known) return known;
  const parsed = t.input.safeParse(raw);
  if (!parsed.success) return { ok: false, message: parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') };
  if (key === undefined) return { ok: true, data: parsed.data as never };
  // Handed to every later call with the same arguments: frozen, so that no handler changes it for them.
  const checked: Checked = { ok: true, data: Object.freeze(parsed.data) as never };
  if (!kept) checkedInputs.set(t, (kept = new Map()));
  if (kept.size >= KEPT_INPUTS) kept.clear();
  kept.set(key, checked);
  return checked;
}

/** The JSON of a plain object whose values are strings, finite numbers or booleans; undefined for anything else. */
function flatJson(raw: unknown): string | undefined {
  if (raw === null || typeof raw !== 'object' || Object.getPrototypeOf(raw) !== Object.prototype) return undefined;
  for (const v of Object.values(raw)) if (!(typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)))) return undefined;
  return JSON.stringify(raw);
}
