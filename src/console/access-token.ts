import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Shortest token `dar ui --token` accepts: a short one could be guessed. */
export const MIN_TOKEN_LENGTH = 16;

/** A fresh random access token (URL-safe, 256 bits). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Whether `given` is the token. Compares hashes in constant time, so that the time taken does
 * not tell how much of a guess was right.
 */
export function tokenMatches(token: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(token), digest(given));
}
