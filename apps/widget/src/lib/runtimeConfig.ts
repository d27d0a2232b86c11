/**
 * The deployment's settings the served page carries (`<script
 * type="application/json" id="porthole-config">`, written by the build or by
 * `scripts/configure.mjs`: runtimeConfig.mjs). Read once, synchronously, by
 * env.ts and by the prefetch script; zod-free (the prefetch script stays
 * about a kilobyte). A page without the block (the dev server) has `{}`, and
 * env.ts falls back to the build's values.
 */
export type RuntimeConfig = {
  apiUrl?: string
  secureFrameUrl?: string
  walletConnectRelayUrl?: string
  walletConnectProjectId?: string
}

const names = ['apiUrl', 'secureFrameUrl', 'walletConnectRelayUrl', 'walletConnectProjectId']

/** The block's string settings (anything else in it is ignored); `{}` when there is none. */
export function readRuntimeConfig(
  doc: Pick<Document, 'getElementById'> | undefined,
): RuntimeConfig {
  const text = doc?.getElementById('porthole-config')?.textContent
  if (!text) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return {}
  }
  const config: Record<string, string> = {}
  if (typeof parsed === 'object' && parsed !== null)
    for (const name of names) {
      const value = (parsed as Record<string, unknown>)[name]
      if (typeof value === 'string') config[name] = value
    }
  return config
}

export const runtimeConfig: RuntimeConfig = readRuntimeConfig(
  typeof document === 'undefined' ? undefined : document,
)
