// A ledger whose epics are named by words and closed by their own retrospective
// (`epic-core-auth-accounts` … `epic-core-auth-accounts-retrospective`), stories keyed
// `story-auth-1-register-login` between them: the keys between an epic and its retrospective are
// its stories, as a reader of the block says (issue 20: keys outside BMAD's strict grammar still
// take part). Before, every key was "read by no BMAD grammar and skipped".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLedger } from '../../src/core/bmad/ledger';

const LEDGER = [
  'project: learnhub',
  'story_location: "docs/backlog"',
  'development_status:',
  '  epic-core-wiki-content: done',
  '  story-wiki-1-public-list-search: done',
  '  story-wiki-2-article-by-slug: done',
  '  epic-core-wiki-content-retrospective: optional',
  '',
  '  epic-core-auth-accounts: in-progress',
  '  story-auth-1-register-login: done',
  '  story-auth-2-forgot-password: in-progress',
  '  story-auth-3-delete-export: backlog',
  '  epic-core-auth-accounts-retrospective: optional',
  '',
].join('\n');

test('epics named by words, each closed by its retrospective: the keys between are its stories', () => {
  const l = parseLedger('docs/sprint-status.yaml', LEDGER);
  const by = Object.fromEntries(l.entries.map((e) => [e.key, `${e.kind} ${e.epicId}${e.story !== undefined ? ` ${e.story}` : ''} ${e.status}`]));
  assert.equal(by['epic-core-auth-accounts'], 'epic core-auth-accounts in-progress');
  assert.equal(by['epic-core-auth-accounts-retrospective'], 'retro core-auth-accounts optional');
  assert.equal(by['story-auth-2-forgot-password'].split(' ').slice(0, 2).join(' '), 'story core-auth-accounts');
  assert.equal(l.entries.filter((e) => e.kind === 'story').length, 5);
  assert.equal(l.entries.filter((e) => e.kind === 'unknown').length, 0);
});

test('an epic named by words with no retrospective listed stays as it was read before', () => {
  const l = parseLedger('docs/sprint-status.yaml', LEDGER.replace('  epic-core-auth-accounts-retrospective: optional\n', ''));
  assert.equal(l.entries.find((e) => e.key === 'epic-core-auth-accounts')?.kind, 'unknown');
});

test('an epic whose stories carry its id (epic-nfr above nfr-s1-slug) keeps the story numbers those keys give', () => {
  const l = parseLedger('docs/sprint-status.yaml', [
    'development_status:',
    '  epic-e1: in-progress',
    '  e1-s2-locale-runtime: done',
    '  epic-e1-retrospective: optional',
    '  epic-nfr: backlog',
    '  nfr-s1-accessibility-baseline: backlog',
    '  nfr-s2-localization-gate: backlog',
    '  epic-nfr-retrospective: optional',
    '',
  ].join('\n'));
  const stories = l.entries.filter((e) => e.kind === 'story').map((e) => `${e.epicId}.${e.story}`);
  assert.deepEqual(stories, ['1.2', 'nfr.1', 'nfr.2']);
});
