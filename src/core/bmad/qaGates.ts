/**
 * Quality gates that attach to stories: v4 QA gate YAML (`{qaLocation}/gates/{epic}.{story}-{slug}.yml`
 * with gate PASS/CONCERNS/FAIL/WAIVED, top_issues, waiver, expires, history) and the test-architect
 * module's `gate-decision.json` (`gate_status`, a story id when it names one).
 */
import { parse as parseYaml, parseAllDocuments } from '../model/yamlDepth';
import { GATE_VERDICTS, type GateVerdict } from '../types';
import { quoted } from '../model/text';

export interface StoryGate {
  file: string;
  epic?: number;
  /** The epic id the story is matched in: `1`, or `1-2` for v4's sub-story 1.2.1. */
  epicId?: string;
  story?: string;
  verdict?: GateVerdict;
  reason?: string;
  reviewer?: string;
  updated?: string;
  expires?: string;
  waiver?: { active: boolean; reason?: string; approvedBy?: string };
  topIssues: number;
  /** False for FAIL, or WAIVED without an active waiver, or an expired waiver. */
  open: boolean;
  /** A WAIVED gate whose `expires` has passed: the waiver has run out, the gate is closed. */
  expired: boolean;
  /**
   * A PASS or CONCERNS gate whose `expires` has passed (as written): BMAD's template calls it the
   * gate's freshness window, a re-review trigger. The gate stays open; the story is due a re-review.
   */
  reviewDue?: string;
  source: 'qa-gate' | 'gate-decision';
  /** An unreadable file, or one that names no verdict: why. */
  error?: string;
  /** The file is no YAML (its verdict, if any, read from its lines). */
  notYaml?: boolean;
}

const VERDICTS: readonly string[] = GATE_VERDICTS;

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  return undefined;
}

function mapping(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) ? (v as Record<string, unknown>) : undefined;
}

/**
 * A gate verdict as written, upper case; `PASSED` and `FAILED` are PASS and FAIL. Every reader of a
 * verdict (a gate's YAML, its broken-YAML fallback, a gate decision's JSON) goes through it.
 */
function verdictWord(v: unknown): string | undefined {
  const w = str(v)?.trim().toUpperCase();
  if (!w) return undefined;
  // A verdict with its qualifier: a pass on conditions (`CONDITIONAL_PASS`, `PASS WITH CONCERNS`,
  // `PASS_WITH_NOTES`) is CONCERNS, the gate's word for a pass with issues to track; a verdict
  // followed by its remark (`PASS ✅`, `PASS - all green`, `FAIL (2 blockers)`) is that verdict.
  const words = w.replace(/[^\p{L}\p{N}]+/gu, ' ').trim().split(' ');
  if (/^CONDITIONAL(LY)?$/.test(words[0]) && /^PASS(ED)?$/.test(words[1] ?? '')) return 'CONCERNS';
  if (/^PASS(ED)?$/.test(words[0]) && words[1] === 'WITH') return 'CONCERNS';
  const first = words[0] === 'PASSED' ? 'PASS' : words[0] === 'FAILED' ? 'FAIL' : words[0];
  // Anything else is returned as written, for the caller's "not PASS, CONCERNS, FAIL or WAIVED".
  return isVerdict(first) ? first : w;
}

function isVerdict(w: string | undefined): w is GateVerdict {
  return w !== undefined && VERDICTS.includes(w);
}

function storyIdOf(v: string | undefined): { epic: number; epicId: string; story: string } | undefined {
  // `1.2.1-slug`: v4's sub-story 1 of story 1.2 (story 1 of sub-epic 1-2), not story 1.2.
  const sub = v ? /^(\d+)\.(\d+)([a-z]?)\.(\d+)\b/i.exec(v.trim()) : null;
  if (sub) return { epic: Number(sub[1]), epicId: `${Number(sub[1])}-${Number(sub[2])}${sub[3].toLowerCase()}`, story: String(Number(sub[4])) };
  const m = v ? /^(\d+)[.\-](\d+)([a-z]?)\b/i.exec(v.trim()) : null;
  return m ? { epic: Number(m[1]), epicId: String(Number(m[1])), story: `${Number(m[2])}${m[3].toLowerCase()}` } : undefined;
}

function finish(g: StoryGate, now: Date): StoryGate {
  // `expires` dates a review for re-checking; it closes only a waiver (an old PASS stays a PASS, due
  // a re-review).
  const exp = g.expires ? Date.parse(g.expires) : NaN;
  const past = Number.isFinite(exp) && exp < now.getTime();
  g.expired = g.verdict === 'WAIVED' && past;
  if (past && (g.verdict === 'PASS' || g.verdict === 'CONCERNS')) g.reviewDue = g.expires;
  const waived = g.verdict === 'WAIVED' && (g.waiver?.active ?? true) && !g.expired;
  g.open = g.verdict === 'PASS' || g.verdict === 'CONCERNS' || waived;
  return g;
}

