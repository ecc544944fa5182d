// First run: the Getting Started walkthrough's commands. "Install the waymark command" puts a
// small launcher for the CLI shipped inside the extension on the PATH (VS Code's own Node runs
// it, so nothing else needs installing); "New Workflow File" writes a workflow from a template.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WaymarkError, errorMessage } from '../core/index';
import type { CommandRunner } from './commandRunner';
import { EXTENSION_ID, WALKTHROUGH_ID } from './constants';

/** Every launcher we write says so on its second line: we only ever replace our own. */
const MARKER = 'Installed by the Waymark extension';

interface Launcher {
  file: string;
  text: string;
}

/** The launcher scripts for this platform, pointing at this copy of the extension. */
export function launchers(cliPath: string, nodePath: string, binDir: string, home = os.homedir()): Launcher[] {
  if (process.platform === 'win32') {
    const text = `@echo off\r\nREM ${MARKER}: runs its bundled CLI with VS Code's own Node.\r\nset ELECTRON_RUN_AS_NODE=1\r\n"${nodePath}" "${cliPath}" %*\r\n`;
    return [{ file: path.join(binDir, 'waymark.cmd'), text }];
  }
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const text = `#!/bin/sh\n# ${MARKER}: runs its bundled CLI with VS Code's own Node.\nELECTRON_RUN_AS_NODE=1 exec ${q(nodePath)} ${q(cliPath)} "$@"\n`;
  return [
    { file: path.join(binDir, 'waymark'), text },
    // The usual per-user bin folder, so terminals outside VS Code and agents find it too.
    { file: path.join(home, '.local', 'bin', 'waymark'), text },
  ];
}

function ours(file: string): boolean {
  try {
    return fs.readFileSync(file, 'utf8').includes(MARKER);
  } catch {
    return false;
  }
}

/** Writes each launcher that is missing or ours (never someone else's `waymark`); returns what it did. */
export function writeLaunchers(list: Launcher[]): { written: string[]; skipped: string[] } {
  const written: string[] = [];
  const skipped: string[] = [];
  for (const l of list) {
    if (fs.existsSync(l.file) && !ours(l.file)) {
      skipped.push(l.file);
      continue;
    }
    fs.mkdirSync(path.dirname(l.file), { recursive: true });
    const tmp = `${l.file}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, l.text, { mode: 0o755 });
    fs.renameSync(tmp, l.file);
    written.push(l.file);
  }
  return { written, skipped };
}

function onPath(dir: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((p) => path.resolve(p) === path.resolve(dir));
}

const TEMPLATES: { label: string; detail: string; workflow: string; steps: (string | { id: string; gate: true | string })[] }[] = [
  {
    label: 'Feature delivery',
    detail: 'discovery → design (gated) → implement → review (gated) → release',
    workflow: 'feature-delivery',
    steps: ['discovery', { id: 'design', gate: true }, 'implement', { id: 'review', gate: 'review' }, 'release'],
  },
  { label: 'Bug fix', detail: 'reproduce → fix → verify (gated)', workflow: 'bug-fix', steps: ['reproduce', 'fix', { id: 'verify', gate: true }] },
  { label: 'Research spike', detail: 'question → explore → write up', workflow: 'spike', steps: ['question', 'explore', 'write-up'] },
];

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
}

/** The text of a new workflow file: its own steps inline, so it stands without a definition. */
export function workflowTemplate(title: string, t: (typeof TEMPLATES)[number]): string {
  const steps = t.steps.map((s) => (typeof s === 'string' ? s : s.gate === true ? `{id: ${s.id}, gate: true}` : `{id: ${s.id}, gate: ${s.gate}}`));
  const first = typeof t.steps[0] === 'string' ? t.steps[0] : t.steps[0].id;
  return [
    '---',
    `workflow: ${t.workflow}`,
    'status: created',
    `currentStep: ${first}`,
    'stepsCompleted: []',
    `steps: [${steps.join(', ')}]`,
    'scope: medium',
    '---',
    `# ${title}`,
    '',
    'What this workflow is for, and what "done" means.',
    '',
  ].join('\n');
}

export function registerOnboarding(run: CommandRunner, context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const cliPath = context.asAbsolutePath(path.join('dist', 'cli.js'));
  const binDir = path.join(context.globalStorageUri.fsPath, 'bin');
  const list = () => launchers(cliPath, process.execPath, binDir);
  const env = () => context.environmentVariableCollection.prepend('PATH', binDir + path.delimiter);

  // An update moves the extension to a new folder: refresh launchers we wrote before, quietly.
  setTimeout(() => {
    try {
      const stale = list().filter((l) => ours(l.file) && fs.readFileSync(l.file, 'utf8') !== l.text);
      if (stale.length) writeLaunchers(stale);
      if (fs.existsSync(list()[0].file)) env();
    } catch (e) {
      log.warn(`[onboarding] could not refresh the waymark launcher: ${errorMessage(e)}`);
    }
  }, 2000).unref?.();

  // Writes outside the workspace only (the user's bin folders): allowed in Restricted Mode.
  run.add('installCli', async () => {
    if (!fs.existsSync(cliPath)) throw new WaymarkError('unavailable', `the bundled CLI is missing at ${cliPath}; reinstall the extension`);
    const { written, skipped } = writeLaunchers(list());
    env();
    const userBin = written.find((f) => !f.startsWith(binDir));
    const hint = userBin && !onPath(path.dirname(userBin)) ? ` Add ${path.dirname(userBin)} to PATH for terminals outside VS Code.` : '';
    const skip = skipped.length ? ` Left alone (not ours): ${skipped.join(', ')}.` : '';
    log.info(`[onboarding] waymark launcher written: ${written.join(', ')}${skip}`);
    void vscode.window.showInformationMessage(`The waymark command is installed (${written.join(', ')}). Open a new terminal and run "waymark --version".${hint}${skip}`);
    return { written, skipped, cli: cliPath, node: process.execPath };
  });

  run.add('newWorkflow', async (arg?: unknown) => {
    const a = (arg && typeof arg === 'object' ? arg : {}) as { title?: string; template?: string; folder?: string };
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
    if (!folders.length) throw new WaymarkError('usage', 'open a folder first');
    const folder = a.folder ? folders.find((f) => f.uri.fsPath === a.folder) : folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Where should the workflow file go?' });
    if (!folder) return undefined;
    const pick = a.template
      ? TEMPLATES.find((t) => t.workflow === a.template)
      : await vscode.window.showQuickPick(TEMPLATES.map((t) => ({ ...t, description: t.workflow })), { placeHolder: 'Which kind of workflow?' });
    if (!pick) return undefined;
    const title = a.title ?? (await vscode.window.showInputBox({ prompt: 'Title of the workflow', placeHolder: 'Refactor session handling', validateInput: (v) => (slug(v) ? undefined : 'Use letters or digits') }));
    if (!title || !slug(title)) return undefined;
    const file = path.join(folder.uri.fsPath, 'workflows', `${slug(title)}.md`);
    if (fs.existsSync(file)) throw new WaymarkError('usage', `${vscode.workspace.asRelativePath(file)} already exists; choose another title`, file);
    const edit = new vscode.WorkspaceEdit();
    const uri = vscode.Uri.file(file);
    edit.createFile(uri, { ignoreIfExists: false, contents: Buffer.from(workflowTemplate(title, pick)) });
    if (!(await vscode.workspace.applyEdit(edit))) throw new WaymarkError('io', `could not create ${file}`, file);
    await vscode.window.showTextDocument(uri, { preview: false });
    return { file };
  });

  run.add('getStarted', async () => vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#${WALKTHROUGH_ID}`, false));
}
