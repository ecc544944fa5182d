/**
 * A BMAD v4 story's later verdict on itself, below its Status line. BMAD v4.20–v4.39's review-story
 * task has the QA agent end `## QA Results` with `### Final Status` (`✓ Approved - Ready for Done` or
 * `✗ Changes Required - See unchecked items above`) and then set the story's Status to Done when it
 * approves, or keep it at Review; teams also write it as a `Final Status: Done` line there, or as a
 * `## Final Status` section of its own. When the Status line was not updated, the verdict is what
 * the team means. From v4.40 the task writes `### Recommended Status` instead and leaves the status
 * to the story's owner: a recommendation, not read here. A `Final Status` elsewhere (a Dev Agent
 * Record's "Final Status: all tests pass") is the developer's, not a verdict on the story.
 */

/** The verdict and where it is written (0-based line, the value's span). */
export interface FinalStatus {
  value: string;
  /** done for an approval, review for changes asked. */
  status: 'done' | 'review';
  line: number;
  start: number;
  end: number;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FINAL_HEADING = /^\**\s*final\s+status\s*\**\s*:?\s*\**\s*(.*)$/i;
const FINAL_LINE = /^(\s*(?:[-*>]\s+)?\**\s*final\s+status\s*\**\s*:\s*\**\s*)(\S.*?)\s*$/i;
const CHANGES = /\b(?:changes?\s+(?:required|requested|needed)|needs?\s+(?:work|changes|fixes)|not\s+approved|rejected|fail(?:ed)?)\b/i;
const APPROVED = /\b(?:approved|ready\s+for\s+done|done|pass(?:ed)?)\b/i;

/** What a verdict's words say: done (approved), review (changes asked), or undefined (neither, or both: the template unfilled). */
function verdictOf(value: string): FinalStatus['status'] | undefined {
  const changes = CHANGES.test(value);
  const approved = APPROVED.test(value.replace(CHANGES, ''));
  if (changes === approved) return undefined;
  return approved ? 'done' : 'review';
}

/**
 * The last Final Status verdict below line `after` (the Status line) that sits in the `## QA
 * Results` section or is a `## Final Status` section of its own, or undefined.
 */
export function finalStatusOf(lines: readonly string[], after: number): FinalStatus | undefined {
  let found: FinalStatus | undefined;
  let inQa = false;
  let fence = false;
  for (let i = after + 1; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*(?:```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    const h = HEADING.exec(line);
    if (h && h[1].length <= 2) inQa = /\bQA\s+Results\b/i.test(h[2]);
    const fh = h ? FINAL_HEADING.exec(h[2]) : null;
    if (fh && (inQa || h![1].length <= 2)) {
      // The verdict after the heading's colon, else on the first line with words below it.
      let at = i;
      let value = fh[1].replace(/\**\s*$/, '').trim();
      let start = value ? line.lastIndexOf(value) : -1;
      for (let j = i + 1; !value && j < lines.length && j <= i + 3; j++) {
        if (HEADING.test(lines[j])) break;
        if (!lines[j].trim()) continue;
        at = j;
        value = lines[j].trim();
        start = lines[j].indexOf(value);
      }
      const status = value ? verdictOf(value) : undefined;
      if (status) found = { value, status, line: at, start, end: start + value.length };
      continue;
    }
    const fl = inQa && !h ? FINAL_LINE.exec(line) : null;
    if (fl) {
      const value = fl[2].replace(/\**$/, '').trim();
      const status = verdictOf(value);
      if (status) found = { value, status, line: i, start: fl[1].length, end: fl[1].length + value.length };
    }
  }
  return found;
}
