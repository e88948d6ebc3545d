import { runService } from '@gfts/platform';
import { buildNotificationsApp } from './app.ts';
import { readNotificationsConfig } from './config.ts';

await runService({
  name: 'notifications',
  start: async () => {
    const config = readNotificationsConfig();
    return { app: await buildNotificationsApp(config), port: config.PORT, host: config.HOST, backlog: config.LISTEN_BACKLOG, graceMs: config.SHUTDOWN_GRACE_MS };
  },
});
