import { base58 } from '@scure/base'
import { encodeFunctionData, erc20Abi, maxUint256, parseEther, stringToHex, toHex } from 'viem'
import { describe, expect, test } from 'vitest'
import {
  clip,
  type DecodeInput,
  type Display,
  emailChangeNote,
  type Field,
  flatten,
  maxCalls,
  maxFields,
  type Section,
  toDisplay,
  toPrintableText,
  toQuantity,
} from './decode.js'

const account = '0x1111111111111111111111111111111111111111'
const other = '0x2222222222222222222222222222222222222222'
const token = '0x3333333333333333333333333333333333333333'
const chainId = 'eip155:31337'

const input = (method: DecodeInput['method'], params: unknown): DecodeInput => ({
  method,
  params,
  chainId,
  account,
})

const fields = (display: Display): Field[] =>
  display.sections.flatMap((section) => (section.type === 'fields' ? section.fields : []))
const value = (display: Display, label: string) =>
  fields(display).find((field) => field.label === label)?.value
const texts = (display: Display) =>
  display.sections.filter(
    (section): section is Extract<Section, { type: 'text' }> => section.type === 'text',
  )

describe('toDisplay', () => {
  test.each([
    ['personal_sign', 'Sign message'],
    ['eth_signTypedData_v4', 'Sign typed data'],
    ['eth_sendTransaction', 'Approve transaction'],
    ['wallet_sendCalls', 'Approve calls'],
    ['wallet_grantPermissions', 'Approve permissions'],
    ['wallet_revokePermissions', 'Revoke permissions'],
    ['eth_sendUserOperation', 'Approve user operation'],
    ['solana_signMessage', 'Sign message'],
    ['solana_signTransaction', 'Sign transaction'],
    ['solana_signAllTransactions', 'Sign transactions'],
    ['solana_signAndSendTransaction', 'Approve transaction'],
  ] as const)('%s is titled %s, even with params it cannot read', (method, title) => {
    const display = toDisplay(input(method, 'not the expected shape'))
    expect(display.title).toBe(title)
    expect(display.sections.length).toBeGreaterThan(0)
  })
})

describe('toDisplay personal_sign', () => {
  test('shows hex that decodes to printable UTF-8 as text', () => {
    const display = toDisplay(
      input('personal_sign', [stringToHex('Hello, wallet ✓\nline 2'), account]),
    )
    expect(texts(display)).toEqual([
      { type: 'text', title: 'Message', text: 'Hello, wallet ✓\nline 2', format: 'text' },
    ])
    expect(display.notes).toEqual([])
  })

  test.each([
    { case: 'binary bytes', message: '0xdeadbeef00' },
    { case: 'invalid UTF-8', message: '0xc328' },
    { case: 'a bidi override', message: stringToHex('pay \u202Eevil') },
    { case: 'a control character', message: stringToHex('a\u0007b') },
  ])('shows $case as hex', ({ message }) => {
    const [section] = texts(toDisplay(input('personal_sign', [message, account])))
    expect(section).toMatchObject({ title: 'Message (hex)', text: message, format: 'hex' })
  })

  test('shows a plain string as text', () => {
    const [section] = texts(toDisplay(input('personal_sign', ['Sign in to Shop', account])))
    expect(section).toMatchObject({ text: 'Sign in to Shop', format: 'text' })
  })

  test('notes an address param that is not the signing account', () => {
    const display = toDisplay(input('personal_sign', [stringToHex('hi'), other]))
    expect(display.notes).toEqual([`The request names another account: ${other}.`])
  })

  test('accepts the account in another letter case', () => {
    expect(toDisplay(input('personal_sign', ['0x6869', account.toUpperCase()])).notes).toEqual([])
  })

  test('falls back to the raw params when the message is not a string', () => {
    const display = toDisplay(input('personal_sign', [{ a: 1 }, account]))
    expect(value(display, 'Method')).toBe('personal_sign')
    expect(texts(display)[0]?.text).toContain('"a": 1')
    expect(display.notes).toHaveLength(1)
  })
})

const typedData = {
  domain: { name: 'Shop', version: '1', chainId: 31337, verifyingContract: token },
  primaryType: 'Order',
  types: {
    EIP712Domain: [{ name: 'name', type: 'string' }],
    Order: [
      { name: 'buyer', type: 'Person' },
      { name: 'items', type: 'uint256[]' },
    ],
  },
  message: { buyer: { name: 'Bob', wallet: other }, items: [1, 2], memo: null },
}

