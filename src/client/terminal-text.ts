/**
 * Characters a terminal acts on instead of showing, in text `dar` prints for people: C0
 * controls but the line feed and tab, DEL, C1 controls (some terminals take U+009B as the start
 * of an escape sequence), and the bidirectional controls, which reorder how a line reads.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /\r\n|[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Unicode's pictures of the C0 controls start here (U+2400 SYMBOL FOR NULL, then in order). */
const CONTROL_PICTURES = 0x2400;
const DELETE_PICTURE = '\u2421';

function shown(character: string): string {
  if (character === '\r\n') return '\n';
  const code = character.codePointAt(0) ?? 0;
  if (code < 0x20) return String.fromCodePoint(CONTROL_PICTURES + code);
  if (code === 0x7f) return DELETE_PICTURE;
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/**
 * Text from a job (what the model wrote, a tool's output, an error a provider sent, a policy's
 * reason) as it may be printed to a terminal: each control character is shown as a symbol
 * instead of being acted on (`␛` for escape, `␍` for a carriage return, `<U+202E>` for a
 * right-to-left override), and a CR LF line ending is a line feed. Without it, a file the agent
 * read could clear the screen, rewrite lines already printed, set the clipboard through an
 * escape sequence, or show an operator a command that reads differently from the one that
 * runs. Line feeds and tabs are kept. JSON output needs none of this: it escapes the C0 controls
 * and is read by programs.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, shown);
}
