/**
 * The flags headless Chromium runs with, for the dashboard's screenshots and
 * browser tests (`test/helpers/chromium.ts` imports them): no sandbox (CI
 * containers), no GPU, and no traffic of its own.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The system Chromium: `CHROMIUM_PATH`, or /usr/bin/chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
