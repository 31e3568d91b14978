/**
 * Loading the `pg` driver, an optional peer dependency: a missing one is reported with the
 * command that installs it.
 */
import { describe, expect, it } from 'vitest';
import { loadPostgresDriver } from '../../src/persistence/postgresPool.js';

describe('loading the pg driver', () => {
  it('names the install command when pg is missing', () => {
    const missing = Object.assign(new Error("Cannot find module 'pg'"), {
      code: 'MODULE_NOT_FOUND',
    });
    expect(() =>
      loadPostgresDriver(() => {
        throw missing;
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'MISSING_PEER_DEPENDENCY',
        message: expect.stringMatching(
          /needs the optional peer dependency pg.*run `npm install pg`/,
        ) as unknown,
      }) as unknown,
    );
  });
});
