import * as vscode from 'vscode';
import { errorMessage } from '../core/index';
import { CONTEXT, OUTPUT_CHANNEL } from './constants';
import { Container } from './container';
import { createTestApi, type TestApi } from './testApi';

/** Measured start-up figures (read by the benchmark in the extension host). */
export interface Timings {
  /** When activate() began (`performance.now()` of the extension host). */
  activatedAt?: number;
  /** Our own code in activate(), ms. */
  activationMs?: number;
  /** From activate() to the first full scan reflected in the model, ms. */
  firstScanMs?: number;
}

/** What activate() returns: start-up timings, and the test API when run by a test runner. */
export interface WaymarkApi {
  timings: Timings;
  /** Only when VS Code runs extension tests (ExtensionMode.Test); see testApi.ts. */
  test?: TestApi;
}

export function activate(context: vscode.ExtensionContext): WaymarkApi {
  const started = performance.now();
  const timings: Timings = { activatedAt: started };
  const log = vscode.window.createOutputChannel(OUTPUT_CHANNEL, { log: true });
  context.subscriptions.push(log);
  try {
    const container = new Container(context, log, started);
    context.subscriptions.push({
      dispose: () => {
        try {
          container.dispose();
        } catch (e) {
          log.error(`[dispose] ${errorMessage(e)}`);
        }
      },
    });
    // Made before the first scan so it sees every scan, command and flush.
    const test = context.extensionMode === vscode.ExtensionMode.Test ? createTestApi(container) : undefined;
    timings.activationMs = performance.now() - started;
    log.info(`[activate] ${timings.activationMs.toFixed(1)} ms (scan deferred)`);
    // The first scan runs after activation returns, with progress, never blocking start-up.
    setTimeout(() => {
      container.model.ready().then(
        () => {
          timings.firstScanMs = performance.now() - started;
          log.info(`[scan] first scan done ${timings.firstScanMs.toFixed(0)} ms after activation began`);
        },
        (e) => log.error(`[scan] first scan failed: ${errorMessage(e)}`),
      );
    }, 0);
    return { timings, test };
  } catch (e) {
    log.error(`[activate] ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    // No scan will come: the views say what they hold (nothing) rather than that they are reading.
    void vscode.commands.executeCommand('setContext', CONTEXT.scanned, true);
    void vscode.commands.executeCommand('setContext', CONTEXT.sprintRead, true);
    void vscode.window.showErrorMessage(`Waymark failed to start: ${errorMessage(e)}`, 'Show Log').then((b) => b && log.show(true));
    return { timings };
  }
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
