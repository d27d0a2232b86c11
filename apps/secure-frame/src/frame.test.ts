import * as Channel from '@porthole/protocol/Channel'
import * as Contract from '@porthole/protocol/Contract'
import * as Secure from '@porthole/protocol/Secure'
import { afterEach, describe, expect, test } from 'vitest'
import packageJson from '../package.json' with { type: 'json' }
import { type SecureChannel, startFrame } from './frame.js'

type WidgetChannel = Channel.Channel<Secure.WidgetSpec, Secure.SecureSpec>

const open: Array<{ destroy(): void }> = []
afterEach(() => {
  for (const channel of open.splice(0)) channel.destroy()
})

/** The widget's side and the frame's side of one port pair, as after a handshake. */
function connect() {
  const { port1, port2 } = new MessageChannel()
  const widget: WidgetChannel = Channel.create<Secure.WidgetSpec, Secure.SecureSpec>({
    port: port1,
    origin: 'http://secure.localhost:5172',
    parsers: Contract.parsers(Secure.widget, Secure.secure),
  })
  const ready = new Promise<void>((resolve) => widget.on('ready', () => resolve()))
  const root = { dataset: {} as DOMStringMap }
  const frame: SecureChannel = startFrame(
    { port: port2, origin: 'http://widget.localhost:5171' },
    { root },
  )
  open.push(widget, frame)
  return { widget, frame, root, ready }
}

describe('startFrame', () => {
  test('emits ready once its handlers answer, bound to the widget origin', async () => {
    const { widget, frame, ready } = connect()
    await ready
    expect(frame.origin).toBe('http://widget.localhost:5171')
    await expect(widget.request('ping', undefined)).resolves.toEqual({
      version: packageJson.version,
    })
  })

  test.each(['dark', 'light'] as const)(
    'syncTheme %s sets data-theme on the root',
    async (theme) => {
      const { widget, root, ready } = connect()
      await ready
      await expect(widget.request('syncTheme', { theme })).resolves.toBeUndefined()
      expect(root.dataset.theme).toBe(theme)
    },
  )

  test.each([
    ['an unknown theme', { theme: 'blue' }],
    ['an extra key', { theme: 'dark', css: 'body{}' }],
    ['no params', undefined],
  ])('inv-18 syncTheme with %s is refused with -32602 and changes nothing', async (_, params) => {
    const { widget, root, ready } = connect()
    await ready
    await expect(widget.request('syncTheme', params as { theme: 'dark' })).rejects.toMatchObject({
      code: -32602,
    })
    expect(root.dataset.theme).toBeUndefined()
  })

  test('a method the frame does not serve is refused with 4200', async () => {
    const { widget, ready } = connect()
    await ready
    await expect(
      (widget.request as (method: string, params: unknown) => Promise<unknown>)('signMessage', {}),
    ).rejects.toMatchObject({ code: 4200 })
  })
})
