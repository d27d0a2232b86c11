/**
 * The theme: light, dark or system. `system` follows the visitor's
 * `prefers-color-scheme`, live.
 */
import type { Theme } from '@porthole/protocol/Views'

export type ResolvedTheme = 'light' | 'dark'

const darkQuery = '(prefers-color-scheme: dark)'

const media = (): MediaQueryList | undefined =>
  typeof matchMedia === 'function' ? matchMedia(darkQuery) : undefined

/** The visitor's preferred color scheme. */
export const systemTheme = {
  get(): ResolvedTheme {
    return media()?.matches ? 'dark' : 'light'
  },
  subscribe(listener: () => void): () => void {
    const list = media()
    list?.addEventListener('change', listener)
    return () => list?.removeEventListener('change', listener)
  },
}

export function resolveTheme(
  theme: Theme,
  system: ResolvedTheme = systemTheme.get(),
): ResolvedTheme {
  return theme === 'system' ? system : theme
}
