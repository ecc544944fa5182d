import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createMemoryService } from '../../src/core/memory/memoryService';
import { openKuzuStore, SCHEMA_VERSION } from '../../src/core/memory/kuzuStore';
import { appendJournal, readJournal } from '../../src/core/memory/journal';
import { insertBySplit, insertInSection, insertLines, oneLine, coldTemplate } from '../../src/core/memory/memoryFiles';
import type { HistoryEntry } from '../../src/core/types';
import type { JournalOp, MemoryRecord } from '../../src/core/memory/model';

const tmps: string[] = [];
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-mem-'));
  tmps.push(d);
  return d;
}
after(() => {
  for (const d of tmps) fs.rmSync(d, { recursive: true, force: true });
});

function mem(id: string, over: Partial<MemoryRecord> = {}): MemoryRecord {
  return { id, type: 'learning', text: `text ${id}`, createdAt: new Date().toISOString(), tier: 1, source: {}, ...over };
}

describe('memory: Kuzu schema', () => {
  test('creates the schema at the current version and migrates v1 to current keeping data', async () => {
    const dir = tmp();
    const db = path.join(dir, 'g.kuzu');
    const v1 = await openKuzuStore(db, { targetVersion: 1 });
    assert.equal(await v1.schemaVersion(), 1);
    await v1.ingest([
      { v: 1, op: 'memory', rec: mem('l1', { category: 'observation', tier: 2, source: { workflow: 'a.md', step: 's1' } }) },
      { v: 1, op: 'memory', rec: mem('d1', { type: 'decision', rationale: 'because', alternatives: ['x', 'y'] }) },
    ]);
    await v1.close();
    const cur = await openKuzuStore(db);
    try {
      assert.equal(await cur.schemaVersion(), SCHEMA_VERSION);
      assert.ok(SCHEMA_VERSION >= 2);
      const rows = await cur.run("MATCH (l:Learning {id: 'l1'}) RETURN l.consolidated AS c, l.step AS s");
      assert.deepEqual(rows, [{ c: false, s: 's1' }]);
      const d = (await cur.list({ types: ['decision'] }))[0];
      assert.equal(d.rationale, 'because');
      assert.deepEqual(d.alternatives, ['x', 'y']);
      const tables = (await cur.run('CALL show_tables() RETURN name')).map((r) => r.name).sort();
      for (const t of ['ABOUT', 'CONSOLIDATES', 'Decision', 'Entity', 'Learning', 'Meta', 'RELATES', 'SUPERSEDES', 'Summary']) assert.ok(tables.includes(t), t);
    } finally {
      await cur.close();
    }
  });

  test('ingest is idempotent by id and bulk COPY path handles quotes, commas and newlines', async () => {
    const dir = tmp();
    const store = await openKuzuStore(path.join(dir, 'g.kuzu'));
    try {
      const ops: JournalOp[] = [];
      for (let i = 0; i < 600; i++) {
        ops.push({ v: 1, op: 'memory', rec: mem(`m${i}`, { text: `line one, "quoted" ${i}\nline two`, source: { workflow: `wf${i % 3}.md`, step: `s${i % 5}` }, entities: [`file:src/f${i % 7}.ts`] }) });
      }
      assert.equal((await store.ingest(ops)).added, 600);
      assert.equal((await store.ingest(ops)).added, 0);
      const c = await store.counts();
      assert.equal(c.learning, 600);
      // a second bulk batch COPYs into non-empty tables, with new and already-known relationships
      const more: JournalOp[] = [];
      for (let i = 0; i < 300; i++) {
        more.push({ v: 1, op: 'memory', rec: mem(`n${i}`, { type: i % 2 ? 'decision' : 'learning', source: { workflow: `wf${i % 4}.md`, step: `s${i % 6}` }, entities: [`file:src/g${i % 250}.ts`] }) });
      }
      const relsBefore = (await store.relations()).length;
      assert.equal((await store.ingest(more)).added, 300);
      const rels = await store.relations();
      const keys = rels.map((r) => `${r.from}|${r.to}|${r.relation}`);
      assert.equal(new Set(keys).size, keys.length, 'no duplicate relationships');
      assert.ok(rels.length > relsBefore);
      assert.ok(keys.includes('step:wf3.md#s5|workflow:wf3.md|step_of'));
      assert.equal((await store.counts()).decision, 150);
      const one = (await store.list()).find((m) => m.id === 'm5')!;
      assert.equal(one.text, 'line one, "quoted" 5\nline two');
      assert.deepEqual(one.entities, ['file:src/f5.ts']);
      const r = await store.recall({ entities: ['step:wf1.md#s1'], limit: 1000 });
      assert.ok(r.length > 0);
      assert.ok(r.filter((i) => i.distance === 0).every((i) => i.memory.source.workflow === 'wf1.md' && i.memory.source.step === 's1'));
    } finally {
      await store.close();
    }
  });
});

