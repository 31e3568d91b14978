/**
 * Page script, part 3 of 6: the event log and the payload pane. The log is virtualised: a spacer
 * as tall as every row, and a small pool of absolutely placed rows reused for the ones in view,
 * so ten thousand events cost as much DOM as thirty.
 */

/**
 * Browser JavaScript: `eventLog`, `renderEventLog`, `renderPayload`.
 *
 * @example
 * const script = [clientStore, clientChart, clientEventLog].join('\n');
 */
export const clientEventLog = String.raw`
var ROW_HEIGHT = 22;
var eventLog = { element: null, spacer: null, pool: [], agentId: null, trimmed: 0, follow: true, cursorShown: null };

function setupEventLog(element) {
  eventLog.element = element;
  eventLog.spacer = element.querySelector('.spacer');
  element.addEventListener('scroll', function () {
    eventLog.follow = element.scrollTop + element.clientHeight >= element.scrollHeight - ROW_HEIGHT * 1.5;
    invalidate();
  });
  element.addEventListener('click', function (event) {
    var row = event.target.closest('.row');
    if (!row) return;
    var agent = selectedAgent();
    if (agent) travelTo(agent, Number(row.getAttribute('data-index')));
  });
}

function eventType(step) {
  if (step.continued) return '↳ eventless';
  return step.event && typeof step.event.type === 'string' ? step.event.type : '(event)';
}

// What a step did that its event and state do not say: a prompt the chart dropped (blocked by the
// userPromptSubmit hook, or withdrawn by an interrupt before the hook decided), with the reason
// (the prompt never reaches the transcript: without this, only its absence would show); a
// compaction, which replaced the transcript's older part with the summary the step's response
// holds, or one that did not happen, with the reason.
function stepNote(step) {
  var emitted = Array.isArray(step.emitted) ? step.emitted : [];
  var notes = [];
  emitted.forEach(function (action) {
    if (!action) return;
    if (action.type === 'PromptDropped') notes.push('prompt dropped: ' + action.reason);
    if (action.type === 'Compacted') {
      notes.push('compacted (' + action.trigger + '): ' + action.summarised + ' messages summarised, ' + action.kept + ' kept');
    }
    if (action.type === 'CompactionSkipped') notes.push('not compacted (' + action.trigger + '): ' + action.reason);
  });
  return notes.join('; ');
}

function droppedPrompts(step) {
  var emitted = Array.isArray(step.emitted) ? step.emitted : [];
  return emitted.filter(function (action) { return action && action.type === 'PromptDropped'; })
    .map(function (action) { return '"' + excerpt(textOf(action.prompt && action.prompt.content), 120) + '"'; });
}

function renderEventLog(agent) {
  var element = eventLog.element;
  var count = agent ? agent.steps.length : 0;
  if (!agent || eventLog.agentId !== agent.id) {
    eventLog.agentId = agent ? agent.id : null;
    eventLog.trimmed = agent ? agent.trimmed : 0;
    eventLog.follow = true;
    eventLog.cursorShown = null;
  }
  eventLog.spacer.style.height = count * ROW_HEIGHT + 'px';
  if (agent && agent.trimmed !== eventLog.trimmed) {
    // Old steps were dropped: keep the rows in view where they were.
    element.scrollTop -= (agent.trimmed - eventLog.trimmed) * ROW_HEIGHT;
    eventLog.trimmed = agent.trimmed;
  }
  var selected = agent && agent.cursor !== null ? agent.cursor : -1;
  if (agent && agent.cursor === null && eventLog.follow) {
    element.scrollTop = element.scrollHeight;
  } else if (selected >= 0 && eventLog.cursorShown !== selected) {
    var top = selected * ROW_HEIGHT;
    if (top < element.scrollTop || top + ROW_HEIGHT > element.scrollTop + element.clientHeight) {
      element.scrollTop = top - element.clientHeight / 2;
    }
  }
  eventLog.cursorShown = selected;
  var first = Math.max(0, Math.floor(element.scrollTop / ROW_HEIGHT) - 5);
  var last = Math.min(count, Math.ceil((element.scrollTop + element.clientHeight) / ROW_HEIGHT) + 5);
  while (eventLog.pool.length < last - first) eventLog.pool.push(createRow());
  // A step keeps its row while in view (slot = index mod pool size): scrolling moves no row
  // under the pointer and rewrites only the rows that came into view.
  var size = eventLog.pool.length;
  eventLog.pool.forEach(function (row, slot) {
    var index = first + ((slot - (first % size)) % size + size) % size;
    if (index >= last) { row.element.hidden = true; row.key = ''; return; }
    row.element.hidden = false;
    fillRow(row, agent, index, index === selected);
  });
}

function createRow() {
  var element = document.createElement('div');
  element.className = 'row';
  var parts = {};
  ['number', 'time', 'type', 'note', 'source', 'to'].forEach(function (name) {
    parts[name] = document.createElement('span');
    parts[name].className = name;
    element.appendChild(parts[name]);
  });
  eventLog.spacer.appendChild(element);
  return { element: element, parts: parts, key: '' };
}

function fillRow(row, agent, index, isSelected) {
  var step = agent.steps[index];
  var key = agent.id + ':' + step.seq + ':' + index + ':' + isSelected + ':' + chartsReady;
  if (row.key === key) return;
  row.key = key;
  var type = eventType(step);
  var note = stepNote(step);
  row.element.style.top = index * ROW_HEIGHT + 'px';
  row.element.setAttribute('data-index', String(index));
  row.element.setAttribute('data-seq', String(step.seq));
  row.element.className = 'row' + (step.continued ? ' continued' : '') +
    (/Error|error/.test(type) ? ' error' : '') + (isSelected ? ' is-selected' : '');
  row.parts.number.textContent = '#' + stepNumber(agent, index).toLocaleString();
  row.parts.time.textContent = '+' + ((step.time - agent.summary.startedAt) / 1000).toFixed(3) + 's';
  row.parts.type.textContent = type;
  row.parts.note.textContent = note;
  // A compaction is news, not trouble: only a dropped prompt or a compaction that failed is.
  var compactedOnly = note !== '' && (step.emitted || []).every(function (action) { return action && action.type === 'Compacted'; });
  row.parts.note.className = 'note' + (compactedOnly ? ' news' : '');
  row.parts.source.textContent = step.source ? 'from ' + step.source : '';
  row.parts.to.textContent = '→ ' + briefStateLabel(step.value, agent.summary.chartId);
  var dropped = droppedPrompts(step);
  row.element.title = type + ' → ' + stateLabel(step.value) +
    (note ? '\n' + note + (dropped.length ? '\n' + dropped.join('\n') : '') : '');
}

var payloadShown = { key: null, agentId: null, at: 0 };

function renderPayload(element, agent, view) {
  var step = view.step;
  var agentId = agent ? agent.id : null;
  var key = agent && step ? agent.id + ':' + step.seq : 'none';
  if (payloadShown.key === key) return;
  // While following one agent live, a streaming model makes a step per delta: refresh a few
  // times a second, not on every frame.
  var sameLiveAgent = agent && agent.cursor === null && payloadShown.agentId === agentId;
  if (sameLiveAgent && Date.now() - payloadShown.at < 250) {
    invalidateLater(260);
    return;
  }
  payloadShown = { key: key, agentId: agentId, at: Date.now() };
  if (!step) {
    element.replaceChildren(hint('Select an event to see its payload and what it changed.'));
    return;
  }
  var parts = [];
  if (step.continued) {
    parts.push('// eventless transition, continuing the event before it');
  } else {
    parts.push('// event' + (step.source ? ' (sent by ' + step.source + ')' : ''));
    parts.push(prettyJson(step.event));
  }
  parts.push('');
  parts.push('// → ' + stateLabel(step.value) + (step.status !== 'active' ? ' (' + step.status + ')' : ''));
  if (Array.isArray(step.emitted) && step.emitted.length) {
    parts.push('// the chart told its caller');
    parts.push(prettyJson(step.emitted));
  }
  if (step.patch) {
    parts.push('// context changes');
    parts.push(prettyJson(step.patch));
  } else {
    parts.push('// context unchanged');
  }
  element.textContent = parts.join('\n');
}

function hint(text) {
  var span = document.createElement('span');
  span.className = 'hint';
  span.textContent = text;
  return span;
}

function prettyJson(value) {
  var text = JSON.stringify(value, null, 2);
  if (text === undefined) return 'undefined';
  return text.length > 20000 ? text.slice(0, 20000) + '\n… (' + (text.length - 20000) + ' more characters)' : text;
}
`;
