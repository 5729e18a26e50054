import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { CallRecord } from './state.ts';
import { iso } from './state.ts';

interface Peer {
  socket: WebSocket;
  authed: boolean;
  calls: Set<string>;
}

export interface LiveChannelDeps {
  apiKey: string;
  /** Consumes a widget session token; answers why it cannot be used, or null when it was fine. */
  consumeWidgetToken(token: string): string | null;
  findCall(id: string): CallRecord | undefined;
  now(): string;
}

/** `/v1/ws`: authenticate, subscribe to calls, receive `call.started`, `transcript.update`, `call.completed`. */
export class LiveChannel {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly peers = new Set<Peer>();

  constructor(private readonly deps: LiveChannelDeps) {}

  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path !== '/v1/ws') {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
  }

  private accept(socket: WebSocket): void {
    const peer: Peer = { socket, authed: false, calls: new Set() };
    this.peers.add(peer);
    socket.on('close', () => this.peers.delete(peer));
    socket.on('message', (raw) => this.onMessage(peer, raw.toString()));
  }

  private send(peer: Peer, message: object): void {
    if (peer.socket.readyState === peer.socket.OPEN) peer.socket.send(JSON.stringify(message));
  }

  private error(peer: Peer, code: string, message: string): void {
    this.send(peer, { type: 'error', code, message });
  }

  private onMessage(peer: Peer, raw: string): void {
    let msg: { type?: unknown; api_key?: unknown; session_token?: unknown; call_id?: unknown };
    try {
      msg = JSON.parse(raw);
    } catch {
      this.error(peer, 'invalid_request', 'messages must be JSON');
      return;
    }
    if (msg.type === 'auth') {
      if (typeof msg.session_token === 'string') {
        const problem = this.deps.consumeWidgetToken(msg.session_token);
        if (problem) {
          this.refuse(peer, problem);
          return;
        }
      } else if (msg.api_key !== this.deps.apiKey) {
        this.refuse(peer, 'invalid or missing API key');
        return;
      }
      peer.authed = true;
      this.send(peer, { type: 'auth.ok' });
      return;
    }
    if (!peer.authed) {
      this.refuse(peer, 'authenticate first: {"type": "auth", "api_key": …}');
      return;
    }
    if (msg.type === 'subscribe') {
      const call = typeof msg.call_id === 'string' ? this.deps.findCall(msg.call_id) : undefined;
      if (!call) {
        this.error(peer, 'resource_not_found', `call ${String(msg.call_id)} not found`);
        return;
      }
      peer.calls.add(call.id);
      this.send(peer, { type: 'subscribed', call_id: call.id });
      // A late subscriber still learns where the call stands.
      if (call.answered_at !== null) this.send(peer, this.started(call));
      if (call.status === 'completed') this.send(peer, this.completed(call));
      return;
    }
    this.error(peer, 'invalid_request', `unknown message type ${JSON.stringify(msg.type)}`);
  }

  private refuse(peer: Peer, message: string): void {
    this.error(peer, 'authentication_failed', message);
    peer.socket.close(4001, 'authentication failed');
  }

  private started(call: CallRecord): object {
    return { type: 'call.started', call_id: call.id, timestamp: iso(call.answered_at) };
  }

  private completed(call: CallRecord): object {
    return { type: 'call.completed', call_id: call.id, duration: call.duration, timestamp: iso(call.ended_at) };
  }

  private toSubscribers(callId: string, message: object): void {
    for (const peer of this.peers) if (peer.calls.has(callId)) this.send(peer, message);
  }

  callStarted(call: CallRecord): void {
    this.toSubscribers(call.id, this.started(call));
  }

  callCompleted(call: CallRecord): void {
    this.toSubscribers(call.id, this.completed(call));
  }

  transcript(call: CallRecord, line: { speaker: string; text: string }, isFinal: boolean): void {
    this.toSubscribers(call.id, {
      type: 'transcript.update',
      call_id: call.id,
      speaker: line.speaker,
      text: line.text,
      is_final: isFinal,
      timestamp: this.deps.now(),
    });
  }

  close(): void {
    for (const p of this.peers) p.socket.terminate();
    this.wss.close();
  }
}
