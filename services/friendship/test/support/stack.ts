import { buildGateway } from '@gfts/gateway/app';
import { readGatewayConfig } from '@gfts/gateway/config';
import { client, databaseUrl, infra, listen, natsPrefix, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, type Call, testLogLevel } from '@gfts/testkit';
import type { FastifyInstance } from 'fastify';
import { buildFriendshipApp } from '../../src/app.ts';
import { readFriendshipConfig } from '../../src/config.ts';

export interface FriendshipStack {
  api: Call;
  gatewayUrl: string;
  friendshipUrl: string;
  natsPrefix: string;
  natsUrl: string;
  /** the friendship service's own database, for tests that check what was stored */
  databaseUrl: string;
  friendship: FastifyInstance;
  close(): Promise<void>;
}

/** The friendship service behind a real gateway, on its own database and NATS prefix. */
export async function startFriendshipStack(env: Record<string, string> = {}, gatewayEnv: Record<string, string> = {}): Promise<FriendshipStack> {
  const { mongoUrl, natsUrl } = infra();
  const prefix = natsPrefix();
  const friendshipDatabase = databaseUrl(mongoUrl, 'friendship');
  const friendship = await buildFriendshipApp(
    readFriendshipConfig({
      MONGO_URL: friendshipDatabase,
      NATS_URL: natsUrl,
      NATS_PREFIX: prefix,
      INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
      LOG_LEVEL: testLogLevel(),
      ...env,
    }),
  );
  const friendshipUrl = await listen(friendship);
  const gateway = await buildGateway(
    readGatewayConfig({
      FRIENDSHIP_URL: friendshipUrl,
      TASKS_URL: 'http://127.0.0.1:9',
      JWT_SECRET: TEST_JWT_SECRET,
      INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
      LOG_LEVEL: testLogLevel(),
      RATE_LIMIT_MAX: '1000000', RATE_LIMIT_IN_FLIGHT_MAX: '10000',
      RATE_LIMIT_STORE: 'local',
      // presence sightings go to this stack's own bucket
      NATS_URL: natsUrl,
      NATS_PREFIX: prefix,
      ...gatewayEnv,
    }),
  );
  const gatewayUrl = await listen(gateway);
  return {
    api: client(gatewayUrl),
    gatewayUrl,
    friendshipUrl,
    natsPrefix: prefix,
    natsUrl,
    databaseUrl: friendshipDatabase,
    friendship,
    close: async () => {
      await gateway.close();
      await friendship.close();
    },
  };
}
