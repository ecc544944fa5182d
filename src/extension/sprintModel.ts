// The sprint of every workspace folder (SprintModel), re-read when a ledger, story, epics or gate
// file changes, with one change event: what the Sprint view (sprintTree.ts) and the sprint
// features (sprintFeatures.ts) read.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { loadSprint, type SprintReport, type SprintStory } from '../core/index';
import { CONFIG_SECTION } from './constants';
import { RootReports } from './rootReports';
import type { ExtensionModel } from './model';

const SPRINT_FILES = /(?:^|[\\/])(sprint-status\.ya?ml|[^\\/]*epic[^\\/]*\.md|\d+[-.]\d+[a-z]?[-.][^\\/]*\.md|[^\\/]*\.ya?ml|gate-decision[^\\/]*\.json)$/i;

/** The sprint of every workspace folder, with one change event. */
export class SprintModel extends RootReports<SprintReport> {
  constructor(c: ExtensionModel) {
    super(c, '**/*.{md,yaml,yml,json}', /\.(md|ya?ml|json)$/i, 'sprint');
  }

  protected concerns(file: string): boolean {
    return SPRINT_FILES.test(file);
  }

  /** The ledgers' and the stories' folders. */
  protected override folders(r: SprintReport): string[] {
    return [...new Set([...r.ledgerFiles, ...r.stories.map((s) => s.file)].filter((f): f is string => !!f).map((f) => path.dirname(f)))];
  }

  protected read(root: string): SprintReport | undefined {
    const staleDays = vscode.workspace.getConfiguration(CONFIG_SECTION).get<number>('sprint.staleDays', 7);
    // bmad.dir / bmad.output come from the workspace's .waymark/config.yaml, as in every face. The
    // sprint cache file is written only where Waymark may write (never in an untrusted workspace).
    return loadSprint(root, { staleDays, cache: this.c.canWrite });
  }

  /** The story a file is (story file) or the story on a ledger line. */
  storyAt(file: string, line?: number): { report: SprintReport; story: SprintStory } | undefined {
    const report = this.reportFor(file);
    if (!report) return undefined;
    const abs = path.resolve(file);
    let story = report.stories.find((s) => s.file === abs);
    if (!story && report.ledgerFiles.includes(abs) && line !== undefined) story = report.stories.find((s) => s.ledgerLine === line && (s.ledgerFile ?? report.ledgerFile) === abs);
    return story ? { report, story } : undefined;
  }
}
