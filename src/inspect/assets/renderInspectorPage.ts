/**
 * The inspector page's HTML shell. Everything dynamic is built by the page script with DOM calls
 * (never by pasting recorded text into HTML), so nothing an agent says can run in the page.
 */

/**
 * Options of {@link renderInspectorPage}.
 *
 * @example
 * const options: InspectorPageOptions = { title: 'agent-statechart inspector', token: undefined };
 */
export interface InspectorPageOptions {
  title: string;
  /** Appended to asset URLs, since a server with a token answers nothing without it. */
  token: string | undefined;
}

/**
 * The HTML of the inspector page. The script and stylesheet are separate files so the server's
 * Content-Security-Policy can forbid inline scripts.
 *
 * @example
 * response.end(renderInspectorPage({ title: 'inspector', token: undefined }));
 */
export function renderInspectorPage(options: InspectorPageOptions): string {
  const query = options.token === undefined ? '' : `?token=${encodeURIComponent(options.token)}`;
  const title = escapeHtml(options.title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="/assets/inspector.css${escapeHtml(query)}">
</head>
<body class="is-live">
<header>
  <h1>${title} <span>· offline</span></h1>
  <nav class="tabs" role="tablist" aria-label="Agents" data-testid="agent-tabs"></nav>
  <div class="connection" data-testid="connection">connecting…</div>
</header>
<nav class="place" data-testid="session-place" aria-label="Tree of agents" hidden></nav>
<main>
  <section class="panel chart-panel" aria-label="Chart">
    <h2>Chart <span class="aside" data-testid="chart-caption"></span><button type="button" class="zoom" data-testid="chart-zoom" hidden></button></h2>
    <div class="chart-area">
      <div class="chart" data-testid="chart"><div class="empty">Waiting for an agent…</div></div>
      <div class="overlays">
        <div class="past-banner" data-testid="past-banner">Viewing a recorded step. Press <b>Live</b> (or L) to follow the agent again.</div>
        <div class="retry" data-testid="retry"><span class="retry-text"></span><span class="bar"><i></i></span></div>
      </div>
    </div>
    <div class="status">
      <div class="state-name" data-testid="state-name">—</div>
      <div class="facts" data-testid="facts"></div>
      <div class="step-time" data-testid="step-time"></div>
    </div>
    <div class="travel" role="group" aria-label="Time travel">
      <button type="button" data-testid="step-first" title="First recorded step (Home)" aria-label="First step">⇤</button>
      <button type="button" data-testid="step-prev" title="Previous step (←)" aria-label="Previous step">◀</button>
      <input type="range" min="0" max="0" value="0" data-testid="step-slider" aria-label="Recorded steps">
      <button type="button" data-testid="step-next" title="Next step (→)" aria-label="Next step">▶</button>
      <button type="button" class="go-live" data-testid="go-live" title="Follow the agent live (L)">Live</button>
      <span class="position" data-testid="step-position"></span>
    </div>
  </section>
  <div class="column">
    <section class="panel conversation-panel" aria-label="Conversation">
      <h2>Conversation <span class="aside" data-testid="conversation-caption"></span></h2>
      <div class="conversation" data-testid="conversation"></div>
      <div class="queue" data-testid="queue"></div>
    </section>
    <section class="panel log-panel" aria-label="Event log">
      <h2>Events <span class="aside" data-testid="log-count"></span></h2>
      <div class="log" data-testid="event-log" tabindex="0"><div class="spacer"></div></div>
      <pre class="payload" data-testid="payload"><span class="hint">Select an event to see its payload and what it changed.</span></pre>
    </section>
  </div>
</main>
<script src="/assets/inspector.js${escapeHtml(query)}"></script>
</body>
</html>
`;
}

/**
 * The tab's icon, inline: a lit state box with an arrow into it. Inline because browsers ask for
 * `/favicon.ico` otherwise, a request a server with a token would refuse.
 */
const FAVICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
    '<rect x="3" y="12" width="26" height="16" rx="5" fill="#fff4d6" stroke="#f59e0b" stroke-width="3"/>' +
    '<path d="M16 2v6" stroke="#3b4a6b" stroke-width="3"/><path d="M11 7h10l-5 5z" fill="#3b4a6b"/></svg>',
)}`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
