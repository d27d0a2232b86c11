// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ENS} from "./EnsRegistry.sol";

/// @title EnsPublicResolver
/// @notice A minimal public resolver for the local chain: the profiles a wallet reads for a
///         name and for an address's primary name.
/// @dev Implements, with their setters and events:
///      - `addr(node)`: the Ethereum address (ENSIP-1, interface 0x3b3b57de);
///      - `addr(node, coinType)`: any coin's address as bytes (ENSIP-9, 0xf1cb7e06; ENSIP-11
///        coin types for EVM chains). `addr(node)` is coin type 60's;
///      - `name(node)`: the name a reverse node points to (ENSIP-3, 0x691f3431);
///      - `text(node, key)`: text records such as `avatar` (ENSIP-5, 0x59d1d43c);
///      - ERC-165's `supportsInterface` for those.
///      A node's records may be set by its owner in the registry, and by the trusted reverse
///      registrar (as the real PublicResolver allows), which sets reverse records for the
///      addresses it claims. Leaves out operators and delegates, record versions
///      (`clearRecords`), `multicall`, and the contenthash, ABI, pubkey, interface and DNS
///      profiles, and the NameWrapper.
contract EnsPublicResolver {
    uint256 private constant COIN_TYPE_ETH = 60;

    ENS public immutable ens;
    address public immutable trustedReverseRegistrar;

    mapping(bytes32 node => mapping(uint256 coinType => bytes)) private addresses;
    mapping(bytes32 node => string) private names;
    mapping(bytes32 node => mapping(string key => string)) private texts;

    event AddrChanged(bytes32 indexed node, address a);
    event AddressChanged(bytes32 indexed node, uint256 coinType, bytes newAddress);
    event NameChanged(bytes32 indexed node, string name);
    event TextChanged(bytes32 indexed node, string indexed indexedKey, string key, string value);

    error Unauthorized(bytes32 node);

    modifier authorised(bytes32 node) {
        if (msg.sender != trustedReverseRegistrar && ens.owner(node) != msg.sender) {
            revert Unauthorized(node);
        }
        _;
    }

    constructor(ENS ens_, address trustedReverseRegistrar_) {
        ens = ens_;
        trustedReverseRegistrar = trustedReverseRegistrar_;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 // ERC-165
            || interfaceId == 0x3b3b57de // addr(bytes32)
            || interfaceId == 0xf1cb7e06 // addr(bytes32,uint256)
            || interfaceId == 0x691f3431 // name(bytes32)
            || interfaceId == 0x59d1d43c; // text(bytes32,string)
    }

    function addr(bytes32 node) external view returns (address payable) {
        bytes memory value = addresses[node][COIN_TYPE_ETH];
        if (value.length != 20) return payable(address(0));
        return payable(address(bytes20(value)));
    }

    function addr(bytes32 node, uint256 coinType) external view returns (bytes memory) {
        return addresses[node][coinType];
    }

    function setAddr(bytes32 node, address a) external {
        setAddr(node, COIN_TYPE_ETH, abi.encodePacked(a));
    }

    function setAddr(bytes32 node, uint256 coinType, bytes memory a) public authorised(node) {
        emit AddressChanged(node, coinType, a);
        if (coinType == COIN_TYPE_ETH) emit AddrChanged(node, address(bytes20(a)));
        addresses[node][coinType] = a;
    }

    function name(bytes32 node) external view returns (string memory) {
        return names[node];
    }

    function setName(bytes32 node, string calldata newName) external authorised(node) {
        names[node] = newName;
        emit NameChanged(node, newName);
    }

    function text(bytes32 node, string calldata key) external view returns (string memory) {
        return texts[node][key];
    }

    function setText(bytes32 node, string calldata key, string calldata value) external authorised(node) {
        texts[node][key] = value;
        emit TextChanged(node, key, key, value);
    }
}
