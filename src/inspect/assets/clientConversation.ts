/**
 * Page script, part 4 of 6: the conversation, with each tool call's status, and each compaction
 * where it happened, after the messages it summarised. It renders incrementally: when the
 * transcript only grew, only the new messages are added, and only the cards of calls still open
 * are updated; the DOM keeps at most a few hundred messages.
 */

/**
 * Browser JavaScript: `renderConversation`, `toolStatus`, `waitingFact`, `excerpt`.
 *
 * @example
 * const script = [clientStore, clientChart, clientEventLog, clientConversation].join('\n');
 */
export const clientConversation = String.raw`
var MAX_MESSAGES_SHOWN = 200;
var conversation = {
  element: null, queue: null, caption: null, agentId: null, context: null, checking: false,
  // The agent's dropped prompts (agent.drops) shown, in order: those up to the viewed step.
  drops: 0,
  // The agent's compactions shown (agent.compactions): those up to the viewed step.
  compactions: 0,
  count: 0, last: undefined, shown: 0, cards: new Map(), open: new Set(), results: new Map(),
  streaming: null
};

var STATUS_TEXT = {
  pending: 'pending', awaitingApproval: 'awaiting approval', awaitingAnswer: 'awaiting answer',
  preHook: 'hook deciding', postHook: 'hook reviewing',
  running: 'running', done: 'done', failed: 'failed'
};
// The built-in tool with which the model asks the user questions (the chart's ASK_USER_TOOL).
var ASK_USER_TOOL = 'ask_user';
// The chart's states that wait for a caller's hook on the turn: the userPromptSubmit hook on the
// prompt at the head of the queue, and the stop hook on the response that would end the turn.
var CHECKING_PROMPT = 'WaitingForUserInput.CheckingPrompt';
var CHECKING_STOP = 'ProcessingLlmResponse.CheckingStop';
// How much of a prompt the status line and the queue quote: enough to tell prompts apart.
var EXCERPT_LENGTH = 60;

function node(tag, className, text) {
  var element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

function blocksOf(message) {
  if (!message || typeof message !== 'object') return [{ type: 'text', text: String(message) }];
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? message.content : [];
}

// An image or a document is named, not dumped: its base64 data would fill the card.
function blockText(block) {
  if (block && block.type === 'text') return block.text;
  if (block && (block.type === 'image' || block.type === 'document')) {
    var mediaType = block.source && block.source.media_type;
    return '[' + block.type + (mediaType ? ' ' + mediaType : '') + ']';
  }
  return JSON.stringify(block);
}

// A text on one line, cut to 'length' characters: a quote in a line of other facts.
function excerpt(text, length) {
  var line = String(text).replace(/\s+/g, ' ').trim();
  return line.length > length ? line.slice(0, length - 1) + '…' : line;
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map(blockText).join('\n');
  }
  return JSON.stringify(content);
}

function resetConversation(agentId) {
  conversation.element.replaceChildren();
  conversation.agentId = agentId;
  conversation.count = 0;
  conversation.drops = 0;
  conversation.compactions = 0;
  conversation.last = undefined;
  conversation.shown = 0;
  conversation.cards = new Map();
  conversation.open = new Set();
  conversation.results = new Map();
  conversation.streaming = null;
}

function collectResults(messages, from) {
  for (var i = from; i < messages.length; i++) {
    blocksOf(messages[i]).forEach(function (block) {
      if (block && block.type === 'tool_result') conversation.results.set(block.tool_use_id, block);
    });
  }
}

function renderConversation(agent, view) {
  if (!agent) {
    if (conversation.agentId !== null) resetConversation(null);
    conversation.caption.textContent = '';
    return;
  }
  var context = view.context || {};
  // Whether the head of the queue is being checked changes how the queue reads, not the context.
  var checking = statePaths(view.value).indexOf(CHECKING_PROMPT) >= 0;
  var seq = view.step ? view.step.seq : agent.base.seq;
  var drops = dropsUpTo(agent, seq);
  var compactions = compactionsUpTo(agent, seq);
  if (conversation.agentId === agent.id && conversation.context === context &&
    conversation.checking === checking && conversation.drops === drops &&
    conversation.compactions === compactions) return;
  conversation.context = context;
  conversation.checking = checking;
  var element = conversation.element;
  var nearBottom = element.scrollTop + element.clientHeight >= element.scrollHeight - 40;
  var messages = Array.isArray(context.messages) ? context.messages : [];
  var grew = conversation.agentId === agent.id && messages.length >= conversation.count &&
    drops >= conversation.drops && compactions === conversation.compactions &&
    (conversation.count === 0 || messages[conversation.count - 1] === conversation.last);
  if (!grew) resetConversation(agent.id);
  var start = conversation.count;
  // A compacted transcript starts with the latest summary: it is drawn as that compaction, after
  // the messages the compactions replaced (the model no longer sees them; the page still shows them).
  var first = compactions > 0 ? 1 : 0;
  var at = function (index) { return historyIndex(agent, compactions, index); };
  if (start === 0) {
    start = first;
    if (messages.length - first > MAX_MESSAGES_SHOWN) {
      start = messages.length - MAX_MESSAGES_SHOWN;
      element.appendChild(node('div', 'note', at(start) + ' earlier messages are not shown'));
      // Prompts dropped before the first message shown are left out with those messages.
      while (conversation.drops < drops && agent.drops[conversation.drops].at < at(start)) conversation.drops++;
    } else {
      renderCompacted(agent, compactions, drops, MAX_MESSAGES_SHOWN - (messages.length - first));
    }
  }
  collectResults(messages, start);
  if (conversation.streaming) { conversation.streaming.remove(); conversation.streaming = null; }
  for (var i = start; i < messages.length; i++) {
    renderDropsBefore(agent, drops, at(i));
    element.appendChild(renderMessage(messages[i], context));
  }
  renderDropsBefore(agent, drops, at(messages.length));
  conversation.shown += messages.length - start;
  conversation.count = messages.length;
  conversation.compactions = compactions;
  conversation.last = messages[messages.length - 1];
  trimConversation();
  updateOpenCards(context);
  renderStreaming(context);
  renderQueue(context, checking);
  conversation.caption.textContent = messages.length + ' message' + (messages.length === 1 ? '' : 's') +
    (compactions ? ' the model sees, ' + at(messages.length) + ' in all' : '');
  if (nearBottom || agent.cursor === null) element.scrollTop = element.scrollHeight;
}

// The messages the agent's first 'count' compactions summarised, dimmed, each compaction after
// them with its summary: at most the latest 'room' of those messages are drawn.
function renderCompacted(agent, count, drops, room) {
  if (count === 0) return;
  var element = conversation.element;
  var skip = Math.max(0, agent.compactions[count - 1].next - Math.max(0, room));
  if (skip > 0) {
    element.appendChild(node('div', 'note', skip + ' earlier messages are not shown'));
    while (conversation.drops < drops && agent.drops[conversation.drops].at < skip) conversation.drops++;
  }
  for (var k = 0; k < count; k++) {
    var compaction = agent.compactions[k];
    var before = compaction.before;
    var from = compactionFirst(k);
    var base = compactionStart(agent, k);
    // Message i of 'before' is message base + i - from of the history: the first one shown is
    // the first not skipped.
    var first = Math.max(from, from + skip - base);
    var end = Math.min(compaction.summarised, before.length);
    // The results of the calls shown: in the messages after them.
    if (first < end) collectResults(before, first);
    for (var i = first; i < end; i++) {
      var position = base + i - from;
      renderDropsBefore(agent, drops, position);
      // Their calls ended long ago: what the page knows of them is in the results collected.
      var message = renderMessage(before[i], {});
      message.classList.add('summarised');
      element.appendChild(message);
      conversation.shown++;
    }
    element.appendChild(renderCompaction(compaction, k));
  }
}

// A compaction, where it happened: why, how much it replaced, and the summary the model sees in
// place of the messages above it.
function renderCompaction(compaction, index) {
  var element = node('div', 'message compaction');
  element.setAttribute('data-testid', 'compaction');
  element.appendChild(node('div', 'role', 'compacted · ' + (compaction.trigger === 'manual' ? 'asked for' : 'automatically')));
  var summarised = compaction.summarised + ' message' + (compaction.summarised === 1 ? '' : 's');
  element.appendChild(node('div', 'reason', summarised + ' summarised' +
    (index > 0 ? ' (the earlier summary among them)' : '') + ', ' + compaction.kept + ' kept: the model sees this summary in their place'));
  element.appendChild(node('div', 'text', compaction.summary));
  return element;
}

// How many of the agent's dropped prompts came at or before step 'seq'.
function dropsUpTo(agent, seq) {
  var count = agent.drops.length;
  while (count > 0 && agent.drops[count - 1].seq > seq) count--;
  return count;
}

// The dropped prompts not shown yet, up to the 'drops'th, that came while the transcript had
// 'at' messages or fewer: they go before message 'at' (the model never saw them).
function renderDropsBefore(agent, drops, at) {
  while (conversation.drops < drops && agent.drops[conversation.drops].at <= at) {
    conversation.element.appendChild(renderDropped(agent.drops[conversation.drops]));
    conversation.drops++;
    conversation.shown++;
  }
}

// A prompt that never reached the model, where it would have been, with the reason it was dropped.
function renderDropped(drop) {
  var element = node('div', 'message user dropped');
  element.setAttribute('data-testid', 'dropped-prompt');
  element.appendChild(node('div', 'role', 'user · dropped'));
  element.appendChild(node('div', 'text', textOf(drop.prompt && drop.prompt.content)));
  element.appendChild(node('div', 'reason', drop.reason));
  return element;
}

function trimConversation() {
  // Long live sessions: drop the oldest messages from the DOM (the data stays for time travel).
  var excess = conversation.shown - MAX_MESSAGES_SHOWN * 1.5;
  if (excess <= 0) return;
  var removed = 0;
  var child = conversation.element.firstElementChild;
  while (child && removed < excess) {
    var next = child.nextElementSibling;
    if (child.classList.contains('message')) removed++;
    child.remove();
    child = next;
  }
  conversation.shown -= removed;
  conversation.element.prepend(node('div', 'note', 'earlier messages are not shown'));
  conversation.cards.forEach(function (entry, callId) {
    if (!entry.card.isConnected) { conversation.cards.delete(callId); conversation.open.delete(callId); }
  });
}

function renderMessage(message, context) {
  var role = message && message.role === 'assistant' ? 'assistant' : 'user';
  var blocks = blocksOf(message);
  var isResults = blocks.length > 0 && blocks.every(function (block) { return block && block.type === 'tool_result'; });
  if (isResults) {
    var results = node('div', 'message results');
    results.appendChild(node('div', 'role', 'tool results'));
    var failed = blocks.filter(function (block) { return block.is_error; }).length;
    results.appendChild(node('div', 'text', '↩ ' + blocks.length + ' result' + (blocks.length === 1 ? '' : 's') +
      ' sent to the model' + (failed ? ' (' + failed + ' failed)' : '')));
    return results;
  }
  var element = node('div', 'message ' + role);
  element.appendChild(node('div', 'role', role));
  blocks.forEach(function (block) {
    if (!block || typeof block !== 'object') { element.appendChild(node('div', 'text', String(block))); return; }
    if (block.type === 'text') element.appendChild(node('div', 'text', block.text));
    else if (block.type === 'tool_use') element.appendChild(renderToolCard(block, context));
    else if (block.type === 'tool_result') element.appendChild(node('div', 'text', '↩ result for ' + block.tool_use_id));
    else if (block.type === 'thinking') element.appendChild(node('div', 'text hint', '(thinking) ' + block.thinking));
    else element.appendChild(node('div', 'text hint', '(' + block.type + ')'));
  });
  return element;
}

function renderToolCard(block, context) {
  var card = node('div', 'tool');
  card.setAttribute('data-tool-call', block.id);
  var head = node('div', 'head');
  head.appendChild(node('span', 'name', block.name));
  head.appendChild(node('span', 'id', block.id));
  // A task for a subagent: linked to the subagent's session once the page knows it is stored.
  var sessionLink = null;
  if (block.name === SUBAGENT_TOOL) {
    sessionLink = node('a', 'session-link task-session');
    sessionLink.setAttribute('data-testid', 'task-session-link');
    sessionLink.hidden = true;
    head.appendChild(sessionLink);
  }
  var chip = node('span', 'chip');
  chip.setAttribute('data-testid', 'tool-status');
  head.appendChild(chip);
  card.appendChild(head);
  var questions = questionsOf(block);
  card.appendChild(questions ? renderQuestions(questions) : node('pre', 'input', JSON.stringify(block.input, null, 2)));
  var entry = { card: card, chip: chip, result: null, status: null, sessionLink: sessionLink };
  conversation.cards.set(block.id, entry);
  conversation.open.add(block.id);
  updateCard(block.id, entry, context);
  return card;
}

// An ask_user call's questions, when its input holds some to show (the chart answers a
// malformed call with what is wrong; its raw input shows then).
function questionsOf(block) {
  if (block.name !== ASK_USER_TOOL || !block.input || !Array.isArray(block.input.questions)) return null;
  var questions = block.input.questions.filter(function (question) {
    return question && typeof question === 'object' && typeof question.question === 'string';
  });
  return questions.length ? questions : null;
}

// The questions as the person reads them: each under its header, with the choices offered (the
// person may answer in their own words too). The answers come as the call's result.
function renderQuestions(questions) {
  var list = node('div', 'questions');
  list.setAttribute('data-testid', 'questions');
  questions.forEach(function (question) {
    var item = node('div', 'question');
    var head = node('div', 'question-head');
    if (typeof question.header === 'string') head.appendChild(node('span', 'question-header', question.header));
    if (question.multiSelect === true) head.appendChild(node('span', 'question-kind', 'several may be picked'));
    item.appendChild(head);
    item.appendChild(node('div', 'question-text', question.question));
    var options = Array.isArray(question.options) ? question.options : [];
    if (options.length) {
      var choices = node('ul', 'choices');
      options.forEach(function (option) {
        if (!option || typeof option.label !== 'string') return;
        var choice = node('li', 'choice');
        choice.appendChild(node('span', 'choice-label', option.label));
        if (typeof option.description === 'string') choice.appendChild(node('span', 'choice-description', option.description));
        choices.appendChild(choice);
      });
      item.appendChild(choices);
    }
    list.appendChild(item);
  });
  return list;
}

function toolStatus(callId, context) {
  var runs = Array.isArray(context.toolRuns) ? context.toolRuns : [];
  for (var i = 0; i < runs.length; i++) {
    var run = runs[i];
    if (!run || !run.call || run.call.id !== callId) continue;
    if (run.status !== 'done') return { status: run.status, text: null };
    var failed = run.outcome && run.outcome.status === 'error';
    var text = !run.outcome ? null
      : failed ? run.outcome.error && run.outcome.error.message
      : Array.isArray(run.outcome.content) ? run.outcome.content : run.outcome.output;
    return { status: failed ? 'failed' : 'done', text: text === undefined || text === null ? null : textOf(text) };
  }
  var result = conversation.results.get(callId);
  if (result) return { status: result.is_error ? 'failed' : 'done', text: textOf(result.content), final: true };
  return { status: 'pending', text: null };
}

function updateCard(callId, entry, context) {
  var state = toolStatus(callId, context);
  if (state.final) conversation.open.delete(callId);
  if (entry.status === state.status && (entry.result ? entry.result.textContent : null) === state.text) return;
  entry.status = state.status;
  entry.chip.className = 'chip ' + state.status;
  entry.chip.textContent = STATUS_TEXT[state.status] || state.status;
  entry.card.setAttribute('data-status', state.status);
  if (state.text !== null) {
    if (!entry.result) { entry.result = node('pre', 'result'); entry.card.appendChild(entry.result); }
    entry.result.className = 'result' + (state.status === 'failed' ? ' failed' : '');
    entry.result.textContent = state.text;
  } else if (entry.result) {
    entry.result.remove();
    entry.result = null;
  }
}

function updateOpenCards(context) {
  conversation.open.forEach(function (callId) {
    var entry = conversation.cards.get(callId);
    if (entry) updateCard(callId, entry, context); else conversation.open.delete(callId);
  });
}

// What the agent waits for, for the status line: a person (approvals, answers to questions) or
// the caller's code (a hook deciding on the prompt, on a compaction, on tool calls, or on the end
// of the turn) — the waits the chart stands still in, in the order a turn meets them.
function waitingFact(context, value) {
  var paths = statePaths(value);
  var runs = Array.isArray(context.toolRuns) ? context.toolRuns : [];
  var approvals = [];
  var headers = [];
  var preHooks = [];
  var postHooks = [];
  runs.forEach(function (run) {
    if (!run || !run.call) return;
    if (run.status === 'preHook') preHooks.push(run.call.name);
    if (run.status === 'postHook') postHooks.push(run.call.name);
    if (run.status === 'awaitingApproval') approvals.push(run.call.name);
    if (run.status !== 'awaitingAnswer') return;
    (questionsOf(run.call) || []).forEach(function (question) {
      headers.push(typeof question.header === 'string' ? question.header : question.question);
    });
  });
  var parts = [];
  var checkingCompaction = paths.some(function (path) { return /\.CheckingCompaction$/.test(path); });
  if (paths.indexOf(CHECKING_PROMPT) >= 0) {
    var queue = Array.isArray(context.queue) ? context.queue : [];
    // The prompt is not in the transcript yet (it may never be): quote it here.
    parts.push('the userPromptSubmit hook' + (queue.length ? ' on the prompt: ' + excerpt(textOf(queue[0] && queue[0].content), EXCERPT_LENGTH) : ''));
  }
  if (checkingCompaction) parts.push('the preCompact hook');
  if (preHooks.length) parts.push('the preToolUse hook on ' + preHooks.join(', '));
  if (approvals.length) parts.push('approval of ' + approvals.join(', '));
  if (headers.length) parts.push((headers.length === 1 ? 'an answer on ' : 'answers on ') + headers.join(', '));
  if (postHooks.length) parts.push('the postToolUse hook on ' + postHooks.join(', '));
  // The response it decides on is the last message of the conversation, shown beside it.
  if (paths.indexOf(CHECKING_STOP) >= 0) parts.push('the stop hook');
  return parts.length ? ['waiting for', parts.join('; ')] : null;
}

function renderStreaming(context) {
  var text = typeof context.streamingText === 'string' ? context.streamingText : '';
  var calls = Array.isArray(context.streamingToolCalls) ? context.streamingToolCalls : [];
  if (!text && !calls.length) return;
  var element = node('div', 'message assistant streaming');
  element.setAttribute('data-testid', 'streaming');
  element.appendChild(node('div', 'role', 'assistant · streaming'));
  // Only the tail: a long answer streams thousands of deltas, and the end is what changes.
  element.appendChild(node('div', 'text', text.length > 6000 ? '…' + text.slice(-6000) : text));
  calls.forEach(function (call) {
    var card = node('div', 'tool');
    var head = node('div', 'head');
    head.appendChild(node('span', 'name', call.name));
    head.appendChild(node('span', 'chip pending', 'streaming'));
    card.appendChild(head);
    card.appendChild(node('pre', 'input', call.argumentsJson));
    element.appendChild(card);
  });
  conversation.element.appendChild(element);
  conversation.streaming = element;
}

// Input waiting for a turn. While the userPromptSubmit hook checks the head of the queue, that
// prompt is not queued for later: it starts the next turn, or is dropped, when the hook answers.
function renderQueue(context, checking) {
  var queue = Array.isArray(context.queue) ? context.queue : [];
  var quote = function (message) { return excerpt(textOf(message && message.content), 80); };
  var checked = checking && queue.length ? queue[0] : null;
  var later = checked ? queue.slice(1) : queue;
  var parts = [];
  if (checked) parts.push('the userPromptSubmit hook is checking: ' + quote(checked));
  if (later.length) parts.push(later.length + ' queued for the next turn: ' + later.map(quote).join(' · '));
  conversation.queue.classList.toggle('shown', parts.length > 0);
  conversation.queue.textContent = parts.join(' — ');
}
`;
