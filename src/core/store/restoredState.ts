import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import type { WorkflowState } from '../types';
import type { WorkspaceContext } from './workspaceContext';
import { defaultWorkspaceContext } from './workspaceContext';
import { analyzeSteps, parseWorkflowText, type StepAnalysis } from '../model/workflow';
import { lookupBmadWorkflow, resolveBmadStep } from '../bmad/artifacts';
import { YamlLocator } from '../model/positions';
import { splitFrontmatter } from '../model/frontmatter';
import { decodeValue, encodeValue, type Meta } from './indexCodec';
import { checkState, isObj } from './indexTrust';

/**
 * A workflow state as the scan index stores it (without what the entry or the context already
 * holds) and as it comes back: decoded, shape-checked, and given the parse-time annotations
 * (step analysis, YAML locator) that a fresh parse would have attached.
 */
let annotationKeys: { analysis?: symbol; locator?: symbol } | undefined;

/**
 * The symbols workflow.ts keeps a state's step analysis and YAML locator under, found on a
 * freshly parsed sample (workflow.ts does not export them).
 */
function annotations(): { analysis?: symbol; locator?: symbol } {
  if (annotationKeys) return annotationKeys;
  annotationKeys = {};
  try {
    const parsed = parseWorkflowText('/waymark-sample.md', '---\nworkflow: sample\nsteps: [a]\n---\n', defaultWorkspaceContext(path.resolve('/')), { contentHash: '' });
    for (const sym of parsed.state ? Object.getOwnPropertySymbols(parsed.state) : []) {
      if (sym.description === 'waymark.stepAnalysis') annotationKeys.analysis = sym;
      if (sym.description === 'waymark.locator') annotationKeys.locator = sym;
    }
  } catch {
    // no annotations: stepAnalysis() recomputes, cross-file problems fall back to line 0
  }
  return annotationKeys;
}

/** Step analysis exactly as normalize() in workflow.ts builds it. */
function restoreAnalysis(state: WorkflowState): StepAnalysis {
  const rawList = Array.isArray(state.data.stepsCompleted) ? (state.data.stepsCompleted as unknown[]) : [];
  const ids = state.dialect === 'waymark' ? state.stepsCompleted : rawList.map((e) => resolveBmadStep(e, state.stepsSource === 'bmad' ? state.steps : []));
  return analyzeSteps(state.steps, ids, state.dialect, rawList);
}

/**
 * A YAML locator for a restored state that reads the file's frontmatter only when a position is
 * asked for (cross-file problems), and only if the bytes still hash to the state's contentHash;
 * otherwise positions fall back to the first YAML line.
 */
class LazyYamlLocator extends YamlLocator {
  private loaded?: { yamlText: string; baseLine: number };
  constructor(
    private readonly file: string,
    private readonly contentHash: string,
    private readonly maxBytes: number,
  ) {
    super('', 1);
    // Should the base class define these as own fields, the prototype getters below take over.
    delete (this as { yamlText?: string }).yamlText;
    delete (this as { baseLine?: number }).baseLine;
  }

  load(): { yamlText: string; baseLine: number } {
    if (this.loaded) return this.loaded;
    this.loaded = { yamlText: '', baseLine: 1 };
    try {
      const st = fs.statSync(this.file);
      if (st.isFile() && st.size <= this.maxBytes) {
        const buf = fs.readFileSync(this.file);
        if (createHash('sha256').update(buf).digest('hex') === this.contentHash) {
          const split = splitFrontmatter(buf.toString('utf8'));
          this.loaded = { yamlText: split.yamlText, baseLine: split.yamlStartLine };
        }
      }
    } catch {
      // gone or unreadable since the scan: the fallback above stands
    }
    return this.loaded;
  }
}
Object.defineProperties(LazyYamlLocator.prototype, {
  // The setters swallow the base constructor's assignments.
  yamlText: { get(this: LazyYamlLocator) { return this.load().yamlText; }, set() {}, configurable: true },
  baseLine: { get(this: LazyYamlLocator) { return this.load().baseLine; }, set() {}, configurable: true },
});

