/**
 * Where the browser tests find Chromium: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`.
 * Playwright's own browser download is not used (`playwright-core` only), so a machine without
 * Chromium has none, and the browser tests say so instead of dying in `chromium.launch`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** How to get a Chromium, for every message that reports a missing one. */
export const CHROMIUM_HINT = 'apt-get install chromium, or set CHROMIUM_PATH=/path/to/chromium';

export type ChromiumProbe = { found: true; path: string } | { found: false; problem: string };

/**
 * Runs `<chromium> --version`: the program is there and starts (its libraries load), without the
 * cost of opening a browser.
 */
export async function findChromium(env: NodeJS.ProcessEnv = process.env): Promise<ChromiumProbe> {
  const path = env.CHROMIUM_PATH || '/usr/bin/chromium';
  try {
    await promisify(execFile)(path, ['--version'], { timeout: 15_000 });
    return { found: true, path };
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : 'does not start';
    const from = env.CHROMIUM_PATH ? `CHROMIUM_PATH=${path}` : path;
    return { found: false, problem: `no Chromium could be launched (${from}: ${reason})` };
  }
}
