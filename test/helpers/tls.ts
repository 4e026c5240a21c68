import { generate } from 'selfsigned';
import { Agent } from 'undici';

/** A key and a self-signed certificate in PEM, valid for `localhost` and `127.0.0.1`. */
export interface TestCertificate {
  /** The private key (PEM). */
  readonly key: string;
  /** The certificate (PEM); also the CA a client must trust to reach a server using it. */
  readonly cert: string;
}

let shared: Promise<TestCertificate> | undefined;

/**
 * A self-signed certificate made at test time (EC P-256, SHA-256), for
 * `localhost`, `127.0.0.1` and `::1`, valid from an hour ago for a day.
 * Made once per test file (process) and shared: pass `fresh` for a new one,
 * e.g. to show a client refuses a certificate it was not told to trust.
 */
export function testCertificate(fresh = false): Promise<TestCertificate> {
  if (fresh) return makeCertificate();
  shared ??= makeCertificate();
  return shared;
}

async function makeCertificate(): Promise<TestCertificate> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 3_600_000),
    notAfterDate: new Date(now + 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/**
 * An undici dispatcher that trusts `certificate` (and verifies it: a server
 * with another certificate is refused). Close it after the test.
 */
export function trustingAgent(certificate: TestCertificate, options: Agent.Options = {}): Agent {
  return new Agent({ ...options, connect: { ...options.connect, ca: certificate.cert } });
}
