// package.json reviewed as a user meets it: every setting says what it does, its default and its
// scope; every command has a category and is offered in the palette only where it can run.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Command { command: string; title: string; category?: string }
interface MenuItem { command: string; when?: string }
interface Setting { description?: string; markdownDescription?: string; default?: unknown; scope?: string }

const pkg = JSON.parse(fs.readFileSync(path.resolve('package.json'), 'utf8'));
const contributes = pkg.contributes;

describe('package.json contributions', () => {
  test('every command has a category and a palette `when` (or is hidden with when: false)', () => {
    const palette = new Map<string, string | undefined>((contributes.menus.commandPalette as MenuItem[]).map((m) => [m.command, m.when]));
    const missing: string[] = [];
    for (const c of contributes.commands as Command[]) {
      assert.equal(c.category, 'Waymark', `${c.command} has no category`);
      const when = palette.get(c.command);
      // Commands that run anywhere (the log, the walkthrough, the CLI launcher) need no condition.
      if (!when && !['waymark.showLog', 'waymark.getStarted', 'waymark.installCli'].includes(c.command)) missing.push(c.command);
    }
    assert.deepEqual(missing, [], 'commands offered in the palette where they cannot run');
  });

  test('commands that change files are not offered in Restricted Mode', () => {
    const writers = /\.(start|advance|completeStep|setStatus|block|unblock|setScope|delegate|gate\.(pass|fail|concerns|waive)|manifest|recordDecision|recordLearning|session\.(start|end)|checkpoint\.create|newWorkflow)$/;
    for (const m of contributes.menus.commandPalette as MenuItem[]) {
      if (writers.test(m.command) && m.when !== 'false') assert.match(m.when ?? '', /isWorkspaceTrusted/, `${m.command} is offered in Restricted Mode`);
    }
  });

  test('every command in a menu, view or walkthrough is declared', () => {
    const declared = new Set((contributes.commands as Command[]).map((c) => c.command));
    const used = new Set<string>();
    for (const items of Object.values(contributes.menus) as MenuItem[][]) for (const m of items) used.add(m.command);
    const text = JSON.stringify([contributes.viewsWelcome, contributes.walkthroughs]);
    for (const m of text.matchAll(/command:(waymark\.[\w.]+)/g)) used.add(m[1]);
    assert.deepEqual([...used].filter((c) => !declared.has(c)), []);
  });

  test('no view says it is empty before Waymark has read the workspace', () => {
    // Before activation (and during a large project's first read) every context key is unset: a
    // welcome text that says "No …" must need a key that only a finished read sets, and the same
    // view must say it is reading meanwhile (seen in code-server: a 208-story BMAD project showed
    // "No BMAD sprint here" for its first 15 s under load).
    const done: Record<string, string> = { 'waymark.workflows': 'waymark.scanned', 'waymark.gates': 'waymark.scanned', 'waymark.delegation': 'waymark.scanned', 'waymark.sprint': 'waymark.sprintRead' };
    const welcome = contributes.viewsWelcome as { view: string; when?: string; contents: string }[];
    for (const [view, key] of Object.entries(done)) {
      const entries = welcome.filter((w) => w.view === view);
      const empty = entries.filter((w) => /^No /.test(w.contents));
      assert.equal(empty.length, 1, `${view}: one "No …" text`);
      const clauses = (empty[0].when ?? '').split('&&').map((c) => c.trim());
      assert.ok(clauses.includes(key), `${view}: "No …" shown without ${key}: ${empty[0].when}`);
      const reading = entries.filter((w) => !/^No /.test(w.contents));
      assert.ok(reading.some((w) => (w.when ?? '').split('||').map((c) => c.trim()).includes(`!${key}`)), `${view}: says nothing while ${key} is unset`);
    }
  });

  test('every setting has a description, a default and a scope', () => {
    for (const [key, s] of Object.entries(contributes.configuration.properties as Record<string, Setting>)) {
      assert.ok(s.description || s.markdownDescription, `${key}: no description`);
      assert.ok('default' in s, `${key}: no default`);
      assert.ok(['application', 'machine', 'machine-overridable', 'window', 'resource', 'language-overridable'].includes(s.scope ?? ''), `${key}: no scope`);
    }
  });

  test('the walkthrough\'s media exist and ship', () => {
    for (const w of contributes.walkthroughs) {
      for (const s of w.steps) {
        const file = s.media.image ?? s.media.markdown ?? s.media.svg;
        assert.ok(fs.existsSync(path.resolve(file)), `${w.id}/${s.id}: ${file} missing`);
        assert.ok(file.startsWith('media/') && !file.startsWith('media/screenshots/'), `${file} is not packaged (only media/ outside screenshots/ ships)`);
      }
    }
  });
});
