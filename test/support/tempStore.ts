/**
 * A temporary folder with a real SQLite session store in it, made before each test of the file
 * that calls {@link useTempStore} and removed after it (the store closed first).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createSqliteSessionStore, type SessionStore } from '../../src/index.js';

/** The current test's folder, store and the store's file. */
export interface TempStore {
  readonly directory: string;
  readonly path: string;
  readonly store: SessionStore;
}

/**
 * Registers the hooks that give each test a fresh folder and store; read them off the result
 * inside a test. `beforeClose` runs before the store is closed (to stop agents using it).
 */
export function useTempStore(prefix: string, beforeClose?: () => Promise<void>): TempStore {
  let current: { directory: string; path: string; store: SessionStore } | undefined;
  beforeEach(async () => {
    const directory = await mkdtemp(join(tmpdir(), prefix));
    const path = join(directory, 'sessions.db');
    current = { directory, path, store: createSqliteSessionStore({ path }) };
  });
  afterEach(async () => {
    await beforeClose?.();
    if (current === undefined) return;
    await current.store.close();
    await rm(current.directory, { recursive: true, force: true });
    current = undefined;
  });
  const now = () => {
    if (current === undefined) throw new Error('useTempStore: read it inside a test');
    return current;
  };
  return {
    get directory() {
      return now().directory;
    },
    get path() {
      return now().path;
    },
    get store() {
      return now().store;
    },
  };
}
