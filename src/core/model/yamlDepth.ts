/**
 * The `yaml` package's parse functions, bounded: its composer recurses once per nesting level, so
 * a file nested thousands of levels deep (`x: [[[[...]]]]`) overflows the stack with a RangeError
 * that names no file and no line. Here that depth is a YAML error like any other, at the line
 * where the nesting goes past what a person writes, with what to do. Same signatures as `yaml`'s.
 */
import { parse as yamlParse, parseAllDocuments as yamlParseAll, parseDocument as yamlParseDocument, YAMLParseError } from 'yaml';

/** What the reader is told when a YAML text nests too deeply to be read. */
export const TOO_DEEP_MESSAGE = 'it nests too deeply to read (thousands of levels of [ ] { } or indentation); flatten it';

/** True for the stack overflow a too-deep YAML text causes. */
export function isTooDeep(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/** The 1-based line where the nesting first goes past 256 levels (brackets or indentation), else 1. */
export function tooDeepLine(text: string): number {
  let depth = 0;
  let line = 1;
  let indent = 0;
  let atStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      line++;
      indent = 0;
      atStart = true;
      continue;
    }
    if (atStart && c === 32) {
      if (++indent > 256) return line;
      continue;
    }
    atStart = false;
    if (c === 91 || c === 123) {
      if (++depth > 256) return line;
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return 1;
}

function tooDeepError(text: string): YAMLParseError {
  const line = tooDeepLine(text);
  let offset = 0;
  for (let n = 1; n < line; n++) offset = text.indexOf('\n', offset) + 1;
  const err = new YAMLParseError([offset, offset + 1], 'IMPOSSIBLE', TOO_DEEP_MESSAGE);
  err.linePos = [{ line, col: 1 }];
  return err;
}

/** An empty document whose one error says `source` is nested too deeply (with its line). */
function tooDeepDocument(source: string, options?: Parameters<typeof yamlParseDocument>[1]): ReturnType<typeof yamlParseDocument> {
  const doc = yamlParseDocument('', options);
  doc.errors.push(tooDeepError(source));
  return doc;
}

/** `yaml`'s parseDocument; a text nested too deeply gives an empty document with one error instead of a RangeError. */
export const parseDocument = ((source: string, options?: Parameters<typeof yamlParseDocument>[1]) => {
  try {
    return yamlParseDocument(source, options);
  } catch (e) {
    if (!isTooDeep(e)) throw e;
    return tooDeepDocument(source, options);
  }
}) as typeof yamlParseDocument;

/** `yaml`'s parseAllDocuments; a text nested too deeply gives one empty document with one error. */
export const parseAllDocuments = ((source: string, options?: Parameters<typeof yamlParseAll>[1]) => {
  try {
    return yamlParseAll(source, options);
  } catch (e) {
    if (!isTooDeep(e)) throw e;
    return [tooDeepDocument(source, options)];
  }
}) as typeof yamlParseAll;

/** `yaml`'s parse; a text nested too deeply throws a YAMLParseError that says so (with its line), not a RangeError. */
export const parse = ((source: string, ...rest: unknown[]) => {
  try {
    return (yamlParse as (s: string, ...r: unknown[]) => unknown)(source, ...rest);
  } catch (e) {
    if (!isTooDeep(e)) throw e;
    const err = tooDeepError(source);
    err.message = `line ${err.linePos![0].line}: ${TOO_DEEP_MESSAGE}`;
    throw err;
  }
}) as typeof yamlParse;
