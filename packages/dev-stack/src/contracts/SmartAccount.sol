// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A minimal EIP-1271 smart-contract wallet for the e2e suite: a signature is
/// valid when it is the owner's ECDSA signature (65 bytes: r, s, v) of the
/// hash it is asked about. Not a wallet to hold funds with.
contract SmartAccount {
    /// bytes4(keccak256("isValidSignature(bytes32,bytes)")), EIP-1271's "valid".
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 internal constant INVALID = 0xffffffff;
    /// secp256k1n / 2: a larger `s` is the malleable twin of a valid signature (EIP-2).
    uint256 internal constant HALF_ORDER =
        0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    /// EIP-1271: MAGIC_VALUE when `signature` is the owner's signature of `hash`.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return INVALID;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        if (v != 27 && v != 28) return INVALID;
        if (uint256(s) > HALF_ORDER) return INVALID;
        address signer = ecrecover(hash, v, r, s);
        if (signer == address(0) || signer != owner) return INVALID;
        return MAGIC_VALUE;
    }
}

/// Deploys SmartAccounts at addresses known in advance (CREATE2), so a
/// signature can be checked before its account exists (EIP-6492).
contract SmartAccountFactory {
    function deploy(address owner, bytes32 salt) external returns (SmartAccount) {
        return new SmartAccount{salt: salt}(owner);
    }

    function addressOf(address owner, bytes32 salt) external view returns (address) {
        bytes32 codeHash =
            keccak256(abi.encodePacked(type(SmartAccount).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, codeHash)))));
    }
}
