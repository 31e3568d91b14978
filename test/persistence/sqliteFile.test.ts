/**
 * What only a real SQLite file shows: two processes writing one session at once, a process killed
 * in the middle of a large write, and the schema's migrations from an empty database, from the
 * previous version and from a newer one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentStatechartError } from '../../src/machine/agentStatechartError.js';
import { CHART_VERSION } from '../../src/persistence/chartVersion.js';
import { createSqliteSessionStore } from '../../src/persistence/sqliteSessionStore.js';
import { migrateSqlite, SQLITE_MIGRATIONS } from '../../src/persistence/sqliteMigrations.js';
import { event, inputText, userInput } from './storedEntries.js';

const WRITER = join(import.meta.dirname, 'sqlite', 'sqliteWriter.ts');
const directories: string[] = [];

afterEach(async () => {
  await Promise.all(directories.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function databaseFile(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'sqlite-file-'));
  directories.push(directory);
  return join(directory, 'sessions.db');
}

async function createSession(path: string, sessionId: string): Promise<void> {
  const store = createSqliteSessionStore({ path });
  await store.create({ sessionId, chartVersion: CHART_VERSION, createdAt: Date.now() });
  await store.close();
}

function writer(args: string[]): {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

describe('a SQLite session file', () => {
  it('shared by two processes appending to one session: every write lands once, in one gapless log', async () => {
    const path = await databaseFile();
    await createSession(path, 'shared');
    const writes = 150;
    const [a, b] = [
      writer([path, 'shared', 'race', 'a', String(writes)]),
      writer([path, 'shared', 'race', 'b', String(writes)]),
    ];
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);

    const store = createSqliteSessionStore({ path });
    const entries = await store.entries('shared');
    await store.close();
    expect(entries.map((entry) => entry.seq)).toEqual(
      Array.from({ length: 2 * writes }, (_, i) => i + 1),
    );
    for (const name of ['a', 'b']) {
      const own = entries
        .map((entry) => String(inputText(entry)).split(' '))
        .filter(([writer]) => writer === name)
        .map(([, index]) => Number(index));
      expect(own).toEqual(Array.from({ length: writes }, (_, i) => i));
    }
  }, 60_000);

  it('written by a process killed mid-write keeps every committed write whole and takes the next one', async () => {
    const path = await databaseFile();
    await createSession(path, 'torn');
    const bulk = writer([path, 'torn', 'bulk', 'bulk']);
    // Let it commit a few large writes, then kill it while it is making the next.
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (bulk.lines.length >= 5) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    bulk.child.kill('SIGKILL');
    await bulk.exited;
    const committed = Number(bulk.lines.at(-1));

    const db = new Database(path);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
    const store = createSqliteSessionStore({ path });
    const entries = await store.entries('torn');
    // At least what it said it committed; only whole writes of 16 entries; no gaps.
    expect(entries.length).toBeGreaterThanOrEqual(committed);
    expect(entries.length % 16).toBe(0);
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, i) => i + 1));
    const session = await store.load('torn');
    expect(session?.head).toBe(entries.length);
    await store.append('torn', {
      after: entries.length,
      entries: [event(entries.length + 1, userInput('after the kill'), Date.now())],
    });
    expect((await store.load('torn'))?.head).toBe(entries.length + 1);
    await store.close();
  }, 60_000);
});

describe('the SQLite schema', () => {
  const tables = (db: Database.Database) =>
    (
      db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all() as { name: string }[]
    ).map((row) => row.name);

  it('is built from an empty file up to the latest version', async () => {
    const path = await databaseFile();
    await createSqliteSessionStore({ path }).close();
    const db = new Database(path);
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    expect(tables(db)).toEqual(['entries', 'sessions', 'sessions_by_update', 'transcript']);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('is migrated from the previous version with its sessions intact', async () => {
    const path = await databaseFile();
    const db = new Database(path);
    migrateSqlite(db, SQLITE_MIGRATIONS.slice(0, -1));
    const header = { sessionId: 'old', chartVersion: CHART_VERSION, createdAt: 1_000 };
    db.prepare(
      'INSERT INTO sessions (session_id, header, created_at, updated_at, head) VALUES (?, ?, ?, ?, 1)',
    ).run('old', JSON.stringify(header), 1_000, 2_000);
    db.prepare(
      'INSERT INTO entries (session_id, seq, at, kind, data) VALUES (?, 1, 2000, ?, ?)',
    ).run(
      'old',
      'event',
      JSON.stringify({ type: 'UserInput', message: { role: 'user', content: 'hi' } }),
    );
    db.close();

    const store = createSqliteSessionStore({ path });
    const session = await store.load('old');
    expect(session?.header).toEqual(header);
    expect(session?.entries.map((entry) => entry.data)).toEqual([
      { type: 'UserInput', message: { role: 'user', content: 'hi' } },
    ]);
    expect((await store.list()).map((summary) => summary.sessionId)).toEqual(['old']);
    await store.close();
    const migrated = new Database(path);
    expect(migrated.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    expect(tables(migrated)).toContain('sessions_by_update');
    migrated.close();
  });

  it('is refused when a newer version of the package wrote it, and left untouched', async () => {
    const path = await databaseFile();
    const db = new Database(path);
    db.pragma(`user_version = ${SQLITE_MIGRATIONS.length + 1}`);
    db.close();
    let refusal: unknown;
    try {
      createSqliteSessionStore({ path });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(AgentStatechartError);
    expect((refusal as AgentStatechartError).code).toBe('STORE_FAILED');
    expect((refusal as Error).message).toMatch(
      /newer than this package knows.*upgrade agent-statechart/,
    );
    const after = new Database(path);
    expect(after.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length + 1);
    expect(tables(after)).toEqual([]);
    after.close();
  });

  it('stays at its version when a migration fails: all of the missing migrations or none', async () => {
    const db = new Database(await databaseFile());
    migrateSqlite(db, SQLITE_MIGRATIONS.slice(0, 1));
    expect(() =>
      migrateSqlite(db, [SQLITE_MIGRATIONS[0]!, 'CREATE TABLE extra (x INTEGER);', 'NOT SQL']),
    ).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(tables(db)).not.toContain('extra');
    db.close();
  });
});
