/**
 * Page script, part 2 of 6: the chart. The server draws each machine once with the package's
 * diagram renderer; the page inlines that SVG and lights states by toggling classes on the
 * elements marked `data-state` (and flashes the `data-transition` edges just taken), never redrawing it.
 *
 * The chart is scaled to fit its panel, but never so small that transition labels drop below a
 * readable size: then the panel scrolls (drag to pan), keeps the active state in view, and a
 * button shows the whole chart instead. A chart that fits with labels a pixel under that size is
 * shown whole, never scrolled by a few pixels that cut off a label at its edge.
 */

/**
 * Browser JavaScript: `chartFor`, `showChart`, `showNothing`, `lightChart`, `sizeCharts`,
 * `briefStateLabel`.
 *
 * @example
 * const script = [clientStore, clientChart].join('\n');
 */
export const clientChart = String.raw`
var charts = new Map();
// Transition labels are drawn at least this big (CSS pixels), unless the user asks for the whole chart.
var READABLE_LABEL_PX = 11;
// A chart whose labels stay at least this big when it fits is shown whole: scrolling it for a
// pixel more would cut off what lies at its edge, with nothing to say more is there.
var SMALLEST_WHOLE_LABEL_PX = 10;
var chartZoom = { whole: false, button: null };
// Counts the charts drawn so far: what was labelled before a chart arrived is labelled again.
var chartsReady = 0;

function chartFor(chartId) {
  var chart = charts.get(chartId);
  if (chart) return chart;
  chart = {
    holder: document.createElement('div'), states: new Map(), initial: new Set(), edges: [],
    litKey: null, lit: [], focus: null, ready: false
  };
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
      chart.svg = chart.holder.querySelector('svg');
      chart.width = Number(chart.svg.getAttribute('width'));
      chart.height = Number(chart.svg.getAttribute('height'));
      chart.labelSize = smallestLabelSize(chart.svg);
      setupPanning(chart);
      chart.holder.querySelectorAll('[data-state]').forEach(function (element) {
        var path = element.getAttribute('data-state');
        if (!chart.states.has(path)) chart.states.set(path, []);
        chart.states.get(path).push(element);
        if (element.classList.contains('initial-state')) chart.initial.add(path);
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
      chartsReady++;
      sizeChart(chart);
      invalidate();
    })
    .catch(function (error) {
      chart.holder.textContent = 'The chart could not be drawn: ' + error.message;
    });
  return chart;
}

function smallestLabelSize(svg) {
  var sizes = Array.from(svg.querySelectorAll('[data-transition] text')).map(function (text) {
    return Number(text.getAttribute('font-size'));
  }).filter(function (size) { return size > 0; });
  return sizes.length ? Math.min.apply(null, sizes) : 0;
}

function sizeChart(chart) {
  if (!chart.ready || chart.holder.hidden || !chart.width || !chart.height) return;
  var style = getComputedStyle(chart.holder);
  var width = chart.holder.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  var height = chart.holder.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  if (width <= 0 || height <= 0) return;
  var fit = Math.min(width / chart.width, height / chart.height);
  var readable = chart.labelSize ? READABLE_LABEL_PX / chart.labelSize : 0;
  var fitsReadably = !chart.labelSize || fit * chart.labelSize >= SMALLEST_WHOLE_LABEL_PX;
  var scale = chartZoom.whole || fitsReadably ? fit : Math.max(fit, readable);
  chart.svg.style.width = chart.width * scale + 'px';
  chart.svg.style.height = chart.height * scale + 'px';
  chart.holder.classList.toggle('pannable', scale > fit);
  var button = chartZoom.button;
  if (button) {
    var wasHidden = button.hidden;
    // Offered only when the whole chart and readable labels do not both fit.
    button.hidden = fitsReadably;
    button.textContent = chartZoom.whole ? 'Readable size' : 'Whole chart';
    button.title = chartZoom.whole ? 'Draw transition labels at a readable size (the chart scrolls)' : 'Shrink the chart to fit the panel';
    // The button is in the panel's heading, a few pixels taller with it: the chart's height
    // changed with it, so size again now — a resize observer that sized the chart may not hear
    // of a change its own callback made. Hiding it only adds room (and showing it only takes
    // some), so the second pass leaves the button as it is.
    if (button.hidden !== wasHidden) sizeChart(chart);
  }
}

// After the panel changes size (a resize, the whole chart asked for or put away), the active
// state stays where the user can see it.
function sizeCharts() {
  charts.forEach(sizeChart);
  charts.forEach(function (chart) { keepInView(chart.holder, activeElement(chart)); });
}

function toggleWholeChart() {
  chartZoom.whole = !chartZoom.whole;
  sizeCharts();
}

// The innermost state holding every active one — the nested state rather than the compound
// around it, as a compound state may be larger than the panel; a parallel state itself, so both
// regions' active states show: what is kept in view.
function activeElement(chart) {
  return chart.focus;
}

function setupPanning(chart) {
  var holder = chart.holder;
  var from = null;
  holder.addEventListener('pointerdown', function (event) {
    if (!holder.classList.contains('pannable') || event.button !== 0) return;
    from = { x: event.clientX, y: event.clientY, left: holder.scrollLeft, top: holder.scrollTop };
    holder.classList.add('panning');
    holder.setPointerCapture(event.pointerId);
  });
  holder.addEventListener('pointermove', function (event) {
    if (!from) return;
    holder.scrollLeft = from.left - (event.clientX - from.x);
    holder.scrollTop = from.top - (event.clientY - from.y);
  });
  var stop = function () { from = null; holder.classList.remove('panning'); };
  holder.addEventListener('pointerup', stop);
  holder.addEventListener('pointercancel', stop);
}

function keepInView(holder, element) {
  if (!element || holder.scrollWidth <= holder.clientWidth && holder.scrollHeight <= holder.clientHeight) return;
  var box = element.getBoundingClientRect();
  var view = holder.getBoundingClientRect();
  if (box.left >= view.left && box.right <= view.right && box.top >= view.top && box.bottom <= view.bottom) return;
  holder.scrollBy({
    left: box.left + box.width / 2 - (view.left + view.width / 2),
    top: box.top + box.height / 2 - (view.top + view.height / 2),
    behavior: 'smooth'
  });
}

function nodePath(nodeId) {
  // Layout node ids: 'state:<path>' for a state, 'anyState' for root-level transitions.
  if (!nodeId) return null;
  return nodeId.indexOf('state:') === 0 ? nodeId.slice('state:'.length) : '*';
}

// A state value in few words, for the event log's rows and the agents' tabs: stateLabel's, but a
// parallel state names only its regions that left their initial state — where something happens
// ('ExecutingTools (Questions.Waiting)', or 'ExecutingTools' when nothing does). The full label
// is in the row's tooltip and the status line. Until the chart is drawn, the full label.
function briefStateLabel(value, chartId) {
  var chart = chartId === null || chartId === undefined ? null : charts.get(chartId);
  if (!chart || !chart.ready || value === null || typeof value !== 'object') return stateLabel(value);
  return briefEntries(value, '', chart.initial) || '—';
}

function briefEntries(value, prefix, initial) {
  var keys = Object.keys(value);
  return keys.map(function (key) {
    var path = prefix + key;
    var inner = value[key];
    if (inner === null || inner === undefined) return key;
    if (typeof inner !== 'object') return key + '.' + String(inner);
    var regions = Object.keys(inner);
    if (regions.length === 1) return key + '.' + briefEntries(inner, path + '.', initial);
    var moved = {};
    regions.forEach(function (region) {
      var at = statePaths(inner[region]).map(function (child) { return path + '.' + region + '.' + child; });
      if (!at.every(function (state) { return initial.has(state); })) moved[region] = inner[region];
    });
    var text = briefEntries(moved, path + '.', initial);
    return text ? key + ' (' + text + ')' : key;
  }).join(', ');
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
  var chart = chartFor(chartId);
  var wasShown = chart.holder.parentNode === container && !chart.holder.hidden;
  charts.forEach(function (other, id) { other.holder.hidden = id !== chartId; });
  if (chart.holder.parentNode !== container) {
    var note = container.querySelector(':scope > .empty');
    if (note) note.remove();
    container.appendChild(chart.holder);
  }
  // A hidden chart could not be measured: size it now that it shows.
  if (!wasShown) sizeChart(chart);
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
    // Every state the value is in: in a parallel state, the state, each region and each
    // region's active state.
    chart.lit = elementsOf(chart.states, paths);
    chart.lit.forEach(function (element) { element.classList.add('is-active'); });
    var innermost = innermostPath(paths);
    chart.focus = innermost === null ? null : elementsOf(chart.states, [innermost])[0] || null;
    chart.litKey = key;
    keepInView(chart.holder, activeElement(chart));
  }
  takenEdges(chart, transitions).forEach(function (element) { restartClass(element, 'is-taken', 900); });
}
`;
