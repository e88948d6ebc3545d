import { checkText } from '@gfts/contracts';
import type { FastifyInstance } from 'fastify';
import Router, { type HTTPMethod } from 'find-my-way';
import type { TSchema } from 'typebox';

/** A route another server answers behind this one (the gateway's services), as in the contracts. */
export interface UpstreamRoute {
  method: string;
  url: string;
  schema?: { params?: TSchema };
}

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
 * with the same matching options (a trailing slash ignored, as http.ts sets). Call it before any route is declared.
 *
 * A parametric route counts only where the path's values satisfy its params schema: DELETE
 * /api/v1/friendship/:friendshipId (a UUID) does not make DELETE an allowed method of
 * /api/v1/friendship/block, whose Allow would otherwise advertise a method that only ever
 * answers 400 there.
 */
export function declaredRoutes(app: FastifyInstance, upstream: readonly UpstreamRoute[] = []): DeclaredRoutes {
  const declared = new Set<string>();
  const byMethod = new Map<string, { url: string; params: TSchema | undefined }[]>();
  let router: Router.Instance<Router.HTTPVersion.V1> | undefined;
  // A route both a server and the one behind it declare (the gateway answers the notification
  // ticket and the live upgrade itself) is taken once: a router refuses a route twice.
  const take = (method: string, url: string, params: TSchema | undefined) => {
    const routes = byMethod.get(method) ?? [];
    if (!routes.some((route) => route.url === url)) byMethod.set(method, [...routes, { url, params }]);
  };
  for (const route of upstream) {
    take(route.method, route.url, route.schema?.params);
    // Fastify answers HEAD for each GET; the service behind does too.
    if (route.method === 'GET') take('HEAD', route.url, route.schema?.params);
  }

  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      const key = `${method} ${route.url}`;
      // The same method and path can be declared twice under different constraints.
      if (declared.has(key)) continue;
      declared.add(key);
      // A forwarding route takes any path under its prefix, and a catch-all (CORS preflights'
      // `OPTIONS *`) every path: neither says what a path takes.
      if ((route.config as { forwards?: boolean } | undefined)?.forwards || route.url === '*' || route.url === '/*') continue;
      take(method, route.url, (route.schema as { params?: TSchema } | undefined)?.params);
    }
    router = undefined;
  });

  // Built at the first miss, when every route is declared; a later route rebuilds it.
  const build = () => {
    const built = Router({ ignoreTrailingSlash: true });
    for (const [method, routes] of byMethod) {
      for (const { url, params } of routes) built.on(method as HTTPMethod, url, () => undefined, { params });
    }
    return built;
  };

  return {
    list: () => [...declared].map((key) => {
      const [method, url] = key.split(' ', 2) as [string, string];
      return { method, url };
    }),
    allowedMethods: (path) => {
      const lookup = (router ??= build());
      return [...byMethod.keys()]
        .filter((method) => {
          const found = lookup.find(method as HTTPMethod, path);
          if (!found) return false;
          const { params } = found.store as { params: TSchema | undefined };
          // the path's values are text, coerced as Fastify's validator does (`5` for an integer
          // sequence: until 2026-11-29 never a match, so such a route's other methods answered 404)
          return !params || checkText(params, { ...found.params }).ok;
        })
        .sort();
    },
  };
}
