import type { Notification } from '@gfts/contracts';
import { eventually } from '@gfts/testkit';
import WebSocket from 'ws';

export interface Refusal {
  status: number;
  body: string;
}

/** A test's WebSocket client of the live channel: keeps every frame and how the socket ended. */
export class LiveClient {
  readonly socket: WebSocket;
  readonly messages: Notification[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => this.messages.push(JSON.parse(String(data)) as Notification));
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  /** Opens a socket; rejects with the HTTP refusal (status and body) when the upgrade is refused. */
  static open(url: string, options: { headers?: Record<string, string>; autoPong?: boolean } = {}): Promise<LiveClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers: options.headers ?? {}, autoPong: options.autoPong ?? true });
      const live = new LiveClient(socket);
      socket.once('open', () => resolve(live));
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += String(chunk)));
        response.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${response.statusCode}`), { status: response.statusCode ?? 0, body })));
      });
      socket.once('error', (error) => reject(error));
    });
  }

  /** The status an upgrade is refused with (fails the test if it was accepted). */
  static async refusal(url: string, headers: Record<string, string> = {}): Promise<Refusal> {
    try {
      const live = await LiveClient.open(url, { headers });
      live.close();
    } catch (error) {
      const { status, body } = error as { status?: number; body?: string };
      if (status !== undefined) return { status, body: body ?? '' };
      throw error;
    }
    throw new Error('the upgrade was accepted');
  }

  /** Waits until a frame satisfies `match` and answers it. */
  async next<T extends Notification['type']>(type: T, match: (n: Extract<Notification, { type: T }>) => boolean = () => true, timeoutMs = 15_000): Promise<Extract<Notification, { type: T }>> {
    return eventually(async () => this.messages.find((n): n is Extract<Notification, { type: T }> => n.type === type && match(n as Extract<Notification, { type: T }>)), timeoutMs);
  }

  ofType<T extends Notification['type']>(type: T): Extract<Notification, { type: T }>[] {
    return this.messages.filter((n): n is Extract<Notification, { type: T }> => n.type === type);
  }

  close(): void {
    this.socket.close();
  }
}