/** One shared accessor (so restored states keep one hidden class): computes the analysis on first use. */
function analysisAccessor(sym: symbol): PropertyDescriptor {
  return {
    configurable: true,
    enumerable: false,
    get(this: WorkflowState) {
      const value = restoreAnalysis(this);
      Object.defineProperty(this, sym, { value, enumerable: false, writable: true, configurable: true });
      return value;
    },
    set(this: WorkflowState, value: unknown) {
      Object.defineProperty(this, sym, { value, enumerable: false, writable: true, configurable: true });
    },
  };
}
let analysisDescriptor: PropertyDescriptor | undefined;

export function annotate(state: WorkflowState, ctx: WorkspaceContext): void {
  const keys = annotations();
  if (keys.analysis) Object.defineProperty(state, keys.analysis, (analysisDescriptor ??= analysisAccessor(keys.analysis)));
  // Only delegation problems (cross-file) ask a state for positions after its parse.
  if (keys.locator && state.delegation) Object.defineProperty(state, keys.locator, locatorAccessor(keys.locator, ctx.config.limits.maxFileBytes));
}

/** Shared accessors (one per size limit) that make a state's lazy locator when it is first asked for. */
const locatorDescriptors = new Map<number, PropertyDescriptor>();

function locatorAccessor(sym: symbol, maxBytes: number): PropertyDescriptor {
  let d = locatorDescriptors.get(maxBytes);
  if (!d) {
    const own = (state: WorkflowState, value: unknown) => Object.defineProperty(state, sym, { value, enumerable: false, writable: true, configurable: true });
    d = {
      configurable: true,
      enumerable: false,
      get(this: WorkflowState) {
        const value = new LazyYamlLocator(this.file, this.contentHash, maxBytes);
        own(this, value);
        return value;
      },
      set(this: WorkflowState, value: unknown) {
        own(this, value);
      },
    };
    locatorDescriptors.set(maxBytes, d);
  }
  return d;
}

/** The installed BMAD workflow a workflow id names (as normalize() looks it up). */
function bmadLookup(ctx: WorkspaceContext, workflow: string) {
  return lookupBmadWorkflow(ctx.bmad, workflow);
}

/** Steps shared with the context (BMAD catalog, definition) are stored as a reference, restored as the same object. */
function stepsRef(state: WorkflowState, ctx: WorkspaceContext): 'bmad' | 'def' | undefined {
  if (state.stepsSource === 'bmad' && bmadLookup(ctx, state.workflow)?.steps === state.steps) return 'bmad';
  if (state.stepsSource === 'definition' && ctx.definitions.get(state.workflow)?.steps === state.steps) return 'def';
  return undefined;
}

/** Encodes a state without what the entry or context already holds (file, root, content hash, shared steps). */
export function encodeState(state: WorkflowState, ctx: WorkspaceContext): [unknown, Meta | undefined] {
  const copy: Record<string, unknown> = { ...state };
  copy.file = 0;
  copy.root = 0;
  copy.contentHash = 0;
  const ref = stepsRef(state, ctx);
  if (ref) copy.steps = ref;
  copy.problems = state.problems.map((p) => (p.file === state.file ? { ...p, file: 0 } : p));
  return encodeValue(copy);
}

export function decodeState(payload: unknown, entry: { file: string; hash: string }, ctx: WorkspaceContext): WorkflowState | undefined {
  if (!Array.isArray(payload) || payload.length !== 2) return undefined;
  const v = decodeValue(payload[0], payload[1] ?? undefined);
  if (!isObj(v) || Object.getPrototypeOf(v) !== Object.prototype || v.file !== 0 || v.root !== 0 || v.contentHash !== 0) return undefined;
  v.file = entry.file;
  v.root = ctx.root;
  v.contentHash = entry.hash;
  if (v.steps === 'bmad' || v.steps === 'def') {
    const steps = v.steps === 'bmad' ? bmadLookup(ctx, String(v.workflow))?.steps : ctx.definitions.get(String(v.workflow))?.steps;
    if (!steps) return undefined;
    v.steps = steps;
  }
  if (Array.isArray(v.problems)) for (const p of v.problems) if (isObj(p) && p.file === 0) p.file = entry.file;
  return checkState(v, entry.file, ctx.root) ? v : undefined;
}
