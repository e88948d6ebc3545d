import { runService } from '@gfts/platform';
import { buildNotificationsApp } from './app.ts';
import { readNotificationsConfig } from './config.ts';

await runService({
  name: 'notifications',
  start: async () => {
    const config = readNotificationsConfig();
    return { app: await buildNotificationsApp(config), config };
  },
});
