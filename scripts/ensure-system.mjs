#!/usr/bin/env node
// pretest: what the tests need from Debian, never downloaded by a tool:
// - Chromium at /usr/bin/chromium, which the e2e suite drives;
// - PostgreSQL's server programs (initdb, postgres), which the API's
//   multi-process tests and `npm run test:prod` start in a temporary directory;
// - nginx, the TLS proxy `npm run test:prod` puts in front of the production profile.
// Install what is missing when we are root; otherwise say exactly what to install.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'

const chromium = '/usr/bin/chromium'
const nginx = '/usr/sbin/nginx'
const postgresRoot = '/usr/lib/postgresql'

const hasPostgres = () =>
  existsSync(postgresRoot) &&
  readdirSync(postgresRoot).some((version) => existsSync(`${postgresRoot}/${version}/bin/initdb`))

const missing = [
  ...(existsSync(chromium) ? [] : [{ name: 'chromium', check: () => existsSync(chromium) }]),
  ...(hasPostgres() ? [] : [{ name: 'postgresql', check: hasPostgres }]),
  ...(existsSync(nginx) ? [] : [{ name: 'nginx', check: () => existsSync(nginx) }]),
]
if (missing.length === 0) process.exit(0)

const names = missing.map(({ name }) => name).join(' ')
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
if (!isRoot) {
  console.error(
    `Missing Debian packages for the tests: ${names}. Install them first:\n  sudo apt-get update && sudo apt-get install -y ${names}`,
  )
  process.exit(1)
}
console.log(`Installing Debian's ${names} for the tests…`)
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
execFileSync('apt-get', ['install', '-y', '-qq', ...missing.map(({ name }) => name)], {
  stdio: 'inherit',
  env,
})
const still = missing.filter(({ check }) => !check()).map(({ name }) => name)
if (still.length > 0) {
  console.error(`apt-get finished but ${still.join(' ')} is still missing.`)
  process.exit(1)
}
