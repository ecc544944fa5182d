// Real projects read right (issue 20, tenth corpus round, part b, measured on projects not seen
// before): a ledger's own word for work set aside (`quarantined`, or a set-aside word with a
// qualifier, `deferred-v2`) is never offered as ready; a story file's `Quarantined`, `Shelved`,
// `Postponed` set it aside as `Deferred` does; `Livrée` (delivered) is a word for done; and a
// series' epic written with its series first (`p2-epic-1` above `p2-1-1-slug`, a phase 2's epic 1)
// is that epic's entry, its retrospective the epic's, with no missing-epic warning.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadSprint } from '../../src/core/bmad/sprint';
import { normalizeStoryStatus, setAsideStatus } from '../../src/core/bmad/story';
import { parseLedger } from '../../src/core/bmad/ledger';
import { scanRoots } from '../../src/core/store/scan';
import { buildRegistry } from '../../src/core/project/registry';
import { computeFrontier } from '../../src/core/project/frontier';
import { workspace } from './fileHelpers';
import { storyText as story } from './corpusHelpers';

const NOW = new Date('2026-11-28T21:00:00Z');

/** A project in a new temp folder (no `.waymark`): `files` maps a relative path to its text. */
const project = (files: Record<string, string>) => workspace(files, { prefix: 'wm-corpus10b-', waymark: false });


/** Each story's column in the frontier `next` and the board read (`story:KEY` → ready, dropped…). */
async function columnsOf(dir: string): Promise<Map<string, string>> {
  const res = await scanRoots([dir], { index: false, sprint: true });
  const f = computeFrontier(buildRegistry(res.workflows, [...res.sprints.values()].flat()), { now: NOW });
  const out = new Map<string, string>();
  for (const col of ['ready', 'inProgress', 'review', 'blocked', 'done', 'dropped'] as const) {
    for (const e of f[col]) out.set(String(e.item.id), col);
  }
  return out;
}

