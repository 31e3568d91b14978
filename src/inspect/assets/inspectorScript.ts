/**
 * The inspector page's script: its six parts in one closure, served as `/assets/inspector.js`.
 */
import { clientChart } from './clientChart.js';
import { clientConversation } from './clientConversation.js';
import { clientEventLog } from './clientEventLog.js';
import { clientMain } from './clientMain.js';
import { clientPlace } from './clientPlace.js';
import { clientStore } from './clientStore.js';

/**
 * The browser JavaScript of the inspector page (no dependencies, no network beyond its server).
 *
 * @example
 * response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(inspectorScript);
 */
export const inspectorScript = [
  '(function () {',
  "'use strict';",
  clientStore,
  clientChart,
  clientEventLog,
  clientConversation,
  clientPlace,
  clientMain,
  '})();',
  '',
].join('\n');
