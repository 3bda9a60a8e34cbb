/** Debian's headless Chromium through playwright-core (no browser download), as the console's test and bench drive it. */
import { chromium, type Browser } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser (`.ci/run` installs it when missing). */
export const CHROMIUM = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches headless Chromium (no sandbox: the suite runs as root); the caller closes it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
