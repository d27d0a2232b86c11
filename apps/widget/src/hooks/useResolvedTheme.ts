import { useSyncExternalStore } from 'react'
import { type ResolvedTheme, resolveTheme, systemTheme } from '../lib/theme.js'
import { useStore } from './useStore.js'

/** The theme in effect: the chosen one, or the visitor's color scheme for `system` (live). */
export function useResolvedTheme(): ResolvedTheme {
  const theme = useStore((state) => state.theme)
  const system = useSyncExternalStore(systemTheme.subscribe, systemTheme.get)
  return resolveTheme(theme, system)
}