describe('toDisplay eth_signTypedData_v4', () => {
  test.each([
    { case: 'a JSON string', data: JSON.stringify(typedData) },
    { case: 'an object', data: typedData },
  ])('shows domain and flattened message fields from $case', ({ data }) => {
    const display = toDisplay(input('eth_signTypedData_v4', [account, data]))
    expect(display.sections[0]).toEqual({
      type: 'fields',
      title: 'Domain',
      fields: [
        { label: 'Name', value: 'Shop', mono: false },
        { label: 'Version', value: '1', mono: false },
        { label: 'Chain id', value: '31337', mono: false },
        { label: 'Verifying contract', value: token, mono: true },
      ],
    })
    expect(display.sections[1]).toMatchObject({ type: 'fields', title: 'Message: Order' })
    expect(fields(display).slice(4)).toEqual([
      { label: 'Primary type', value: 'Order' },
      { label: 'buyer.name', value: 'Bob' },
      { label: 'buyer.wallet', value: other },
      { label: 'items.0', value: '1' },
      { label: 'items.1', value: '2' },
      { label: 'memo', value: 'null' },
    ])
    expect(display.notes).toEqual([])
  })

  test('notes a domain chain that is not the current network', () => {
    const data = { ...typedData, domain: { ...typedData.domain, chainId: '0x1' } }
    const display = toDisplay(input('eth_signTypedData_v4', [account, data]))
    expect(display.notes).toEqual([
      `The typed data names chain 0x1, not this network (${chainId}).`,
    ])
  })

  test('refuses invalid JSON with a note and shows the raw params', () => {
    const display = toDisplay(input('eth_signTypedData_v4', [account, '{not json']))
    expect(display.notes).toEqual(['The typed data is not valid JSON.'])
    expect(texts(display)[0]?.text).toContain('{not json')
  })

  test('bounds the number of fields and adds the full data', () => {
    const message = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]))
    const display = toDisplay(input('eth_signTypedData_v4', [account, { ...typedData, message }]))
    expect(fields(display).filter((field) => field.label.startsWith('k'))).toHaveLength(maxFields)
    expect(display.notes).toEqual([
      `${100 - maxFields} more fields are not listed: check the full data.`,
    ])
    expect(texts(display).map((section) => section.title)).toEqual(['Full data'])
  })
})

describe('flatten', () => {
  test('stops at the depth limit and shows the rest as JSON', () => {
    const { fields: flat } = flatten({ a: { b: { c: { d: { e: { f: { g: 1 } } } } } } })
    expect(flat).toEqual([{ label: 'a.b.c.d.e.f', value: '{"g":1}' }])
  })

  test('shows empty containers and a __proto__ key as data', () => {
    const { fields: flat } = flatten(JSON.parse('{"__proto__":{"x":1},"e":[],"o":{}}'))
    expect(flat).toEqual([
      { label: '__proto__.x', value: '1' },
      { label: 'e', value: '[]' },
      { label: 'o', value: '{}' },
    ])
  })
})

describe('toDisplay eth_sendTransaction', () => {
  test('shows recipient and amount in ETH', () => {
    const display = toDisplay(
      input('eth_sendTransaction', [{ from: account, to: other, value: toHex(parseEther('1.5')) }]),
    )
    expect(value(display, 'To')).toBe(other)
    expect(value(display, 'Amount')).toBe('1.5 ETH')
    expect(value(display, 'Action')).toBeUndefined()
    expect(display.notes).toEqual([])
  })

  test('decodes an ERC-20 transfer', () => {
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [other, 1000n],
    })
    const display = toDisplay(input('eth_sendTransaction', [{ to: token, data }]))
    expect(value(display, 'Action')).toBe(`Transfer 1000 (raw units) to ${other}`)
    expect(value(display, 'Token contract')).toBe(token)
    expect(value(display, 'Amount')).toBe('0 ETH')
    expect(value(display, 'Function')).toBe('transfer (0xa9059cbb)')
  })

  test('decodes an unlimited ERC-20 approval and warns', () => {
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'approve',
      args: [other, maxUint256],
    })
    const display = toDisplay(input('eth_sendTransaction', [{ to: token, data }]))
    expect(value(display, 'Action')).toBe(`Allow ${other} to spend all your tokens`)
    expect(value(display, 'Allowance')).toBe('unlimited')
    expect(display.notes).toEqual(['This approval lets the spender take all your tokens.'])
  })

  test('shows another call as a contract call with selector and size', () => {
    const data = '0x12345678aabbccdd'
    const display = toDisplay(input('eth_sendTransaction', [{ to: token, data }]))
    expect(value(display, 'Action')).toBe('Contract call')
    expect(value(display, 'Function selector')).toBe('0x12345678')
    expect(value(display, 'Data size')).toBe('8 bytes')
    expect(value(display, 'Data')).toBe(data)
  })

  test('shows a deployment when there is no recipient', () => {
    const display = toDisplay(input('eth_sendTransaction', [{ data: '0x6080' }]))
    expect(value(display, 'To')).toBe('New contract')
    expect(value(display, 'Action')).toBe('Contract deployment')
  })

  test.each([
    { case: 'another sender', tx: { from: other, to: token }, note: 'another account' },
    { case: 'another chain', tx: { to: token, chainId: '0x1' }, note: 'names chain 0x1' },
    { case: 'a bad amount', tx: { to: token, value: '-1' }, note: 'not a valid number' },
    { case: 'bad data', tx: { to: token, data: '0xzz' }, note: 'not valid hex' },
  ])('notes $case', ({ tx, note }) => {
    const display = toDisplay(input('eth_sendTransaction', [tx]))
    expect(display.notes.join(' ')).toContain(note)
  })
})

