import { runService } from '@gfts/platform';
import { buildTasksApp } from './app.ts';
import { readTasksConfig } from './config.ts';

await runService({
  name: 'tasks',
  start: async () => {
    const config = readTasksConfig();
    return { app: await buildTasksApp(config), config };
  },
});
