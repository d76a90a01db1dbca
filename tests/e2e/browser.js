// Headless Debian Chromium driven by playwright-core (no browser download: TOOLCHAIN.md).
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

// Opens `url` and waits for the page to set document.body.dataset.done; resolves to the open page
// and the (live) lists of console errors, page errors and dialogs (alert, confirm, …) it produces.
// colorScheme ('light' | 'dark') emulates prefers-color-scheme; touch makes a phone's touch screen
// (page.touchscreen.tap sends real touch events).
export async function open(browser, url, { viewport, colorScheme, touch = false } = {}) {
  const page = await browser.newPage({ ...(viewport ? { viewport } : {}), ...(colorScheme ? { colorScheme } : {}),
    ...(touch ? { hasTouch: true, isMobile: true } : {}) });
  const errors = [];
  const dialogs = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.done === 'true', null, { timeout: 20000 });
  return { page, errors, dialogs };
}

// Opens `url`, waits for the page to set document.body.dataset.done, and returns what the page
// reported plus every console error and page error seen on the way.
export async function visit(browser, url) {
  const { page, errors } = await open(browser, url);
  const result = await page.evaluate(() => JSON.parse(document.body.dataset.result ?? 'null'));
  await page.close();
  return { result, errors };
}
