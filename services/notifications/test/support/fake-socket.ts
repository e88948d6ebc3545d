import { EventEmitter } from 'node:events';

/** The part of a ws socket the hub and a Session use: what was sent, nothing buffered, closed on demand. */
export class FakeSocket extends EventEmitter {
  readonly sent: string[] = [];
  readonly bufferedAmount: number = 0;
  readonly OPEN = 1;
  readonly CLOSED = 3;
  readyState = 1;
  send(text: string): void {
    this.sent.push(text);
  }
  /** the code of the first close asked for */
  closeCode: number | undefined;
  close(code?: number): void {
    this.closeCode ??= code;
    this.readyState = this.CLOSED;
    this.emit('close');
  }
  terminate(): void {
    this.close();
  }
}
