/**
 * Sizes and fonts shared by the layout (which measures text) and the SVG writer (which draws it);
 * the two must agree, or text overflows its box.
 */

/**
 * The diagram's font stack. Arial, Helvetica and Liberation Sans share the metrics
 * `measureText` uses.
 *
 * @example
 * `<text font-family="${DIAGRAM_FONT}">`;
 */
export const DIAGRAM_FONT = "Arial, Helvetica, 'Liberation Sans', 'DejaVu Sans', sans-serif";

/**
 * Font sizes, paddings and spacings in pixels.
 *
 * @example
 * const titleHeight = DIAGRAM_SIZES.titleSize * DIAGRAM_SIZES.lineHeight;
 */
export const DIAGRAM_SIZES = {
  /** A state's name. */
  titleSize: 14,
  /** Entry/exit actions, invoked actors and internal transitions listed in a state. */
  detailSize: 11,
  /** Transition labels. */
  labelSize: 11,
  /** Line height as a multiple of the font size. */
  lineHeight: 1.4,
  /** Inside a state box, left and right of its text. */
  boxPaddingX: 14,
  /** Inside a state box, above and below its text. */
  boxPaddingY: 9,
  /** Gap between a state's name and its detail lines. */
  dividerGap: 6,
  /** Padding around a transition label's text. */
  labelPadding: 3,
  /** Transition labels longer than this wrap (guard and actions move to their own lines). */
  maxLabelWidth: 230,
  /** Diameter of the initial-state dot. */
  initialDot: 12,
  /** Space between a compound state's border and its children. */
  compoundPadding: 18,
  /** Margin around the whole diagram. */
  margin: 16,
  /** Corner radius of state boxes. */
  cornerRadius: 9,
  /** Inset of a final state's inner border. */
  finalInset: 4,
} as const;
