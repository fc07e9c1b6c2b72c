/**
 * For scripts: a fresh dev server, the simulated model and Cohort's workers in this process,
 * all from the built code in dist/ (npm install builds it), and one call that stops them all.
 */
const { join } = require('node:path');

const dist = (m) => require(join(__dirname, '..', 'dist', m));
const { startDevServer } = dist('client/devserver');
const { connectClient, connectWorkerConnection } = dist('client/connection');
const { startSim } = dist('sim');
const { createWorkers, installQuietRuntime } = dist('worker');

/**
 * @param {{ taskQueue: string, workDir: string, server?: object, modelConcurrency?: number }} opts
 *   `server` is passed to startDevServer (default: headless, free ports).
 */
async function startLocalStack(opts) {
  installQuietRuntime();
  const server = await startDevServer(opts.server ?? { headless: true });
  const sim = await startSim({ port: 0 });
  const settings = { address: server.address, namespace: server.namespace };
  const { client, connection } = await connectClient(settings);
  const native = await connectWorkerConnection(settings);
  const workers = await createWorkers({
    connection: native,
    namespace: settings.namespace,
    taskQueue: opts.taskQueue,
    activities: { model: { apiKey: 'sim', baseURL: sim.url }, workDir: opts.workDir },
    ...(opts.modelConcurrency ? { modelConcurrency: opts.modelConcurrency } : {}),
  });
  const running = Promise.all(workers.map((w) => w.run()));
  return {
    server,
    sim,
    client,
    async stop() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await running;
      await connection.close();
      await native.close();
      await sim.close();
      await server.stop();
    },
  };
}

module.exports = { dist, startLocalStack };