describe('memory: service record and recall', () => {
  test('round trip with links to workflows, steps, files, agents; ranking by distance, type and superseded', async () => {
    const root = tmp();
    const m = createMemoryService({ root, origin: 'test' });
    try {
      const wf = path.join(root, 'docs', 'plan.md');
      const d1 = await m.record({ type: 'decision', text: 'Store memory in SQLite', rationale: 'simple', workflow: wf, step: 'design', agent: 'architect', decidedBy: 'ana' });
      assert.equal(d1.stored, 'graph');
      const d2 = await m.record({ type: 'decision', text: 'Store memory in Kuzu behind a port', rationale: 'graph queries', alternatives: ['sqlite'], workflow: wf, step: 'design', supersedes: d1.id });
      const l1 = await m.record({ type: 'learning', category: 'error', text: 'Closing Kuzu with an open result segfaults', workflow: wf, step: 'build', files: [path.join(root, 'src/store.ts')] });
      await m.record({ type: 'learning', category: 'pattern', text: 'Unrelated elsewhere', workflow: path.join(root, 'other.md') });

      const byWf = await m.recall({ workflow: wf, types: ['decision'] });
      assert.equal(byWf.engine, 'kuzu');
      assert.deepEqual(byWf.items.map((i) => i.memory.id), [d2.id, d1.id]);
      assert.equal(byWf.items[1].superseded, true);
      assert.equal(byWf.items[0].memory.source.workflow, 'docs/plan.md');
      assert.equal(byWf.items[0].memory.source.step, 'design');
      assert.equal(byWf.items[0].memory.source.origin, 'test');
      assert.deepEqual(byWf.items[0].memory.alternatives, ['sqlite']);

      const byStep = await m.recall({ workflow: wf, step: 'build' });
      assert.equal(byStep.items[0].memory.id, l1.id);
      assert.equal(byStep.items[0].distance, 0);
      assert.ok(byStep.items.some((i) => i.memory.id === d2.id && i.distance === 1), 'decision on the same workflow reached through it');
      assert.ok(!byStep.items.some((i) => i.memory.text === 'Unrelated elsewhere'));

      const byFile = await m.recall({ file: 'src/store.ts' });
      assert.equal(byFile.items[0].memory.id, l1.id);
      const byAgent = await m.recall({ entity: 'agent:architect' });
      assert.equal(byAgent.items[0].memory.id, d1.id);
      const byText = await m.recall({ text: 'segfaults kuzu' });
      assert.equal(byText.items[0].memory.id, l1.id);
      assert.equal(byText.items[0].reason, 'text');
      const none = await m.recall({ text: 'zzzzqqq' });
      assert.equal(none.items.length, 0);

      const st = await m.status();
      assert.equal(st.state, 'ok');
      assert.equal(st.counts.decision, 2);
      assert.equal(st.counts.learning, 2);
      assert.match(st.line, /^memory: ok/);
    } finally {
      await m.dispose();
    }
  });

  test('reads in a folder where nothing was recorded answer nothing and create no files', async () => {
    const root = tmp();
    const m = createMemoryService({ root });
    try {
      assert.deepEqual((await m.recall({ text: 'anything' })).items, []);
      const st = await m.status();
      assert.equal(st.state, 'ok');
      assert.equal(st.line, 'memory: ok (nothing recorded yet)');
      assert.deepEqual(fs.readdirSync(root), []);
    } finally {
      await m.dispose();
    }
  });

  test('bad input is refused with a usage error and nothing is written', async () => {
    const root = tmp();
    const m = createMemoryService({ root });
    try {
      await assert.rejects(m.record({ type: 'learning', text: '   ' }), /needs text/);
      await assert.rejects(m.record({ type: 'bogus' as never, text: 'x' }), /Unknown memory type/);
      await assert.rejects(m.record({ type: 'learning', category: 'nope', text: 'x' }), /Unknown learning category/);
      await assert.rejects(m.record({ type: 'learning', step: 's', text: 'x' }), /needs its workflow/);
      await assert.rejects(m.record({ type: 'learning', text: 'x'.repeat(300_000) }), /too large/);
      await assert.rejects(m.recall({ since: 'yesterday-ish' }), /--since/);
      assert.equal(fs.existsSync(m.paths.inbox), false);
    } finally {
      await m.dispose();
    }
  });

  test('a torn or garbage inbox line is skipped and counted; the rest is ingested', async () => {
    const root = tmp();
    const m = createMemoryService({ root });
    try {
      fs.mkdirSync(m.paths.dir, { recursive: true });
      appendJournal(m.paths.inbox, [{ v: 1, op: 'memory', rec: mem('a1') }]);
      fs.appendFileSync(m.paths.inbox, '{"v":1,"op":"memory","rec":{"id":\n{not json}\n');
      appendJournal(m.paths.inbox, [{ v: 1, op: 'memory', rec: mem('a2') }]);
      fs.appendFileSync(m.paths.inbox, '{"v":1,"op":"memory","rec":{"id":"partial"'); // no newline: still being written
      const st = await m.status();
      assert.equal(st.counts.learning, 2);
      assert.equal(st.badLines, 2);
      assert.ok(st.warnings.some((w) => /unreadable inbox/.test(w)));
      assert.equal(readJournal(m.paths.inbox).ops.length, 2);
    } finally {
      await m.dispose();
    }
  });
});

