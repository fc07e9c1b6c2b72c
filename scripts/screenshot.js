#!/usr/bin/env node
/**
 * Looks at a session the way a user does: starts a dev server with its UI, runs the example
 * research session offline (simulated model), opens the session's workflow page in headless
 * Chromium and saves screenshots.
 *
 *   node scripts/screenshot.js [OUT_DIR]        (default: out/screenshots)
 *
 * Needs Debian's chromium (`apt-get install chromium`) or CHROMIUM_PATH, and playwright-core.
 */
const { mkdirSync, existsSync } = require('node:fs');
const { join, resolve } = require('node:path');

const { dist, startLocalStack } = require('./local-stack');
const { freePort } = dist('client/devserver');
const { startSession, sessionResult } = dist('client/session');
const { loadTeam } = dist('team');

async function main() {
  const outDir = resolve(process.argv[2] ?? 'out/screenshots');
  mkdirSync(outDir, { recursive: true });
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH`);
  const { chromium } = require('playwright-core');

  const { client, server, stop } = await startLocalStack({
    taskQueue: 'cohort',
    workDir: process.cwd(),
    server: { port: await freePort(), uiPort: await freePort() },
  });
  let browser;
  try {
    const { team } = await loadTeam(join(__dirname, '..', 'examples', 'research', 'team.yaml'));
    const handle = await startSession(client, team, 'How do heat pumps compare to gas boilers in cold climates?', { taskQueue: 'cohort' });
    const result = await sessionResult(handle);
    console.log(`session ${handle.workflowId}: ${result.status}`);

    browser = await chromium.launch({
      executablePath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const page = await browser.newPage({ viewport: { width: 1440, height: 1400 } });
    const base = server.uiUrl.replace(/\/namespaces\/.*$/, '');
    const shots = [
      ['sessions', `${base}/namespaces/default/workflows`],
      ['session', `${base}/namespaces/default/workflows/${encodeURIComponent(handle.workflowId)}`],
      ['subagent', `${base}/namespaces/default/workflows/${encodeURIComponent(`${handle.workflowId}/researcher-1`)}`],
    ];
    for (const [name, url] of shots) {
      await page.goto(url, { waitUntil: 'networkidle' });
      await page.waitForTimeout(1500); // the UI renders history after its API calls settle
      const file = join(outDir, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(`${name}: ${url} → ${file}`);
    }
  } finally {
    await browser?.close();
    await stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
