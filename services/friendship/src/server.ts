import { runService } from '@gfts/platform';
import { buildFriendshipApp } from './app.ts';
import { readFriendshipConfig } from './config.ts';

await runService({
  name: 'friendship',
  start: async () => {
    const config = readFriendshipConfig();
    return { app: await buildFriendshipApp(config), config };
  },
});
