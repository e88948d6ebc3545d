// A service run by runService, for test/integration/run-service.test.ts: its start waits
// START_DELAY_MS, its close CLOSE_DELAY_MS, and its span export (as if tracing were on)
// TRACE_FLUSH_MS. It tells what happened on stdout, a line each.
import { setTimeout as sleep } from 'node:timers/promises';
import { createHttpServer } from '../../src/http.ts';
import { runService } from '../../src/lifecycle.ts';
import { markTracingStarted } from '../../src/tracing/state.ts';

const ms = (name: string) => Number(process.env[name] ?? 0);
const say = (line: string) => process.stdout.write(`${line}\n`);

markTracingStarted(async () => {
  await sleep(ms('TRACE_FLUSH_MS'));
  say('spans flushed');
});

await runService({
  name: 'child',
  start: async () => {
    say('starting');
    await sleep(ms('START_DELAY_MS'));
    const app = createHttpServer({ service: 'child', logLevel: 'silent', bodyLimit: 1024 });
    app.addHook('onClose', async () => {
      await sleep(ms('CLOSE_DELAY_MS'));
      say('closed');
    });
    app.addHook('onListen', async () => say(`listening ${JSON.stringify(app.server.address())}`));
    say('started');
    return { app, config: { PORT: 0, HOST: '127.0.0.1', LISTEN_BACKLOG: 16, SHUTDOWN_GRACE_MS: ms('GRACE_MS') || 5_000 } };
  },
});
