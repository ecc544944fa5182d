import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { declaredOutputs } from '../../src/core/bmad/artifacts';

// declaredOutputs finds the lines that name an output by one search of the text, and reads keys
// only in a text that holds an output key's name. Its oracle is the reading it replaced: every
// key line of a text that says `output` or `wip`, then every line of the text split on /\r?\n/,
// each tested alone. Both must give the same outputs, in the same order, for any text.

const OUTPUT_KEY = /^(?:default_output_file|output_?file|outputFile|[a-z_]+_output_file|wip_?file)$/i;

function oracle(text: string): { pattern: string; source: 'outputFile' | 'default_output_file' }[] {
  const out: { pattern: string; source: 'outputFile' | 'default_output_file' }[] = [];
  const add = (key: string, value: string) => {
    const v = value.trim();
    if (!OUTPUT_KEY.test(key) || !v || /[*|\s]/.test(v) || !/\.(md|ya?ml)$/i.test(v)) return;
    if (!out.some((o) => o.pattern === v)) out.push({ pattern: v, source: /^output_?file$|^outputFile$|^wip_?file$/i.test(key) ? 'outputFile' : 'default_output_file' });
  };
  if (/output|wip/i.test(text)) {
    for (const m of text.matchAll(/^[ \t]*["']?([A-Za-z_]+)["']?[ \t]*:[ \t]*["']?([^"'#\r\n]+?)["']?[ \t]*(?:#.*)?$/gm)) add(m[1], m[2]);
    for (const m of text.matchAll(/`([A-Za-z_]+)`\s*=\s*`([^`\r\n]+)`/g)) add(m[1], m[2]);
  }
  if (!text.includes('}/')) return out;
  for (const line of text.split(/\r?\n/)) {
    if (!/\boutput (?:file|document)\b|\brenam(?:e|es|ed|ing)\b|\bfinal (?:file ?name|file|document)\b/i.test(line)) continue;
    for (const m of line.matchAll(/`(\{(?:output_folder|planning_artifacts|implementation_artifacts|sprint_artifacts)\}\/[^`\s]+)`/g)) add('default_output_file', m[1]);
  }
  return out;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const LINES = [
  '---', 'name: step-01', "outputFile: '{planning_artifacts}/prd.md'", 'OUTPUT_FILE: "{output_folder}/a.yaml"', '  wipFile: {implementation_artifacts}/tech-spec-wip.md # work file',
  'wip_file: x.md', 'research_output_file: {planning_artifacts}/research/r.md', 'Output: {output_folder}/not-a-key.md', 'outputs: many', 'default_output_file: ',
  '- `default_output_file` = `{output_folder}/brainstorming/session-{{date}}.md`', '`outputFile` = `{planning_artifacts}/b.md`',
  'Create the output file: `{planning_artifacts}/research/x-{{date}}.md`.', 'Rename `{wipFile}` → `{implementation_artifacts}/tech-spec-{slug}.md`',
  'The FINAL FILE NAME is `{sprint_artifacts}/final.md` and `{output_folder}/second.md`', 'the final document `{output_folder}/d.md`', 'renamed later: `{output_folder}/e.md`',
  'an output file', 'output filed `{output_folder}/no.md`', 'outputfile `{output_folder}/f.md`', 'Renaming `{planning_artifacts}/g.md`', 'see `{output_folder}/h.md` (output document)',
  'The step explains what is decided, why, and what it leaves open for later work.', '', '   ', '# Step 2', '- **step point:** the rules', 'Note: an output document is written',
  '…rename → `{implementation_artifacts}/ü-{slug}.md` ✅', '`{output_folder}/i.md` output file`{output_folder}/j.md`',
];
const ENDS = ['\n', '\r\n', '\r', '\n\r', '\r\r\n'];

test('declaredOutputs reads what the line-by-line reading read, for any line ends', () => {
  const rnd = seeded(20261130);
  let found = 0;
  for (let n = 0; n < 4000; n++) {
    const count = 1 + Math.floor(rnd() * 12);
    let text = '';
    for (let i = 0; i < count; i++) {
      text += LINES[Math.floor(rnd() * LINES.length)];
      // The last line without a line end, sometimes; a line end of any kind between lines.
      if (i < count - 1 || rnd() < 0.5) text += ENDS[Math.floor(rnd() * ENDS.length)];
    }
    if (rnd() < 0.1) text = '\uFEFF' + text;
    const want = oracle(text);
    assert.deepEqual(declaredOutputs(text), want, JSON.stringify(text));
    if (want.length) found++;
  }
  assert.ok(found > 2000, `texts that declare an output: ${found}`);
});

test('declaredOutputs reads a sentence on the last line, with and without its line end', () => {
  for (const end of ['', '\n', '\r\n', '\r']) {
    const text = `# Step 3\n\nWrite it.\nCreate the output file: \`{planning_artifacts}/last.md\`${end}`;
    assert.deepEqual(declaredOutputs(text), [{ pattern: '{planning_artifacts}/last.md', source: 'default_output_file' }], JSON.stringify(end));
  }
  // Prose that says "output" but names no output key and no `}/` path declares nothing.
  assert.deepEqual(declaredOutputs('The output of this step is a list.\nKeep the output short.\n'), []);
});
