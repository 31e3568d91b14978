/**
 * Text widths without a browser. The diagram's font stack starts with Arial and Helvetica (and
 * Liberation Sans, which shares their metrics), so widths come from Helvetica's published
 * character widths; a small allowance covers wider fallbacks such as DejaVu Sans.
 */

/** Helvetica advance widths in 1/1000 em for the printable ASCII range, starting at space. */
const REGULAR = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
  556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667,
  611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
  667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500,
  222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];

/** Helvetica-Bold advance widths, same range. */
const BOLD = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
  556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722, 722, 667,
  611, 778, 722, 278, 556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
  667, 611, 333, 278, 333, 584, 556, 333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556,
  278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
];

/** Room for fallback fonts that run wider than Helvetica (DejaVu Sans is up to ~10% wider). */
const ALLOWANCE = 1.08;

/**
 * The width in pixels of `text` set in the diagram's font at `fontSize`.
 *
 * @example
 * measureText('CallingLlm', 14, 'bold'); // ≈ 77
 */
export function measureText(
  text: string,
  fontSize: number,
  weight: 'normal' | 'bold' = 'normal',
): number {
  const table = weight === 'bold' ? BOLD : REGULAR;
  let units = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    // Outside ASCII (accents, arrows, CJK) assume a wide glyph rather than overflow the box.
    units += table[code - 32] ?? 1000;
  }
  return Math.ceil((units / 1000) * fontSize * ALLOWANCE);
}
