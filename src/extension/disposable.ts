// The one owner pattern of the extension layer: a class registers what it creates and disposes
// it all, newest first, once (the PR extension's Disposable base).
import type * as vscode from 'vscode';

export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposed = false;

  /** True once dispose() ran; late async work checks it before touching the UI. */
  protected get isDisposed(): boolean {
    return this.disposed;
  }

  /** Takes ownership of `d`: it is disposed with this object (at once when that already happened). */
  protected register<T extends vscode.Disposable>(d: T): T {
    if (this.disposed) d.dispose();
    else this.owned.push(d);
    return d;
  }

  /**
   * Disposes everything registered, newest first. One failing disposable does not keep the
   * others alive; the first failure is rethrown after all ran, for the owner above to log.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    let first: unknown;
    for (const d of this.owned.splice(0).reverse()) {
      try {
        d.dispose();
      } catch (e) {
        first ??= e;
      }
    }
    if (first !== undefined) throw first;
  }
}