describe('toDisplay wallet_sendCalls', () => {
  test('lists each call with recipient, amount and action', () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [other, 5n] })
    const display = toDisplay(
      input('wallet_sendCalls', [
        {
          version: '2.0.0',
          chainId: '0x7a69',
          from: account,
          calls: [
            { to: other, value: toHex(parseEther('0.1')) },
            { to: token, data },
          ],
        },
      ]),
    )
    expect(display.sections.map((section) => section.title)).toEqual(['Call 1 of 2', 'Call 2 of 2'])
    expect(
      fields(display)
        .filter((field) => field.label === 'Amount')
        .map((f) => f.value),
    ).toEqual(['0.1 ETH', '0 ETH'])
    expect(value(display, 'Action')).toBe(`Transfer 5 (raw units) to ${other}`)
    expect(display.notes).toEqual([])
  })

  test('bounds the number of calls listed', () => {
    const calls = Array.from({ length: maxCalls + 3 }, () => ({ to: other }))
    const display = toDisplay(input('wallet_sendCalls', [{ calls }]))
    expect(display.sections.filter((section) => section.title?.startsWith('Call '))).toHaveLength(
      maxCalls,
    )
    expect(display.notes).toContain('3 more calls are not listed: check the full request.')
  })
})

describe('toDisplay solana', () => {
  test('shows a base58 message as text', () => {
    const message = base58.encode(new TextEncoder().encode('Sign in to Shop'))
    const display = toDisplay({
      ...input('solana_signMessage', { message, pubkey: 'SoLPubKey' }),
      account: 'SoLPubKey',
    })
    expect(texts(display)).toEqual([
      { type: 'text', title: 'Message', text: 'Sign in to Shop', format: 'text' },
    ])
    expect(display.notes).toEqual([])
  })

  test('shows a binary message as hex and notes another key', () => {
    const message = base58.encode(new Uint8Array([0, 1, 2, 255]))
    const display = toDisplay(input('solana_signMessage', { message, pubkey: 'Other' }))
    expect(texts(display)[0]).toMatchObject({ title: 'Message (hex)', text: '0x000102ff' })
    expect(display.notes).toEqual(['The request names another account: Other.'])
  })

  test('shows transactions it cannot read encoded, with a note', () => {
    const display = toDisplay(
      input('solana_signAllTransactions', { transactions: ['AQID', 'BAUG'] }),
    )
    expect(texts(display).map((section) => section.title)).toEqual([
      'Transaction 1 of 2 (encoded)',
      'Transaction 2 of 2 (encoded)',
    ])
    expect(display.notes).toEqual(['A transaction could not be read: check it below.'])
  })
})

