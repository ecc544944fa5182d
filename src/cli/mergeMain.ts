import { runCli } from './framework';
import { mergeDriverCommand } from './gitCommands';
import { cwdProblem } from './cwd';

/**
 * `waymark merge-driver` (bundled as cli-merge.js; dist/cli.js, the launcher, loads it): git runs
 * the driver once per conflicting file of a merge, so it loads only what merging needs.
 */
export function mergeDriverMain(argv: string[]): void {
  const noCwd = cwdProblem();
  if (noCwd) {
    process.stderr.write(`waymark: ${noCwd}\n`);
    process.exitCode = 2;
    return;
  }
  runCli([mergeDriverCommand], argv, { cwd: process.cwd(), stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) }).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`waymark: ${String(e)}\n`);
      process.exitCode = 2;
    },
  );
}
