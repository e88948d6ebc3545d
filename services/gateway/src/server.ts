import { runService } from '@gfts/platform';
import { buildGateway } from './app.ts';
import { readGatewayConfig } from './config.ts';

await runService({
  name: 'gateway',
  start: async () => {
    const config = readGatewayConfig();
    return { app: await buildGateway(config), config };
  },
});
