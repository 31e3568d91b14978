/**
 * The one place the inspector meets `src/diagram`: the page draws the same SVG as the docs'
 * diagrams (states marked `data-state`, transitions `data-transition`, `data-event`,
 * `data-source`, `data-target`), so what is lit live is exactly the chart users read.
 */
import type { AnyStateMachine } from 'xstate';
import { toSvg } from '../diagram/index.js';

/**
 * Draws `machine` for the inspector page: the docs' renderer, compact and without the per-state
 * detail lines (entry/exit actions, invoked actors), so the chart fits a panel with labels large
 * enough to read; each transition's actions are in its tooltip.
 *
 * @example
 * const svg = await renderChart(agentMachine);
 * svg.includes('data-state="CallingLlm"'); // true
 */
export function renderChart(machine: AnyStateMachine): Promise<string> {
  return toSvg(machine, { details: false, compact: true });
}
