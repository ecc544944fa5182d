import * as vscode from 'vscode';
import { errorMessage } from '../core/index';
import type { WorkflowState } from '../core/index';
import { OUTPUT_CHANNEL } from './constants';
import { Container } from './container';
import { createFeatures } from './features';
import { registerOnboarding } from './onboarding';

let container: Container | undefined;

/** Measured start-up figures (read by the benchmark in the extension host). */
export interface Timings {
  /** Our own code in activate(), ms. */
  activationMs?: number;
  /** From activate() to the first full scan reflected in the model, ms. */
  firstScanMs?: number;
}

export function activate(context: vscode.ExtensionContext): { container?: Container; timings: Timings } {
  const started = performance.now();
  const timings: Timings = {};
  const log = vscode.window.createOutputChannel(OUTPUT_CHANNEL, { log: true });
  context.subscriptions.push(log);
  try {
    container = new Container(context, log);
    context.subscriptions.push(container);
    createFeatures(container);
    loadOptionalFeatures(container);
    const c0 = container;
    context.subscriptions.push(...registerOnboarding(context, log, () => c0.canWrite()));
    timings.activationMs = performance.now() - started;
    log.info(`[activate] ${timings.activationMs.toFixed(1)} ms (scan deferred)`);
    // The first scan runs after activation returns, with progress, never blocking start-up.
    const c = container;
    setTimeout(() => {
      c.ready().then(
        () => {
          timings.firstScanMs = performance.now() - started;
          log.info(`[scan] first scan done ${timings.firstScanMs.toFixed(0)} ms after activation began`);
        },
        (e) => log.error(`[scan] first scan failed: ${errorMessage(e)}`),
      );
    }, 0);
  } catch (e) {
    log.error(`[activate] ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    void vscode.window.showErrorMessage(`Waymark failed to start: ${errorMessage(e)}`, 'Show Log').then((b) => b && log.show(true));
  }
  return { container, timings };
}

/** Memory (Kuzu) and protocol features are optional: their failure never stops the rest. */
function loadOptionalFeatures(c: Container): void {
  // `roots` is read at each use: workspace folders can change after activation.
  const deps = {
    get roots() {
      return c.roots;
    },
    logger: c.log,
    core: c.core,
    canWrite: () => c.canWrite(),
    displayName: (state: WorkflowState) => c.displayName(state),
  };
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
    c.register(protocol.registerProtocolFeatures(c.context, deps));
  } catch (e) {
    c.log.warn(`[protocol] protocol features unavailable: ${errorMessage(e)}`);
  }
}

export function deactivate(): void {
  container = undefined;
}
