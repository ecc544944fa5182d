/**
 * The process's current folder, checked once at every entry: a shell left in a folder that was
 * removed (or renamed, or made unreadable) makes `process.cwd()` throw `ENOENT: uv_cwd`, which node
 * would print as a stack trace. Node built-ins only: the launcher loads this before any bundle.
 */

/** What is wrong with the current folder, in words for one line, or undefined when it is there. */
export function cwdProblem(): string | undefined {
  try {
    process.cwd();
    return undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const what = code === 'ENOENT' ? 'no longer exists (it was removed or renamed)' : `cannot be read (${code ?? String(e)})`;
    return `the current folder ${what}: cd into your project and run the command again`;
  }
}
