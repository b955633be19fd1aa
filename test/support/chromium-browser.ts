import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Chromium is looked for: CHROMIUM_PATH, then Debian's `chromium` package. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * The Chromium executable for browser tests. Throws (the test fails, it is not skipped) when
 * there is none, naming how to install it.
 */
export function chromiumExecutable(): string {
  const fromEnvironment = process.env.CHROMIUM_PATH;
  if (fromEnvironment) {
    if (existsSync(fromEnvironment)) return fromEnvironment;
    throw new Error(`CHROMIUM_PATH is ${fromEnvironment}, which does not exist`);
  }
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found) return found;
  throw new Error(
    "Chromium is missing: the browser tests need it. Install Debian's package " +
      '(`apt-get install -y chromium`, as .ci/run does) or set CHROMIUM_PATH to a Chromium executable.',
  );
}

/** Headless Chromium for a test file, launched before its tests and closed after them. */
export function useChromium(): { browser: Browser } {
  const holder = {} as { browser: Browser };
  beforeAll(async () => {
    holder.browser = await chromium.launch({
      executablePath: chromiumExecutable(),
      // Tests run as root in CI, where Chromium's sandbox cannot start.
      args: ['--no-sandbox'],
    });
  });
  afterAll(async () => {
    await holder.browser?.close();
  });
  return holder;
}
