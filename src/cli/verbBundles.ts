/**
 * The bundle the launcher (launch.ts) loads for a verb, by the verb's first word. Each holds one
 * commands file and the core it uses, a fraction of the whole CLI, so an agent's one-file verb
 * reads, compiles and runs only that (each bundle has its own code cache, bundleLoader.ts). A
 * word not here runs in cli-main.js, the whole CLI (help, memory, mcp, tickets, git, hooks ...).
 * A bundle holds every verb that starts with a word routed to it: a unit test checks this
 * against main.ts's list, and esbuild.mjs builds each bundle named here from its *Main.ts.
 */
export const VERB_BUNDLES: ReadonlyMap<string, string> = new Map([
  ...['scan', 'status', 'validate', 'chain', 'manifest', 'changed'].map((v) => [v, 'cli-read.js'] as const),
  ...['sprint', 'story'].map((v) => [v, 'cli-sprint.js'] as const),
  ...['start', 'advance', 'complete-step', 'set-status', 'block', 'unblock', 'scope', 'delegate', 'fix', 'gate'].map((v) => [v, 'cli-write.js'] as const),
  ...['next', 'board', 'deps', 'timeline'].map((v) => [v, 'cli-project.js'] as const),
  ...['resume', 'history', 'checkpoint', 'lease', 'mode', 'events', 'sync'].map((v) => [v, 'cli-protocol.js'] as const),
]);
