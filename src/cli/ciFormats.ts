// What CI reads: validate's problems as SARIF 2.1.0 (code scanning) and as GitHub workflow
// commands (annotations on a pull request's diff), and a branch's state review as Markdown.
import * as path from 'node:path';
import { PROBLEMS, FIXES, fixTitle, problemDocsPath, type Problem, type ProblemCode, type StateReview, type ReviewMove } from '../core/index';
import { VERSION } from './framework';

const REPO = 'https://github.com/waymark-dev/waymark';
const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

/** `file` relative to `base` with `/` separators, or undefined when it lies outside. */
function inside(base: string, file: string): string | undefined {
  const rel = path.relative(base, file);
  if (!rel || /^\.\.(?:[\\/]|$)/.test(rel) || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

function encodePath(rel: string): string {
  return rel.split('/').map(encodeURIComponent).join('/');
}

function fileUri(abs: string): string {
  const p = abs.split(path.sep).join('/');
  return `file://${p.startsWith('/') ? '' : '/'}${encodePath(p)}`;
}

function ruleHelp(code: ProblemCode): { text: string; markdown: string } {
  const spec = PROBLEMS[code] as { title: string; fixes?: readonly (keyof typeof FIXES)[] };
  const fixes = (spec.fixes ?? []).map((f) => FIXES[f].title({}).trim());
  const docs = `${REPO}/blob/main/${problemDocsPath(code)}`;
  const fixLine = fixes.length ? ` Quick fix: ${fixes.join('; ')} (waymark fix FILE ${code}, or the editor's light bulb).` : '';
  return {
    text: `${spec.title}.${fixLine} See ${docs}.`,
    markdown: `${spec.title}.${fixes.length ? `\n\n**Quick fix:** ${fixes.join('; ')} — \`waymark fix FILE ${code}\` or the editor's light bulb.` : ''}\n\n[docs/problems.md](${docs})`,
  };
}

/**
 * Problems as one SARIF 2.1.0 run. `base` is the folder URIs are relative to (`%SRCROOT%`,
 * normally the repository's top); files outside it get absolute `file:` URIs.
 */
export function toSarif(problems: Problem[], base: string): unknown {
  const all = Object.keys(PROBLEMS) as ProblemCode[];
  const index = new Map(all.map((c, i) => [c, i]));
  const rules = all.map((code) => {
    const spec = PROBLEMS[code];
    const help = ruleHelp(code);
    return {
      id: code,
      name: code.replace(/(^|-)([a-z])/g, (_, __, ch: string) => ch.toUpperCase()),
      shortDescription: { text: spec.title },
      fullDescription: { text: help.text },
      help,
      helpUri: `${REPO}/blob/main/${problemDocsPath(code)}`,
      defaultConfiguration: { level: LEVEL[spec.severity] },
      properties: { tags: ['waymark', spec.section] },
    };
  });
  const results = problems.map((p) => {
    const rel = inside(base, p.file);
    const fix = p.data && typeof p.data.fix === 'string' ? fixTitle(p) : undefined;
    const startLine = p.range.start.line + 1;
    const startColumn = p.range.start.character + 1;
    let endLine = p.range.end.line + 1;
    let endColumn = p.range.end.character + 1;
    if (endLine < startLine || (endLine === startLine && endColumn < startColumn)) {
      endLine = startLine;
      endColumn = startColumn;
    }
    return {
      ruleId: p.code,
      ...(index.has(p.code as ProblemCode) ? { ruleIndex: index.get(p.code as ProblemCode) } : {}),
      level: LEVEL[p.severity],
      message: { text: fix ? `${p.message} (quick fix: ${fix})` : p.message },
      locations: [
        {
          physicalLocation: {
            artifactLocation: rel !== undefined ? { uri: encodePath(rel), uriBaseId: '%SRCROOT%' } : { uri: fileUri(p.file) },
            region: { startLine, startColumn, endLine, endColumn },
          },
        },
      ],
      ...(fix ? { properties: { quickFix: fix } } : {}),
    };
  });
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'Waymark', version: VERSION, semanticVersion: VERSION, informationUri: REPO, rules } },
        originalUriBaseIds: { '%SRCROOT%': { uri: `${fileUri(base)}/` } },
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
}

/** Escapes a workflow command's message (GitHub's toolkit: `%`, CR, LF). */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a workflow command's property value (also `:` and `,`). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

const COMMAND = { error: 'error', warning: 'warning', info: 'notice' } as const;

/** One `::error file=…,line=…::message` line per problem; paths relative to `base`. */
export function toGithubCommands(problems: Problem[], base: string): string[] {
  return problems.map((p) => {
    const file = inside(base, p.file) ?? p.file;
    const props = [
      `file=${escapeProperty(file)}`,
      `line=${p.range.start.line + 1}`,
      `col=${p.range.start.character + 1}`,
      `endLine=${p.range.end.line + 1}`,
      ...(p.range.end.line === p.range.start.line ? [`endColumn=${Math.max(p.range.end.character, p.range.start.character) + 1}`] : []),
      `title=${escapeProperty(p.code)}`,
    ];
    return `::${COMMAND[p.severity]} ${props.join(',')}::${escapeData(p.message)}`;
  });
}

/** Text from files (names, statuses, actors, messages) as Markdown that renders as written, never as markup. */
export function mdText(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').replace(/[\\`*_{}[\]<>|#!~]/g, '\\$&');
}

/** `s` as an inline code span, whatever backticks it holds. */
export function mdCode(s: string): string {
  const flat = s.replace(/[\r\n]+/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

function who(m: { by: string[] }): string {
  return m.by.length ? ` by ${m.by.map(mdText).join(', ')}` : ' (no history line: edited by hand)';
}

function moveLine(m: ReviewMove): string {
  const name = m.kind === 'story' ? mdText(m.id) : mdCode(m.id);
  const t = (v: string | undefined, none = '-') => (v === undefined ? none : mdText(v));
  const status = m.change === 'added' ? `new, ${t(m.to, 'no status')}` : m.change === 'removed' ? `removed (was ${t(m.from, 'no status')})` : m.from !== m.to ? `${t(m.from)} → ${t(m.to)}` : t(m.to, 'no status');
  const parts = [status];
  if (m.stepsCompleted.length) parts.push(`completed ${m.stepsCompleted.map(mdText).join(', ')}`);
  if (m.stepsRewound.length) parts.push(`un-did ${m.stepsRewound.map(mdText).join(', ')}`);
  if (m.ledgerStatus) parts.push(`ledger ${t(m.ledgerStatus.from)} → ${t(m.ledgerStatus.to)}`);
  if (m.fileStatus) parts.push(`story file ${t(m.fileStatus.from)} → ${t(m.fileStatus.to)}`);
  if (m.tasks) parts.push(`tasks ${t(m.tasks.from)} → ${t(m.tasks.to)}`);
  return `- ${m.rewind ? '⚠️ **rewind** ' : ''}${name}: ${parts.join('; ')}${who(m)}`;
}

/** The review as a short Markdown summary for a pull request (one line when nothing of state changed). */
export function reviewMarkdown(r: StateReview): string {
  const against = `${mdCode(r.base)} (merge base ${r.mergeBase.slice(0, 8)})`;
  if (!r.moved.length && !r.gates.length && !r.introduced.length && !r.fixed.length) return `**Waymark:** this change leaves workflow state as it is against ${against}.\n`;
  const out = [`### Waymark: workflow state against ${against}`, ''];
  const rewinds = r.moved.filter((m) => m.rewind);
  const counts = [`${r.moved.length} moved`, `${r.gates.length} gate change(s)`, `${r.introduced.length} problem(s) introduced`, `${r.fixed.length} fixed`, ...(rewinds.length ? [`**${rewinds.length} rewind(s)**`] : [])];
  out.push(counts.join(' · '), '');
  if (r.moved.length) out.push('**Moved**', '', ...r.moved.map(moveLine), '');
  if (r.gates.length) {
    out.push('**Gates**', '');
    for (const g of r.gates) {
      const what = g.unrecorded ? 'written by hand' : g.change;
      const who = g.unrecorded ? ' ⚠️ not a recorded verdict: it does not open the gate' : g.reviewer ? ` by reviewer ${mdText(g.reviewer)}` : g.to ? ' ⚠️ no reviewer recorded' : '';
      out.push(`- ${mdCode(g.id)} step ${mdText(g.step)}: gate ${mdText(g.gate)} ${what} (${g.from ?? 'none'} → ${g.to ?? 'removed'})${who}`);
    }
    out.push('');
  }
  if (r.introduced.length) {
    out.push('**Problems introduced**', '');
    for (const p of r.introduced) out.push(`- ${p.severity} ${mdCode(p.code)} ${mdText(p.file)}:${p.line}: ${mdText(p.message)}`);
    out.push('');
  }
  if (r.fixed.length) {
    out.push('**Problems fixed**', '');
    for (const p of r.fixed) out.push(`- ${mdCode(p.code)} ${mdText(p.file)}: ${mdText(p.message)}`);
    out.push('');
  }
  return out.join('\n');
}
