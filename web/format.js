// How numbers and times read on the console's pages.

/** `42s`, `5m 02s`, `3h 07m`, `2d 04h`. */
export function formatAge(milliseconds) {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d ${String(hours % 24).padStart(2, '0')}h`;
}

/** `$0.0123`, or `-` when not known. */
export function formatCost(usd) {
  return typeof usd === 'number' ? `$${usd.toFixed(4)}` : '-';
}

/** Temporal's `COMPLETED` as `completed`. */
export function formatWorkflowStatus(status) {
  return String(status ?? '-')
    .toLowerCase()
    .replaceAll('_', ' ');
}

/** A value or `-`. */
export function orDash(value) {
  return value === undefined || value === null || value === '' ? '-' : String(value);
}

// Bidirectional controls reorder how a line reads; the other controls have no glyph. Matched one
// at a time, so that each is named.
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * Text a person decides on (a call's arguments, its reason), with each control character named
 * as `<U+202E>` instead of acting on the page: a right-to-left override would otherwise make a
 * command read differently from the one that runs. Line feeds and tabs stay.
 */
export function visibleText(text) {
  return String(text).replace(
    HIDDEN,
    (character) => `<U+${character.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}>`,
  );
}
