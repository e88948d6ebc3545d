import { describe, expect, it } from 'vitest';
import { liveUrl } from '../../src/notifications/live-url.ts';

describe('live channel URL', () => {
  it('turns the gateway URL into the WebSocket URL', () => {
    expect(liveUrl('http://localhost:8080')).toBe('ws://localhost:8080/api/v1/notifications/live');
    expect(liveUrl('https://api.example.com/')).toBe('wss://api.example.com/api/v1/notifications/live');
    expect(liveUrl('wss://api.example.com')).toBe('wss://api.example.com/api/v1/notifications/live');
  });

  it('keeps a path prefix of the gateway and drops its query', () => {
    expect(liveUrl('https://example.com/games/?x=1#y')).toBe('wss://example.com/games/api/v1/notifications/live');
  });

  it('carries since and ticket, encoded', () => {
    expect(liveUrl('http://gw', { since: '01J/x y', ticket: 'a+b=' })).toBe('ws://gw/api/v1/notifications/live?since=01J%2Fx+y&ticket=a%2Bb%3D');
    expect(liveUrl('http://gw', { since: undefined })).toBe('ws://gw/api/v1/notifications/live');
  });

  it('refuses another scheme', () => {
    expect(() => liveUrl('ftp://gw')).toThrow(/http\(s\) or ws\(s\)/);
  });
});
