import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The architecture's lint rules must fail on what they forbid: each violation is planted in a
// scratch copy of the project layout, linted with ESLint's Node API and the project's own
// eslint.config.mjs, and the rule that reports it is asserted (with a clean twin that must pass).

const repo = path.resolve(__dirname, '..', '..');

interface LintMessage {
  ruleId: string | null;
  message: string;
  severity: number;
}
interface LintResult {
  filePath: string;
  messages: LintMessage[];
}
interface ESLintLike {
  lintFiles(patterns: string[]): Promise<LintResult[]>;
}

let scratch: string;
let eslint: ESLintLike;

function plant(files: Record<string, string>): string[] {
  const written: string[] = [];
  for (const [rel, text] of Object.entries(files)) {
    const abs = path.join(scratch, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text);
    written.push(abs);
  }
  return written;
}

async function lint(files: Record<string, string>): Promise<Map<string, LintMessage[]>> {
  const paths = plant(files);
  const results = await eslint.lintFiles(paths);
  const out = new Map<string, LintMessage[]>();
  for (const r of results) out.set(path.relative(scratch, r.filePath).split(path.sep).join('/'), r.messages);
  return out;
}

function rules(messages: LintMessage[] | undefined): string[] {
  return (messages ?? []).filter((m) => m.severity === 2).map((m) => m.ruleId ?? `(fatal: ${m.message})`);
}

before(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-lint-'));
  fs.copyFileSync(path.join(repo, 'eslint.config.mjs'), path.join(scratch, 'eslint.config.mjs'));
  fs.symlinkSync(path.join(repo, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
  // A computed specifier keeps the bundler out: this is the installed ESLint, not a copy.
  const spec = require.resolve('eslint', { paths: [repo] });
  const mod = (await import(spec)) as { ESLint: new (o: { cwd: string }) => ESLintLike };
  eslint = new mod.ESLint({ cwd: scratch });
});

after(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('lint: the architecture rules fail on a planted violation', () => {
  test('a vscode import under src/core is an error; the same import in src/extension is not', async () => {
    const r = await lint({
      'src/core/model/bad.ts': "import * as vscode from 'vscode';\nexport const x = vscode;\n",
      'src/extension/fine.ts': "import * as vscode from 'vscode';\nexport const y = vscode;\n",
    });
    assert.deepEqual(rules(r.get('src/core/model/bad.ts')), ['no-restricted-imports']);
    assert.deepEqual(rules(r.get('src/extension/fine.ts')), []);
  });

  test('a face importing deep into the core is an error; through src/core/index.ts it is not', async () => {
    const r = await lint({
      'src/core/index.ts': "export { sha } from './model/hash';\n",
      'src/core/model/hash.ts': "export const sha = 1;\n",
      'src/cli/deep.ts': "import { sha } from '../core/model/hash';\nexport const a = sha;\n",
      'src/extension/deep.ts': "import type { Problem } from '../core/types';\nexport type P = Problem;\n",
      'src/mcp/deep.ts': "import { sha } from '../core/model/hash';\nexport const c = sha;\n",
      'src/hooks/deep.ts': "export { sha } from '../core/model/hash';\n",
      'src/cli/ok.ts': "import { sha } from '../core/index';\nexport const d = sha;\n",
      'src/extension/ok.ts': "import type { sha } from '../core/index';\nexport type S = typeof sha;\n",
    });
    for (const f of ['src/cli/deep.ts', 'src/extension/deep.ts', 'src/mcp/deep.ts']) assert.deepEqual(rules(r.get(f)), ['no-restricted-imports'], f);
    assert.deepEqual(rules(r.get('src/cli/ok.ts')), []);
    assert.deepEqual(rules(r.get('src/extension/ok.ts')), []);
    // A re-export is an import too: `export … from` a deep path is caught as well.
    assert.deepEqual(rules(r.get('src/hooks/deep.ts')), ['no-restricted-imports']);
  });

  test('an import cycle is an error on both sides; a type-only back edge is not a cycle', async () => {
    const r = await lint({
      'src/core/model/left.ts': "import { right } from './right';\nexport const left = () => right();\n",
      'src/core/model/right.ts': "import { left } from './left';\nexport const right = (): number => (left ? 1 : 0);\n",
      'src/core/model/up.ts': "import { down } from './down';\nexport interface Up { n: number }\nexport const up = () => down;\n",
      'src/core/model/down.ts': "import type { Up } from './up';\nexport const down = (u?: Up) => u?.n;\n",
    });
    assert.deepEqual(rules(r.get('src/core/model/left.ts')), ['import-x/no-cycle']);
    assert.deepEqual(rules(r.get('src/core/model/right.ts')), ['import-x/no-cycle']);
    assert.deepEqual(rules(r.get('src/core/model/up.ts')), []);
    assert.deepEqual(rules(r.get('src/core/model/down.ts')), []);
  });

  test('a disable comment for a rule that does not fire there is an error; a true one is not', async () => {
    const r = await lint({
      'src/core/store/stale.ts': "// eslint-disable-next-line @typescript-eslint/no-require-imports\nexport const n = 1;\n",
      'src/core/store/native.ts': "// eslint-disable-next-line @typescript-eslint/no-require-imports\nexport const k = require('node:os');\n",
      'src/core/store/bare.ts': "export const k = require('node:os');\n",
    });
    assert.equal(rules(r.get('src/core/store/stale.ts')).length, 1, 'the unused directive is reported');
    assert.deepEqual(rules(r.get('src/core/store/native.ts')), []);
    assert.deepEqual(rules(r.get('src/core/store/bare.ts')), ['@typescript-eslint/no-require-imports']);
  });
});
