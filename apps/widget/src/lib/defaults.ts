/** Build-time defaults: the dev origins (DESIGN.md section 5). Read by `vite.config.ts` and `env.ts`. */
export const defaultApiUrl = 'http://api.localhost:5173'
export const defaultSecureFrameUrl = 'http://secure.localhost:5172'

/** Parses a build-time URL setting: an http(s) URL, returned without a trailing slash. */
export function parseUrlSetting(name: string, value: string | undefined, fallback: string): string {
  const raw = value === undefined || value.trim() === '' ? fallback : value.trim()
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error(`${name} must be an http(s) URL, got '${raw}'`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${name} must be an http(s) URL, got '${raw}'`)
  return url.href.replace(/\/+$/, '')
}