/** Top-level keys a gate file names its verdict by when it has no `gate:` key. */
const VERDICT_KEYS = ['decision', 'gate_decision', 'gate_status', 'verdict', 'status'];

/**
 * A gate file of several YAML documents (a review appended after a `---` line): its first document
 * where the gate's verdict is, when it reads whole. Undefined for a file of one document (read as
 * before) or a first document that does not read.
 */
function firstDocument(text: string): unknown {
  if (!/^---[ \t]*$/m.test(text.slice(3))) return undefined;
  const docs = parseAllDocuments(text, { schema: 'core', logLevel: 'error' });
  if (!Array.isArray(docs) || docs.length < 2) return undefined;
  // The first document with something in it (a file may open with a `---` line or a comment).
  const first = docs.find((d) => d.contents !== null);
  if (!first || first.errors.length) return undefined;
  return first.toJS({ maxAliasCount: 100 }) as unknown;
}

/** A key in snake case: `gateDecision`, `Gate-Decision` and `gate_decision` name one thing. */
function snake(k: string): string {
  return k.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[-\s]+/g, '_').toLowerCase();
}

/** A gate's top-level keys in snake case (the first of two that become one wins). */
function snakeKeys(d: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(d)) {
    const n = snake(k);
    if (!(n in out)) out[n] = v;
  }
  return out;
}

/** A top-level key whose words name the gate's decision (`quality_gate_decision`, `final_verdict`, `qa_gate`). */
const DECISION_KEY = /(?:^|[_\-\s])(?:gate|decision|verdict)(?:$|[_\-\s])/i;

/**
 * The verdict a gate file keeps under a key named its own way: the key's value when it is a
 * verdict (`final_verdict: PASS`), or its block's `status:`, `verdict:`, `decision:`, `gate:` or
 * `result:` (`quality_gate_decision:` with `status: PASS_WITH_CONCERNS` under it). Only a verdict
 * word counts: a block's `status: OPEN` is none.
 */
function namedVerdict(d: Record<string, unknown>): string | undefined {
  for (const [k, v] of Object.entries(d)) {
    if (!DECISION_KEY.test(k)) continue;
    const m = mapping(v);
    const words = m ? [m.status, m.verdict, m.decision, m.gate, m.result] : [v];
    const hit = words.map(verdictWord).find(isVerdict);
    if (hit) return hit;
  }
  return undefined;
}

/** A top-level key that says the review's outcome as a whole (`overall_status`, `final_status`, `qa_result`). */
const OVERALL_KEYS = '(?:overall|final|qa|review)[_-]?(?:gate[_-]?)?(?:status|verdict|decision|result)';
const OVERALL_KEY = new RegExp(`^${OVERALL_KEYS}$`, 'i');

/**
 * The verdict one level down, in a block of the file (`metadata: gate_decision: PASS`,
 * `executive_summary: verdict: PASS`): a key named for the decision whose value is a verdict. A
 * block's plain `status:` is the block's own, never the gate's.
 */
function nestedVerdict(d: Record<string, unknown>): string | undefined {
  for (const v of Object.values(d)) {
    const m = mapping(v);
    if (!m) continue;
    for (const [k, x] of Object.entries(m)) {
      if (!DECISION_KEY.test(snake(k)) && !OVERALL_KEY.test(snake(k))) continue;
      const hit = verdictWord(x);
      if (isVerdict(hit)) return hit;
    }
  }
  return undefined;
}

/**
 * The verdict of a gate written as a Markdown report under a gate file's name (`## Gate Decision:
 * PASS`, `**Gate:** CONCERNS`): the first line that opens with the gate's label, as a heading, a
 * list item or bold text. A later line that mentions a gate in passing (`Previous gate: FAIL`) is not it.
 */
