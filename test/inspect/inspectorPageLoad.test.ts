/**
 * The inspector page as it opens on a busy agent, in real Chromium (playwright-core): the chart
 * is drawn while the agent streams, its labels are readable at the default size and it grows
 * with the window, steps have one numbering, and the console stays clean.
 */
import { rm } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Agent, createAgent } from '../../src/index.js';
import { type StartedInspectorServer, startInspectorServer } from '../../src/inspect/index.js';
import { reply, startMessagesApiServer } from '../../src/testing/index.js';
import { gitWorkspace } from '../agent/harness.js';
import { launchChromium, screenshot } from './browser.js';

/** `null` when no Chromium was found: the tests are skipped (see test/support/chromiumSetup.ts). */
const chromiumPath = inject('chromiumPath');
const STORY = Array.from({ length: 20_000 }, (_, index) => `word${index}`).join(' ');

let browser: Browser;
let inspector: StartedInspectorServer;
let page: Page;
let storyteller: Agent;
const problems: string[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  if (chromiumPath === null) return;
  const [launched, started, llm, workspace] = await Promise.all([
    launchChromium(chromiumPath),
    startInspectorServer(),
    startMessagesApiServer({ script: [reply(STORY)], eventDelayMs: 2 }),
    gitWorkspace({ 'README.md': '# story\n' }),
  ]);
  [browser, inspector] = [launched, started];
  storyteller = createAgent({
    workspace,
    inspect: inspector.observe({ name: 'storyteller' }),
    anthropic: { baseURL: llm.baseURL, apiKey: 'sk-test' },
  });
  cleanups.push(async () => {
    await storyteller.shutdown({ timeoutMs: 2_000 });
    await llm.close();
    await rm(workspace, { recursive: true, force: true });
  });
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
});

afterAll(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
  await Promise.all([browser?.close(), inspector?.close()]);
});

/** Rendered size, in CSS pixels, of every transition label's text, and how the chart sits. */
async function measureChart() {
  return page.evaluate<{
    labelPx: number[];
    chart: { width: number; height: number; left: number; top: number };
    area: { width: number; height: number; left: number; top: number };
  }>(`(() => {
    const svg = document.querySelector('[data-testid="chart"] svg');
    const holder = svg.parentElement;
    const style = getComputedStyle(holder);
    const outer = holder.getBoundingClientRect();
    const box = svg.getBoundingClientRect();
    const labelPx = Array.from(svg.querySelectorAll('[data-transition] text')).map(
      (text) => Number(text.getAttribute('font-size')) * text.getScreenCTM().a,
    );
    return {
      labelPx,
      chart: { width: box.width, height: box.height, left: box.left, top: box.top },
      area: {
        left: outer.left + parseFloat(style.paddingLeft),
        top: outer.top + parseFloat(style.paddingTop),
        width: holder.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
        height: holder.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom),
      },
    };
  })()`);
}

type Measured = Awaited<ReturnType<typeof measureChart>>;

function fitsWhole({ chart, area }: Measured): boolean {
  return chart.width <= area.width + 1 && chart.height <= area.height + 1;
}

