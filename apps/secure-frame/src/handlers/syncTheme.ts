import type { SecureSpec } from '@porthole/protocol/Secure'

type Params = SecureSpec['requests']['syncTheme']['params']

/** Where the theme is written: the frame's `document.documentElement`. */
export type ThemeRoot = { readonly dataset: DOMStringMap }

/**
 * `syncTheme`: applies the widget's light or dark theme to the frame's document
 * as `data-theme` on the root element; `style.css` maps it to CSS variables.
 */
export function syncTheme(
  { theme }: Params,
  root: ThemeRoot = document.documentElement,
): undefined {
  root.dataset.theme = theme
}
