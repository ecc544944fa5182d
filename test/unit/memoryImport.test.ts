import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createMemoryService } from '../../src/core/memory/memoryService';
import fc from 'fast-check';
import { parseMarkdownMemory, parseKnowledgeGraph } from '../../src/core/memory/importers';
import { readJournal } from '../../src/core/memory/journal';
import { WaymarkError } from '../../src/core/errors';

const tmps: string[] = [];
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-memi-'));
  tmps.push(d);
  return d;
}
after(() => {
  for (const d of tmps) fs.rmSync(d, { recursive: true, force: true });
});

function writeFixtures(dir: string): void {
  fs.mkdirSync(path.join(dir, '.claude-mpm', 'memories'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'docs', 'logs'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'MEMORY.md'),
    `---
title: project memory
---
# Project memory

## Decisions
- 2025-03-01 Use pnpm workspaces for the monorepo
- Keep the CLI and the extension on one core

## Preferences
* Prefer small pull requests
* Tabs, not spaces,
  in Makefiles only

## Known errors
1. Jest hangs when a watcher is left open: close it in afterAll

<!-- - this is a comment, not a memory -->
\`\`\`
- not a memory: code
\`\`\`
Plain paragraph about the architecture
that wraps.
`,
  );
  fs.writeFileSync(
    path.join(dir, 'knowledge_graph.json'),
    JSON.stringify({
      entities: [
        { name: 'parser', entityType: 'component', observations: ['Parses YAML frontmatter', 'Never evaluates ---js'] },
        { name: 'dev', entityType: 'agent', observations: ['Writes tests first'] },
      ],
      relations: [{ from: 'dev', to: 'parser', relationType: 'maintains' }],
    }),
  );
  fs.writeFileSync(path.join(dir, 'docs', 'logs', 'dev.memlog.md'), `# Dev memlog\n\n## 2025-04-02 Story 1.2\n- Implemented the scanner\n- Found that BMAD stepsCompleted may hold numbers\n`);
  fs.writeFileSync(
    path.join(dir, '.claude-mpm', 'memories', 'engineer_memories.md'),
    `# Engineer Agent Memory\n\n## Implementation Guidelines\n- Use atomic writes for every state file\n\n## Common Mistakes to Avoid\n- Do not rewrite the YAML with a serializer\n`,
  );
}

