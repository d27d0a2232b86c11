// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ENS} from "./EnsRegistry.sol";

/// @notice The resolver profile the registrar writes a primary name to (ENSIP-3).
interface NameSetter {
    function setName(bytes32 node, string calldata name) external;
}

/// @title EnsReverseRegistrar
/// @notice A minimal reverse registrar for the local chain, written to ENSIP-3: it owns
///         `addr.reverse` in the registry and hands each address its reverse node,
///         `<address in lowercase hex>.addr.reverse`, whose resolver's `name()` is the
///         address's primary name.
/// @dev Implements `claim`, `claimWithResolver`, `setName` and `node` (ENSIP-3), and the
///      current registrar's `claimForAddr` and `setNameForAddr`, which an address itself or
///      a controller the owner named may call (the dev stack names its accounts with them,
///      so the named accounts send nothing). Leaves out operators of the registry, claims by
///      a contract's owner (`Ownable`) and the ENSIP-19 per-chain reverse registrars.
contract EnsReverseRegistrar {
    /// @dev namehash('addr.reverse').
    bytes32 public constant ADDR_REVERSE_NODE = 0x91d1777781884d03a6757a803996e38de2a42967fb37eeaca72729271025a9e2;

    ENS public immutable ens;
    address public immutable owner;
    address public defaultResolver;
    mapping(address controller => bool) public controllers;

    event ReverseClaimed(address indexed addr, bytes32 indexed node);
    event DefaultResolverChanged(address indexed resolver);
    event ControllerChanged(address indexed controller, bool enabled);

    error Unauthorized(address addr);

    modifier onlyOwner() {
        if (msg.sender != owner) revert Unauthorized(msg.sender);
        _;
    }

    modifier authorised(address addr) {
        if (addr != msg.sender && !controllers[msg.sender]) revert Unauthorized(addr);
        _;
    }

    constructor(ENS ens_) {
        ens = ens_;
        owner = msg.sender;
    }

    function setDefaultResolver(address resolver) external onlyOwner {
        defaultResolver = resolver;
        emit DefaultResolverChanged(resolver);
    }

    function setController(address controller, bool enabled) external onlyOwner {
        controllers[controller] = enabled;
        emit ControllerChanged(controller, enabled);
    }

    /// @notice Gives the caller's reverse node to `owner_`, with the default resolver.
    function claim(address owner_) external returns (bytes32) {
        return claimForAddr(msg.sender, owner_, defaultResolver);
    }

    function claimWithResolver(address owner_, address resolver) external returns (bytes32) {
        return claimForAddr(msg.sender, owner_, resolver);
    }

    function claimForAddr(address addr, address owner_, address resolver)
        public
        authorised(addr)
        returns (bytes32)
    {
        bytes32 label = sha3HexAddress(addr);
        bytes32 reverseNode = keccak256(abi.encodePacked(ADDR_REVERSE_NODE, label));
        emit ReverseClaimed(addr, reverseNode);
        ens.setSubnodeRecord(ADDR_REVERSE_NODE, label, owner_, resolver, 0);
        return reverseNode;
    }

    /// @notice Sets the caller's primary name on the default resolver (the caller owns the node).
    function setName(string calldata name) external returns (bytes32) {
        return setNameForAddr(msg.sender, msg.sender, defaultResolver, name);
    }

    /// @notice Sets `addr`'s primary name on `resolver` (which must trust this registrar) and
    ///         gives its reverse node to `owner_`.
    function setNameForAddr(address addr, address owner_, address resolver, string calldata name)
        public
        authorised(addr)
        returns (bytes32)
    {
        bytes32 reverseNode = claimForAddr(addr, owner_, resolver);
        NameSetter(resolver).setName(reverseNode, name);
        return reverseNode;
    }

    /// @return The reverse node of `addr`: namehash('<addr in lowercase hex>.addr.reverse').
    function node(address addr) external pure returns (bytes32) {
        return keccak256(abi.encodePacked(ADDR_REVERSE_NODE, sha3HexAddress(addr)));
    }

    /// @dev keccak256 of the 40 lowercase hex digits of `addr`, without 0x: its reverse label's hash.
    function sha3HexAddress(address addr) internal pure returns (bytes32) {
        bytes memory digits = "0123456789abcdef";
        bytes memory hexAddress = new bytes(40);
        uint160 value = uint160(addr);
        for (uint256 i = 40; i > 0; --i) {
            hexAddress[i - 1] = digits[value & 0xf];
            value >>= 4;
        }
        return keccak256(hexAddress);
    }
}
