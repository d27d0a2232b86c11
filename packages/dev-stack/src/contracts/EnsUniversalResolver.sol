// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ENS} from "./EnsRegistry.sol";

/// @title EnsUniversalResolver
/// @notice A minimal UniversalResolver for the local chain: the one contract viem's ENS
///         actions call (`getEnsName`, `getEnsAddress`, `getEnsText`, `getEnsAvatar`,
///         `getEnsResolver`), with the functions, return shapes and errors of ENS's own.
/// @dev Implements:
///      - `findResolver(name)`: ENSIP-10's resolver lookup, from the DNS-encoded name up to the
///        root, the first node with a resolver in the registry;
///      - `resolve` and `resolveWithGateways(name, data, gateways)`: calls the resolver with
///        `data` (through ENSIP-10's `resolve(name, data)` when the resolver is an extended
///        one, else directly, which needs the name's own resolver);
///      - `reverse` and `reverseWithGateways(lookupAddress, coinType, gateways)`: ENSIP-19's
///        reverse resolution: the reverse name's `name()`, checked against the forward
///        `addr()` of that name, as a wallet must before showing it;
///      - the errors viem reads as "no name" (`ResolverNotFound`, `ResolverNotContract`,
///        `ResolverError`, `UnsupportedResolverProfile`, `ReverseAddressMismatch`) and the
///        encoding ones.
///      Leaves out EIP-3668 (CCIP-Read): no `OffchainLookup`, and the gateways argument is
///      ignored, so offchain names do not resolve; batch gateways and multicalls; and labels
///      written as encoded labelhashes (`[<hash>]`, which viem sends for labels over 255
///      bytes) are hashed as text.
contract EnsUniversalResolver {
    uint256 private constant COIN_TYPE_ETH = 60;
    /// @dev ENSIP-11: EVM chains' coin types set this bit; alone, it is the default chain's.
    uint256 private constant EVM_BIT = 1 << 31;
    /// @dev ENSIP-10's `resolve(bytes,bytes)`.
    bytes4 private constant EXTENDED_RESOLVER = 0x9061b923;

    ENS public immutable registry;

    error DNSDecodingFailed(bytes dns);
    error DNSEncodingFailed(string ens);
    error EmptyAddress();
    error ResolverError(bytes errorData);
    error ResolverNotContract(bytes name, address resolver);
    error ResolverNotFound(bytes name);
    error ReverseAddressMismatch(string primary, bytes primaryAddress);
    error UnsupportedResolverProfile(bytes4 selector);

    constructor(ENS registry_) {
        registry = registry_;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7; // ERC-165
    }

    /// @notice ENSIP-10: the resolver of the DNS-encoded `name` or of its nearest ancestor.
    /// @return resolver The resolver, or the zero address when no ancestor has one.
    /// @return node The namehash of `name`.
    /// @return offset Where in `name` the resolver's node starts (0: `name`'s own).
    function findResolver(bytes memory name) public view returns (address resolver, bytes32 node, uint256 offset) {
        return findResolverAt(name, 0);
    }

    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory, address) {
        return resolveWithGateways(name, data, new string[](0));
    }

    /// @return result The resolver's answer to `data`, ABI-encoded as the profile returns it.
    /// @return resolver The resolver that answered.
    function resolveWithGateways(bytes calldata name, bytes calldata data, string[] memory)
        public
        view
        returns (bytes memory result, address resolver)
    {
        bytes32 node;
        bool extended;
        (resolver, node, extended) = requireResolver(name);
        result = callResolver(resolver, extended, name, data);
    }

    function reverse(bytes calldata lookupAddress, uint256 coinType)
        external
        view
        returns (string memory, address, address)
    {
        return reverseWithGateways(lookupAddress, coinType, new string[](0));
    }

    /// @return primary The address's primary name, or "" when its reverse record has none.
    /// @return resolver The primary name's resolver (zero when there is no name).
    /// @return reverseResolver The reverse name's resolver.
    function reverseWithGateways(bytes calldata lookupAddress, uint256 coinType, string[] memory)
        public
        view
        returns (string memory primary, address resolver, address reverseResolver)
    {
        (primary, reverseResolver) = reverseRecord(lookupAddress, coinType);
        if (bytes(primary).length == 0) return ("", address(0), reverseResolver);
        bytes memory primaryAddress;
        (resolver, primaryAddress) = forwardAddress(primary, coinType);
        if (keccak256(primaryAddress) != keccak256(lookupAddress)) {
            revert ReverseAddressMismatch(primary, primaryAddress);
        }
    }

    /// @dev The `name()` of the reverse name of `lookupAddress`, and its resolver.
    function reverseRecord(bytes calldata lookupAddress, uint256 coinType)
        internal
        view
        returns (string memory primary, address resolver)
    {
        bytes memory reverseName = reverseNameOf(lookupAddress, coinType);
        (address resolver_, bytes32 node, bool extended) = requireResolver(reverseName);
        bytes memory answer = callResolver(resolver_, extended, reverseName, abi.encodeWithSelector(0x691f3431, node));
        return (abi.decode(answer, (string)), resolver_);
    }

    /// @dev The address `primary` resolves to for `coinType` (`addr(node)` for Ethereum's, as
    ///      its 20 bytes), and its resolver.
    function forwardAddress(string memory primary, uint256 coinType)
        internal
        view
        returns (address resolver, bytes memory primaryAddress)
    {
        bytes memory name = dnsEncode(primary);
        (address resolver_, bytes32 node, bool extended) = requireResolver(name);
        if (coinType == COIN_TYPE_ETH) {
            bytes memory addr = callResolver(resolver_, extended, name, abi.encodeWithSelector(0x3b3b57de, node));
            return (resolver_, abi.encodePacked(abi.decode(addr, (address))));
        }
        bytes memory coinAddr =
            callResolver(resolver_, extended, name, abi.encodeWithSelector(0xf1cb7e06, node, coinType));
        return (resolver_, abi.decode(coinAddr, (bytes)));
    }

    /// @dev The resolver for `name`, or a revert: none found, or not a contract, or an
    ///      ancestor's resolver that is not an extended one (only those answer for subnames).
    function requireResolver(bytes memory name) internal view returns (address resolver, bytes32 node, bool extended) {
        uint256 offset;
        (resolver, node, offset) = findResolver(name);
        if (resolver == address(0)) revert ResolverNotFound(name);
        extended = supportsErc165(resolver, EXTENDED_RESOLVER);
        if (!extended) {
            if (offset != 0) revert ResolverNotFound(name);
            if (resolver.code.length == 0) revert ResolverNotContract(name, resolver);
        }
    }

    /// @dev Calls the resolver with `data` (wrapped in `resolve(name, data)` for an extended
    ///      one) and returns its answer; its revert comes back as `ResolverError`, no answer
    ///      at all as `UnsupportedResolverProfile`.
    function callResolver(address resolver, bool extended, bytes memory name, bytes memory data)
        internal
        view
        returns (bytes memory)
    {
        bytes memory call = extended ? abi.encodeWithSelector(EXTENDED_RESOLVER, name, data) : data;
        (bool ok, bytes memory answer) = resolver.staticcall(call);
        if (!ok) {
            if (answer.length >= 4 && bytes4(answer) == UnsupportedResolverProfile.selector) {
                assembly {
                    revert(add(answer, 32), mload(answer))
                }
            }
            revert ResolverError(answer);
        }
        if (answer.length == 0) revert UnsupportedResolverProfile(bytes4(data));
        return extended ? abi.decode(answer, (bytes)) : answer;
    }

    /// @dev ERC-165 as OpenZeppelin's `supportsERC165InterfaceUnchecked`: false for anything
    ///      but a 32-byte true answer, within 30 000 gas.
    function supportsErc165(address target, bytes4 interfaceId) internal view returns (bool) {
        (bool ok, bytes memory answer) =
            target.staticcall{gas: 30_000}(abi.encodeWithSelector(0x01ffc9a7, interfaceId));
        return ok && answer.length >= 32 && abi.decode(answer, (uint256)) == 1;
    }

    /// @dev findResolver from the label at `offset`: the parent's first, so each node is
    ///      hashed once on the way back down.
    function findResolverAt(bytes memory name, uint256 offset)
        internal
        view
        returns (address resolver, bytes32 node, uint256 resolverOffset)
    {
        if (offset >= name.length) revert DNSDecodingFailed(name);
        uint256 length = uint8(name[offset]);
        if (length == 0) {
            // The root: it must end the name.
            if (offset + 1 != name.length) revert DNSDecodingFailed(name);
            return (registry.resolver(bytes32(0)), bytes32(0), offset);
        }
        uint256 next = offset + 1 + length;
        if (next > name.length) revert DNSDecodingFailed(name);
        (address parentResolver, bytes32 parent, uint256 parentOffset) = findResolverAt(name, next);
        bytes32 label;
        assembly {
            label := keccak256(add(add(name, 33), offset), length)
        }
        node = keccak256(abi.encodePacked(parent, label));
        resolver = registry.resolver(node);
        if (resolver != address(0)) return (resolver, node, offset);
        return (parentResolver, node, parentOffset);
    }

    /// @dev ENSIP-19's reverse name, DNS-encoded: `<address in lowercase hex>.addr.reverse` for
    ///      Ethereum (coin type 60), `.default.reverse` for the default EVM chain, else
    ///      `.<coin type in lowercase hex>.reverse`.
    function reverseNameOf(bytes calldata lookupAddress, uint256 coinType) internal pure returns (bytes memory) {
        if (lookupAddress.length == 0) revert EmptyAddress();
        string memory namespace =
            coinType == COIN_TYPE_ETH ? "addr" : coinType == EVM_BIT ? "default" : string(toHex(coinType));
        return dnsEncode(string.concat(string(toHex(lookupAddress)), ".", namespace, ".reverse"));
    }

    /// @dev A dotted name in DNS wire format: each label as its length and bytes, then a zero.
    ///      Reverts `DNSEncodingFailed` on an empty label or one over 255 bytes.
    function dnsEncode(string memory name) internal pure returns (bytes memory encoded) {
        bytes memory text = bytes(name);
        if (text.length == 0) return hex"00";
        encoded = new bytes(text.length + 2);
        uint256 start;
        for (uint256 i; i <= text.length; ++i) {
            if (i < text.length && text[i] != ".") continue;
            uint256 length = i - start;
            if (length == 0 || length > 255) revert DNSEncodingFailed(name);
            encoded[start] = bytes1(uint8(length));
            for (uint256 j; j < length; ++j) {
                encoded[start + 1 + j] = text[start + j];
            }
            start = i + 1;
        }
        // The last byte, the root's zero length, is already zero.
    }

    /// @dev Lowercase hex digits of `data`, without 0x.
    function toHex(bytes memory data) internal pure returns (bytes memory digits) {
        bytes memory alphabet = "0123456789abcdef";
        digits = new bytes(data.length * 2);
        for (uint256 i; i < data.length; ++i) {
            digits[2 * i] = alphabet[uint8(data[i]) >> 4];
            digits[2 * i + 1] = alphabet[uint8(data[i]) & 0xf];
        }
    }

    /// @dev Lowercase hex digits of `value` without leading zeros ("0" for zero), as ENSIP-19 writes a coin type.
    function toHex(uint256 value) internal pure returns (bytes memory digits) {
        uint256 count = 1;
        for (uint256 rest = value >> 4; rest != 0; rest >>= 4) ++count;
        digits = new bytes(count);
        bytes memory alphabet = "0123456789abcdef";
        for (uint256 i = count; i > 0; --i) {
            digits[i - 1] = alphabet[value & 0xf];
            value >>= 4;
        }
    }
}
