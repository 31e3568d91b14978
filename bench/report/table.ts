/**
 * The printed per-turn table: one block per section, a row per subject, a column per history
 * size. Timings are CPU time per operation: median (min–max) over the interleaved rounds.
 */
import type { Figure } from './figures.js';
import { formatFigure } from './format.js';

export interface Section {
  id: string;
  title: string;
}

export function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

export function renderSection(section: Section, figures: Figure[]): string[] {
  const rows = figures.filter((figure) => figure.section === section.id);
  if (rows.length === 0) return [];
  const labels = [...new Set(rows.map((figure) => figure.row))];
  const sizes = [...new Set(rows.map((figure) => figure.n))].sort((a, b) => a - b);
  const labelWidth = Math.max(...labels.map((label) => label.length)) + 2;
  const cell = (label: string, n: number) => {
    const figure = rows.find((entry) => entry.row === label && entry.n === n);
    return figure === undefined ? '—' : formatFigure(figure);
  };
  const cells = labels.map((label) => sizes.map((n) => cell(label, n)));
  const width = Math.max(16, ...cells.flat().map((text) => text.length + 2));
  const lines = [section.title];
  lines.push(
    pad('', labelWidth) + sizes.map((n) => pad(`n=${n.toLocaleString('en')}`, width)).join(''),
  );
  labels.forEach((label, index) => {
    lines.push(pad(label, labelWidth) + cells[index]!.map((text) => pad(text, width)).join(''));
  });
  return lines;
}
