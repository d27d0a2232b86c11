#!/usr/bin/env node
// pretest: the e2e suite drives Debian's Chromium at /usr/bin/chromium (never a
// downloaded browser). Install it when it is missing and we are root; otherwise
// say exactly what to install.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const chromium = '/usr/bin/chromium'
if (existsSync(chromium)) process.exit(0)

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
if (!isRoot) {
  console.error(
    `${chromium} is missing. Install Debian's Chromium first:\n  sudo apt-get update && sudo apt-get install -y chromium`,
  )
  process.exit(1)
}
console.log(`${chromium} is missing: installing Debian's chromium package…`)
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env })
if (!existsSync(chromium)) {
  console.error(`apt-get finished but ${chromium} is still missing.`)
  process.exit(1)
}
