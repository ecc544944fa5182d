import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// No import circles in src/, type-only imports counted too: a circle through `import type` still
// ties two files together (neither can move or be read alone). ESLint's import-x/no-cycle ignores
// type-only edges, so this walker reads the TypeScript sources' import specifiers itself.

const repo = path.resolve(__dirname, '..', '..');

/** Every relative specifier a file imports or re-exports (`import`, `import type`, `export … from`, `import()`). */
function specifiers(text: string): string[] {
  const out: string[] = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const re = /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/gm;
  for (let m = re.exec(code); m; m = re.exec(code)) out.push(m[1] ?? m[2]);
  return out;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...tsFiles(abs));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(abs);
  }
  return out;
}

function resolve(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  for (const c of [base, `${base}.ts`, path.join(base, 'index.ts')]) if (c.endsWith('.ts') && fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  return undefined;
}

/** The import circles under `dir`: each strongly connected group of files, as paths relative to `root`, sorted. */
function importCircles(dir: string, root: string): string[][] {
  const files = tsFiles(dir);
  const edges = new Map<string, string[]>();
  for (const f of files) edges.set(f, [...new Set(specifiers(fs.readFileSync(f, 'utf8')).map((s) => resolve(f, s)).filter((x): x is string => x !== undefined))]);
  // Tarjan's strongly connected components.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (edges.get(v) ?? []).includes(v)) out.push(group.map((g) => path.relative(root, g).split(path.sep).join('/')).sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

const tmp: string[] = [];
after(() => tmp.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('import circles', () => {
  test('the walker finds a circle closed by `import type`, by a re-export and by a dynamic import; a one-way chain is none', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-circles-'));
    tmp.push(root);
    const files: Record<string, string> = {
      'src/a.ts': "import { b } from './b';\nexport interface A { n: number }\nexport const a = b;\n",
      'src/b.ts': "import type { A } from './a';\nexport const b = (x?: A) => x?.n;\n",
      'src/c/index.ts': "export { d } from '../d';\nexport const c = 1;\n",
      'src/d.ts': "export const d = async () => (await import('./c')).c;\n",
      'src/e.ts': "import {\n  type A,\n  a,\n} from './a';\nexport const e = (x: A) => a(x);\n",
      'src/f.ts': "// import { g } from './g';\nimport { e } from './e';\nexport const f = e;\n",
      'src/g.ts': "import { f } from './f';\nexport const g = f;\n",
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    assert.deepEqual(importCircles(path.join(root, 'src'), root), [
      ['src/a.ts', 'src/b.ts'],
      ['src/c/index.ts', 'src/d.ts'],
    ]);
  });

  test('src/ has none (type-only imports counted)', () => {
    const circles = importCircles(path.join(repo, 'src'), repo);
    assert.deepEqual(circles, [], `import circles in src/ (move the shared types or the one function to a lower file):\n${circles.map((c) => `  ${c.join(' <-> ')}`).join('\n')}`);
  });
});
