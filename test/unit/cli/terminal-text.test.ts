import { terminalText } from '../../../src/client/terminal-text.js';

const ESCAPE = '\u001b';

test('escape sequences are shown, not acted on: colour, clear screen, window title, clipboard', () => {
  expect(terminalText(`${ESCAPE}[31mred${ESCAPE}[0m`)).toBe('␛[31mred␛[0m');
  expect(terminalText(`${ESCAPE}[2J${ESCAPE}[H`)).toBe('␛[2J␛[H');
  expect(terminalText(`${ESCAPE}]0;title\u0007`)).toBe('␛]0;title␇');
  expect(terminalText(`${ESCAPE}]52;c;cHduZWQ=\u0007`)).toBe('␛]52;c;cHduZWQ=␇');
});

test('line feeds and tabs are kept; CR LF is a line feed; a lone carriage return is shown', () => {
  expect(terminalText('a\tb\nc')).toBe('a\tb\nc');
  expect(terminalText('one\r\ntwo\r\n')).toBe('one\ntwo\n');
  expect(terminalText('50%\r100%')).toBe('50%␍100%');
});

test('the other C0 controls, DEL and the C1 controls are shown', () => {
  expect(terminalText('\u0000\u0008\u000b\u000c\u001f')).toBe('␀␈␋␌␟');
  expect(terminalText('a\u007fb')).toBe('a␡b');
  // U+009B is a one-character escape sequence start for some terminals.
  expect(terminalText('\u009b2J\u0085')).toBe('<U+009B>2J<U+0085>');
});

test('bidirectional controls are shown, so a command reads as it runs', () => {
  const command = 'echo safe \u202e#fr- mr\u202c; \u2066x\u2069 \u200f\u061c';
  expect(terminalText(command)).toBe(
    'echo safe <U+202E>#fr- mr<U+202C>; <U+2066>x<U+2069> <U+200F><U+061C>',
  );
});

test('printable text is unchanged: accents, CJK, emoji, no-break space, JSON escapes as text', () => {
  const text = 'café 日本語 👩‍💻 a\u00a0b {"x":"\\u001b"}';
  expect(terminalText(text)).toBe(text);
});