function markdownVerdict(text: string): GateVerdict | undefined {
  const m = /^[ \t]*(?:#{1,6}[ \t]*)?(?:[-*][ \t]+)?(?:\*\*|__)?(?:QA[ \t]+|Quality[ \t]+)?Gate(?:[ \t]+(?:Decision|Status|Verdict|Result))?(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*(?:[^\p{L}\p{N}\s][ \t]*)?(PASS|CONCERNS|FAIL|WAIVED)\b/imu.exec(text);
  return m ? (m[1].toUpperCase() as GateVerdict) : undefined;
}

/** Parses a QA gate YAML file. The story comes from `story:` or the file name `{epic}.{story}-slug.yml`. */
export function parseQaGate(file: string, text: string, now: Date): StoryGate {
  const base = file.split(/[\\/]/).pop() ?? file;
  const fromName = storyIdOf(base);
  const g: StoryGate = { file, ...fromName, topIssues: 0, open: false, expired: false, source: 'qa-gate' };
  let data: unknown;
  try {
    // A key written twice (a review's `status:` in two lists) does not unsay the verdict: the last one counts, as in Python's YAML.
    data = firstDocument(text) ?? (parseYaml(text, { schema: 'core', maxAliasCount: 100, logLevel: 'error', uniqueKeys: false }) as unknown);
  } catch (e) {
    g.error = (e as Error).message.split('\n')[0];
    g.notYaml = true;
    // The gate template puts its verdict at the top, one plain line (`gate: PASS`); a note broken
    // further down (an unescaped quote) does not unsay it.
    // A key as written in any case and joining (`gate_decision`, `gateDecision`, `Gate-Decision`).
    const line = (key: string) => new RegExp(`^${key.includes('[') ? key : key.replace(/_/g, '[_-]?')}[ \\t]*:[ \\t]*["']?([^"'#\\r\\n]*?)["']?[ \\t]*(?:#.*)?$`, 'mi').exec(text)?.[1].trim();
    const v = [line('gate'), ...VERDICT_KEYS.map(line), line(OVERALL_KEYS)].map(verdictWord).find(isVerdict) ?? markdownVerdict(text);
    if (v) g.verdict = v;
    const sid = storyIdOf(line('story'));
    if (sid) Object.assign(g, sid);
    g.expires = line('expires') || undefined;
    return finish(g, now);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    const v = markdownVerdict(text);
    if (!v) {
      g.error = 'not a mapping';
      return g;
    }
    g.verdict = v;
    return finish(g, now);
  }
  const d = snakeKeys(data as Record<string, unknown>);
  // The template's `gate: PASS`; some reviews write the gate as a mapping (`gate:` with `story:` and
  // `status: PASS` under it, or a `decision:` block with its `status:`), or the verdict in the past
  // tense; without a `gate:` key, a top-level key some teams name it by (`decision: PASS`), when its
  // value is a verdict.
  const gateMap = mapping(d.gate);
  // The first of the places a verdict is kept that holds one: a `gate:` naming a stage of the review
  // (`gate: "IMPLEMENTATION_REVIEW"`) does not hide the `gate_status: "CONDITIONAL_PASS"` below it.
  // (Only the first two places can hold a word that is no verdict; the others answer verdicts only.)
  const own = verdictWord(gateMap ? gateMap.status ?? gateMap.verdict ?? gateMap.decision : d.gate);
  const decided = verdictWord(mapping(d.decision)?.status);
  const verdict = [own, decided].find(isVerdict)
    ?? VERDICT_KEYS.map((k) => verdictWord(d[k])).find(isVerdict)
    ?? namedVerdict(d)
    ?? Object.entries(d).filter(([k]) => OVERALL_KEY.test(k)).map(([, v]) => verdictWord(v)).find(isVerdict)
    ?? nestedVerdict(d);
  const said = own ?? decided;
  if (isVerdict(verdict)) g.verdict = verdict;
  else g.error = said ? `gate ${quoted(said)} is not PASS, CONCERNS, FAIL or WAIVED` : 'no gate: key';
  const sid = storyIdOf(str(d.story) ?? str(gateMap?.story));
  if (sid) Object.assign(g, sid);
  g.reason = str(d.status_reason);
  g.reviewer = str(d.reviewer);
  g.updated = str(d.updated);
  g.expires = str(d.expires);
  g.topIssues = Array.isArray(d.top_issues) ? d.top_issues.length : 0;
  if (d.waiver && typeof d.waiver === 'object') {
    const w = d.waiver as Record<string, unknown>;
    g.waiver = { active: w.active === true || w.active === 'true', reason: str(w.reason), approvedBy: str(w.approved_by) };
  }
  return finish(g, now);
}

/** Parses a test-architect `gate-decision.json`. */
export function parseGateDecision(file: string, text: string, now: Date): StoryGate {
  const g: StoryGate = { file, topIssues: 0, open: false, expired: false, source: 'gate-decision' };
  let d: Record<string, unknown>;
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    d = v as Record<string, unknown>;
  } catch (e) {
    g.error = (e as Error).message;
    return g;
  }
  const verdict = verdictWord(d.gate_status ?? d.decision ?? d.gate);
  if (isVerdict(verdict)) g.verdict = verdict;
  else g.error = 'no gate_status';
  const sid = storyIdOf(str(d.story_id ?? d.target_id ?? d.id));
  if (sid) Object.assign(g, sid);
  g.reason = str(d.rationale);
  g.updated = str(d.evaluated_at);
  g.expires = str(d.expires);
  return finish(g, now);
}
