/**
 * Page script, part 1 of 6: the page's data. Each agent keeps its steps and, per step, the context
 * rebuilt from the patches (fields that did not change are shared), so stepping to any recorded
 * step is an array lookup. Written as plain browser JavaScript in a string: the package's
 * TypeScript has no DOM types, and the compiled package must carry the page.
 */

/**
 * Browser JavaScript: `store`, `applyPatch`, `statePaths`, `stateLabel`, agent history and step
 * handling (with the prompts dropped and the compactions, which the transcript does not keep).
 *
 * @example
 * const script = [clientStore, clientChart, clientEventLog, clientConversation, clientPlace, clientMain].join('\n');
 */
export const clientStore = String.raw`
var store = {
  agents: new Map(),
  order: [],
  selectedId: null,
  // The agent the page's address names (a stored session, '?session='): selected when it comes,
  // the first agent only if it does not.
  wantedId: null,
  clockOffset: 0,
  maxSteps: 5000,
  instance: null
};

function pageStepLimit() {
  // The page keeps more than the server's ring: it saw the steps live and may want to go back.
  return Math.max(store.maxSteps * 2, 1000);
}

function serverNow() {
  return Date.now() + store.clockOffset;
}

function applyPatch(context, patch) {
  if (!patch) return context;
  var next = Object.assign({}, context);
  var key;
  if (patch.set) for (key in patch.set) next[key] = patch.set[key];
  if (patch.append) for (key in patch.append) {
    next[key] = (Array.isArray(next[key]) ? next[key] : []).concat(patch.append[key]);
  }
  if (patch.extend) for (key in patch.extend) {
    next[key] = (typeof next[key] === 'string' ? next[key] : '') + patch.extend[key];
  }
  return next;
}

function statePaths(value) {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object') return [String(value)];
  var paths = [];
  Object.keys(value).forEach(function (key) {
    paths.push(key);
    statePaths(value[key]).forEach(function (child) { paths.push(key + '.' + child); });
  });
  return paths;
}

// The active states with no active state inside them: one, or one per region of a parallel state.
function leafPaths(paths) {
  return paths.filter(function (path) {
    return !paths.some(function (other) { return other.indexOf(path + '.') === 0; });
  });
}

// The deepest state holding every active state: the leaf itself, or for a parallel state the
// state whose regions are active (its regions' leaves lie side by side inside it).
function innermostPath(paths) {
  var leaves = leafPaths(paths);
  if (!leaves.length) return null;
  var common = leaves[0].split('.');
  leaves.forEach(function (leaf) {
    var parts = leaf.split('.');
    var same = 0;
    while (same < common.length && common[same] === parts[same]) same++;
    common = common.slice(0, same);
  });
  return common.length ? common.join('.') : null;
}

// A state value as the package's describeStateValue writes it: 'WaitingForUserInput.Ready', or
// for a parallel state its regions in brackets, 'ExecutingTools (Hooks.Idle, Approvals.Idle, Subagents.Idle, Questions.Waiting)'.
function stateLabel(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value !== 'object') return String(value);
  var keys = Object.keys(value);
  if (!keys.length) return '—';
  return keys.map(function (key) {
    var inner = value[key];
    if (inner === null || inner === undefined) return key;
    if (typeof inner !== 'object') return key + '.' + String(inner);
    var count = Object.keys(inner).length;
    if (count === 0) return key;
    return count === 1 ? key + '.' + stateLabel(inner) : key + ' (' + stateLabel(inner) + ')';
  }).join(', ');
}

function createAgentRecord(history) {
  var agent = {
    id: history.summary.id,
    summary: history.summary,
    base: history.base,
    steps: [],
    contexts: [],
    lastSeq: history.base.seq,
    cursor: null,
    trimmed: 0,
    // The prompts the chart dropped (PromptDropped), in order: never in the transcript, they are
    // kept here for the conversation to show where they came.
    drops: [],
    // The compactions (Compacted), in order, each with the transcript it replaced: the page keeps
    // showing what the model no longer sees.
    compactions: []
  };
  for (var i = 0; i < history.steps.length; i++) appendStep(agent, history.steps[i]);
  return agent;
}

function appendStep(agent, step) {
  if (step.seq <= agent.lastSeq) return false;
  var count = agent.contexts.length;
  var previous = count ? agent.contexts[count - 1] : agent.base.context;
  var context = applyPatch(previous, step.patch);
  agent.steps.push(step);
  agent.contexts.push(context);
  noteCompactions(agent, step, previous);
  noteDrops(agent, step, context);
  agent.lastSeq = step.seq;
  agent.summary.value = step.value;
  agent.summary.status = step.status;
  trimSteps(agent);
  return true;
}

function noteDrops(agent, step, context) {
  if (!Array.isArray(step.emitted)) return;
  step.emitted.forEach(function (action) {
    if (!action || action.type !== 'PromptDropped') return;
    var length = Array.isArray(context.messages) ? context.messages.length : 0;
    agent.drops.push({
      seq: step.seq,
      // Where the transcript then ended, in the whole history: the dropped prompt comes after
      // those messages.
      at: historyIndex(agent, agent.compactions.length, length),
      prompt: action.prompt,
      reason: action.reason
    });
  });
}

// A compaction, with the transcript it replaced ('before', the context's own array: nothing is
// copied) and 'next', where its first kept message stands in the whole history. After an earlier
// compaction, message 0 of 'before' is that one's summary, none of the history; its message 1 is
// message 'next' of the earlier one (see compactionStart).
function noteCompactions(agent, step, previous) {
  if (!Array.isArray(step.emitted)) return;
  step.emitted.forEach(function (action) {
    if (!action || action.type !== 'Compacted') return;
    var k = agent.compactions.length;
    var from = compactionFirst(k);
    var summarised = typeof action.summarised === 'number' ? action.summarised : 0;
    agent.compactions.push({
      seq: step.seq,
      trigger: action.trigger,
      summarised: summarised,
      kept: action.kept,
      summary: typeof action.summary === 'string' ? action.summary : '',
      before: Array.isArray(previous.messages) ? previous.messages : [],
      next: compactionStart(agent, k) + Math.max(0, summarised - from)
    });
  });
}

// The first message of the transcript the 'k'th compaction replaced that is one of the history:
// after an earlier compaction, message 0 is that one's summary.
function compactionFirst(k) {
  return k > 0 ? 1 : 0;
}

// Where that message stands in the whole history: where the earlier compaction's kept messages
// start.
function compactionStart(agent, k) {
  return k > 0 ? agent.compactions[k - 1].next : 0;
}

// Where message 'index' of the transcript stands in the whole history, after the agent's first
// 'count' compactions (a compacted transcript starts with the summary, which is none of it).
function historyIndex(agent, count, index) {
  if (count === 0) return index;
  return agent.compactions[count - 1].next + index - 1;
}

// How many of the agent's compactions came at or before step 'seq'.
function compactionsUpTo(agent, seq) {
  var count = agent.compactions.length;
  while (count > 0 && agent.compactions[count - 1].seq > seq) count--;
  return count;
}

function trimSteps(agent) {
  var excess = agent.steps.length - pageStepLimit();
  // Dropped in chunks, so the splice cost is spread over many steps.
  if (excess < 500) return;
  var last = agent.steps[excess - 1];
  agent.base = { seq: last.seq, value: last.value, status: last.status, context: agent.contexts[excess - 1] };
  agent.steps.splice(0, excess);
  agent.contexts.splice(0, excess);
  if (agent.cursor !== null) agent.cursor = Math.max(0, agent.cursor - excess);
  agent.trimmed += excess;
}

function stepNumber(agent, index) {
  // The one numbering of steps, shared by the event log and the step counter: 1 for the first
  // step the page received, not shifted when the page drops older steps.
  return agent.trimmed + index + 1;
}

function viewOf(agent) {
  var index = agent.cursor === null ? agent.steps.length - 1 : agent.cursor;
  if (index < 0) {
    return { index: -1, step: null, value: agent.base.value, status: agent.base.status, context: agent.base.context };
  }
  var step = agent.steps[index];
  return { index: index, step: step, value: step.value, status: step.status, context: agent.contexts[index] };
}

function putAgent(history) {
  var known = store.agents.get(history.summary.id);
  var agent = createAgentRecord(history);
  if (known) agent.cursor = known.cursor === null ? null : Math.min(known.cursor, agent.steps.length - 1);
  store.agents.set(agent.id, agent);
  if (store.order.indexOf(agent.id) < 0) store.order.push(agent.id);
  if (agent.id === store.wantedId) {
    store.selectedId = agent.id;
    store.wantedId = null;
  } else if (store.selectedId === null && store.wantedId === null) {
    store.selectedId = agent.id;
  }
  return agent;
}

// The initial replay is over: if the agent the address names did not come, show the first.
function settleSelection() {
  store.wantedId = null;
  if (store.selectedId === null && store.order.length) store.selectedId = store.order[0];
}

function removeAgent(agentId) {
  store.agents.delete(agentId);
  store.order = store.order.filter(function (id) { return id !== agentId; });
  if (store.selectedId === agentId) store.selectedId = store.order.length ? store.order[0] : null;
}

function selectedAgent() {
  return store.selectedId === null ? null : store.agents.get(store.selectedId) || null;
}
`;