describe('work the ledger sets aside in its own words', () => {
  test('stories the ledger calls `quarantined` or `deferred-v2` are dropped, never offered as ready', async () => {
    const dir = project({
      '_bmad-output/sprint-status.yaml': [
        'development_status:',
        '  epic-1: done',
        '  1-1-hive-scale: done',
        '  epic-2: in-progress',
        '  2-1-nectar-model: quarantined',
        '  2-2-swarm-alert: quarantined',
        '  2-3-frame-inventory: deferred-v2',
        '  2-4-queen-tracker: backlog',
        '',
      ].join('\n'),
      '_bmad-output/1-1-hive-scale.md': story('1.1', 'Hive Scale', 'done'),
      '_bmad-output/2-1-nectar-model.md': story('2.1', 'Nectar Model', 'done'),
      '_bmad-output/2-2-swarm-alert.md': story('2.2', 'Swarm Alert', 'ready-for-dev', false),
    });
    const cols = await columnsOf(dir);
    for (const key of ['2-1-nectar-model', '2-2-swarm-alert', '2-3-frame-inventory']) {
      assert.equal(cols.get(`story:${key}`), 'dropped', key);
    }
    assert.notEqual(cols.get('story:2-4-queen-tracker'), 'dropped');
  });

  test('a set-aside word with a qualifier (`cancelled-duplicate`, `on-hold-vendor`) is read as its word', async () => {
    const dir = project({
      '_bmad-output/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-label-printer: backlog\n  1-2-wax-melter: cancelled-duplicate\n  1-3-honey-press: on-hold-vendor\n',
    });
    const cols = await columnsOf(dir);
    assert.equal(cols.get('story:1-2-wax-melter'), 'dropped');
    assert.equal(cols.get('story:1-3-honey-press'), 'blocked');
    assert.equal(cols.get('story:1-1-label-printer'), 'ready');
  });

  test('a story file\'s `Quarantined`, `Shelved`, `Postponed`, `Retired` set the story aside', () => {
    assert.equal(setAsideStatus('Quarantined'), 'quarantined');
    assert.equal(setAsideStatus('**Shelved** until the grant comes through'), 'shelved');
    assert.equal(setAsideStatus('Postponed'), 'postponed');
    assert.equal(setAsideStatus('🗄️ Retired'), 'retired');
    assert.equal(setAsideStatus('Ready for Review'), undefined);
  });

  test('a story file `Shelved` with a backlog ledger entry is held (a note); one `Quarantined` there disagrees with it', () => {
    const dir = project({
      '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-smoker-timer: backlog\n  1-2-mite-counter: backlog\n',
      '_bmad-output/implementation-artifacts/1-1-smoker-timer.md': story('1.1', 'Smoker Timer', 'Shelved', false),
      '_bmad-output/implementation-artifacts/1-2-mite-counter.md': story('1.2', 'Mite Counter', 'Quarantined', false),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const warned = r.problems.filter((p) => p.severity !== 'info' && p.file.endsWith('.md')).map((p) => `${path.basename(p.file)} ${p.code}`);
    assert.deepEqual(warned, ['1-2-mite-counter.md story-status-drift']);
    const drift = r.problems.find((p) => p.code === 'story-status-drift' && p.file.endsWith('.md'));
    assert.match(drift!.message, /'1-2-mite-counter: quarantined'/);
  });
});

describe('a word for delivered, in the languages BMAD writes documents in', () => {
  test('`Livrée`, `Livré`, `Entregado`, `Entregue`, `Consegnato`, `Geliefert` read like Completed', () => {
    for (const w of ['Livrée', 'Livré', 'livree', 'Entregado', 'Entregada', 'Entregue', 'Consegnato', 'Geliefert', 'Ausgeliefert']) {
      assert.equal(normalizeStoryStatus(w).suggestion, 'done', w);
    }
  });

  test('a v4 story whose `## Status` says `**Livrée** — sans interface d\'édition` earns no unknown-status warning', () => {
    const dir = project({
      '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n',
      'docs/stories/20.1.ruche-connectee.md': '# Story 20.1 : La ruche connectée\n\n## Status\n\n**Livrée** — sans interface d\'édition, qui est la story 20.2.\n\n## Tasks\n\n- [x] Capteurs\n',
      'docs/stories/20.2.tableau-de-bord.md': '# Story 20.2 : Le tableau de bord\n\n## Status\n\nDone\n\n## Tasks\n\n- [x] Graphiques\n',
    });
    const r = loadSprint(dir, { now: NOW })!;
    const unknown = r.problems.filter((p) => p.code === 'story-unknown-status').map((p) => path.basename(p.file));
    assert.deepEqual(unknown, []);
  });
});

describe('a series\' epic written with the series first: `p2-epic-1` above `p2-1-1-slug`', () => {
  const ledger = [
    'development_status:',
    '  epic-1: done',
    '  1-1-hive-scale: done',
    '  epic-1-retrospective: done',
    '  # === PHASE 2 ===',
    '  p2-epic-1: in-progress',
    '  p2-1-1-tab-manager: review',
    '  p2-1-2-tab-bar: ready-for-dev',
    '  p2-epic-1-retrospective: optional',
    '  p2-epic-2: backlog',
    '  p2-2-1-split-pane: backlog',
    '  p2-epic-2-retrospective: optional',
    '',
  ].join('\n');

  test('the ledger reads `p2-epic-N` as the epic p2-N and `p2-epic-N-retrospective` as its retrospective', () => {
    const led = parseLedger('/p/sprint-status.yaml', ledger);
    const e1 = led.byKey.get('p2-epic-1');
    assert.equal(e1?.kind, 'epic');
    assert.equal(e1?.epicId, 'p2-1');
    assert.equal(e1?.status, 'in-progress');
    const r1 = led.byKey.get('p2-epic-1-retrospective');
    assert.equal(r1?.kind, 'retro');
    assert.equal(r1?.epicId, 'p2-1');
    const s = led.byKey.get('p2-1-2-tab-bar');
    assert.equal(s?.kind, 'story');
    assert.equal(s?.epicId, 'p2-1');
  });

  test('no missing-epic warning and no skipped keys; a story file ahead of the ledger is drift', () => {
    const dir = project({
      'docs/implementation-artifacts/sprint-status.yaml': ledger,
      'docs/implementation-artifacts/1-1-hive-scale.md': story('1.1', 'Hive Scale', 'done'),
      'docs/implementation-artifacts/p2-1-1-tab-manager.md': story('P2-1.1', 'Tab Manager', 'review'),
      'docs/implementation-artifacts/p2-1-2-tab-bar.md': story('P2-1.2', 'Tab Bar', 'dev-complete'),
    });
    const r = loadSprint(dir, { now: NOW })!;
    const codes = r.problems.filter((p) => p.severity !== 'info').map((p) => `${path.basename(p.file)} ${p.code}`);
    assert.deepEqual(codes.filter((c) => /ledger-epic-missing|ledger-unknown-key/.test(c)), []);
    const drift = new Set(r.problems.filter((p) => p.code === 'story-status-drift').map((p) => String(p.data?.key)));
    assert.deepEqual([...drift], ['p2-1-2-tab-bar']);
    const ep = r.epics.find((e) => e.id === 'p2-1');
    assert.equal(ep?.ledgerStatus, 'in-progress');
    assert.equal(ep?.retrospective, 'optional');
  });

  test('`supp-epic-1` with no `supp-1-…` story under it is left to the series rules (not an epic supp-1)', () => {
    const led = parseLedger('/p/sprint-status.yaml', 'development_status:\n  supp-epic-1: in-progress\n  se1-1-reflow: done\n');
    assert.notEqual(led.byKey.get('supp-epic-1')?.epicId, 'supp-1');
  });
});
