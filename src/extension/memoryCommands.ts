// Memory commands: record a decision or a learning, recall, the knowledge graph, sessions.
// Declared with access `memory`: the runner refuses them in Restricted Mode before the store opens.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LEARNING_CATEGORIES, WaymarkError } from '../core/index';
import type { WorkflowState } from '../core/index';
import { toArgs, type CommandRunner } from './commandRunner';
import type { MemoryAccess } from './memoryAccess';
import { graphHtml } from './memoryGraph';
import type { MemoryTree } from './memoryTree';
import { sourceText } from './memoryTree';
import type { ExtensionModel } from './model';

/** What a caller can pass to the record commands instead of answering prompts. */
interface RecordArgs {
  file?: string;
  step?: string | null;
  text: string;
  rationale?: string;
  alternatives?: string[];
  category?: string;
}

export function registerMemoryCommands(run: CommandRunner, model: ExtensionModel, memory: MemoryAccess, tree: MemoryTree): void {
  const rootOf = (file?: string) => {
    const root = memory.rootFor(file);
    if (!root) throw new WaymarkError('usage', 'Open a folder first: memory lives in a workspace folder.');
    return root;
  };

  /**
   * Records a decision or learning. Asks for each part; a caller (a script, a test, a keybinding)
   * can give them instead: `{ file, step?, text, rationale?, alternatives?, category? }`, and
   * then nothing is asked. Returns what the memory service stored.
   */
  const record = async (type: 'decision' | 'learning', arg: unknown) => {
    const given = arg && typeof arg === 'object' && typeof (arg as { text?: unknown }).text === 'string' ? (arg as RecordArgs) : undefined;
    if (given && !given.text.trim()) throw new WaymarkError('usage', 'the text is empty');
    const wf = await run.optionalTarget(arg);
    if (!wf) return undefined;
    const step = given ? (given.step ?? null) : wf.state ? await pickStep(wf.state, arg) : null;
    if (step === undefined) return undefined;
    let category: string | undefined;
    if (type === 'learning') {
      if (given) {
        category = given.category ?? 'pattern';
        if (!(LEARNING_CATEGORIES as readonly string[]).includes(category)) throw new WaymarkError('usage', `unknown learning category "${category}" (one of ${LEARNING_CATEGORIES.join(', ')})`);
      } else {
        const pick = await vscode.window.showQuickPick(
          LEARNING_CATEGORIES.map((c) => ({ label: c })),
          { placeHolder: 'What kind of learning?' },
        );
        if (!pick) return undefined;
        category = pick.label;
      }
    }
    const text = given ? given.text.trim() : await vscode.window.showInputBox({ prompt: type === 'decision' ? 'What was decided?' : 'What was learned?', validateInput: (v) => (v.trim() ? undefined : 'Say something') });
    if (!text) return undefined;
    let rationale: string | undefined;
    let alternatives: string[] | undefined;
    if (type === 'decision' && given) {
      rationale = given.rationale;
      alternatives = given.alternatives?.filter((a) => typeof a === 'string' && a.trim());
    } else if (type === 'decision') {
      rationale = await vscode.window.showInputBox({ prompt: 'Why? (rationale, optional)' });
      if (rationale === undefined) return undefined;
      const alt = await vscode.window.showInputBox({ prompt: 'Alternatives considered (comma-separated, optional)' });
      if (alt === undefined) return undefined;
      alternatives = alt.split(',').map((s) => s.trim()).filter(Boolean);
    }
    const res = await memory.service(rootOf(wf.file)).record({
      type,
      text,
      category,
      rationale: rationale || undefined,
      alternatives,
      decidedBy: type === 'decision' ? 'user' : undefined,
      workflow: wf.file,
      step: step ?? undefined,
      agent: wf.state?.delegation?.agent,
    });
    tree.refresh();
    vscode.window.setStatusBarMessage(`$(check) Recorded ${type}${res.stored === 'inbox' ? ' (kept in the memory inbox)' : ''}`, 4000);
    return res;
  };

  run.add('recordDecision', (arg) => record('decision', arg));
  run.add('recordLearning', (arg) => record('learning', arg));

  run.add('recall', async (arg) => {
    const wf = await run.optionalTarget(arg);
    if (!wf) return undefined;
    const text = await vscode.window.showInputBox({ prompt: wf.file ? 'Filter by words (optional)' : 'Recall what? (words)' });
    if (text === undefined) return undefined;
    const root = rootOf(wf.file);
    const r = await memory.service(root).recall({ workflow: wf.file, text: text || undefined, limit: 50 });
    const items = r.items.map((i) => ({
      label: `${i.memory.type === 'decision' ? '$(law)' : i.memory.type === 'summary' ? '$(notebook)' : '$(lightbulb)'} ${i.memory.text.split('\n')[0]}`,
      description: `${i.reason}${i.superseded ? ' · superseded' : ''}`,
      detail: sourceText(i.memory),
      item: i,
    }));
    if (!items.length) {
      void vscode.window.showInformationMessage(r.degraded ? `Nothing recalled (memory degraded: ${r.degraded}).` : 'Nothing recalled.');
      return r;
    }
    const pick = await vscode.window.showQuickPick(items, { placeHolder: `${items.length} memories${r.engine === 'journal' ? ' (memory degraded: from the journal)' : ''}`, matchOnDetail: true });
    if (pick?.item.memory.source.workflow) await vscode.window.showTextDocument(vscode.Uri.file(path.resolve(root, pick.item.memory.source.workflow)));
    return r;
  });

  run.add('showGraph', async (arg) => {
    const t = await run.target(arg);
    if (!t) return undefined;
    const file = t.state.file;
    const g = await memory.service(rootOf(file)).neighbourhood(file, 2);
    const panel = vscode.window.createWebviewPanel('waymark.memoryGraph', `Memory: ${model.displayName(t.state)}`, vscode.ViewColumn.Beside, { enableScripts: false });
    panel.webview.html = graphHtml(g.center, g.entities, g.relations, g.memories, panel.webview.cspSource);
    return g.center;
  });

  run.add('sessionStart', async (arg) => {
    const a = toArgs(arg);
    const objective = a.message ?? (await vscode.window.showInputBox({ prompt: 'Session objective (optional)' }));
    if (objective === undefined) return undefined;
    const wf = a.file ? { file: a.file } : await run.optionalTarget(arg);
    const root = rootOf(wf?.file);
    const s = await memory.service(root).sessionStart({ objective: objective || undefined, workflow: wf?.file });
    tree.refresh();
    if (!a.quiet) {
      void vscode.window.showInformationMessage(`Session ${s.session.id} started; ${s.recall.length} memories recalled.`, 'Open Session State').then((b) => {
        if (b) void vscode.window.showTextDocument(vscode.Uri.file(memory.service(root).paths.hot));
      });
    }
    return s.session;
  });

  run.add('sessionEnd', async (arg) => {
    const a = toArgs(arg);
    const summary = a.message ?? (await vscode.window.showInputBox({ prompt: 'Session summary (optional: derived from the hot memory when empty)' }));
    if (summary === undefined) return undefined;
    const root = rootOf(a.file ?? vscode.window.activeTextEditor?.document.uri.fsPath);
    const r = await memory.service(root).sessionEnd({ summary: summary || undefined });
    tree.refresh();
    if (!a.quiet) void vscode.window.showInformationMessage(`Session ${r.session?.id ?? ''} ended; ${r.moved} notes moved to the cold memory file.`);
    return r;
  });
}

async function pickStep(state: WorkflowState, arg: unknown): Promise<string | null | undefined> {
  if (arg && typeof arg === 'object' && typeof (arg as { step?: unknown }).step === 'string') return (arg as { step: string }).step;
  if (!state.steps.length) return null;
  const items: (vscode.QuickPickItem & { step: string | null })[] = [{ label: '$(milestone) Whole workflow', step: null }, ...state.steps.map((s) => ({ label: s.id, description: s.title, step: s.id }))];
  const cur = items.find((i) => i.step === state.currentStep);
  if (cur) cur.description = `${cur.description ?? ''} (current)`.trim();
  const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Which step is it about?' });
  return pick ? pick.step : undefined;
}
