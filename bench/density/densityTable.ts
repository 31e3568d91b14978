/**
 * The printed density table: one block per N, a row per subject, a column per measure, each
 * cell the median over rounds with the min–max range beside it when there is more than one.
 */
import type { Figure } from '../report/figures.js';
import { formatFigure } from '../report/format.js';
import { pad } from '../report/table.js';
import { DENSITY_COLUMNS, DENSITY_PAIRED_SECTIONS } from './densityFigures.js';

export function renderDensityTable(
  figures: readonly Figure[],
  describeStep: (agents: number) => string,
): string[] {
  const density = figures.filter((figure) => figure.section.startsWith('density:'));
  const agentCounts = [...new Set(density.map((figure) => figure.n))].sort((a, b) => a - b);
  const lines: string[] = [];
  for (const agents of agentCounts) {
    const atN = density.filter((figure) => figure.n === agents);
    const labels = [...new Set(atN.filter((f) => f.section === 'density:cpu').map((f) => f.row))];
    const cells = labels.map((label) =>
      DENSITY_COLUMNS.map(({ section }) => {
        const figure = atN.find((entry) => entry.section === section && entry.row === label);
        return figure === undefined ? '—' : formatFigure(figure);
      }),
    );
    const paired = DENSITY_PAIRED_SECTIONS.flatMap((section) =>
      atN.filter((entry) => entry.section === section),
    );
    const labelWidth =
      Math.max(...[...labels, ...paired.map((f) => f.row)].map((l) => l.length)) + 2;
    const widths = DENSITY_COLUMNS.map(
      ({ heading }, column) =>
        Math.max(heading.length, ...cells.map((row) => row[column]!.length)) + 2,
    );
    lines.push(`N = ${agents.toLocaleString('en')} concurrent agents — ${describeStep(agents)}`);
    lines.push(
      pad('', labelWidth) +
        DENSITY_COLUMNS.map(({ heading }, column) => pad(heading, widths[column]!)).join(''),
    );
    labels.forEach((label, row) => {
      lines.push(
        pad(label, labelWidth) +
          cells[row]!.map((text, column) => pad(text, widths[column]!)).join(''),
      );
    });
    for (const figure of paired) {
      lines.push(`${pad(figure.row, labelWidth)}${formatFigure(figure)} (paired)`);
    }
    lines.push('');
  }
  return lines;
}
