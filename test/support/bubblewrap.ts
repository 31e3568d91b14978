import { inject } from 'vitest';

/**
 * Why this machine cannot start a bubblewrap sandbox, or `null` when it can, as
 * ./bubblewrapSetup.ts found once for the run: the tests that need one skip without it (the run
 * says so in one line) and fail the run under CI.
 *
 * @example
 * describe.skipIf(sandboxUnavailable !== null)('the sandbox', () => { … });
 */
export const sandboxUnavailable: string | null = inject('sandboxUnavailable');
