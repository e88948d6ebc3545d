import { runService } from '@gfts/platform';
import { buildGateway } from './app.ts';
import { readGatewayConfig } from './config.ts';

await runService({
  name: 'gateway',
  start: async () => {
    const config = readGatewayConfig();
    return { app: await buildGateway(config), port: config.PORT, host: config.HOST, backlog: config.LISTEN_BACKLOG, graceMs: config.SHUTDOWN_GRACE_MS };
  },
});
