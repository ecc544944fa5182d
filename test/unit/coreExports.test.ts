import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// src/core/index.ts exports what the faces use: every name it exports is imported by a face
// (src/extension, src/cli, src/mcp, src/hooks, src/action), a test or a benchmark. A name no one
// imports stays in its own module. Read with the installed TypeScript compiler (a computed
// specifier keeps the bundler out).

const repo = path.resolve(__dirname, '..', '..');
const INDEX = path.join(repo, 'src', 'core', 'index.ts');
const FACES = ['src/extension', 'src/cli', 'src/mcp', 'src/hooks', 'src/action', 'test', 'bench'];

type TS = typeof import('typescript');

function tsFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(abs) : /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [abs] : [];
  });
}

/** The names a file takes from src/core/index.ts: named imports and re-exports, `import('…').X` types, destructured `await import('…')`, `ns.X` of a namespace import. */
function namesTaken(ts: TS, file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const isIndex = (spec: string) => spec.startsWith('.') && [spec, `${spec}.ts`, path.join(spec, 'index.ts')].some((s) => path.resolve(path.dirname(file), s) === INDEX);
  const out = new Set<string>();
  const visit = (n: import('typescript').Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier) && isIndex(n.moduleSpecifier.text)) {
      const b = ts.isImportDeclaration(n) ? n.importClause?.namedBindings : n.exportClause;
      if (b && (ts.isNamedImports(b) || ts.isNamedExports(b))) for (const e of b.elements) out.add((e.propertyName ?? e.name).text);
      else if (b && ts.isNamespaceImport(b)) for (const m of text.matchAll(new RegExp(`\\b${b.name.text}\\.(\\w+)`, 'g'))) out.add(m[1]);
    }
    if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal) && isIndex(n.argument.literal.text) && n.qualifier) {
      out.add(ts.isIdentifier(n.qualifier) ? n.qualifier.text : (n.qualifier.left as import('typescript').Identifier).text);
    }
    if (ts.isVariableDeclaration(n) && ts.isObjectBindingPattern(n.name) && n.initializer && ts.isAwaitExpression(n.initializer)) {
      const call = n.initializer.expression;
      if (ts.isCallExpression(call) && call.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(call.arguments[0]) && isIndex(call.arguments[0].text)) {
        for (const e of n.name.elements) out.add(((e.propertyName ?? e.name) as import('typescript').Identifier).text);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test('every name src/core/index.ts exports is imported by a face, a test or a benchmark', async () => {
  const spec = require.resolve('typescript', { paths: [repo] });
  const ts = ((await import(spec)) as { default?: TS }).default ?? ((await import(spec)) as TS);
  const program = ts.createProgram([INDEX], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(INDEX)!)!).map((s) => s.name);
  assert.ok(exported.length > 50, `read ${exported.length} exports`);
  const taken = new Set(FACES.flatMap((d) => tsFiles(path.join(repo, d))).flatMap((f) => [...namesTaken(ts, f)]));
  const unused = exported.filter((n) => !taken.has(n)).sort();
  assert.deepEqual(unused, [], `exported from src/core/index.ts but imported by no face, test or benchmark (remove the export; the module keeps it): ${unused.join(', ')}`);
});