describe('memory: tiers, sessions, hot and cold files', () => {
  test('tier 2 observations wait in the inbox and are consolidated when the step and the workflow complete', async () => {
    const root = tmp();
    const m = createMemoryService({ root });
    try {
      const wf = path.join(root, 'wf.md');
      const o1 = await m.record({ type: 'learning', category: 'observation', text: 'fixtures are slow', workflow: wf, step: 'test' });
      const o2 = await m.record({ type: 'learning', category: 'pattern', text: 'retry flaky network calls', workflow: wf, step: 'test' });
      const o3 = await m.record({ type: 'learning', category: 'observation', text: 'docs lag behind', workflow: wf, step: 'docs' });
      assert.equal(o1.stored, 'inbox');
      assert.equal(o1.tier, 2);
      const base: HistoryEntry = { seq: 3, time: new Date().toISOString(), operation: 'complete-step', file: wf, detail: { step: 'test' }, from: { status: 'in_progress' }, to: { status: 'in_progress' } };
      await m.onWorkflowEvent(base, { file: wf, root, operation: 'complete-step' });
      const phase = (await m.list({ types: ['summary'] })).items;
      assert.equal(phase.length, 1);
      assert.equal(phase[0].category, 'phase');
      assert.deepEqual([...(phase[0].consolidates ?? [])].sort(), [o1.id, o2.id].sort());
      assert.equal(phase[0].source.step, 'test');
      // the same event again consolidates nothing new
      await m.onWorkflowEvent({ ...base, seq: 4 }, { file: wf, root, operation: 'complete-step' });
      assert.equal((await m.list({ types: ['summary'] })).items.length, 1);

      const done: HistoryEntry = { seq: 5, time: new Date().toISOString(), operation: 'set-status', file: wf, from: { status: 'in_progress' }, to: { status: 'completed' } };
      await m.onWorkflowEvent(done, { file: wf, root, operation: 'set-status' });
      const sums = (await m.list({ types: ['summary'] })).items;
      const wfSums = sums.filter((s) => s.category === 'workflow');
      assert.ok(wfSums.some((s) => s.consolidates?.includes(o3.id)), 'remaining observations folded at workflow completion');
      assert.ok(wfSums.some((s) => /^Completed wf for wf\.md: /.test(s.text)));
      const cold = fs.readFileSync(m.paths.cold, 'utf8');
      assert.match(cold, /step test completed, 2 observations consolidated/);
      assert.match(cold, /- \d{4}-\d{2}-\d{2} Completed wf for wf\.md: .*3 learning/);
      const hist = cold.slice(cold.indexOf('## Session history'));
      assert.ok(hist.includes('Completed wf'));
      // observer never throws, even on nonsense
      await m.onWorkflowEvent({ seq: 1, time: 'garbage', operation: '', file: '' } as HistoryEntry, { file: '', root: '', operation: '' });
    } finally {
      await m.dispose();
    }
  });

  test('session start recalls, end summarises, moves discoveries to cold, resets hot; cold history is never edited', async () => {
    const root = tmp();
    const m = createMemoryService({ root });
    try {
      const wf = path.join(root, 'wf.md');
      await m.record({ type: 'decision', text: 'Ship weekly', workflow: wf });
      const s = await m.sessionStart({ objective: 'Fix the build', workflow: wf });
      assert.ok(s.recall.some((i) => i.memory.text === 'Ship weekly'));
      assert.match(fs.readFileSync(m.paths.hot, 'utf8'), /Fix the build/);
      const l = await m.record({ type: 'learning', category: 'gotcha', text: 'CI caches node_modules', workflow: wf });
      assert.equal(l.record!.source.session, s.session.id);
      await m.files.updateHot((h) => void h.waiting.push('review from Bo'));
      const coldBefore = fs.readFileSync(m.paths.cold, 'utf8');
      const end = await m.sessionEnd({ summary: 'Build fixed' });
      assert.equal(end.summary.type, 'summary');
      assert.equal(end.summary.tier, 3);
      const hot = fs.readFileSync(m.paths.hot, 'utf8');
      assert.doesNotMatch(hot, /CI caches/);
      assert.doesNotMatch(hot, /Fix the build/);
      const cold = fs.readFileSync(m.paths.cold, 'utf8');
      const beforeLines = coldBefore.split('\n').filter((x) => x.startsWith('- '));
      let at = 0;
      for (const line of beforeLines) {
        at = cold.indexOf(line, at);
        assert.ok(at >= 0, `historic line kept: ${line}`);
      }
      assert.match(cold, /## Learned context[\s\S]*CI caches node_modules[\s\S]*## Preferences/);
      assert.match(cold, /## Blockers[\s\S]*waiting for: review from Bo/);
      assert.match(cold, /## Session history[\s\S]*Session s-.*Build fixed/);
      assert.equal(m.currentSession(), undefined);
      const sums = await m.recall({ types: ['summary'], text: 'build fixed' });
      assert.equal(sums.items[0].memory.category, 'session');
    } finally {
      await m.dispose();
    }
  });

  test('insertInSection without splitting the file gives the bytes splitting it gives, whatever the lines', () => {
    // The rule over every line split out is the reference.
    const reference = insertBySplit;
    const pieces = ['## A', '## B', ' ## A ', '## A extra', 'x ## A', '', ' ', '\t', '- a', '- b', 'text', '##A', '# A', '\u00a0'];
    let seed = 7;
    const rnd = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n;
    for (let k = 0; k < 5000; k++) {
      const lines = Array.from({ length: rnd(9) }, () => pieces[rnd(pieces.length)]);
      const nl = rnd(8) === 0 ? '\r\n' : '\n';
      const text = lines.join(nl) + (rnd(4) ? nl : '');
      for (const section of ['A', 'B']) assert.equal(insertInSection(text, section, '- new'), reference(text, section, '- new'), JSON.stringify({ text, section }));
    }
    let t = coldTemplate();
    for (let i = 0; i < 50; i++) {
      const section = ['Blockers', 'Key decisions', 'Session history'][i % 3];
      const next = insertInSection(t, section, `- line ${i}`);
      assert.equal(next, reference(t, section, `- line ${i}`));
      t = next;
    }
  });

  test('insertInSection on the text it answered last (a line added at the end, taken without looking) gives the bytes splitting it gives, whatever comes next', () => {
    // Chains of inserts, each on the previous answer (or a copy of it, or a text changed after it):
    // lines that may end the text (step lines), blank ones, headings, `\r`, `\n` inside, other sections.
    const lines = ['- step a completed', '- b', 'plain', ' ', '', '## Session history', '## Other', '- with\rcr', '- two\nlines', '-  ## not a heading', '\u00a0'];
    const sections = ['Session history', 'Session history', 'Session history', 'Blockers', 'Other'];
    let seed = 11;
    const rnd = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n;
    for (let k = 0; k < 400; k++) {
      let t = rnd(3) ? coldTemplate() : '# Mine\n\n## Session history\n- old\n';
      for (let i = 0; i < 30; i++) {
        const section = sections[rnd(sections.length)];
        const line = lines[rnd(lines.length)];
        const next = insertInSection(t, section, line);
        assert.equal(next, insertBySplit(t, section, line), JSON.stringify({ t, section, line }));
        const r = rnd(10);
        // The answer itself (most often), an equal copy, or a text edited after it.
        t = r < 7 ? next : r < 8 ? (' ' + next).slice(1) : r < 9 ? next.replace(/\n$/, '') : next + '## Later\n- x\n';
      }
    }
  });

  test('insertLines says the bytes it added exactly when every line went at the end: the new text is then the old one and them', () => {
    // Its text is insertInSection's, line after line; `added` (handed to the transaction instead
    // of a compare of the new text's head) is defined only when the text is the old one and it.
    const lines = ['step a completed', 'b', '## not a heading', ' ', 'with\rcr', 'two\nlines', 'café ☕'];
    const sections = ['Session history', 'Session history', 'Session history', 'Blockers', 'Other'];
    let seed = 23;
    const rnd = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n;
    let some = 0;
    for (let k = 0; k < 600; k++) {
      let t = [coldTemplate(), '# Mine\n\n## Session history\n- old\n', '# Mine\r\n\r\n## Session history\r\n- old\r\n', '# Mine\n\n## Session history\n- old'][rnd(4)];
      for (let i = 0; i < 6; i++) {
        const entries = Array.from({ length: 1 + rnd(3) }, () => ({ section: sections[rnd(sections.length)], line: lines[rnd(lines.length)] }));
        let expect = t;
        for (const { section, line } of entries) expect = insertBySplit(expect, section, `- ${oneLine(line)}`);
        const got = insertLines(t, entries);
        assert.equal(got.text, expect, JSON.stringify({ t, entries }));
        if (got.added !== undefined) {
          assert.equal(got.text, t + got.added, JSON.stringify({ t, entries }));
          some++;
        }
        // The answer itself (most often) or a copy of it, as the next change reads it.
        t = rnd(4) ? got.text : (' ' + got.text).slice(1);
      }
    }
    assert.ok(some > 100, `many changes add at the end only (${some})`);
    // The cold file's step lines, one change after another: every one said.
    let t = coldTemplate();
    t = insertLines(t, [{ section: 'Session history', line: 'first' }]).text;
    for (let i = 0; i < 20; i++) {
      const got = insertLines(t, [{ section: 'Session history', line: `step s${i} completed` }]);
      assert.equal(got.added, `- step s${i} completed\n`);
      t = got.text;
    }
  });

  test('insertInSection appends at the end of a section and keeps every other byte', () => {
    let t = coldTemplate();
    t = insertInSection(t, 'Blockers', '- b1');
    t = insertInSection(t, 'Key decisions', '- k1');
    t = insertInSection(t, 'Blockers', '- b2');
    assert.match(t, /## Key decisions\n\n- k1\n\n## Learned context/);
    assert.match(t, /## Blockers\n\n- b1\n- b2\n\n## Session history/);
    const custom = '# Mine\n\nintro kept\n\n## Key decisions\n- old one\n';
    const out = insertInSection(custom, 'Key decisions', '- new one');
    assert.ok(out.startsWith('# Mine\n\nintro kept\n\n## Key decisions\n- old one\n- new one'));
    assert.match(insertInSection(custom, 'Blockers', '- x'), /- old one\n\n## Blockers\n\n- x\n$/);
    assert.ok(insertInSection(insertInSection(coldTemplate(), 'Session history', '- s1'), 'Session history', '- s2').endsWith('## Session history\n\n- s1\n- s2\n'));
    const crlf = insertInSection('# M\r\n\r\n## Blockers\r\n- a\r\n', 'Blockers', '- b');
    assert.equal(crlf, '# M\r\n\r\n## Blockers\r\n- a\r\n- b\r\n');
  });

  test('size warnings and prune: hot over 10 KB moves to cold, cold over 100 KB is archived intact', async () => {
    const root = tmp();
    const m = createMemoryService({ root });
    try {
      await m.files.updateHot((h) => {
        for (let i = 0; i < 200; i++) h.working.push(`note ${i} ${'x'.repeat(60)}`);
      });
      fs.mkdirSync(path.dirname(m.paths.cold), { recursive: true });
      fs.writeFileSync(m.paths.cold, coldTemplate() + `\n${'- old entry\n'.repeat(10_000)}`);
      const big = fs.readFileSync(m.paths.cold, 'utf8');
      const st = await m.status();
      assert.ok(st.warnings.some((w) => /hot memory .*over 10 KB/.test(w)));
      assert.ok(st.warnings.some((w) => /cold memory .*over 100 KB/.test(w)));
      const res = await m.prune({ keepHot: 10 });
      assert.equal(res.movedFromHot, 190);
      assert.ok(res.coldArchive);
      const archived = fs.readFileSync(res.coldArchive!, 'utf8').split('\n');
      let at = 0;
      for (const line of big.split('\n')) {
        at = archived.indexOf(line, at);
        assert.ok(at >= 0, 'archive keeps every historic line, in order');
      }
      assert.match(fs.readFileSync(m.paths.cold, 'utf8'), /archived intact in orchestrator_memory\.archive-/);
      assert.equal(m.files.readHot().working.length, 10);
      const st2 = await m.status();
      assert.deepEqual(st2.warnings, []);
    } finally {
      await m.dispose();
    }
  });

  for (const engine of ['kuzu', 'journal'] as const) {
    test(`a step's consolidation lists that step's memories and those of no step, and folds what it did before (${engine})`, async () => {
      const root = tmp();
      const m = createMemoryService({ root, config: { engine } });
      try {
        const obs = (text: string, step?: string) => m.record({ type: 'learning', category: 'observation', text, workflow: 'w.md', ...(step ? { step } : {}) });
        const a1 = await obs('a one', 'a');
        const b1 = await obs('b one', 'b');
        const none = await obs('of no step');
        await m.record({ type: 'learning', category: 'observation', text: 'other workflow', workflow: 'x.md', step: 'a' });
        // The filter itself: the steps named, null for the memories of no step.
        const listed = (await m.list({ workflow: 'w.md', steps: ['a', null] })).items.map((x) => x.id).sort();
        assert.deepEqual(listed, [a1.id, none.id].sort());
        assert.deepEqual((await m.list({ workflow: 'w.md', steps: ['b'] })).items.map((x) => x.id), [b1.id]);
        assert.deepEqual((await m.list({ steps: [] })).items, []);
        // Step a folds its own observation only; again, nothing.
        assert.equal(await m.consolidate('w.md', 'a'), 1);
        assert.equal(await m.consolidate('w.md', 'a'), 0);
        // A workflow's summary folds the rest (b's and the one of no step): step b then has nothing left.
        assert.equal(await m.consolidate('w.md', undefined), 2);
        assert.equal(await m.consolidate('w.md', 'b'), 0);
        // A batch of two steps of one workflow (listed once for both): each folds its own new observations.
        const a2 = await obs('a two', 'a');
        const c1 = await obs('c one', 'c');
        const at = (step: string, seq: number): HistoryEntry => ({ seq, time: new Date().toISOString(), operation: 'advance', file: path.join(root, 'w.md'), detail: { step }, from: { status: 'in_progress' }, to: { status: 'in_progress' } });
        const queued = [m.queueWorkflowEvent(at('a', 7), { file: path.join(root, 'w.md'), root, operation: 'advance' }, { quietMs: 60_000, maxMs: 60_000 }), m.queueWorkflowEvent(at('c', 8), { file: path.join(root, 'w.md'), root, operation: 'advance' }, { quietMs: 60_000, maxMs: 60_000 })];
        await m.flushWorkflowEvents();
        await Promise.all(queued);
        const sums = (await m.list({ types: ['summary'], workflow: 'w.md' })).items;
        assert.deepEqual(sums.filter((x) => x.source.step === 'a').map((x) => x.consolidates).sort(), [[a1.id], [a2.id]].sort());
        assert.deepEqual(sums.filter((x) => x.source.step === 'c').map((x) => x.consolidates), [[c1.id]]);
        const cold = fs.readFileSync(m.paths.cold, 'utf8');
        assert.match(cold, /step a completed, 1 observations consolidated/);
        assert.match(cold, /step c completed, 1 observations consolidated/);
      } finally {
        await m.dispose();
      }
    });
  }

  test('prune --older-than drops old consolidated observations, keeps their summary, and a rebuild agrees', async () => {
    const root = tmp();
    const m = createMemoryService({ root });
    try {
      const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
      const o1 = await m.record({ type: 'learning', category: 'observation', text: 'old observation', workflow: 'w.md', step: 'a', createdAt: old });
      const o2 = await m.record({ type: 'learning', category: 'observation', text: 'fresh observation', workflow: 'w.md', step: 'b' });
      const keep = await m.record({ type: 'learning', category: 'error', text: 'old error stays', workflow: 'w.md', step: 'a', createdAt: old });
      assert.equal(await m.consolidate('w.md', 'a'), 1);
      assert.equal(await m.consolidate('w.md', 'b'), 1);
      const res = await m.prune({ olderThanDays: 30 });
      assert.equal(res.forgotten, 1);
      const ids = (await m.list()).items.map((x) => x.id);
      assert.ok(!ids.includes(o1.id));
      assert.ok(ids.includes(o2.id));
      assert.ok(ids.includes(keep.id));
      assert.equal((await m.list({ types: ['summary'] })).items.length, 2);
      const rb = await m.rebuild();
      assert.equal(rb.movedAside !== undefined, true);
      const after = (await m.list()).items.map((x) => x.id);
      assert.deepEqual([...after].sort(), [...ids].sort());
    } finally {
      await m.dispose();
    }
  });

  test('export writes all memories, entities and relations; a big export warns', async () => {
    const root = tmp();
    const m = createMemoryService({ root });
    try {
      await m.record({ type: 'decision', text: 'd', workflow: 'a.md', step: 's' });
      await m.record({ type: 'entity', kind: 'component', name: 'parser', relations: [{ to: 'component:lexer', relation: 'uses' }] });
      const ex = await m.exportAll();
      const doc = JSON.parse(fs.readFileSync(ex.file, 'utf8'));
      assert.equal(doc.format, 'waymark-memory');
      assert.equal(doc.memories.length, 1);
      assert.ok(doc.entities.some((e: { id: string }) => e.id === 'component:parser'));
      assert.ok(doc.relations.some((r: { from: string; relation: string }) => r.from === 'component:parser' && r.relation === 'uses'));
      assert.ok(doc.relations.some((r: { relation: string }) => r.relation === 'step_of'));
      assert.equal(ex.warning, undefined);
    } finally {
      await m.dispose();
    }
  });
});
