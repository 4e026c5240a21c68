import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../examples/dashboard/chromium-args.js';

/** The system Chromium the browser tests drive (`.ci/services --install` installs it when missing). */
export const CHROMIUM = CHROMIUM_PATH;

/** A headless Chromium with a fresh profile; `close()` ends it and deletes the profile. */
export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches the system Chromium headless, with a fresh user-data dir and no background traffic. */
export async function launchChromium(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'cb-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 800 },
      args: [...CHROMIUM_ARGS],
    });
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A Chromium for a test file: launched before its tests, closed after them.
 * Call the returned function inside a test for the browser.
 */
export function chromiumForFile(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (browser === undefined) throw new Error('Chromium is launched in beforeAll: use it inside a test');
    return browser;
  };
}
