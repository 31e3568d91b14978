/** Playwright (`playwright-core`, no browser download) driving the system's Chromium. */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Screenshots and other artifacts (gitignored). */
export const ARTIFACTS = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'test-results',
  'inspect',
);

/**
 * Launches headless Chromium. Tests pass `inject('chromiumPath')` (found once per run by
 * test/support/chromiumSetup.ts); scripts pass what `findChromium` found.
 */
export async function launchChromium(executablePath: string): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Saves a screenshot under test-results/inspect and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/**
 * Records, in the page, every state the chart lights (`is-active`) or flashes as passed through
 * (`is-passed`), in order, as `window.__litStates`. Page code is given as a string: the project's
 * TypeScript has no DOM types.
 */
export async function recordLitStates(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    const seen = [];
    window.__litStates = seen;
    new MutationObserver((mutations) => {
      for (const mutation of mutations) {
        const state = mutation.target.getAttribute('data-state');
        if (state === null) continue;
        const classes = mutation.target.classList;
        if ((classes.contains('is-active') || classes.contains('is-passed')) && seen[seen.length - 1] !== state) {
          seen.push(state);
        }
      }
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['class'] });
  })()`);
}

export async function litStates(page: Page): Promise<string[]> {
  return page.evaluate<string[]>('window.__litStates');
}

/**
 * Scrolls the (virtualised) event log from the top until a row containing `text` is rendered;
 * returns the earliest such row, or `undefined` after the last row. Rows are recycled, so DOM
 * order is not step order: `data-index` is.
 */
export async function findLogRow(page: Page, text: string) {
  await page.evaluate(`document.querySelector('[data-testid="event-log"]').scrollTop = 0`);
  for (;;) {
    await page.evaluate(
      'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))',
    );
    const indexes = await page.evaluate<number[]>(
      `Array.from(document.querySelectorAll('[data-testid="event-log"] .row:not([hidden])'))
        .filter((row) => row.textContent.includes(${JSON.stringify(text)}))
        .map((row) => Number(row.getAttribute('data-index')))`,
    );
    if (indexes.length > 0) {
      return page.locator(`[data-testid="event-log"] .row[data-index="${Math.min(...indexes)}"]`);
    }
    const atEnd = await page.evaluate<boolean>(`(() => {
      const log = document.querySelector('[data-testid="event-log"]');
      const before = log.scrollTop;
      log.scrollTop += log.clientHeight - 22;
      return log.scrollTop === before;
    })()`);
    if (atEnd) return undefined;
  }
}
