// Workspaces the unit tests build on disk: a temp folder (by its real path) with the files given.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Writes each file (relative path → text) under `root`, making the folders. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/**
 * A workspace folder with the files given; with `waymark` (default) a `.waymark` folder, with
 * `config` also its `config.yaml`.
 */
export function workspace(files: Record<string, string>, opts: { prefix?: string; waymark?: boolean; config?: string } = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix ?? 'wm-ws-')));
  if (opts.waymark !== false || opts.config !== undefined) fs.mkdirSync(path.join(root, '.waymark'));
  if (opts.config !== undefined) fs.writeFileSync(path.join(root, '.waymark', 'config.yaml'), opts.config);
  writeFiles(root, files);
  return root;
}
