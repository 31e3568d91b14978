/**
 * Page script, part 2 of 5: the chart. The server draws each machine once with the package's
 * diagram renderer; the page inlines that SVG and lights states by toggling classes on the
 * elements marked `data-state` (and flashes the `data-transition` edges just taken), never redrawing it.
 */

/**
 * Browser JavaScript: `chartFor`, `showChart`, `showNothing`, `lightChart`.
 *
 * @example
 * const script = [clientStore, clientChart].join('\n');
 */
export const clientChart = String.raw`
var charts = new Map();

function chartFor(chartId) {
  var chart = charts.get(chartId);
  if (chart) return chart;
  chart = { holder: document.createElement('div'), states: new Map(), edges: [], litKey: null, lit: [], ready: false };
  chart.holder.className = 'empty';
  chart.holder.textContent = 'Drawing the chart…';
  charts.set(chartId, chart);
  fetch(withToken('/charts/' + encodeURIComponent(chartId) + '.svg'))
    .then(function (response) {
      if (!response.ok) throw new Error('HTTP ' + response.status);
      return response.text();
    })
    .then(function (svg) {
      // Our own server's rendering of the machine definition: markup we produced, not recorded data.
      chart.holder.innerHTML = svg;
      chart.holder.className = '';
      chart.holder.querySelectorAll('[data-state]').forEach(function (element) {
        var path = element.getAttribute('data-state');
        if (!chart.states.has(path)) chart.states.set(path, []);
        chart.states.get(path).push(element);
      });
      chart.holder.querySelectorAll('[data-transition]').forEach(function (element) {
        chart.edges.push({
          element: element,
          event: element.getAttribute('data-event') || '',
          source: nodePath(element.getAttribute('data-source')),
          target: nodePath(element.getAttribute('data-target'))
        });
      });
      chart.ready = true;
      invalidate();
    })
    .catch(function (error) {
      chart.holder.textContent = 'The chart could not be drawn: ' + error.message;
    });
  return chart;
}

function nodePath(nodeId) {
  // Layout node ids: 'state:<path>' for a state, 'anyState' for root-level transitions.
  if (!nodeId) return null;
  return nodeId.indexOf('state:') === 0 ? nodeId.slice('state:'.length) : '*';
}

function showNothing(container, text) {
  charts.forEach(function (chart) { chart.holder.hidden = true; });
  var note = container.querySelector(':scope > .empty');
  if (note && note.textContent === text) return;
  if (note) note.remove();
  container.appendChild(emptyNote(text));
}

function showChart(container, chartId) {
  if (chartId === null) {
    showNothing(container, 'This actor is not a state machine: no chart to draw.');
    return null;
  }
  charts.forEach(function (chart, id) { chart.holder.hidden = id !== chartId; });
  var chart = chartFor(chartId);
  if (chart.holder.parentNode !== container) {
    var note = container.querySelector(':scope > .empty');
    if (note) note.remove();
    container.appendChild(chart.holder);
  }
  return chart;
}

function emptyNote(text) {
  var note = document.createElement('div');
  note.className = 'empty';
  note.textContent = text;
  return note;
}

function elementsOf(map, keys) {
  var found = [];
  keys.forEach(function (key) { (map.get(key) || []).forEach(function (element) { found.push(element); }); });
  return found;
}

function restartClass(element, name, durationMs) {
  element.classList.remove(name);
  // Reading layout between removing and adding restarts the CSS animation.
  void element.getBoundingClientRect();
  element.classList.add(name);
  clearTimeout(element.__inspectorTimer);
  element.__inspectorTimer = setTimeout(function () { element.classList.remove(name); }, durationMs);
}

function takenEdges(chart, transitions) {
  var found = [];
  transitions.forEach(function (taken) {
    chart.edges.forEach(function (edge) {
      if (edge.event !== taken.event || taken.to.indexOf(edge.target) < 0) return;
      if (edge.source === '*' || taken.from.indexOf(edge.source) >= 0) found.push(edge.element);
    });
  });
  return found;
}

function lightChart(chart, value, passedPaths, transitions) {
  if (!chart || !chart.ready) return;
  var paths = statePaths(value);
  // States passed through since the last frame (a transient state lasts no time at all) flash
  // first, in the order they were passed, then the current one lights.
  passedPaths.forEach(function (path) {
    if (paths.indexOf(path) < 0) elementsOf(chart.states, [path]).forEach(function (element) { restartClass(element, 'is-passed', 1100); });
  });
  var key = paths.join('|');
  if (chart.litKey !== key) {
    chart.lit.forEach(function (element) { element.classList.remove('is-active'); });
    chart.lit = elementsOf(chart.states, paths);
    chart.lit.forEach(function (element) { element.classList.add('is-active'); });
    chart.litKey = key;
  }
  takenEdges(chart, transitions).forEach(function (element) { restartClass(element, 'is-taken', 900); });
}
`;
