// What every benchmark of `npm run bench` needs: its options, timing, and the figures' statistics.
// Generators of workspaces stay with the bench that measures them (each measures a different shape).
import * as fs from 'node:fs';
import * as path from 'node:path';

/** `--name N` from the command line: a positive number, else `def`. */
export function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : def;
}

/** The value below which `p` percent of `xs` lie (nearest rank; `xs` need not be sorted). */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

/** Milliseconds `fn` took. */
export function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

export async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Milliseconds of each of `rounds` calls of `fn`, one after the other. */
export async function timeRounds<T>(rounds: number, fn: (i: number) => Promise<T> | T): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = process.hrtime.bigint();
    await fn(i);
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

/** One figure as scripts/bench.mjs reads it: `name value`. */
export function line(name: string, v: number, digits = 3): void {
  console.log(`${name} ${Number(v.toFixed(digits))}`);
}

/**
 * A generated feature workflow of ~1 KB with ~20 lines of frontmatter (i-th of many: status,
 * step and scope vary with `i`), as the scan and MCP benchmarks read them; `extra` lines go in
 * before `owner:` and after `tags:`.
 */
export function featureFile(i: number, bench: string, extra: { beforeOwner?: string[]; afterTags?: string[] } = {}): string {
  const steps = ['design', 'implement', 'test', 'review', 'release'];
  const done = i % 5;
  return [
    '---',
    `# workflow ${i}: generated for the ${bench} benchmark`,
    'workflow: feature',
    `title: "Feature number ${i}"`,
    `status: ${done === 0 ? 'created' : 'in_progress'}`,
    `steps: [${steps.join(', ')}]`,
    `currentStep: ${steps[done]}`,
    `stepsCompleted: [${steps.slice(0, done).join(', ')}]`,
    `scope: ${['micro', 'small', 'medium', 'large', 'epic'][i % 5]}`,
    `session: sess-${i % 97}`,
    "updatedAt: '2026-11-20T10:00:00Z'",
    ...(extra.beforeOwner ?? []),
    'owner: bench',
    'tags: [generated, bench, waymark]',
    ...(extra.afterTags ?? []),
    '---',
    '',
    `# Feature ${i}`,
    '',
    'Some body text that describes the work in a few sentences. '.repeat(8),
    '',
  ].join('\n');
}

/** Memory's cold file (`.waymark/memory/orchestrator_memory.md`) made `kb` KB long with completed-step lines, as months of advances leave it; nothing for 0. */
export function coldFile(root: string, kb: number): void {
  if (kb <= 0) return;
  const lines = ['# Orchestrator memory', '', '<!-- Waymark cold memory: append-only. Historic entries are never edited. -->', '', '## Key decisions', '', '## Learned context', '', '## Preferences', '', '## Blockers', '', '## Session history', ''];
  let size = lines.join('\n').length;
  for (let i = 0; size < kb * 1024; i++) {
    const l = `- 2026-10-${String(1 + (i % 28)).padStart(2, '0')} feature (work/older-${i % 97}.workflow.md): step step-${String(1 + (i % 220)).padStart(3, '0')} completed`;
    lines.push(l);
    size += l.length + 1;
  }
  fs.mkdirSync(path.join(root, '.waymark', 'memory'), { recursive: true });
  fs.writeFileSync(path.join(root, '.waymark', 'memory', 'orchestrator_memory.md'), `${lines.join('\n')}\n`);
}
