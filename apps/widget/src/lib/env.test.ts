import { describe, expect, test } from 'vitest'
import {
  InvalidUrlSettingError,
  InvalidWebSocketUrlSettingError,
  parseUrlSetting,
  parseWebSocketUrlSetting,
} from './defaults.js'
import { readProjectId, readTheme } from './env.js'

describe('readProjectId', () => {
  test.each([
    ['?projectId=porthole-dev&theme=dark', 'porthole-dev'],
    ['?theme=dark', null],
    ['?projectId=', null],
    ['?projectId=../../etc', null],
    [`?projectId=${'a'.repeat(65)}`, null],
  ])('%s gives %j', (search, expected) => {
    expect(readProjectId(search)).toBe(expected)
  })
})

describe('readTheme', () => {
  test.each([
    ['?theme=dark', 'dark'],
    ['?theme=light', 'light'],
    ['?theme=system', 'system'],
    ['?theme=blue', 'system'],
    ['', 'system'],
  ])('%s gives %s', (search, expected) => {
    expect(readTheme(search)).toBe(expected)
  })
})

describe('parseUrlSetting', () => {
  test('defaults when unset or blank, and drops a trailing slash', () => {
    expect(parseUrlSetting('X', undefined, 'http://api.localhost:5173')).toBe(
      'http://api.localhost:5173',
    )
    expect(parseUrlSetting('X', ' ', 'http://a.test')).toBe('http://a.test')
    expect(parseUrlSetting('X', 'https://api.example.com/v2/', 'http://a.test')).toBe(
      'https://api.example.com/v2',
    )
  })

  test('refuses an unset setting that has no default', () => {
    expect(() => parseUrlSetting('VITE_API_URL', undefined)).toThrow(
      "VITE_API_URL must be an http(s) URL, got ''",
    )
  })

  test.each(['api.example.com', 'javascript:alert(1)', 'ftp://x.test'])('refuses %s', (value) => {
    expect(() => parseUrlSetting('VITE_API_URL', value, 'http://a.test')).toThrow(
      InvalidUrlSettingError,
    )
  })
})

describe('parseWebSocketUrlSetting', () => {
  test('defaults when unset, and drops a trailing slash', () => {
    expect(parseWebSocketUrlSetting('X', undefined, 'ws://relay.test/')).toBe('ws://relay.test')
  })

  test.each(['relay.test', 'https://relay.test'])('refuses %s', (value) => {
    expect(() => parseWebSocketUrlSetting('VITE_WALLETCONNECT_RELAY_URL', value)).toThrow(
      new InvalidWebSocketUrlSettingError('VITE_WALLETCONNECT_RELAY_URL', value),
    )
    expect(() => parseWebSocketUrlSetting('X', value)).toThrow(
      `X must be a ws(s) URL, got '${value}'`,
    )
  })
})
