/**
 * Build-time settings, read by `vite.config.ts` and `env.ts`. The URLs'
 * defaults are the dev origins, which the build takes from
 * `@porthole/dev-stack/stack` (their one definition) and fixes in the bundle
 * with `define`; the Vitest project sets the same values.
 */
import { BaseError } from '@porthole/protocol/Errors'

// These two are here, not in `errors.ts`: `env.ts` puts this module in the
// start-up bundle, which should not carry the widget's other errors.

/** A build-time URL setting that is not an http(s) URL. */
export class InvalidUrlSettingError extends BaseError {
  override name = 'InvalidUrlSettingError'
  constructor(name: string, raw: string) {
    super(`${name} must be an http(s) URL, got '${raw}'`)
  }
}

/** A build-time WebSocket URL setting that is not a ws(s) URL. */
export class InvalidWebSocketUrlSettingError extends BaseError {
  override name = 'InvalidWebSocketUrlSettingError'
  constructor(name: string, raw: string) {
    super(`${name} must be a ws(s) URL, got '${raw}'`)
  }
}

/** Any id does for the local relay; the public relay needs a WalletConnect Cloud project id. */
export const defaultWalletConnectProjectId = 'porthole-local'

/** Parses a build-time URL setting: an http(s) URL, returned without a trailing slash. */
export function parseUrlSetting(name: string, value: string | undefined, fallback = ''): string {
  const raw = value === undefined || value.trim() === '' ? fallback : value.trim()
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new InvalidUrlSettingError(name, raw)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidUrlSettingError(name, raw)
  return url.href.replace(/\/+$/, '')
}

/** Parses a build-time WebSocket URL setting (ws: or wss:), returned without a trailing slash. */
export function parseWebSocketUrlSetting(
  name: string,
  value: string | undefined,
  fallback = '',
): string {
  const raw = value === undefined || value.trim() === '' ? fallback : value.trim()
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {}
  if (url?.protocol !== 'ws:' && url?.protocol !== 'wss:')
    throw new InvalidWebSocketUrlSettingError(name, raw)
  return url.href.replace(/\/+$/, '')
}