describe('bounds', () => {
  test('clip keeps short text and says how much of long text is left out', () => {
    expect(clip('abc', 3)).toBe('abc')
    expect(clip('abcdef', 3)).toBe('abc… (3 more characters not shown)')
  })

  test('a huge param is clipped in the raw view', () => {
    const display = toDisplay(input('wallet_grantPermissions', ['x'.repeat(50_000)]))
    expect(texts(display)[0]?.text.length).toBeLessThan(20_100)
    expect(texts(display)[0]?.text).toMatch(/more characters not shown\)$/)
  })

  test.each([
    ['0x10', 16n],
    ['42', 42n],
    [7, 7n],
    ['-1', undefined],
    ['1e3', undefined],
    [1.5, undefined],
    ['', undefined],
    [null, undefined],
  ])('toQuantity(%j) is %s', (input, expected) => {
    expect(toQuantity(input)).toBe(expected)
  })

  test('toPrintableText refuses empty, invalid and hidden-character text', () => {
    expect(toPrintableText(new TextEncoder().encode('ok'))).toBe('ok')
    expect(toPrintableText(new Uint8Array())).toBeUndefined()
    expect(toPrintableText(new Uint8Array([0xff]))).toBeUndefined()
    expect(toPrintableText(new TextEncoder().encode('a\u2066b'))).toBeUndefined()
  })
})

describe('inv-20 toDisplay', () => {
  const onChain = (chain: string, params: unknown[]): DecodeInput => ({
    ...input('eth_sendTransaction', params),
    chainId: chain,
  })

  test.each([
    ['eip155:1', '1.5 ETH'],
    ['eip155:137', '1.5 POL'],
    ['eip155:56', '1.5 BNB'],
    ['eip155:43114', '1.5 AVAX'],
    ['eip155:100', '1.5 XDAI'],
    ['eip155:42220', '1.5 CELO'],
    ['eip155:31337', '1.5 ETH'],
  ])('a native amount on %s is in that network’s own currency (%s)', (chain, amount) => {
    const display = toDisplay(
      onChain(chain, [{ from: account, to: other, value: toHex(parseEther('1.5')) }]),
    )
    expect(value(display, 'Amount')).toBe(amount)
  })

  test('a network Porthole does not know says its amounts assume 18 decimals', () => {
    const display = toDisplay(
      onChain('eip155:999999', [{ from: account, to: other, value: toHex(parseEther('2')) }]),
    )
    expect(value(display, 'Amount')).toBe('2 (native currency of eip155:999999)')
    expect(display.notes.join(' ')).toContain('18 decimals')
  })

  test('the maximum network fee is shown in the network’s currency', () => {
    const display = toDisplay(
      onChain('eip155:137', [
        {
          from: account,
          to: other,
          value: '0x0',
          nonce: '0x7',
          gas: '0x5208',
          maxFeePerGas: '0xb2d05e00',
          maxPriorityFeePerGas: '0x3b9aca00',
        },
      ]),
    )
    expect(value(display, 'Nonce')).toBe('7')
    expect(value(display, 'Gas limit')).toBe('21000')
    expect(value(display, 'Max fee per gas')).toBe('3 gwei')
    expect(value(display, 'Max priority fee per gas')).toBe('1 gwei')
    expect(value(display, 'Max network fee')).toBe('0.000063 POL')
  })

  test('a call whose data is in `input` (no `data`) is decoded, not shown as a plain transfer', () => {
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [other, 1000n],
    })
    const display = toDisplay(input('eth_sendTransaction', [{ to: token, input: data }]))
    expect(value(display, 'Recipient')).toBe(other)
    expect(value(display, 'Function')).toBe('transfer (0xa9059cbb)')
  })

  test('a transaction field the approval does not know is named in a note', () => {
    const display = toDisplay(input('eth_sendTransaction', [{ to: other, authorizationList: [] }]))
    expect(display.notes.join(' ')).toContain('authorizationList')
  })

  test('a token amount is in the token’s symbol and decimals, as read from the chain', () => {
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [other, 12_500_000n],
    })
    const display = toDisplay({
      ...input('eth_sendTransaction', [{ to: token, data }]),
      tokens: [{ address: token, symbol: 'PTT', decimals: 6 }],
    })
    expect(value(display, 'Action')).toBe(`Transfer 12.5 PTT to ${other}`)
    expect(value(display, 'Token amount')).toBe('12.5 PTT')
  })

  test('a token amount whose token details are unknown is raw units, labelled', () => {
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transferFrom',
      args: [account, other, 12_500_000n],
    })
    const display = toDisplay(input('eth_sendTransaction', [{ to: token, data }]))
    expect(value(display, 'Token amount')).toBe(
      '12500000 (raw units: the token’s symbol and decimals could not be read)',
    )
  })

  test('a limited approval is in token units; an unlimited one warns', () => {
    const approve = (amount: bigint) =>
      toDisplay({
        ...input('eth_sendTransaction', [
          {
            to: token,
            data: encodeFunctionData({
              abi: erc20Abi,
              functionName: 'approve',
              args: [other, amount],
            }),
          },
        ]),
        tokens: [{ address: token, symbol: 'PTT', decimals: 6 }],
      })
    expect(value(approve(3_000_000n), 'Allowance')).toBe('3 PTT')
    expect(approve(3_000_000n).notes).toEqual([])
    expect(value(approve(maxUint256), 'Allowance')).toBe('unlimited')
    expect(approve(maxUint256).notes).toContain(
      'This approval lets the spender take all your tokens.',
    )
    // One less than the maximum is as unlimited: it warns too.
    expect(approve(maxUint256 - 1n).notes).toContain(
      'This approval lets the spender take all your tokens.',
    )
  })

  test('an unknown contract call shows its raw selector and a warning', () => {
    const display = toDisplay(input('eth_sendTransaction', [{ to: token, data: '0xdeadbeef00' }]))
    expect(value(display, 'Function selector')).toBe('0xdeadbeef')
    expect(display.notes.join(' ')).toMatch(/cannot decode/)
  })

  test('an EIP-2612 permit for everything warns like an unlimited approval', () => {
    const permit = {
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      domain: { name: 'PTT', version: '1', chainId: 31337, verifyingContract: token },
      message: {
        owner: account,
        spender: other,
        value: maxUint256.toString(),
        nonce: 0,
        deadline: 1,
      },
    }
    const display = toDisplay(input('eth_signTypedData_v4', [account, permit]))
    expect(display.notes.join(' ')).toContain('permit')
    expect(display.notes).toContain('This permit lets the spender take all your tokens.')
    expect(value(display, 'Verifying contract')).toBe(token)
    expect(value(display, 'spender')).toBe(other)
  })

  test('a Permit2 batch with a witness, one of whose items is for everything, warns too', () => {
    const permit = {
      types: {
        PermitBatchWitnessTransferFrom: [
          { name: 'permitted', type: 'TokenPermissions[]' },
          { name: 'spender', type: 'address' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
          { name: 'witness', type: 'Witness' },
        ],
        TokenPermissions: [
          { name: 'token', type: 'address' },
          { name: 'amount', type: 'uint256' },
        ],
        Witness: [{ name: 'user', type: 'address' }],
      },
      primaryType: 'PermitBatchWitnessTransferFrom',
      domain: { name: 'Permit2', chainId: 31337, verifyingContract: token },
      message: {
        permitted: [
          { token, amount: '1' },
          { token, amount: (2n ** 160n - 1n).toString() },
        ],
        spender: other,
        nonce: 0,
        deadline: 1,
        witness: { user: account },
      },
    }
    const display = toDisplay(input('eth_signTypedData_v4', [account, permit]))
    expect(display.notes).toContain('This permit lets the spender take all your tokens.')
  })
})

