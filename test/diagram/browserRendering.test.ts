/**
 * The diagrams as a person sees them: Chromium (headless, driven by playwright-core) renders the
 * SVG to a PNG and Mermaid's own renderer draws the Mermaid text. PNGs are kept in
 * `test-results/` for a look.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  AGENT_STATE_NAMES,
  agentMachine,
  CALLING_SUBSTATES,
  EXECUTING_REGIONS,
  PROCESSING_SUBSTATES,
  WAITING_SUBSTATES,
} from '../../src/index.js';
import { toMermaid } from '../../src/diagram/toMermaid.js';
import { toSvg } from '../../src/diagram/toSvg.js';
import { nestedMachine } from './fixtures/nestedMachine.js';
import { launchChromium } from '../inspect/browser.js';

/**
 * The states nested in WaitingForUserInput, CallingLlm and ProcessingLlmResponse (the two states
 * of a compaction are in both of the first two).
 */
const NESTED_STATES = [...WAITING_SUBSTATES, ...CALLING_SUBSTATES, ...PROCESSING_SUBSTATES];

const root = resolve(import.meta.dirname, '../..');
const results = join(root, 'test-results');
/** `null` when no Chromium was found: the tests are skipped (see test/support/chromiumSetup.ts). */
const chromiumPath = inject('chromiumPath');
let browser: Browser;

beforeAll(async () => {
  if (chromiumPath === null) return;
  await mkdir(results, { recursive: true });
  browser = await launchChromium(chromiumPath);
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/**
 * Counts what a PNG holds, decoded by the browser: pixels that are not the white background, and
 * distinct colours. The script is a string because it runs in the page, where the DOM is (this
 * project's TypeScript has no DOM types).
 */
const COUNT_INK = `async (base64) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + base64;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const { data } = context.getImageData(0, 0, image.width, image.height);
  let ink = 0;
  const colours = new Set();
  for (let i = 0; i < data.length; i += 4) {
    if (data[i] < 240 || data[i + 1] < 240 || data[i + 2] < 240) ink++;
    colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  }
  return { ink, colours: colours.size };
}`;

async function inkOf(page: Page, png: Buffer): Promise<{ ink: number; colours: number }> {
  const result = await page.evaluate(`(${COUNT_INK})(${JSON.stringify(png.toString('base64'))})`);
  return result as { ink: number; colours: number };
}

/** Renders Mermaid text with mermaid's browser bundle (already on the page) into #diagram. */
const RENDER_MERMAID = `async (source) => {
  window.mermaid.initialize({ startOnLoad: false });
  const { svg } = await window.mermaid.render('agent', source);
  document.getElementById('diagram').innerHTML = svg;
}`;

async function renderSvgToPng(svg: string, name: string): Promise<{ png: Buffer; page: Page }> {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  await page.setContent(`<!doctype html><body style="margin:0">${svg}</body>`);
  const png = await page.locator('svg').first().screenshot();
  await writeFile(join(results, name), png);
  return { png, page };
}

describe.runIf(chromiumPath)('the SVG diagram in Chromium', () => {
  it('renders the agent chart to a PNG that is neither empty nor blank', async () => {
    const svg = await toSvg(agentMachine);
    const { png, page } = await renderSvgToPng(svg, 'state-machine.png');
    try {
      const width = Number(/width="(\d+)"/.exec(svg)?.[1]);
      expect(png.length).toBeGreaterThan(20_000);
      const { ink, colours } = await inkOf(page, png);
      // Boxes, lines and text: a real drawing covers a few percent of the page in many colours.
      expect(ink).toBeGreaterThan(width * 20);
      expect(colours).toBeGreaterThan(50);
      // Every state's name, top-level and nested, is laid out as text the browser can find.
      const names = await page.locator('g.state text.state-name').allTextContents();
      expect(names.sort()).toEqual(
        [
          ...AGENT_STATE_NAMES,
          ...NESTED_STATES,
          // The regions of ExecutingTools, and the two states of each.
          ...EXECUTING_REGIONS,
          ...['Idle', 'Running', 'Idle', 'Waiting', 'Idle', 'Running', 'Idle', 'Waiting'],
        ].sort(),
      );
    } finally {
      await page.close();
    }
  });

  it('renders nested and parallel states too', async () => {
    const { png, page } = await renderSvgToPng(await toSvg(nestedMachine), 'nested-machine.png');
    try {
      expect((await inkOf(page, png)).ink).toBeGreaterThan(10_000);
    } finally {
      await page.close();
    }
  });
});

describe.runIf(chromiumPath)('the Mermaid diagram in Mermaid itself', () => {
  it('renders with every state, top-level and nested', async () => {
    const require = createRequire(import.meta.url);
    const page = await browser.newPage();
    try {
      await page.setContent('<!doctype html><body><div id="diagram"></div></body>');
      await page.addScriptTag({ path: require.resolve('mermaid/dist/mermaid.min.js') });
      const text = toMermaid(agentMachine);
      await page.evaluate(`(${RENDER_MERMAID})(${JSON.stringify(text)})`);
      const png = await page.locator('#diagram svg').screenshot();
      await writeFile(join(results, 'state-machine-mermaid.png'), png);
      const labels = await page.locator('#diagram svg').textContent();
      for (const state of [...AGENT_STATE_NAMES, ...NESTED_STATES]) {
        expect(labels).toContain(state);
      }
      expect((await inkOf(page, png)).ink).toBeGreaterThan(10_000);
    } finally {
      await page.close();
    }
  });
});
