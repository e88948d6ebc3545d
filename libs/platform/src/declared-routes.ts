import type { FastifyInstance } from 'fastify';
import Router, { type HTTPMethod } from 'find-my-way';

export interface DeclaredRoutes {
  /** The methods some route takes at this concrete path (no query string), sorted; [] for an unknown path. */
  allowedMethods: (path: string) => string[];
  /** Every method and path pattern declared so far, in declaration order. */
  list: () => { method: string; url: string }[];
}

/**
 * Keeps a copy of every route the server declares, so that a request no route takes can be
 * told apart: a known path asked with another method (405, with `Allow`) or an unknown path
 * (404). Fastify answers both with its not-found handler and can only look routes up by
 * their pattern, so the copy lives in a find-my-way router, the one Fastify routes with,
 * with the same (default) matching options. Call it before any route is declared.
 */
export function declaredRoutes(app: FastifyInstance): DeclaredRoutes {
  const declared = new Set<string>();
  const byMethod = new Map<string, string[]>();
  let router: Router.Instance<Router.HTTPVersion.V1> | undefined;

  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      const key = `${method} ${route.url}`;
      // The same method and path can be declared twice under different constraints.
      if (declared.has(key)) continue;
      declared.add(key);
      byMethod.set(method, [...(byMethod.get(method) ?? []), route.url]);
    }
    router = undefined;
  });

  // Built at the first miss, when every route is declared; a later route rebuilds it.
  const build = () => {
    const built = Router();
    for (const [method, urls] of byMethod) for (const url of urls) built.on(method as HTTPMethod, url, () => undefined);
    return built;
  };

  return {
    list: () => [...declared].map((key) => {
      const [method, url] = key.split(' ', 2) as [string, string];
      return { method, url };
    }),
    allowedMethods: (path) => {
      const lookup = (router ??= build());
      return [...byMethod.keys()].filter((method) => lookup.find(method as HTTPMethod, path) !== null).sort();
    },
  };
}
