// The architecture's rules, checked by `npm run lint` (and so by `npm test`):
// - the core never imports `vscode` (it runs in the CLI, the MCP server and hooks too);
// - a face (CLI, extension, MCP server, hooks) reaches the core only through src/core/index.ts;
// - no import cycles (type-only imports do not count: they vanish at build time);
// - `require()` only where a comment says why (native or optional modules), and a disable
//   comment that no longer suppresses anything is itself an error.
// test/unit/lint.test.ts plants each violation and asserts these rules report it.
import tseslint from 'typescript-eslint';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';

const CORE_DEEP_IMPORT = {
  // `../core/index` is the way in; `../core/<anything else>` is a deep import.
  regex: '(^|/)core/(?!index$)[^]+$',
  message: 'Faces import the core only through src/core/index.ts (add an export there if a face needs more).',
};

const NO_VSCODE = {
  name: 'vscode',
  message: 'src/core runs outside VS Code (CLI, MCP server, hooks): take what you need as a plain value or a port (ports.ts).',
};

export default tseslint.config(
  { ignores: ['dist/**', 'dist-test/**', 'dist-bench/**', 'node_modules/**', '.vscode-test/**', 'out/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@typescript-eslint': tseslint.plugin, 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.d.ts', '.js', '.json'] })],
    },
    rules: {
      '@typescript-eslint/no-require-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [NO_VSCODE] }],
    },
  },
  {
    files: ['src/extension/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [CORE_DEEP_IMPORT] }],
    },
  },
  {
    // Faces that run in plain Node: the core only through its index, and never `vscode`.
    files: ['src/cli/**/*.ts', 'src/mcp/**/*.ts', 'src/hooks/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [NO_VSCODE], patterns: [CORE_DEEP_IMPORT] }],
    },
  },
);
