/** What the console shows of its token: read, never verified here (the gateway verifies every call). */
export interface TokenClaims {
  sub: string;
  app: string;
  name?: string;
  roles: string[];
  exp?: number;
}

function decodeSegment(segment: string): unknown {
  const base64 = segment.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
}

/** The claims of a JWT, or a reason it cannot be used by the console. */
export function readClaims(token: string, now = Date.now()): { ok: true; claims: TokenClaims } | { ok: false; reason: string } {
  const parts = token.trim().split('.');
  if (parts.length !== 3) return { ok: false, reason: 'not a JWT (three dot-separated parts)' };
  let payload: Record<string, unknown>;
  try {
    payload = decodeSegment(parts[1]!) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: 'the token payload is not JSON' };
  }
  if (typeof payload.sub !== 'string' || typeof payload.app !== 'string') return { ok: false, reason: 'the token has no sub and app claims' };
  const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
  if (!roles.includes('admin')) return { ok: false, reason: 'the token has no admin role' };
  if (typeof payload.exp === 'number' && payload.exp * 1000 <= now) return { ok: false, reason: 'the token has expired' };
  return {
    ok: true,
    claims: { sub: payload.sub, app: payload.app.toLowerCase(), roles, ...(typeof payload.name === 'string' ? { name: payload.name } : {}), ...(typeof payload.exp === 'number' ? { exp: payload.exp } : {}) },
  };
}
