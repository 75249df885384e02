import { AsyncLocalStorage } from 'node:async_hooks';
import type { Outcome } from '../errors.js';
import { readDatabaseSnapshot, type DatabaseSnapshot } from './snapshot.js';

/**
 * A command asks about the same store several times: discovery lists its sessions, detection reads its schema, the
 * reader its rows (and `run` detects each input once more to plan it). Inside `withStoreSnapshots` each store and its
 * WAL are read from disk once and every open of it gets that one picture, so the answers agree with each other even
 * while the agent writes. An image is held from its first open until its reader has read it (`releaseSnapshot`),
 * never longer than the scope. Outside a scope (a library call) every open reads the files afresh.
 */
const scope = new AsyncLocalStorage<Map<string, Promise<Outcome<DatabaseSnapshot>>>>();

/** Runs `work` with every SQLite store it opens read from disk once. */
export function withStoreSnapshots<T>(work: () => Promise<T>): Promise<T> {
  return scope.run(new Map(), work);
}

/** The store's snapshot: the scope's when it has taken one, else read now (and kept when in a scope). */
export function storeSnapshot(file: string): Promise<Outcome<DatabaseSnapshot>> {
  const taken = scope.getStore();
  if (taken === undefined) return readDatabaseSnapshot(file);
  let snapshot = taken.get(file);
  if (snapshot === undefined) {
    snapshot = readDatabaseSnapshot(file);
    taken.set(file, snapshot);
  }
  return snapshot;
}

/** Lets the scope drop a store's image once its reader is done with it (a later open reads the files again). */
export function releaseSnapshot(file: string): void {
  scope.getStore()?.delete(file);
}
