/**
 * The Stately relay's page in real Chromium, with Stately's hosted UI played by a stand-in served
 * at its address: the page runs under its own CSP, waits for the UI to say it is ready, then
 * passes it every event the agent's process sent, those from before the page opened included.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import { startStatelyRelay, type StatelyRelay } from '../../src/inspect/startStatelyRelay.js';
import { launchChromium } from './browser.js';

/** `null` when no Chromium was found: the tests are skipped (see test/support/chromiumSetup.ts). */
const chromiumPath = inject('chromiumPath');

/** Stately's UI as the page sees it: it says it is ready, and keeps what it is posted. */
const STAND_IN = `<!doctype html><script>
  window.received = [];
  window.addEventListener('message', (message) => window.received.push(message.data));
  parent.postMessage({ type: '@statelyai.connected' }, '*');
</script>`;

let browser: Browser;
let relay: StatelyRelay;
beforeAll(async () => {
  if (chromiumPath === null) return;
  [browser, relay] = await Promise.all([launchChromium(chromiumPath), startStatelyRelay()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), relay?.stop()]);
});

function send(socket: WebSocket, event: object): void {
  socket.send(JSON.stringify(event));
}

describe.runIf(chromiumPath)("the Stately relay's page", () => {
  it("passes every event to Stately's UI once it is ready, those sent before it opened first", async () => {
    const agentSide = new WebSocket(relay.socketUrl);
    await new Promise((resolve, reject) => {
      agentSide.once('open', resolve);
      agentSide.once('error', reject);
    });
    send(agentSide, { type: '@xstate.actor', sessionId: 'x:0' });

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.route('https://stately.ai/inspect', (route) =>
      route.fulfill({ contentType: 'text/html', body: STAND_IN }),
    );
    await page.goto(relay.pageUrl);
    const ui = page.frame({ url: 'https://stately.ai/inspect' });
    const received = () => ui!.evaluate<unknown[]>('window.received');
    await expect.poll(() => page.frame({ url: 'https://stately.ai/inspect' }) !== null).toBe(true);
    await expect.poll(received).toEqual([{ type: '@xstate.actor', sessionId: 'x:0' }]);

    send(agentSide, { type: '@xstate.snapshot', snapshot: { value: 'CallingLlm' } });
    await expect.poll(received).toEqual([
      { type: '@xstate.actor', sessionId: 'x:0' },
      { type: '@xstate.snapshot', snapshot: { value: 'CallingLlm' } },
    ]);
    expect(problems).toEqual([]);
    agentSide.close();
    await page.close();
  });
});