describe('toDisplay of an email change (updateEmail)', () => {
  test('says the change in its title, both addresses as fields, and what the email is for', () => {
    const display = toDisplay(
      input('updateEmail', { from: 'ada@example.com', to: 'mallory@evil.example' }),
    )
    expect(display.kind).toBe('emailChange')
    expect(display.title).toBe(
      "Change this wallet's email from ada@example.com to mallory@evil.example",
    )
    expect(value(display, 'Current email')).toBe('ada@example.com')
    expect(value(display, 'New email')).toBe('mallory@evil.example')
    expect(display.notes).toEqual([emailChangeNote])
  })

  test.each([
    ['no params', undefined],
    ['an extra key', { from: 'a@b.co', to: 'c@d.co', also: 'x' }],
    ['a missing address', { from: 'a@b.co' }],
    ['a number for an address', { from: 'a@b.co', to: 42 }],
    ['an empty address', { from: '', to: 'c@d.co' }],
    ['a bidirectional override', { from: 'a@b.co', to: 'c@d.co\u202egro.live' }],
    ['an address longer than an email may be', { from: 'a@b.co', to: `${'a'.repeat(250)}@d.co` }],
  ])('with %s, shows the raw request and says so, never a made-up change', (_case, params) => {
    const display = toDisplay(input('updateEmail', params))
    expect(display.kind).toBe('emailChange')
    expect(display.title).toBe("Change this wallet's email")
    expect(display.notes).toContain(emailChangeNote)
    expect(display.notes.length).toBe(2)
    expect(value(display, 'Method')).toBe('updateEmail')
  })
})
