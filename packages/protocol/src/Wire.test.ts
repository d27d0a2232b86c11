import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { parseHello, parseMessage, parseReady, parseWelcome } from './Wire.js'
import * as WireSchema from './WireSchema.js'

const id = '0b6a6b1e-8d8f-4a57-9a8e-2f1f3d1c2b3a'

/** The same fields on objects structured clone never makes: a class instance, an object inheriting `id`. */
class Instance {}
const notPlain = <value extends object>(record: fc.Arbitrary<value>) =>
  fc.oneof(
    record,
    record.map((fields) => Object.assign(new Instance(), fields)),
    record.map((fields) => Object.assign(Object.create({ id }), fields)),
  )

const envelope = fc.oneof(
  notPlain(
    fc.record(
      {
        porthole: fc.constantFrom(1, 2, '1'),
        kind: fc.constantFrom('req', 'res', 'evt', 'cancel', 'hello', 'x'),
        id: fc.oneof(fc.constant(id), fc.uuid(), fc.string()),
        method: fc.oneof(fc.constantFrom('open', 'a.b:c-d', '9x', ''), fc.string()),
        name: fc.oneof(fc.constantFrom('state', '__proto__'), fc.string()),
        ok: fc.oneof(fc.boolean(), fc.constant(1)),
        result: fc.anything(),
        params: fc.anything(),
        data: fc.anything(),
        error: fc.oneof(
          notPlain(
            fc.record(
              {
                code: fc.oneof(fc.integer(), fc.double()),
                message: fc.string(),
                data: fc.anything(),
              },
              { requiredKeys: [] },
            ),
          ),
          fc.anything(),
        ),
        extra: fc.anything(),
      },
      { requiredKeys: [] },
    ),
  ),
  fc.anything({ withNullPrototype: true, withObjectString: true }),
)

describe('inv-18 parseMessage', () => {
  test('agrees with the zod schema on random and mutated envelopes', () => {
    fc.assert(
      fc.property(envelope, (value) => {
        const guard = parseMessage(value) !== undefined
        const schema = WireSchema.Message.safeParse(value).success
        expect(guard).toBe(schema)
      }),
      { numRuns: 5_000 },
    )
  }, 60_000)

  test.each([
    [{ porthole: 1, kind: 'req', id, method: 'open' }, true],
    [{ porthole: 1, kind: 'req', id, method: 'open', params: { view: 'Connect' } }, true],
    [{ porthole: 1, kind: 'req', id: 'not-a-uuid', method: 'open' }, false],
    [{ porthole: 1, kind: 'req', id, method: 'open', extra: 1 }, false],
    [{ porthole: 1, kind: 'res', id, ok: true, result: 1 }, true],
    [{ porthole: 1, kind: 'res', id, ok: false, error: { code: 4001, message: 'no' } }, true],
    [{ porthole: 1, kind: 'res', id, ok: false, error: { code: 1.5, message: 'no' } }, false],
    [{ porthole: 1, kind: 'res', id, ok: false }, false],
    [{ porthole: 1, kind: 'evt', name: 'state', data: {} }, true],
    [{ porthole: 1, kind: 'cancel', id }, true],
    [JSON.parse(`{"porthole":1,"kind":"req","id":"${id}","method":"open","__proto__":{}}`), false],
    [null, false],
    ['{"porthole":1}', false],
  ])('%j is accepted: %s', (value, accepted) => {
    expect(parseMessage(value) !== undefined).toBe(accepted)
  })

  test('a __proto__ key pollutes nothing', () => {
    const value = JSON.parse(
      `{"porthole":1,"kind":"evt","name":"state","data":{"__proto__":{"polluted":true}}}`,
    )
    parseMessage(value)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('parseHello', () => {
  test('accepts only the named channel', () => {
    expect(parseHello({ porthole: 1, kind: 'hello', channel: 'a' }, 'a')).toBeDefined()
    expect(parseHello({ porthole: 1, kind: 'hello', channel: 'b' }, 'a')).toBeUndefined()
    expect(parseWelcome({ porthole: 1, kind: 'hello', channel: 'a' }, 'a')).toBeUndefined()
  })

  test('a ready needs its document id (a UUID); a hello or welcome may name one', () => {
    const id = crypto.randomUUID()
    expect(parseReady({ porthole: 1, kind: 'ready', channel: 'a', id }, 'a')?.id).toBe(id)
    expect(parseReady({ porthole: 1, kind: 'ready', channel: 'a' }, 'a')).toBeUndefined()
    expect(parseReady({ porthole: 1, kind: 'ready', channel: 'a', id: 'x' }, 'a')).toBeUndefined()
    expect(parseHello({ porthole: 1, kind: 'hello', channel: 'a', id }, 'a')?.id).toBe(id)
    expect(parseHello({ porthole: 1, kind: 'hello', channel: 'a', id: 'x' }, 'a')).toBeUndefined()
  })

  test.each([
    ['hello', parseHello],
    ['welcome', parseWelcome],
    ['ready', parseReady],
  ] as const)('%s agrees with the zod schema', (kind, parse) => {
    const schema = WireSchema.handshake(kind, 'a')
    fc.assert(
      fc.property(
        fc.oneof(
          notPlain(
            fc.record(
              {
                porthole: fc.constantFrom(1, 2),
                kind: fc.constantFrom('hello', 'welcome', 'ready'),
                channel: fc.constantFrom('a', 'b'),
                id: fc.oneof(fc.uuid({ version: 4 }), fc.string(), fc.anything()),
                x: fc.anything(),
              },
              { requiredKeys: [] },
            ),
          ),
          fc.anything(),
        ),
        (value) => {
          expect(parse(value, 'a') !== undefined).toBe(schema.safeParse(value).success)
        },
      ),
    )
  })
})
