import { once } from 'node:events';
import { createServer } from 'node:net';

/** A port nothing listens on right now on 127.0.0.1 (the OS picked it, then it was let go). */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
