import * as path from 'node:path';
import { parse as parseYaml } from './yamlDepth';
import type { Problem, StepDef } from '../types';
import { readRegularFile } from '../store/safeRead';
import { readdirAsync } from '../store/asyncFs';
import { exactArray, quoted } from './text';

/** A native workflow definition, `.waymark/workflows/<id>.yaml`. */
export interface WorkflowDefinition {
  id: string;
  title?: string;
  steps: StepDef[];
  /** Absolute path of the definition file. */
  file: string;
}

const zero = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** Normalizes a `steps` list (ids or `{id, title, gate}` objects) into StepDefs. Returns the bad entries' indexes. */
export function normalizeStepList(list: unknown[]): { steps: StepDef[]; bad: number[]; duplicates: string[] } {
  const steps: StepDef[] = [];
  const bad: number[] = [];
  const duplicates: string[] = [];
  const seen = new Set<string>();
  list.forEach((entry, i) => {
    const id = typeof entry === 'string' || typeof entry === 'number' ? String(entry) : entry && typeof entry === 'object' && !Array.isArray(entry) ? (entry as { id?: unknown }).id : undefined;
    if (typeof id === 'string' && seen.has(id)) {
      // A step id twice would make order, resume and gates ambiguous: the first one counts.
      duplicates.push(id);
      return;
    }
    if (typeof id === 'string') seen.add(id);
    if (typeof entry === 'string' || typeof entry === 'number') {
      steps.push({ id: String(entry), index: steps.length + 1 });
    } else if (entry && typeof entry === 'object' && !Array.isArray(entry) && typeof (entry as { id?: unknown }).id === 'string') {
      const e = entry as { id: string; title?: unknown; gate?: unknown };
      const step: StepDef = { id: e.id, index: steps.length + 1 };
      if (typeof e.title === 'string') step.title = e.title;
      if (e.gate === true) step.gate = e.id;
      else if (typeof e.gate === 'string' && e.gate.trim()) step.gate = e.gate.trim();
      steps.push(step);
    } else {
      bad.push(i);
    }
  });
  return { steps: exactArray(steps), bad, duplicates };
}

/** Reads every `<id>.yaml`/`.yml` in the definitions folder. Missing folder → none. */
export async function loadDefinitions(dir: string): Promise<{ definitions: Map<string, WorkflowDefinition>; problems: Problem[] }> {
  const definitions = new Map<string, WorkflowDefinition>();
  const problems: Problem[] = [];
  let names: string[] = [];
  try {
    names = await readdirAsync(dir);
  } catch {
    return { definitions, problems };
  }
  for (const name of names.sort()) {
    if (!/\.ya?ml$/.test(name)) continue;
    const file = path.join(dir, name);
    try {
      const text = await readRegularFile(file, 1024 * 1024);
      const raw = parseYaml(text, { maxAliasCount: 50, logLevel: 'error' }) as unknown;
      const id = name.replace(/\.ya?ml$/, '');
      if (!raw || typeof raw !== 'object' || !Array.isArray((raw as { steps?: unknown }).steps)) {
        problems.push({ file, range: zero, severity: 'error', code: 'definition-invalid', message: `Workflow definition ${name} needs a 'steps' list (ids or {id, title, gate}).` });
        continue;
      }
      const { steps, bad, duplicates } = normalizeStepList((raw as { steps: unknown[] }).steps);
      if (duplicates.length) {
        problems.push({ file, range: zero, severity: 'error', code: 'definition-invalid', message: `Workflow definition ${name} lists step ${[...new Set(duplicates)].map((d) => `${quoted(d)}`).join(', ')} more than once; only the first counts. Give each step a unique id.` });
      }
      if (bad.length) {
        problems.push({ file, range: zero, severity: 'error', code: 'definition-invalid', message: `Workflow definition ${name}: steps entries ${bad.join(', ')} are neither ids nor {id: ...} objects; they are ignored.` });
      }
      const title = (raw as { title?: unknown }).title;
      // Shared by every file of this workflow: frozen so no reader can change it for the others.
      const shared = Object.freeze(steps.map((st) => Object.freeze(st))) as StepDef[];
      definitions.set(id, { id, title: typeof title === 'string' ? title : undefined, steps: shared, file });
    } catch (e) {
      problems.push({ file, range: zero, severity: 'error', code: 'definition-invalid', message: `Workflow definition ${name} could not be read: ${(e as Error).message.split('\n')[0]}. Fix the YAML.` });
    }
  }
  return { definitions, problems };
}
