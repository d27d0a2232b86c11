/** The widget's copy (`locales/en.json`) with `{name}` placeholders. */
import en from '../locales/en.json'

export type MessageKey = keyof typeof en

export function t(key: MessageKey, values: Record<string, string | number> = {}): string {
  return en[key].replace(/\{(\w+)\}/g, (match, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : match,
  )
}

export const isMessageKey = (key: string): key is MessageKey => Object.hasOwn(en, key)
