/**
 * A throwaway certificate authority and one server certificate for the
 * production test's names, made with openssl at test time. Nothing is
 * installed: Node is given the CA (`ca`), Chromium the certificate's key pin
 * (`spki`, for `--ignore-certificate-errors-spki-list`).
 */
import { execFileSync } from 'node:child_process'
import { createHash, X509Certificate } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export type TestTls = {
  /** The CA certificate (PEM). */
  ca: string
  caFile: string
  certFile: string
  keyFile: string
  /** base64 SHA-256 of the server certificate's SubjectPublicKeyInfo. */
  spki: string
}

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' })
const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']

export function createTestTls(dir: string, names: readonly string[]): TestTls {
  const file = (name: string) => join(dir, name)
  openssl([
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Porthole test:prod throwaway CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  ])
  openssl([
    'req',
    ...ecKey,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
    '-subj',
    '/CN=Porthole test:prod',
  ])
  writeFileSync(
    file('server.ext'),
    [
      `subjectAltName=${names.map((name) => `DNS:${name}`).join(',')}`,
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
    ].join('\n'),
  )
  openssl([
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('server.pem'),
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
  ])
  const certificate = new X509Certificate(readFileSync(file('server.pem')))
  const spki = createHash('sha256')
    .update(certificate.publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64')
  return {
    ca: readFileSync(file('ca.pem'), 'utf8'),
    caFile: file('ca.pem'),
    certFile: file('server.pem'),
    keyFile: file('server.key'),
    spki,
  }
}
