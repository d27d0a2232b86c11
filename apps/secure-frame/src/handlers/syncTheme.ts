import type { Handler } from './handler.js'

/**
 * `syncTheme`: applies the widget's light or dark theme to the frame's document
 * as `data-theme` on the root element (the context's `root`, else the
 * document's); `lib/style.css` maps it to CSS variables.
 */
export const syncTheme = (({ theme }, context): undefined => {
  ;(context.root ?? document.documentElement).dataset.theme = theme
}) satisfies Handler<'syncTheme'>
