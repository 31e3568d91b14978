import { onTestFinished, vi } from 'vitest';

/**
 * Takes every credential the Anthropic SDK could find away from this test: the variables it reads
 * and its profiles on disk (`ANTHROPIC_CONFIG_DIR` pointed at nothing). Restored when the test ends.
 *
 * @example
 * it('says no key is configured', () => { withoutCredentials(); … });
 */
export function withoutCredentials(): void {
  for (const name of [
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'ANTHROPIC_PROFILE',
    'ANTHROPIC_IDENTITY_TOKEN',
    'ANTHROPIC_IDENTITY_TOKEN_FILE',
    'ANTHROPIC_FEDERATION_RULE_ID',
  ]) {
    vi.stubEnv(name, undefined);
  }
  vi.stubEnv('ANTHROPIC_CONFIG_DIR', '/nonexistent/anthropic-config');
  onTestFinished(() => {
    vi.unstubAllEnvs();
  });
}