describe('memory: import', () => {
  test('imports the four formats from a folder, with sources, and importing twice adds nothing', async () => {
    const root = tmp();
    writeFixtures(root);
    const m = createMemoryService({ root });
    try {
      const first = await m.importPath(root);
      const formats = first.files.map((f) => f.format).sort();
      assert.deepEqual(formats, ['agent-memories', 'bmad-memlog', 'knowledge-graph', 'memory-md']);
      assert.equal(first.added, first.found);
      assert.equal(first.added, 6 + 3 + 2 + 2);
      const inboxSize = fs.statSync(m.paths.inbox).size;
      const second = await m.importPath(root);
      assert.equal(second.added, 0);
      assert.equal(fs.statSync(m.paths.inbox).size, inboxSize, 'nothing appended the second time');
      const st = await m.status();
      assert.equal(st.counts.decision + st.counts.learning + st.counts.summary, first.added);

      const decisions = (await m.list({ types: ['decision'] })).items;
      assert.deepEqual(decisions.map((d) => d.text).sort(), ['2025-03-01 Use pnpm workspaces for the monorepo', 'Keep the CLI and the extension on one core'].sort());
      assert.equal(decisions.find((d) => d.text.startsWith('2025'))!.createdAt, '2025-03-01T00:00:00.000Z');
      assert.equal(decisions[0].source.origin, 'MEMORY.md');
      const all = (await m.list()).items;
      const pref = all.find((x) => x.text.startsWith('Tabs, not spaces'))!;
      assert.equal(pref.category, 'preference');
      assert.equal(pref.text, 'Tabs, not spaces, in Makefiles only');
      assert.ok(all.some((x) => x.category === 'error' && /Jest hangs/.test(x.text)));
      assert.ok(!all.some((x) => /not a memory|comment/.test(x.text)));
      assert.ok(all.some((x) => x.text === 'Plain paragraph about the architecture that wraps.'));
      const eng = all.filter((x) => x.source.agent === 'engineer');
      assert.equal(eng.length, 2);
      assert.ok(eng.some((x) => x.category === 'gotcha'));
      const memlog = all.filter((x) => x.source.origin === 'docs/logs/dev.memlog.md');
      assert.equal(memlog.length, 2);
      assert.equal(memlog[0].createdAt.slice(0, 10), '2025-04-02');

      const parser = await m.recall({ entity: 'component:parser' });
      assert.deepEqual(parser.items.filter((i) => i.distance === 0).map((i) => i.memory.text).sort(), ['Never evaluates ---js', 'Parses YAML frontmatter']);
      assert.ok(parser.items.some((i) => i.memory.text === 'Writes tests first' && i.distance === 1), 'reached through the maintains relation');

      // an export re-imports to nothing new; into an empty workspace it restores everything
      const ex = await m.exportAll();
      assert.equal((await m.importPath(ex.file)).added, 0);
      const other = createMemoryService({ root: tmp() });
      try {
        assert.equal((await other.importPath(ex.file)).added, first.added);
        assert.equal((await other.recall({ entity: 'component:parser' })).items.length, parser.items.length);
      } finally {
        await other.dispose();
      }
    } finally {
      await m.dispose();
    }
  });

  test('bad import input: missing, binary, broken JSON, nothing found', async () => {
    const root = tmp();
    const m = createMemoryService({ root });
    try {
      await assert.rejects(m.importPath(path.join(root, 'nope.md')), /does not exist/);
      fs.writeFileSync(path.join(root, 'MEMORY.md'), Buffer.from([0x23, 0x00, 0x01, 0x02]));
      await assert.rejects(m.importPath(path.join(root, 'MEMORY.md')), /binary/);
      fs.writeFileSync(path.join(root, 'knowledge_graph.json'), '{"entities": [');
      await assert.rejects(m.importPath(path.join(root, 'knowledge_graph.json')), /not valid JSON/);
      fs.writeFileSync(path.join(root, 'knowledge_graph.jsonl'), '{"type":"entity","name":"a","entityType":"x","observations":["o"]}\n{oops\n');
      await assert.rejects(m.importPath(path.join(root, 'knowledge_graph.jsonl')), /line 2 is not valid JSON/);
      const empty = path.join(root, 'empty');
      fs.mkdirSync(empty);
      await assert.rejects(m.importPath(empty), /No memory files found/);
      assert.equal(fs.existsSync(m.paths.inbox), false);
    } finally {
      await m.dispose();
    }
  });

  test('markdown parser: ids are content-derived and stable', () => {
    const a = parseMarkdownMemory('## Decisions\n- A\n- A\n- Bee\n', { origin: 'x.md', now: '2026-01-01T00:00:00.000Z' });
    const b = parseMarkdownMemory('# moved\n## Decisions\n- Bee\n', { origin: 'y.md', now: '2027-01-01T00:00:00.000Z' });
    assert.equal(a.length, 1, 'too-short entries are skipped, duplicates once');
    assert.equal((a[0].rec as { id: string }).id, (b[0].rec as { id: string }).id);
  });

  test('fuzz: markdown, knowledge graph and journal parsers never crash on arbitrary input', () => {
    const dir = tmp();
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        for (const op of parseMarkdownMemory(text, { origin: 'f.md', now: '2026-01-01T00:00:00.000Z' })) {
          assert.equal(op.op, 'memory');
          assert.ok((op.rec as { text: string }).text.trim().length >= 3);
        }
        try {
          parseKnowledgeGraph(text, 'kg.json', 'kg.json', '2026-01-01T00:00:00.000Z');
        } catch (e) {
          assert.ok(WaymarkError.is(e), `only WaymarkError, got ${String(e)}`);
        }
        const f = path.join(dir, 'inbox.jsonl');
        fs.writeFileSync(f, text);
        const r = readJournal(f);
        assert.ok(r.end <= Buffer.byteLength(text));
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom('{"type":"entity","name":"__proto__","observations":["x y z"]}', '{"type":"relation","from":1}', '[]', 'null', '{"op":"memory","rec":{"id":1}}'), fc.json()), { maxLength: 8 }), (lines) => {
        try {
          parseKnowledgeGraph(lines.join('\n'), 'kg.jsonl', 'kg.jsonl', '2026-01-01T00:00:00.000Z');
        } catch (e) {
          assert.ok(WaymarkError.is(e));
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
      }),
      { numRuns: 200 },
    );
  });
});
