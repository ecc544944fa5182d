// Hovers on state keys and values explain the state; on a problem they say how to fix it.
// Anywhere in the frontmatter of a file someone holds an orchestrator lease on, the hover says
// who is writing it (Take over / Release); on a step, it lists the step's decisions and learnings.
import { fixTitle as coreFixTitle } from '../core/index';
import * as vscode from 'vscode';
import type { Problem, WorkflowState } from '../core/index';
import { COMMANDS } from './constants';
import type { ExtensionModel } from './model';
import { toRange } from './diagnostics';
import { keyAt, frontmatterLayout } from './frontmatterKeys';
import { STATUS_LABELS, activeStep, escapeMd, gateFor, gateLabel, progress, statusKey, stepKind, stepTitle } from './presentation';
import { leaseMarkdown } from './leases';

const STATUS_MEANING: Record<string, string> = {
  created: 'not started yet; **Start** moves it to `in_progress`',
  in_progress: 'being worked on; it can be blocked or completed',
  blocked: 'waiting on something (see `blockedReason`); **Unblock** resumes it',
  completed: 'all steps done; it can be archived (reopening sets it back to `in_progress`)',
  archived: 'finished and put away; no further transitions',
};

export class Hovers implements vscode.HoverProvider {
  constructor(
    private readonly c: ExtensionModel,
    /** The step's decisions and learnings from memory (none when the memory features are off). */
    private readonly memoryLines: (file: string, step: string) => Promise<string[]> = async () => [],
  ) {}

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position, token?: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    if (doc.uri.scheme !== 'file') return undefined;
    const state = this.c.get(doc.uri.fsPath);
    const problems = this.problemsAt(doc, pos);
    if (!state && !problems.length) return undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: [COMMANDS.applyFix, COMMANDS.openFile, COMMANDS.resume, COMMANDS.gateOpen, COMMANDS.openStepFile, COMMANDS.leaseTakeOver, COMMANDS.leaseRelease] };
    let range: vscode.Range | undefined;
    let lease: string[] = [];
    if (state) {
      const layout = frontmatterLayout(doc.getText());
      const inFrontmatter = !!layout && pos.line >= layout.openLine && pos.line <= (layout.closeLine ?? doc.lineCount - 1);
      lease = inFrontmatter ? leaseMarkdown(doc.uri.fsPath, this.c.leaseHolders(doc.uri.fsPath)) : [];
      const at = layout ? keyAt(layout, pos.line, pos.character) : undefined;
      if (at) {
        const r = at.item?.range ?? (at.onKey ? at.entry.keyRange : at.entry.valueRange ?? at.entry.keyRange);
        range = new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
        const step = this.explain(md, state, at.parent?.key ?? at.entry.key, at.parent ? at.entry.key : undefined, at.item?.value);
        if (step) {
          const lines = await this.memoryLines(state.file, step);
          if (token?.isCancellationRequested) return undefined;
          if (lines.length) md.appendMarkdown(`**Memory for \`${step}\`**\n\n${lines.map((l) => `- ${l}`).join('\n')}\n\n`);
        }
      } else if (lease.length) {
        range = doc.lineAt(pos.line).range;
      }
    }
    for (const p of problems) {
      md.appendMarkdown(`\n\n---\n\n${p.severity === 'error' ? '$(error)' : p.severity === 'warning' ? '$(warning)' : '$(info)'} **${p.code}**: ${p.message}`);
      if (p.data?.fix) {
        const arg = encodeURIComponent(JSON.stringify([{ file: p.file, problem: p }]));
        md.appendMarkdown(`\n\n[$(lightbulb) Fix: ${fixTitle(p)}](command:${COMMANDS.applyFix}?${arg})`);
      }
      range ??= toRange(p.range);
    }
    if (lease.length) {
      // Who is writing the file comes first, above what the key means.
      const rest = md.value.trim().replace(/^---\s*/, '');
      md.value = `${lease.join('\n\n')}${rest ? `\n\n---\n\n${rest}` : ''}`;
    }
    if (!md.value.trim()) return undefined;
    return new vscode.Hover(md, range);
  }

  private problemsAt(doc: vscode.TextDocument, pos: vscode.Position): Problem[] {
    return this.c.problemsFor(doc.uri.fsPath).filter((p) => {
      const r = toRange(p.range);
      return r.contains(pos) || (r.isEmpty && r.start.line === pos.line);
    });
  }

  /** Explains the key under the cursor; returns the step it is about, if any (for its memories). */
  private explain(md: vscode.MarkdownString, s: WorkflowState, key: string, child?: string, item?: string): string | undefined {
    let about: string | undefined;
    const step = activeStep(s);
    const line = (t: string) => md.appendMarkdown(`${t}\n\n`);
    line(`**${this.c.displayName(s)}**${this.c.displayName(s) !== s.workflow ? ` (\`${s.workflow}\`)` : ''} · ${STATUS_LABELS[statusKey(s)] ?? s.rawStatus ?? 'no status'} · ${progress(s)} steps`);
    // BMAD: a status derived from the steps (never written) and the rule that identified the workflow.
    if (s.statusDerived) line(`_No status key: ${(STATUS_LABELS[statusKey(s)] ?? s.status ?? '').toLowerCase()} (from steps); Waymark does not write it._`);
    const standing = this.c.standing(s);
    if (standing) line(`_Shown as ${(STATUS_LABELS[standing.status] ?? standing.status).toLowerCase()}: ${escapeMd(standing.message)} (the board and \`waymark next\` read it so)._`);
    if (s.identifiedBy) line(`_Workflow identified by ${s.identifiedBy}${s.identifiedDetail ? ` (\`${s.identifiedDetail}\`)` : ''}._`);
    switch (key) {
      case 'status':
        line(s.status ? `\`${s.rawStatus ?? s.status}\`: ${STATUS_MEANING[s.status]}.` : `\`${s.rawStatus ?? ''}\` is not a status Waymark knows (created, in_progress, blocked, completed, archived).`);
        break;
      case 'currentStep':
      case 'current_step':
      case 'lastStep':
      case 'steps':
      case 'stepsCompleted': {
        const id = item !== undefined ? normalizeStep(s, item) : key === 'lastStep' ? s.lastStep : key === 'stepsCompleted' || key === 'steps' ? undefined : step;
        const def = id ? s.steps.find((x) => x.id === id) : undefined;
        if (def) {
          about = def.id;
          const kind = stepKind(s, def);
          line(`Step **${stepTitle(def)}**, ${def.index} of ${s.steps.length}: ${kind}.`);
          const g = gateFor(s, def);
          if (g) line(`Gate \`${g.name}\`: **${gateLabel(g)}**${g.reviewer ? ` by ${g.reviewer}` : ''}${g.open ? '' : ' — closed: advancing past this step is refused until it passes or is waived'}.`);
          if (def.file) line(`[$(file-symlink-file) Open step file](command:${COMMANDS.openStepFile}?${encodeURIComponent(JSON.stringify([{ file: s.file, step: def.id }]))})`);
        } else if (id) {
          line(`\`${id}\` is not a step of this workflow.`);
        } else if (key === 'stepsCompleted') {
          line(`${s.stepsCompleted.length} step(s) recorded as done.`);
        }
        if (s.nextStep) line(`Next to do: \`${s.nextStep}\`${s.nextStep !== step && step ? ` (current: \`${step}\`)` : ''}.`);
        else if (s.steps.length) line('Every step is done.');
        if (s.stepsSource !== 'frontmatter' && s.steps.length) line(`_Steps from the ${s.stepsSource === 'bmad' ? 'installed BMAD workflow' : 'workflow definition'}._`);
        break;
      }
      case 'delegation': {
        const d = s.delegation;
        if (!d) break;
        if (child === 'parent_id' || child === 'root_id' || !child) {
          const parent = d.parent_id ? this.c.states().find((x) => x.delegation?.id === d.parent_id) : undefined;
          line(d.parent_id ? `Delegated by \`${d.parent_id}\`${parent ? ` (${parent.workflow}, ${this.c.relative(parent.file)})` : ' — not found in the workspace'}.` : 'The root of its delegation chain.');
        }
        line(`Chain: ${d.chain_path.map((x) => `\`${x}\``).join(' → ')} · depth ${d.depth}${d.agent ? ` · agent \`${d.agent}\`` : ''}`);
        const children = this.c.states().filter((x) => x.delegation?.parent_id === d.id);
        if (children.length) line(`Delegates to: ${children.map((x) => `\`${x.delegation!.id}\`${x.delegation!.agent ? ` (${x.delegation!.agent})` : ''}`).join(', ')}`);
        break;
      }
      case 'blockedReason':
        line(s.status === 'blocked' ? 'Why the workflow is blocked. **Unblock** clears it.' : 'A leftover reason: the workflow is not blocked.');
        break;
      case 'scope':
        line(`Scope \`${s.scope ?? '?'}\`: one of micro, small, medium, large, epic.`);
        break;
      case 'workflow':
      case 'workflowType':
        line(`Workflow id; ${s.steps.length} step(s) from ${s.stepsSource}.`);
        if (step) line(`Current step: \`${step}\`.`);
        break;
      default:
        break;
    }
    return about;
  }
}

function normalizeStep(s: WorkflowState, raw: string): string {
  if (s.steps.some((x) => x.id === raw)) return raw;
  const noExt = raw.replace(/\.md$/, '');
  if (s.steps.some((x) => x.id === noExt)) return noExt;
  const n = Number(raw);
  if (Number.isInteger(n)) {
    const byIndex = s.steps.find((x) => x.index === n) ?? s.steps.find((x) => new RegExp(`^step-0*${n}-`).test(x.id));
    if (byIndex) return byIndex.id;
  }
  return raw;
}

/** A quick fix's title, from the core's registry of fixes (model/problems.ts). */
export function fixTitle(p: Problem): string {
  return coreFixTitle(p);
}
