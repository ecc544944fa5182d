import * as vscode from 'vscode';
import { errorMessage } from '../core/index';
import { OUTPUT_CHANNEL } from './constants';
import { Container } from './container';
import { createFeatures } from './features';

let container: Container | undefined;

export function activate(context: vscode.ExtensionContext): { container?: Container } {
  const started = Date.now();
  const log = vscode.window.createOutputChannel(OUTPUT_CHANNEL, { log: true });
  context.subscriptions.push(log);
  try {
    container = new Container(context, log);
    context.subscriptions.push(container);
    createFeatures(container);
    loadOptionalFeatures(container);
    log.info(`[activate] ${Date.now() - started} ms (scan deferred)`);
    // The first scan runs after activation returns, with progress, never blocking start-up.
    const c = container;
    setTimeout(() => {
      c.ready().catch((e) => log.error(`[scan] first scan failed: ${errorMessage(e)}`));
    }, 0);
  } catch (e) {
    log.error(`[activate] ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    void vscode.window.showErrorMessage(`Waymark failed to start: ${errorMessage(e)}`, 'Show Log').then((b) => b && log.show(true));
  }
  return { container };
}

/** Memory (Kuzu) and protocol features are optional: their failure never stops the rest. */
function loadOptionalFeatures(c: Container): void {
  const deps = { roots: c.roots, logger: c.log, core: c.core };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const memory = require('./memoryFeatures') as typeof import('./memoryFeatures');
    c.register(memory.registerMemoryFeatures(c.context, deps));
  } catch (e) {
    c.log.warn(`[memory] memory features unavailable: ${errorMessage(e)}`);
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const protocol = require('./protocolFeatures') as typeof import('./protocolFeatures');
    c.register(protocol.registerProtocolFeatures(c.context, { ...deps, canWrite: () => c.canWrite() }));
  } catch (e) {
    c.log.warn(`[protocol] protocol features unavailable: ${errorMessage(e)}`);
  }
}

export function deactivate(): void {
  container = undefined;
}