/** The texts of the chart that lie outside its panel's visible area. */
function textsCutOff(): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const svg = document.querySelector('[data-testid="chart"] svg');
    const view = svg.parentElement.getBoundingClientRect();
    return Array.from(svg.querySelectorAll('text'))
      .filter((text) => {
        const box = text.getBoundingClientRect();
        return box.left < view.left || box.right > view.right || box.top < view.top || box.bottom > view.bottom;
      })
      .map((text) => text.textContent);
  })()`);
}

/** Whether the deepest lit state's box lies within the chart panel's visible area. */
function activeStateInView(): Promise<boolean> {
  return page.evaluate<boolean>(`(() => {
    const svg = document.querySelector('[data-testid="chart"] svg');
    const view = svg.parentElement.getBoundingClientRect();
    const lit = [...svg.querySelectorAll('[data-state].is-active')].at(-1);
    if (!lit) return false;
    const box = lit.getBoundingClientRect();
    return box.left >= view.left - 1 && box.right <= view.right + 1 && box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
  })()`);
}

/** Two frames of the page: a resize observer's callback runs in a frame's rendering steps. */
const frames = () =>
  page.evaluate(
    'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))',
  );

/** Waits for the chart's size to settle after a resize (it is set on the next frames). */
async function settled(): Promise<Measured> {
  // Time alone may pass without a frame on a busy machine: the chart would not be resized yet,
  // and two measurements of its old size would agree.
  await frames();
  let last = await measureChart();
  for (;;) {
    await page.waitForTimeout(100);
    await frames();
    const next = await measureChart();
    // Heights too: when the chart's height is what limits it, the panel's header losing the
    // "Whole chart" button gives it a few pixels more height and no more width.
    const same =
      next.chart.width === last.chart.width &&
      next.chart.height === last.chart.height &&
      next.area.width === last.area.width &&
      next.area.height === last.area.height;
    if (same) return next;
    last = next;
  }
}

describe.runIf(chromiumPath)('the inspector page as it opens', () => {
  it('draws the chart, its active state lit, on a page opened while an agent streams', async () => {
    storyteller.send('Tell me a long story');
    await expect.poll(() => inspector.recorder.agents()[0]?.id, { timeout: 5_000 }).toBeDefined();
    const agentId = inspector.recorder.agents()[0]?.id ?? '';
    // A busy page to open: hundreds of steps already, and more arriving.
    await expect
      .poll(() => inspector.recorder.history(agentId)?.steps.length ?? 0, { timeout: 15_000 })
      .toBeGreaterThan(200);

    await page.goto(inspector.url);
    await page.locator('[data-state="CallingLlm"].is-active').waitFor();
    expect(storyteller.state, 'the agent still streams').toBe('CallingLlm');
    await screenshot(page, 'opened-while-streaming');
    storyteller.interrupt();
  });

  it('draws every transition label at least 11 px tall at the default size, the active state in view', async () => {
    const measured = await settled();
    expect(measured.labelPx.length).toBeGreaterThan(20);
    expect(Math.min(...measured.labelPx)).toBeGreaterThanOrEqual(11);
    await expect.poll(() => activeStateInView()).toBe(true);
    // The button that shows the whole chart is there exactly when the whole chart is not.
    expect(await page.getByTestId('chart-zoom').isVisible()).toBe(!fitsWhole(measured));
  });

  it('shows the whole chart in a large window, no label cut off, and keeps labels readable in a small one (scrolling, or whole on request)', async () => {
    // A 5K screen: the chart, with ExecutingTools' three regions and the states nested in
    // WaitingForUserInput, CallingLlm and ProcessingLlmResponse drawn inside it, is larger than
    // a 1440p (or a 4K) window's chart panel holds with labels of 10 px.
    await page.setViewportSize({ width: 5120, height: 2880 });
    const large = await settled();
    expect(fitsWhole(large), JSON.stringify(large)).toBe(true);
    // Whole rather than scrolled by a few pixels: labels may be a pixel under the readable size.
    expect(Math.min(...large.labelPx)).toBeGreaterThanOrEqual(10);
    expect(await textsCutOff()).toEqual([]);
    // It fills the panel on one side: it grew as far as the panel lets it.
    const fills =
      large.chart.width >= large.area.width - 2 || large.chart.height >= large.area.height - 2;
    expect(fills, JSON.stringify(large)).toBe(true);
    await screenshot(page, 'large-window');

    await page.setViewportSize({ width: 1100, height: 700 });
    const small = await settled();
    expect(Math.min(...small.labelPx)).toBeGreaterThanOrEqual(11);
    expect(fitsWhole(small)).toBe(false);
    await expect.poll(() => activeStateInView()).toBe(true);
    const zoom = page.getByTestId('chart-zoom');
    expect(await zoom.textContent()).toBe('Whole chart');
    await zoom.click();
    const whole = await settled();
    expect(fitsWhole(whole)).toBe(true);
    expect(Math.min(...whole.labelPx)).toBeLessThan(11);
    expect(await textsCutOff()).toEqual([]);
    await zoom.click();
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(Math.min(...(await settled()).labelPx)).toBeGreaterThanOrEqual(11);
  });

  it('cuts off no label unannounced at 1400 px wide: whole, or scrolling with the whole chart offered', async () => {
    await page.setViewportSize({ width: 1400, height: 900 });
    const measured = await settled();
    expect(Math.min(...measured.labelPx)).toBeGreaterThanOrEqual(10);
    if (fitsWhole(measured)) {
      expect(await textsCutOff()).toEqual([]);
    } else {
      expect(await page.locator('[data-testid="chart"] .pannable').count()).toBe(1);
      expect(await page.getByTestId('chart-zoom').textContent()).toBe('Whole chart');
      await expect.poll(() => activeStateInView()).toBe(true);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('numbers the steps one way: the selected event is row #n at "step n"', async () => {
    await page.keyboard.press('Home');
    const selected = page.locator('[data-testid="event-log"] .row.is-selected');
    await expect.poll(() => page.getByTestId('step-position').textContent()).toMatch(/^step 1 \//);
    expect(await selected.locator('.number').textContent()).toBe('#1');
    for (let step = 0; step < 3; step += 1) await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByTestId('step-position').textContent()).toMatch(/^step 4 \//);
    expect(await selected.locator('.number').textContent()).toBe('#4');
    expect(await selected.getAttribute('data-index')).toBe('3');

    await page.keyboard.press('End');
    await expect.poll(() => page.locator('body.is-live').count()).toBe(1);
    const position = (await page.getByTestId('step-position').textContent()) ?? '';
    const last = /^step ([\d,]+) \/ ([\d,]+) · live$/.exec(position);
    expect(last?.[1], position).toBe(last?.[2]);
    const rows = await page
      .locator('[data-testid="event-log"] .row:not([hidden]) .number')
      .allTextContents();
    expect(rows).toContain(`#${last?.[1]}`);
  });

  it('logs no error in the console: no missing favicon, no failed request', async () => {
    expect(problems).toEqual([]);
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(
      /^data:image\/svg\+xml,/,
    );
  });
});
