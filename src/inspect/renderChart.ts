/**
 * The one place the inspector meets `src/diagram`: the page draws the same SVG as the docs'
 * diagrams (states marked `data-state`, transitions `data-transition`, `data-event`,
 * `data-source`, `data-target`), so what is lit live is exactly the chart users read.
 */
import type { AnyStateMachine } from 'xstate';
import { toSvg } from '../diagram/toSvg.js';

/**
 * Draws `machine` for the inspector page: the docs' renderer without the per-state detail lines
 * (entry/exit actions, invoked actors), so the whole chart fits a panel and stays readable.
 *
 * @example
 * const svg = await renderChart(agentMachine);
 * svg.includes('data-state="CallingLlm"'); // true
 */
export function renderChart(machine: AnyStateMachine): Promise<string> {
  return toSvg(machine, { details: false });
}
