/**
 * Page script, part 6 of 6: the live feed (Server-Sent Events), agent tabs, the status line and
 * retry countdown, time travel, and the render loop. Messages update the data at once; the DOM is
 * updated at most once per animation frame, however many steps arrived.
 */

/**
 * Browser JavaScript: wiring and the render loop (runs last).
 *
 * @example
 * const script = [clientStore, clientChart, clientEventLog, clientConversation, clientPlace, clientMain].join('\n');
 */
export const clientMain = String.raw`
var token = new URLSearchParams(location.search).get('token');
var wantedSession = new URLSearchParams(location.search).get('session');
var frame = 0;
var passed = [];
var taken = [];
var ui = {};

function withToken(path) {
  return token ? path + (path.indexOf('?') < 0 ? '?' : '&') + 'token=' + encodeURIComponent(token) : path;
}

function invalidate() {
  if (!frame) frame = requestAnimationFrame(render);
}

var later = 0;

function invalidateLater(delayMs) {
  // One timer at most: renders that each asked for a later one must not multiply.
  if (!later) later = setTimeout(function () { later = 0; invalidate(); }, delayMs);
}

function $(testId) {
  return document.querySelector('[data-testid="' + testId + '"]');
}

// ── the live feed ─────────────────────────────────────────────────────────────────────────────
function connect() {
  var source = new EventSource(withToken('/events'));
  source.onopen = function () { setConnection('live', 'live'); };
  source.onerror = function () {
    setConnection('lost', source.readyState === EventSource.CLOSED ? 'disconnected: reload the page (check its token)' : 'reconnecting…');
  };
  on(source, 'hello', function (data) {
    store.clockOffset = data.serverTime - Date.now();
    store.maxSteps = data.maxSteps;
    if (store.instance !== null && store.instance !== data.instance) {
      // Another server process: nothing we hold belongs to it.
      store.order.slice().forEach(removeAgent);
    }
    store.instance = data.instance;
  });
  on(source, 'agent', function (history) {
    // Ask for the chart before replaying the history: a page opened on a long, busy session
    // shows the chart first.
    if (history.summary.chartId !== null) chartFor(history.summary.chartId);
    putAgent(history);
  });
  on(source, 'steps', function (data) {
    var selected = store.selectedId;
    data.items.forEach(function (item) {
      var agent = store.agents.get(item.agentId);
      if (!agent) return;
      var from = statePaths(agent.summary.value);
      if (!appendStep(agent, item.step)) return;
      if (item.agentId === selected && agent.cursor === null) {
        var to = statePaths(item.step.value);
        to.forEach(function (path) { passed.push(path); });
        var type = item.step.continued ? '' : item.step.event && item.step.event.type;
        if (typeof type === 'string') taken.push({ event: type, from: from, to: to });
      }
    });
  });
  on(source, 'removed', function (data) { removeAgent(data.agentId); });
  on(source, 'synced', function (data) {
    store.order.slice().forEach(function (id) { if (data.agentIds.indexOf(id) < 0) removeAgent(id); });
    settleSelection();
  });
}

function on(source, name, handler) {
  source.addEventListener(name, function (message) {
    try {
      handler(JSON.parse(message.data));
    } catch (error) {
      console.error('inspector: could not apply a ' + name + ' message', error);
    }
    invalidate();
  });
}

function setConnection(kind, text) {
  ui.connection.className = 'connection ' + kind;
  ui.connection.textContent = text;
}

// ── time travel ───────────────────────────────────────────────────────────────────────────────
function travelTo(agent, index) {
  if (agent.steps.length === 0) return;
  agent.cursor = Math.max(0, Math.min(agent.steps.length - 1, index));
  invalidate();
}

function goLive(agent) {
  agent.cursor = null;
  eventLog.follow = true;
  invalidate();
}

function step(delta) {
  var agent = selectedAgent();
  if (!agent || agent.steps.length === 0) return;
  var from = agent.cursor === null ? agent.steps.length - 1 : agent.cursor;
  travelTo(agent, from + delta);
}

function setupControls() {
  $('step-first').addEventListener('click', function () { var agent = selectedAgent(); if (agent) travelTo(agent, 0); });
  $('step-prev').addEventListener('click', function () { step(-1); });
  $('step-next').addEventListener('click', function () { step(1); });
  $('go-live').addEventListener('click', function () { var agent = selectedAgent(); if (agent) goLive(agent); });
  ui.slider.addEventListener('input', function () {
    var agent = selectedAgent();
    if (agent) travelTo(agent, Number(ui.slider.value));
  });
  document.addEventListener('keydown', function (event) {
    if (event.target && event.target.tagName === 'INPUT' && event.target.type !== 'range') return;
    var agent = selectedAgent();
    if (!agent) return;
    var size = event.shiftKey ? 10 : 1;
    if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') step(-size);
    else if (event.key === 'ArrowRight' || event.key === 'ArrowDown') step(size);
    else if (event.key === 'Home') travelTo(agent, 0);
    else if (event.key === 'End' || event.key === 'l' || event.key === 'L') goLive(agent);
    else return;
    event.preventDefault();
  });
}

// ── rendering ─────────────────────────────────────────────────────────────────────────────────
var tabButtons = new Map();

function renderTabs() {
  var seen = new Set();
  store.order.forEach(function (id, position) {
    var agent = store.agents.get(id);
    seen.add(id);
    var tab = tabButtons.get(id);
    if (!tab) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'tab';
      button.setAttribute('role', 'tab');
      button.setAttribute('data-testid', 'agent-tab');
      button.setAttribute('data-agent-id', id);
      var dot = node('span', 'dot');
      var name = node('span', 'name');
      var where = node('span', 'where');
      button.append(dot, name, where);
      button.addEventListener('click', function () { store.selectedId = id; passed = []; taken = []; invalidate(); });
      tab = { button: button, dot: dot, name: name, where: where, key: '' };
      tabButtons.set(id, tab);
    }
    if (ui.tabs.children[position] !== tab.button) ui.tabs.insertBefore(tab.button, ui.tabs.children[position] || null);
    var where = briefStateLabel(agent.summary.value, agent.summary.chartId);
    var key = agent.summary.name + '|' + where + '|' + agent.summary.status + '|' + (id === store.selectedId);
    if (tab.key === key) return;
    tab.key = key;
    tab.name.textContent = agent.summary.name;
    tab.where.textContent = where;
    tab.where.title = stateLabel(agent.summary.value);
    tab.dot.className = 'dot ' + agent.summary.status;
    tab.button.setAttribute('aria-selected', String(id === store.selectedId));
  });
  tabButtons.forEach(function (tab, id) {
    if (!seen.has(id)) { tab.button.remove(); tabButtons.delete(id); }
  });
}

function renderStatus(agent, view) {
  var context = view.context || {};
  var label = agent ? stateLabel(view.value) : '—';
  ui.stateName.textContent = label;
  ui.stateName.className = 'state-name ' + (view.status || '');
  document.body.setAttribute('data-view-state', statePaths(view.value).join(' '));
  document.body.setAttribute('data-view-seq', view.step ? String(view.step.seq) : '');
  var facts = [];
  if (agent) {
    facts.push(['status', view.status]);
    facts.push(['messages', Array.isArray(context.messages) ? context.messages.length : 0]);
    var compactions = context.window && typeof context.window.compactions === 'number' ? context.window.compactions : 0;
    if (compactions > 0) facts.push(['compacted', compactions + ' time' + (compactions === 1 ? '' : 's')]);
    if (context.usage && typeof context.usage.calls === 'number') facts.push(['responses', context.usage.calls]);
    if (context.usage && typeof context.usage.input_tokens === 'number') {
      facts.push(['tokens', context.usage.input_tokens.toLocaleString() + ' in / ' + context.usage.output_tokens.toLocaleString() + ' out']);
      if (typeof context.usage.costUsd === 'number') facts.push(['cost', '$' + context.usage.costUsd.toFixed(4)]);
    }
    var turnUsage = context.turn ? context.turn.usage : context.turnUsage;
    if (turnUsage && typeof turnUsage.calls === 'number' && turnUsage.calls > 0) {
      var turnCost = typeof turnUsage.costUsd === 'number' ? ', $' + turnUsage.costUsd.toFixed(4) : '';
      facts.push(['turn', turnUsage.calls + ' call' + (turnUsage.calls === 1 ? '' : 's') + turnCost]);
    }
    if (context.permissionMode) facts.push(['mode', context.permissionMode]);
    var waiting = view.status === 'active' ? waitingFact(context, view.value) : null;
    if (waiting) facts.push(waiting);
    requestFacts(context.config).forEach(function (fact) { facts.push(fact); });
    var answer = answerFact(context.output);
    if (answer) facts.push(answer);
  }
  var factsKey = JSON.stringify(facts);
  if (ui.facts.getAttribute('data-key') !== factsKey) {
    ui.facts.setAttribute('data-key', factsKey);
    ui.facts.replaceChildren.apply(ui.facts, facts.map(function (fact) {
      var span = node('span', null, fact[0] + ' ');
      span.appendChild(node('b', null, String(fact[1])));
      return span;
    }));
  }
  ui.stepTime.textContent = view.step ? clockTime(view.step.time) : '';
  renderRetry(agent, view, context);
}

/** What the model requests carry: the model, how many tools, thinking and effort when set. */
function requestFacts(config) {
  if (!config || typeof config !== 'object') return [];
  var facts = [];
  if (typeof config.model === 'string') facts.push(['model', config.model]);
  // The tools as the requests offer them (the built-in ask_user among them), else as configured.
  var offered = Array.isArray(config.toolDefinitions) ? config.toolDefinitions : config.tools;
  if (Array.isArray(offered)) facts.push(['tools', offered.length]);
  var fields = config.requestFields || {};
  var thinking = fields.thinking;
  if (thinking && thinking.type === 'enabled') facts.push(['thinking', (thinking.budget_tokens || 0).toLocaleString() + ' tokens']);
  else if (thinking && typeof thinking.type === 'string' && thinking.type !== 'disabled') facts.push(['thinking', thinking.type]);
  if (fields.output_config && typeof fields.output_config.effort === 'string') facts.push(['effort', fields.output_config.effort]);
  return facts;
}

/** The turn's structured answer: given (shortened), or still awaited and how often it was missed. */
function answerFact(output) {
  if (!output || typeof output !== 'object') return null;
  if (output.answer && 'value' in output.answer) {
    var text = JSON.stringify(output.answer.value);
    return ['answer', text.length > 80 ? text.slice(0, 79) + '…' : text];
  }
  return ['answer', output.misses > 0 ? 'awaited (missed ' + output.misses + ')' : 'awaited'];
}

function clockTime(time) {
  var date = new Date(time);
  var two = function (n) { return String(n).padStart(2, '0'); };
  return two(date.getHours()) + ':' + two(date.getMinutes()) + ':' + two(date.getSeconds()) + '.' + String(date.getMilliseconds()).padStart(3, '0');
}

function renderRetry(agent, view, context) {
  var inError = statePaths(view.value).indexOf('Error') >= 0 && view.status === 'active';
  ui.retry.classList.toggle('shown', Boolean(agent && inError));
  if (!agent || !inError) return;
  var delay = typeof context.retryDelayMs === 'number' ? context.retryDelayMs : 0;
  var attempt = (typeof context.retries === 'number' ? context.retries : 0) + 1;
  var max = context.config && context.config.maxRetries;
  var lastError = context.lastError;
  // The kind (and HTTP status) fits the overlay; the provider's full message is in the tooltip.
  var error = lastError ? ' · ' + lastError.kind + (lastError.status ? ' (' + lastError.status + ')' : '') : '';
  ui.retry.title = lastError ? String(lastError.message) : '';
  var enteredAt = errorEnteredAt(agent, view.index);
  var fraction = 1;
  var text;
  if (agent.cursor === null) {
    var remaining = Math.max(0, enteredAt + delay - serverNow());
    fraction = delay > 0 ? 1 - remaining / delay : 1;
    text = 'Retrying in ' + (remaining / 1000).toFixed(1) + ' s';
    // Keep the countdown moving until the timer fires and a new step arrives.
    if (remaining > 0) invalidateLater(100);
  } else {
    text = 'Retry scheduled after ' + delay + ' ms';
  }
  ui.retryText.textContent = text + ' · attempt ' + attempt + (max ? ' of ' + max : '') + error;
  ui.retryBar.style.width = Math.round(fraction * 100) + '%';
  // A countdown only means something live; a recorded step shows the delay that was scheduled.
  ui.retryBar.parentNode.hidden = agent.cursor !== null;
}

function errorEnteredAt(agent, index) {
  // The countdown runs from the step that entered Error, not from the latest step inside it.
  var at = index;
  while (at > 0 && statePaths(agent.steps[at - 1].value).indexOf('Error') >= 0) at--;
  return at >= 0 && agent.steps[at] ? agent.steps[at].time : serverNow();
}

function renderTravel(agent, view) {
  var count = agent ? agent.steps.length : 0;
  ui.slider.max = String(Math.max(0, count - 1));
  ui.slider.value = String(Math.max(0, view.index));
  ui.slider.disabled = count === 0;
  var live = !agent || agent.cursor === null;
  document.body.classList.toggle('is-live', live);
  document.body.classList.toggle('is-past', !live);
  $('step-first').disabled = count === 0 || view.index <= 0;
  $('step-prev').disabled = count === 0 || view.index <= 0;
  $('step-next').disabled = count === 0 || view.index >= count - 1;
  ui.position.textContent = count ? 'step ' + stepNumber(agent, view.index).toLocaleString() + ' / ' + stepNumber(agent, count - 1).toLocaleString() + (live ? ' · live' : '') : '';
  ui.logCount.textContent = count ? count.toLocaleString() + ' steps' + (agent.trimmed ? ' (' + agent.trimmed.toLocaleString() + ' older dropped)' : '') : '';
}

function render() {
  frame = 0;
  var agent = selectedAgent();
  var view = agent ? viewOf(agent) : { index: -1, step: null, value: null, status: '', context: {} };
  renderTabs();
  if (agent) {
    var chart = showChart(ui.chart, agent.summary.chartId);
    ui.chartCaption.textContent = agent.summary.chartId ? 'machine ' + agent.summary.chartId : '';
    lightChart(chart, view.value, agent.cursor === null ? passed : [], agent.cursor === null ? taken : []);
  } else {
    showNothing(ui.chart, 'Waiting for an agent…');
    ui.chartCaption.textContent = '';
  }
  passed = [];
  taken = [];
  renderStatus(agent, view);
  renderTravel(agent, view);
  renderEventLog(agent);
  renderPayload(ui.payload, agent, view);
  renderConversation(agent, view);
  renderPlace(agent);
}

function start() {
  ui = {
    tabs: $('agent-tabs'), connection: $('connection'), chart: $('chart'), chartCaption: $('chart-caption'),
    stateName: $('state-name'), facts: $('facts'), stepTime: $('step-time'), retry: $('retry'),
    slider: $('step-slider'), position: $('step-position'), logCount: $('log-count'), payload: $('payload')
  };
  ui.retryText = ui.retry.querySelector('.retry-text');
  ui.retryBar = ui.retry.querySelector('.bar > i');
  conversation.element = $('conversation');
  conversation.queue = $('queue');
  conversation.caption = $('conversation-caption');
  places.element = $('session-place');
  places.title = document.title;
  if (wantedSession) store.wantedId = STORED_PREFIX + wantedSession;
  setupEventLog($('event-log'));
  setupControls();
  chartZoom.button = $('chart-zoom');
  chartZoom.button.addEventListener('click', toggleWholeChart);
  new ResizeObserver(sizeCharts).observe(ui.chart);
  connect();
  invalidate();
}

start();
`;
