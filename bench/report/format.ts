/** Number formatting for the printed table. */
import type { Figure, Unit } from './figures.js';

interface Scale {
  divisor: number;
  suffix: string;
}

function scaleOf(value: number, unit: Unit): Scale {
  if (unit === 'bytes') {
    return value < 1e6 ? { divisor: 1, suffix: ' B' } : { divisor: 1e6, suffix: ' MB' };
  }
  return timeScale(value);
}

function timeScale(value: number): Scale {
  if (value < 1_000) return { divisor: 1, suffix: ' ns' };
  if (value < 1_000_000) return { divisor: 1_000, suffix: ' µs' };
  if (value < 1_000_000_000) return { divisor: 1_000_000, suffix: ' ms' };
  return { divisor: 1_000_000_000, suffix: ' s' };
}

function digits(scaled: number): string {
  if (scaled >= 100) return scaled.toFixed(0);
  if (scaled >= 10) return scaled.toFixed(1);
  return scaled.toFixed(2);
}

function plain(value: number, unit: Unit, scale: Scale): string {
  switch (unit) {
    case 'ns':
      return digits(value / scale.divisor);
    case 'bytes':
      return scale.divisor === 1
        ? Math.round(value).toLocaleString('en')
        : digits(value / scale.divisor);
    case 'x':
      return digits(value);
    case 'count':
      return value < 10 ? value.toFixed(1) : value.toFixed(0);
  }
}

function suffix(unit: Unit, scale: Scale): string {
  if (unit === 'ns' || unit === 'bytes') return scale.suffix;
  if (unit === 'x') return '×';
  return '';
}

export function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return '—';
  const scale = scaleOf(value, unit);
  return `${plain(value, unit, scale)}${suffix(unit, scale)}`;
}

/** "median (min–max)" in the median's unit, or just the value when there is one sample. */
export function formatFigure(figure: Figure): string {
  if (!Number.isFinite(figure.median)) return '—';
  const scale = scaleOf(figure.median, figure.unit);
  const median = `${plain(figure.median, figure.unit, scale)}${suffix(figure.unit, scale)}`;
  if (figure.samples.length <= 1 || figure.min === figure.max) return median;
  const range = `${plain(figure.min, figure.unit, scale)}–${plain(figure.max, figure.unit, scale)}`;
  return `${median} (${range})`;
}
