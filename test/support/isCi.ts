/**
 * Whether the run is CI's (`CI` set to anything but empty, `false` or `0`), where a test that needs
 * a system package fails the run instead of skipping.
 */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}
