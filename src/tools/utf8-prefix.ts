/** UTF-8 byte length of `text`. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The longest prefix of `text` that is at most `maximumBytes` bytes of UTF-8, whole characters. */
export function utf8Prefix(text: string, maximumBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maximumBytes) return text;
  let end = Math.max(0, maximumBytes);
  // Back off from the middle of a character: continuation bytes are 0b10xxxxxx.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}
