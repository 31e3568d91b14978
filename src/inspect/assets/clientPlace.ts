/**
 * Page script, part 5 of 6: a stored session's place in the tree of agents, over the page — the
 * sessions above it (its parent last, with the task call it answers) and its subagents' sessions
 * (the agent, the task call, the state) — each a link that opens that session in this inspector;
 * and, in the conversation, a link on each `task` call whose subagent's session is stored. Read
 * from the server (`/api/session-tree`), again as the session grows: its subagents' sessions
 * appear as it hands out tasks.
 */

/**
 * Browser JavaScript: `renderPlace`, `sessionOfAgent`, `sessionUrl`, the wanted session.
 *
 * @example
 * const script = [clientStore, clientChart, clientEventLog, clientConversation, clientPlace, clientMain].join('\n');
 */
export const clientPlace = String.raw`
// A stored session's agent id: this prefix and the session's id (inspectStoredSession's storedAgentId).
var STORED_PREFIX = 'stored:';
// The built-in tool with which an agent hands a task to a subagent (the chart's SUBAGENT_TOOL).
var SUBAGENT_TOOL = 'task';
// How often, at most, a session's place is asked for again while the session grows.
var PLACE_REFRESH_MS = 1000;
var places = { bySession: new Map(), element: null, key: null, title: '', shownSession: null };

function sessionOfAgent(agent) {
  return agent && agent.id.indexOf(STORED_PREFIX) === 0 ? agent.id.slice(STORED_PREFIX.length) : null;
}

// The address of the page showing stored session 'sessionId' (the server replays it on request).
function sessionUrl(sessionId) {
  return withToken('/?session=' + encodeURIComponent(sessionId));
}

// The session's place as last read (null until then), asked for again when the session grew.
function placeOf(sessionId, agent) {
  var entry = places.bySession.get(sessionId);
  if (!entry) {
    entry = { place: null, error: null, lastSeq: null, at: 0, loading: false };
    places.bySession.set(sessionId, entry);
  }
  if (entry.loading || entry.lastSeq === agent.lastSeq) return entry;
  var wait = entry.at + PLACE_REFRESH_MS - Date.now();
  if (wait > 0) { invalidateLater(wait); return entry; }
  entry.loading = true;
  entry.at = Date.now();
  entry.lastSeq = agent.lastSeq;
  fetch(withToken('/api/session-tree?session=' + encodeURIComponent(sessionId)))
    .then(function (response) {
      if (response.ok) return response.json();
      return response.text().then(function (text) { throw new Error(text.trim() || 'HTTP ' + response.status); });
    })
    .then(function (place) { entry.place = place; entry.error = null; },
      function (error) { entry.error = String(error && error.message || error); })
    .then(function () { entry.loading = false; invalidate(); });
  return entry;
}

function sessionLink(sessionId, testId, children) {
  var link = node('a', 'session-link');
  link.href = sessionUrl(sessionId);
  link.setAttribute('data-testid', testId);
  link.setAttribute('data-session-id', sessionId);
  link.title = 'open session ' + sessionId;
  children.forEach(function (child) { link.appendChild(typeof child === 'string' ? document.createTextNode(child) : child); });
  return link;
}

// An ancestor: a link while the store holds it, else its id alone.
function renderAncestor(ancestor, isParent) {
  var testId = isParent ? 'session-parent' : 'session-ancestor';
  var label = [node('span', 'session-id', ancestor.sessionId)];
  if (ancestor.agent) label.unshift(node('b', null, ancestor.agent), ' ');
  if (ancestor.stored) return sessionLink(ancestor.sessionId, testId, label);
  var missing = node('span', 'session-missing');
  missing.setAttribute('data-testid', testId);
  missing.title = 'not in this store any more';
  label.forEach(function (child) { missing.append(child); });
  missing.append(' (removed)');
  return missing;
}

function renderSubagent(child) {
  var state = child.state === null ? 'new' : child.state;
  var link = sessionLink(child.sessionId, 'subagent-session', [
    node('b', 'agent', child.agent), ' ',
    node('span', 'call', child.callId), ' ',
    node('span', 'state', state), ' ',
    node('span', 'count', child.messageCount + ' message' + (child.messageCount === 1 ? '' : 's'))
  ]);
  link.setAttribute('data-call-id', child.callId);
  link.title = 'open the session of ' + child.agent + ' (task call ' + child.callId + '): ' + child.sessionId;
  return link;
}

function renderPlace(agent) {
  var element = places.element;
  var sessionId = sessionOfAgent(agent);
  var entry = sessionId === null ? null : placeOf(sessionId, agent);
  var place = entry && entry.place && entry.place.sessionId === sessionId ? entry.place : null;
  if (sessionId !== places.shownSession) {
    places.shownSession = sessionId;
    document.title = sessionId === null ? places.title : sessionId + ' · ' + places.title;
    // The address names the session shown, so a reload (or a copied link) opens it again.
    if (sessionId !== null && new URLSearchParams(location.search).get('session') !== sessionId) {
      history.replaceState(null, '', sessionUrl(sessionId));
    }
  }
  var key = sessionId === null ? '' : JSON.stringify([sessionId, place, entry.error]);
  if (key === places.key) { linkTaskCards(place); return; }
  places.key = key;
  element.hidden = sessionId === null;
  if (sessionId === null) { element.replaceChildren(); return; }
  var lineage = node('span', 'lineage');
  lineage.setAttribute('data-testid', 'session-lineage');
  lineage.appendChild(node('span', 'label', 'agents'));
  var ancestors = place ? place.ancestors : [];
  ancestors.forEach(function (ancestor, index) {
    lineage.appendChild(renderAncestor(ancestor, index === ancestors.length - 1));
    lineage.appendChild(node('span', 'sep', '›'));
  });
  var self = node('span', 'session-self');
  self.setAttribute('data-testid', 'session-self');
  if (place && place.parent) self.append(node('b', null, place.parent.agent), ' ');
  self.append(node('span', 'session-id', sessionId));
  lineage.appendChild(self);
  if (place && place.parent) {
    var via = node('span', 'via', 'task call ' + place.parent.callId + ' of ' + place.parent.parentSessionId);
    via.setAttribute('data-testid', 'session-task-call');
    lineage.appendChild(via);
  }
  var subagents = node('span', 'subagents');
  subagents.setAttribute('data-testid', 'session-subagents');
  if (entry.error) {
    var problem = node('span', 'problem', entry.error);
    problem.setAttribute('data-testid', 'session-place-error');
    subagents.appendChild(problem);
  } else if (!place) {
    subagents.appendChild(node('span', 'hint', 'reading the tree of agents…'));
  } else if (!place.subagents.length) {
    subagents.appendChild(node('span', 'hint', 'no subagent sessions'));
  } else {
    subagents.appendChild(node('span', 'label', 'subagents'));
    place.subagents.forEach(function (child) { subagents.appendChild(renderSubagent(child)); });
  }
  element.replaceChildren(lineage, subagents);
  linkTaskCards(place);
}

// Each 'task' call of the conversation whose subagent's session is stored: a link to it.
function linkTaskCards(place) {
  var byCall = new Map();
  if (place) place.subagents.forEach(function (child) { byCall.set(child.callId, child); });
  conversation.cards.forEach(function (entry, callId) {
    if (!entry.sessionLink) return;
    var child = byCall.get(callId);
    var target = child ? child.sessionId : null;
    if (entry.sessionLink.getAttribute('data-session-id') === target) return;
    entry.sessionLink.hidden = target === null;
    if (target === null) { entry.sessionLink.removeAttribute('data-session-id'); return; }
    entry.sessionLink.href = sessionUrl(target);
    entry.sessionLink.setAttribute('data-session-id', target);
    entry.sessionLink.textContent = child.agent + "'s session ›";
    entry.sessionLink.title = 'open the session of ' + child.agent + ': ' + target;
  });
}
`;
