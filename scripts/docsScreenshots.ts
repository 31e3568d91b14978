/**
 * Regenerates the inspector screenshots in `docs/` from the real page in Chromium, watching the
 * demo (`npm start`'s scripted session):
 *
 *     npm run docs:screenshots
 *
 * - `docs/inspector-screenshot.png`: live, while the model streams its final answer;
 * - `docs/inspector-time-travel.png`: stepped back to the `Error` state of the retried 529.
 *
 * `test/inspect/inspectorPage.test.ts` runs the same capture into `test-results/`, so the script
 * keeps working as the page changes.
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { runDemo } from '../src/cli/demo.js';
import { startInspectorServer } from '../src/inspect/startInspectorServer.js';
import { launchChromium } from '../test/inspect/browser.js';
import { CHROMIUM_HINT, findChromium } from '../test/support/findChromium.js';

/** The screenshots' files, in `docs/`. */
export const SCREENSHOT_FILES = {
  live: 'inspector-screenshot.png',
  timeTravel: 'inspector-time-travel.png',
} as const;

/**
 * What was pictured: the state lit in each screenshot.
 *
 * @example
 * const shots: CapturedScreenshots = { live: 'CallingLlm', timeTravel: 'Error', paths: [] };
 */
export interface CapturedScreenshots {
  live: string;
  timeTravel: string;
  paths: string[];
}

const viewedState = (page: Page) => page.locator('body').getAttribute('data-view-state');

/**
 * Runs the demo watched by a fresh inspector page (1920×1080, where the whole chart is drawn with readable labels) and saves both screenshots into
 * `directory`.
 *
 * @example
 * const browser = await launchChromium('/usr/bin/chromium');
 * await captureDocsScreenshots(browser, 'docs');
 */
export async function captureDocsScreenshots(
  browser: Browser,
  directory: string,
): Promise<CapturedScreenshots> {
  const inspector = await startInspectorServer();
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  try {
    await page.goto(inspector.url);
    const printed: string[] = [];
    let live: Promise<string | null> | undefined;
    await runDemo({
      eventDelayMs: 40,
      inspector: inspector.recorder,
      print: (line) => {
        printed.push(line);
        // The last model call, once the commit is made: every panel has something to show.
        if (
          live === undefined &&
          line === 'state     CallingLlm' &&
          printed.some((earlier) => earlier.startsWith('  commit'))
        ) {
          // While the final answer is being made (it takes the model most of a second); the
          // state is read as the picture is taken, since taking it can outlast the answer.
          live = new Promise((resolve) => setTimeout(resolve, 300)).then(async () => {
            const shown = viewedState(page);
            await page.screenshot({ path: join(directory, SCREENSHOT_FILES.live) });
            return shown;
          });
        }
      },
    });
    const liveState = await live;
    await page.locator('[data-state="ShuttingDown"].is-active').waitFor();
    // The last transitions' flashes fade before the picture of the past is taken.
    while ((await page.locator('.is-taken, .is-passed').count()) > 0)
      await page.waitForTimeout(100);

    // Back to the first step, then forward, a step at a time, to the backoff after the 529.
    await page.keyboard.press('Home');
    for (let step = 1; ; step += 1) {
      await page
        .getByTestId('step-position')
        .filter({ hasText: new RegExp(`^step ${step} /`) })
        .waitFor();
      if ((await viewedState(page)) === 'Error') break;
      if (step === 10) throw new Error('the demo did not reach Error in its first 10 steps');
      await page.keyboard.press('ArrowRight');
    }
    await page.getByTestId('retry').filter({ hasText: 'Retry scheduled' }).waitFor();
    // Lit states fade in and out (a CSS transition of 0.3 s).
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(directory, SCREENSHOT_FILES.timeTravel) });
    return {
      live: liveState ?? '',
      timeTravel: (await viewedState(page)) ?? '',
      paths: Object.values(SCREENSHOT_FILES).map((file) => join(directory, file)),
    };
  } finally {
    await page.close();
    await inspector.close();
  }
}

// Run only when executed (`npm run docs:screenshots`), not when a test imports this module.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const main = async () => {
    const chromium = await findChromium();
    if (!chromium.found) throw new Error(`${chromium.problem}; ${CHROMIUM_HINT}`);
    const browser = await launchChromium(chromium.path);
    try {
      const shots = await captureDocsScreenshots(browser, resolve(import.meta.dirname, '../docs'));
      for (const path of shots.paths) console.log(`wrote ${path}`);
    } finally {
      await browser.close();
    }
  };
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
