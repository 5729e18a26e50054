import type { WebSocket } from 'ws';

/** Messages on the live-transcript channel (`{ws_url}/v1/ws`). */
export type LiveMessage =
  | { type: 'auth.ok' }
  | { type: 'subscribed'; call_id: string }
  | { type: 'error'; code: string; message: string }
  | { type: 'call.started'; call_id: string; timestamp: string }
  | { type: 'transcript.update'; call_id: string; speaker: string; text: string; is_final: boolean; timestamp: string }
  | { type: 'call.completed'; call_id: string; duration: number; timestamp: string };

export type LiveAuth = { api_key: string } | { session_token: string };

/** Derives the WebSocket root from the HTTP base URL (`http` → `ws`, `https` → `wss`). */
export function wsUrlFor(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/v1/ws`;
}

/**
 * One live connection: authenticate, subscribe to calls, receive typed messages. Use from servers only; a
 * browser gets a widget session token, never the API key.
 */
export class LiveTranscript {
  private readonly socket: WebSocket;
  private readonly listeners = new Set<(m: LiveMessage) => void>();
  private readonly backlog: LiveMessage[] = [];

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (raw) => {
      let message: LiveMessage;
      try {
        message = JSON.parse(raw.toString()) as LiveMessage;
      } catch {
        return; // the channel only speaks JSON; anything else is noise, not a reason to drop the connection
      }
      this.backlog.push(message);
      for (const l of this.listeners) l(message);
    });
  }

  static async connect(wsUrl: string, auth: LiveAuth, timeoutMs = 10_000): Promise<LiveTranscript> {
    // Loaded on first use: no deployed function opens the live channel, and every one of them imports the client.
    const { WebSocket } = await import('ws');
    const socket = new WebSocket(wsUrl);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const live = new LiveTranscript(socket);
    socket.send(JSON.stringify({ type: 'auth', ...auth }));
    const answer = await live.next((m) => m.type === 'auth.ok' || m.type === 'error', timeoutMs);
    if (answer.type === 'error') {
      socket.close();
      throw new Error(`live channel refused authentication: ${answer.message}`);
    }
    return live;
  }

  async subscribe(callId: string, timeoutMs = 10_000): Promise<void> {
    this.socket.send(JSON.stringify({ type: 'subscribe', call_id: callId }));
    const answer = await this.next(
      (m) => (m.type === 'subscribed' && m.call_id === callId) || m.type === 'error',
      timeoutMs,
    );
    if (answer.type === 'error') throw new Error(`cannot subscribe to ${callId}: ${answer.message}`);
  }

  onMessage(listener: (m: LiveMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first message (already received or still to come) that matches. */
  next(match: (m: LiveMessage) => boolean, timeoutMs = 10_000): Promise<LiveMessage> {
    const seen = this.backlog.findIndex(match);
    if (seen >= 0) return Promise.resolve(this.backlog.splice(seen, 1)[0] as LiveMessage);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no matching live message within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.onMessage((m) => {
        if (!match(m)) return;
        clearTimeout(timer);
        off();
        this.backlog.splice(this.backlog.indexOf(m), 1);
        resolve(m);
      });
    });
  }

  close(): void {
    this.socket.close();
  }
}
