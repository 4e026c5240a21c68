import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { testCertificate } from './tls.js';

/** One request a {@link WebhookReceiver} got. */
export interface ReceivedDelivery {
  /** Its headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body. */
  readonly body: string;
  /** The status answered (`0` for a hang). */
  readonly status: number;
  /** When it arrived, epoch ms. */
  readonly at: number;
}

/** What a receiver answers to its `n`-th request (0-based): a status, or `'hang'` to never answer. */
export type ReceiverBehaviour = (n: number, body: string) => number | 'hang';

/** An HTTPS subscriber on 127.0.0.1 with a self-signed certificate, recording what it gets. */
export interface WebhookReceiver {
  /** Its callback URL. */
  readonly url: string;
  /** Every request, in arrival order. */
  readonly deliveries: ReceivedDelivery[];
  /** The events of the 2xx-answered deliveries, in order. */
  delivered(): unknown[];
  /** Changes what it answers from now on. */
  behave(behaviour: ReceiverBehaviour): void;
  /** The most requests it held at once (received, not yet answered). */
  peakInFlight(): number;
  /** Stops it, dropping hanging connections. */
  close(): Promise<void>;
}

/** Starts a {@link WebhookReceiver} answering per `behaviour` (204 to everything by default). */
export async function startReceiver(
  behaviour: ReceiverBehaviour = () => 204,
  { answerAfterMs = 0 }: { readonly answerAfterMs?: number } = {},
): Promise<WebhookReceiver> {
  let inFlight = 0;
  let peak = 0;
  const { key, cert } = await testCertificate();
  const deliveries: ReceivedDelivery[] = [];
  const sockets = new Set<Socket>();
  let behave = behaviour;
  const server: Server = createServer({ key, cert }, (req, res) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    res.on('close', () => {
      inFlight--;
    });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = behave(deliveries.length, body);
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(',') : (value ?? ''),
        ]),
      );
      deliveries.push({ headers, body, status: answer === 'hang' ? 0 : answer, at });
      if (answer === 'hang') return;
      res.statusCode = answer;
      // Answering a little later shows requests that overlap.
      if (answerAfterMs > 0) setTimeout(() => res.end(), answerAfterMs);
      else res.end();
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/events`,
    deliveries,
    delivered: () =>
      deliveries
        .filter((d) => d.status >= 200 && d.status < 300)
        .flatMap((d) => JSON.parse(d.body) as unknown[]),
    peakInFlight: () => peak,
    behave: (next) => {
      behave = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
