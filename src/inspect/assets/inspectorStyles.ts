/**
 * The inspector page's stylesheet, shipped as a string so the compiled package carries it (the
 * package ships `dist/` only, and the page must work offline: no CDN, no web fonts).
 */

/**
 * The CSS of the inspector page, served as `/assets/inspector.css`.
 *
 * @example
 * response.writeHead(200, { 'Content-Type': 'text/css' }).end(inspectorStyles);
 */
export const inspectorStyles = String.raw`
:root {
  --bg: #f5f6f8; --panel: #ffffff; --ink: #1d2330; --muted: #6b7385; --line: #dde1e8;
  --accent: #2563eb; --lit: #f59e0b; --lit-fill: #fff4d6; --ok: #15803d; --bad: #b91c1c;
  --warn: #b45309; --wait: #7c3aed; --hook: #0f766e; --row: 22px;
  --mono: ui-monospace, 'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace;
  --sans: system-ui, 'Segoe UI', Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif;
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html, body { height: 100%; margin: 0; }
body { font: 13px/1.4 var(--sans); color: var(--ink); background: var(--bg); display: flex; flex-direction: column; }
button { font: inherit; cursor: pointer; border: 1px solid var(--line); background: var(--panel); color: var(--ink); border-radius: 6px; padding: 3px 9px; }
button:hover:not(:disabled) { border-color: var(--accent); }
button:disabled { opacity: .45; cursor: default; }
button:focus-visible, input:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }

header { display: flex; align-items: center; gap: 14px; padding: 8px 14px; background: #111827; color: #f9fafb; flex: none; }
header h1 { font-size: 14px; margin: 0; font-weight: 600; white-space: nowrap; }
header h1 span { color: #9ca3af; font-weight: 400; }
.tabs { display: flex; gap: 6px; overflow-x: auto; flex: 1; min-width: 0; }
.tab { background: #1f2937; color: #e5e7eb; border-color: #374151; display: flex; align-items: center; gap: 7px; white-space: nowrap; }
.tab[aria-selected="true"] { background: #f9fafb; color: #111827; border-color: #f9fafb; }
.tab .dot { width: 8px; height: 8px; border-radius: 50%; background: var(--ok); }
.tab .dot.done, .tab .dot.stopped { background: #9ca3af; }
.tab .dot.error { background: #ef4444; }
.tab .where { font-family: var(--mono); font-size: 11px; opacity: .75; }
.connection { font-size: 12px; color: #9ca3af; white-space: nowrap; }
.connection::before { content: ''; display: inline-block; width: 8px; height: 8px; border-radius: 50%; margin-right: 6px; background: #6b7280; }
.connection.live::before { background: #22c55e; }
.connection.lost::before { background: #ef4444; }

/* A stored session's place in the tree of agents: the sessions above it, and its subagents'. */
.place { flex: none; display: flex; flex-wrap: wrap; align-items: center; gap: 6px 18px; padding: 6px 14px; background: var(--panel); border-bottom: 1px solid var(--line); font-size: 12px; }
.place .lineage, .place .subagents { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 8px; min-width: 0; }
.place .label { font-size: 10.5px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
.place .sep { color: var(--muted); }
.place .session-id, .place .call, .place .via { font: 11.5px var(--mono); }
.place .session-self { font-weight: 600; }
.place .via, .place .count, .place .hint, .place .session-missing { color: var(--muted); }
.place .state { font: 11px var(--mono); color: var(--accent); }
.place .problem { color: var(--bad); }
.session-link { color: var(--accent); text-decoration: none; border: 1px solid #bfdbfe; background: #eff6ff; border-radius: 6px; padding: 1px 7px; white-space: nowrap; }
.session-link:hover { border-color: var(--accent); }
.session-link:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.tool .session-link { font-size: 11px; padding: 0 7px; }

/* The chart takes what the side column leaves: all the height, and most of the width. */
main { flex: 1; min-height: 0; display: grid; grid-template-columns: minmax(0, 1fr) clamp(340px, 27vw, 560px); gap: 10px; padding: 10px; }
.column { display: flex; flex-direction: column; gap: 10px; min-height: 0; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; min-height: 0; display: flex; flex-direction: column; }
.panel > h2 { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 0; padding: 7px 10px; border-bottom: 1px solid var(--line); display: flex; gap: 8px; align-items: center; }
.panel > h2 .aside { margin-left: auto; text-transform: none; letter-spacing: 0; font-weight: 400; }
.panel > h2 .zoom { text-transform: none; letter-spacing: 0; font-size: 11px; padding: 1px 8px; color: var(--ink); }

.chart-area { flex: 1; min-height: 0; position: relative; display: flex; }
.chart { flex: 1; min-height: 0; overflow: hidden; position: relative; }
/* Overlaid, so the chart keeps its size when they come and go. */
.overlays { position: absolute; bottom: 8px; left: 10px; max-width: min(340px, 40%); display: flex; flex-direction: column; gap: 6px; pointer-events: none; }
/* The page script sizes the SVG: fitted to the panel, never below a readable size (it scrolls then). */
.chart > div { position: absolute; inset: 0; overflow: auto; display: flex; padding: 4px; }
.chart > div.pannable { cursor: grab; }
.chart > div.panning { cursor: grabbing; user-select: none; }
.chart svg { display: block; margin: auto; flex: none; }
.chart svg > .background { fill: transparent; }
.chart .empty { color: var(--muted); padding: 30px; text-align: center; }
.chart [data-state] > .state-box { transition: fill .3s, stroke .3s, stroke-width .3s; }
.chart [data-state].is-active > .state-box { fill: var(--lit-fill); stroke: var(--lit); stroke-width: 3.5px; }
.chart [data-state].is-active > .state-name { fill: #92400e; }
.chart [data-state].is-active { filter: drop-shadow(0 0 7px rgba(245, 158, 11, .6)); }
/* A region is active whenever its parallel state is: outlined, not filled, so the states lit
   inside it (Idle, or Waiting for a person) stand out. */
.chart [data-state].region.is-active { filter: none; }
.chart [data-state].region.is-active > .state-box { fill: transparent; stroke-width: 2px; }
.chart [data-state].is-passed > .state-box { animation: passed 1.1s ease-out; }
@keyframes passed { from { fill: #fde68a; stroke: var(--lit); stroke-width: 3.5px; } }
.chart .edge.is-taken .edge-line { stroke: var(--lit); stroke-width: 3px; animation: taken .9s ease-out; }
.chart .edge.is-taken > :not(.edge-line):not(text):not(.edge-label-box) { fill: var(--lit); stroke: var(--lit); }
@keyframes taken { from { stroke-width: 5px; } }

.status { display: grid; grid-template-columns: auto 1fr auto; gap: 4px 14px; align-items: center; padding: 8px 10px; border-top: 1px solid var(--line); }
.status .state-name { font: 600 16px var(--mono); }
.status .state-name.done { color: var(--muted); }
.status .facts { color: var(--muted); font-size: 12px; display: flex; flex-wrap: wrap; gap: 4px 14px; }
.status .facts b { color: var(--ink); font-weight: 600; }
.retry { display: none; flex-direction: column; gap: 5px; background: #fff7ed; border: 1px solid #fed7aa; color: var(--warn); padding: 6px 9px; border-radius: 6px; font-size: 12px; box-shadow: 0 1px 4px rgba(0, 0, 0, .08); }
.retry.shown { display: flex; }
.retry .bar { height: 6px; border-radius: 3px; background: #fed7aa; overflow: hidden; }
.retry .bar > i { display: block; height: 100%; background: var(--warn); width: 0; }
.past-banner { display: none; background: #eef2ff; color: #3730a3; border: 1px solid #c7d2fe; padding: 5px 9px; border-radius: 6px; font-size: 12px; box-shadow: 0 1px 4px rgba(0, 0, 0, .08); }
body.is-past .past-banner { display: block; }

.travel { display: flex; align-items: center; gap: 6px; padding: 7px 10px; }
.travel input[type="range"] { flex: 1; min-width: 60px; accent-color: var(--accent); }
.travel .position { font: 12px var(--mono); color: var(--muted); white-space: nowrap; min-width: 130px; text-align: right; }
body.is-live .go-live { background: #dcfce7; border-color: #86efac; color: var(--ok); }

.log-panel { flex: 1; display: grid; grid-template-rows: auto minmax(0, 1.2fr) minmax(0, 1fr); }
.log { overflow-y: auto; position: relative; font: 12px var(--mono); border-bottom: 1px solid var(--line); contain: strict; }
.log .spacer { position: relative; }
.log .row { position: absolute; left: 0; right: 0; height: var(--row); line-height: var(--row); padding: 0 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; cursor: pointer; display: flex; gap: 8px; }
.log .row:hover { background: #f3f4f6; }
.log .row.is-selected { background: #dbeafe; }
.log .row > span { flex: none; }
.log .row .number { color: var(--muted); min-width: 40px; text-align: right; }
.log .row .time { color: var(--muted); min-width: 62px; }
/* In a narrow column the sender gives way first, then the event's name (down to a few letters of
   it) and the target state together, the state keeping up to most of the row (a parallel state's
   regions and a nested state's path make it long: the tooltip has both whole). */
.log .row .type { font-weight: 600; flex: 0 1 auto; min-width: min(7em, 25%); overflow: hidden; text-overflow: ellipsis; }
.log .row.continued .type { font-weight: 400; color: var(--muted); }
.log .row.error .type { color: var(--bad); }
.log .row .note { color: var(--bad); flex: 0 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
.log .row .note:empty { display: none; }
.log .row .note.news { color: var(--warn); }
.log .row .source { color: var(--wait); flex: 0 100 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
.log .row .to { color: var(--accent); margin-left: auto; flex: 0 1 auto; min-width: 0; max-width: 62%; overflow: hidden; text-overflow: ellipsis; }
.payload { margin: 0; padding: 8px 10px; overflow: auto; font: 11.5px/1.45 var(--mono); white-space: pre-wrap; word-break: break-word; color: #374151; }
.payload .hint { color: var(--muted); font-family: var(--sans); }

.conversation-panel { flex: 1.3; }
.conversation { flex: 1; overflow-y: auto; padding: 10px; display: flex; flex-direction: column; gap: 8px; }
.conversation .note { color: var(--muted); text-align: center; font-size: 12px; }
.message { border-radius: 8px; padding: 7px 10px; max-width: 94%; border: 1px solid var(--line); }
.message .role { font-size: 10.5px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin-bottom: 3px; }
.message.user { align-self: flex-end; background: #eff6ff; border-color: #bfdbfe; }
.message.assistant { align-self: flex-start; background: #fff; }
.message.streaming { border-style: dashed; }
.message.streaming .text::after { content: '▍'; color: var(--accent); animation: blink 1s steps(1) infinite; }
@keyframes blink { 50% { opacity: 0; } }
/* A prompt the chart dropped (the userPromptSubmit hook blocked it, or an interrupt withdrew it):
   the model never read it. */
.message.dropped { border-style: dashed; background: #fafafa; border-color: #fca5a5; color: var(--muted); }
.message.dropped .reason { color: var(--bad); font-size: 12px; margin-top: 3px; }
/* Messages a compaction summarised: kept in the page, no longer read by the model. */
.message.summarised { opacity: .55; }
/* A compaction: the summary the model reads in place of the messages above it. */
.message.compaction { align-self: stretch; max-width: none; background: #fffbeb; border-color: #fcd34d; border-style: dashed; }
.message.compaction .reason { color: var(--warn); font-size: 12px; margin-bottom: 3px; }
.message.results { align-self: flex-end; background: #f9fafb; font-size: 12px; }
.message .text { white-space: pre-wrap; word-break: break-word; }
.tool { border: 1px solid var(--line); border-radius: 6px; margin-top: 6px; background: #fafafa; font-size: 12px; }
.tool .head { display: flex; gap: 8px; align-items: center; padding: 4px 8px; }
.tool .name { font: 600 12px var(--mono); }
.tool .id { color: var(--muted); font: 11px var(--mono); }
.tool pre { margin: 0; padding: 4px 8px 6px; font: 11px/1.4 var(--mono); white-space: pre-wrap; word-break: break-word; max-height: 9em; overflow: auto; border-top: 1px dashed var(--line); }
.tool pre.result { color: #374151; background: #f0fdf4; }
.tool pre.result.failed { background: #fef2f2; color: var(--bad); }
.chip { margin-left: auto; border-radius: 999px; padding: 0 8px; font-size: 11px; font-weight: 600; border: 1px solid; white-space: nowrap; }
.chip.pending { color: var(--muted); border-color: #d1d5db; }
.chip.awaitingApproval, .chip.awaitingAnswer { color: var(--wait); border-color: #c4b5fd; background: #f5f3ff; }
.tool[data-status="awaitingApproval"], .tool[data-status="awaitingAnswer"] { border-color: #c4b5fd; }
/* A call waiting for the caller's code (its preToolUse or postToolUse hook), not for a person. */
.chip.preHook, .chip.postHook { color: var(--hook); border-color: #5eead4; background: #f0fdfa; }
.tool[data-status="preHook"], .tool[data-status="postHook"] { border-color: #5eead4; }
.chip.running { color: var(--accent); border-color: #93c5fd; background: #eff6ff; }
.chip.done { color: var(--ok); border-color: #86efac; background: #f0fdf4; }
.chip.failed { color: var(--bad); border-color: #fca5a5; background: #fef2f2; }
/* An ask_user call's questions, in place of its raw input. */
.questions { border-top: 1px dashed var(--line); padding: 4px 8px 6px; display: flex; flex-direction: column; gap: 6px; }
.question-head { display: flex; gap: 8px; align-items: baseline; }
.question-header { font-size: 10.5px; font-weight: 600; text-transform: uppercase; letter-spacing: .05em; color: var(--wait); }
.question-kind { font-size: 11px; color: var(--muted); }
.question-text { white-space: pre-wrap; word-break: break-word; font-size: 12.5px; }
.choices { margin: 3px 0 0; padding: 0; list-style: none; display: flex; flex-direction: column; gap: 2px; }
.choice { display: flex; gap: 6px; align-items: baseline; }
.choice::before { content: '○'; color: var(--muted); flex: none; }
.choice-label { font-weight: 600; }
.choice-description { color: var(--muted); }
.queue { font-size: 12px; color: var(--warn); padding: 6px 10px; border-top: 1px solid var(--line); display: none; }
.queue.shown { display: block; }
@media (max-width: 900px) {
  main { grid-template-columns: 1fr; grid-auto-rows: minmax(0, auto); overflow-y: auto; }
  .chart-panel { height: 75vh; }
  .column > .panel { height: 60vh; }
}
`;
