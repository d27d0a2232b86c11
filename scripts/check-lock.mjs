#!/usr/bin/env node
// pretest, in CI only: `npm install` on a clean checkout must leave
// package-lock.json as committed. A changed lock means a package.json changed
// without its lock, and what CI tests is not what was committed.
import { execFileSync } from 'node:child_process'

if (process.env.CI !== 'true') process.exit(0)
let changed
try {
  changed = execFileSync('git', ['status', '--porcelain', '--', 'package-lock.json'], {
    encoding: 'utf8',
  }).trim()
} catch {
  // Not a git checkout (e.g. an unpacked tarball): nothing to compare with.
  process.exit(0)
}
if (changed !== '') {
  console.error(
    'npm install changed package-lock.json. Run `npm install` and commit package-lock.json with the package.json change.',
  )
  console.error(
    execFileSync('git', ['diff', '--stat', '--', 'package-lock.json'], { encoding: 'utf8' }),
  )
  process.exit(1)
}
