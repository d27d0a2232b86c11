// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ENS
/// @notice The ENS registry interface of ENSIP-1 (EIP-137): each node (a namehash) has an owner,
///         a resolver and a TTL; the owner of a node sets them and hands out its subnodes.
interface ENS {
    event NewOwner(bytes32 indexed node, bytes32 indexed label, address owner);
    event Transfer(bytes32 indexed node, address owner);
    event NewResolver(bytes32 indexed node, address resolver);
    event NewTTL(bytes32 indexed node, uint64 ttl);

    function owner(bytes32 node) external view returns (address);
    function resolver(bytes32 node) external view returns (address);
    function ttl(bytes32 node) external view returns (uint64);
    function setOwner(bytes32 node, address owner) external;
    function setSubnodeOwner(bytes32 node, bytes32 label, address owner) external returns (bytes32);
    function setResolver(bytes32 node, address resolver) external;
    function setTTL(bytes32 node, uint64 ttl) external;
    function setSubnodeRecord(bytes32 node, bytes32 label, address owner, address resolver, uint64 ttl)
        external;
}

/// @title EnsRegistry
/// @notice A minimal ENS registry for the local chain, written to ENSIP-1: the root node
///         (0x0) belongs to the deployer, and only a node's owner may change it.
/// @dev Implements ENSIP-1's functions and events, plus `setSubnodeRecord` (the current
///      registry's: a subnode's owner, resolver and TTL in one call, which the reverse
///      registrar uses). Leaves out operators (`setApprovalForAll`), `setRecord`,
///      `recordExists` and the fallback to an older registry.
contract EnsRegistry is ENS {
    struct Record {
        address owner;
        address resolver;
        uint64 ttl;
    }

    mapping(bytes32 node => Record) private records;

    error Unauthorized(bytes32 node);

    modifier onlyOwner(bytes32 node) {
        if (records[node].owner != msg.sender) revert Unauthorized(node);
        _;
    }

    constructor() {
        records[bytes32(0)].owner = msg.sender;
    }

    function owner(bytes32 node) external view returns (address) {
        return records[node].owner;
    }

    function resolver(bytes32 node) external view returns (address) {
        return records[node].resolver;
    }

    function ttl(bytes32 node) external view returns (uint64) {
        return records[node].ttl;
    }

    function setOwner(bytes32 node, address owner_) external onlyOwner(node) {
        records[node].owner = owner_;
        emit Transfer(node, owner_);
    }

    /// @return The subnode: keccak256(node, label).
    function setSubnodeOwner(bytes32 node, bytes32 label, address owner_)
        public
        onlyOwner(node)
        returns (bytes32)
    {
        bytes32 subnode = keccak256(abi.encodePacked(node, label));
        records[subnode].owner = owner_;
        emit NewOwner(node, label, owner_);
        return subnode;
    }

    function setResolver(bytes32 node, address resolver_) public onlyOwner(node) {
        records[node].resolver = resolver_;
        emit NewResolver(node, resolver_);
    }

    function setTTL(bytes32 node, uint64 ttl_) public onlyOwner(node) {
        records[node].ttl = ttl_;
        emit NewTTL(node, ttl_);
    }

    function setSubnodeRecord(bytes32 node, bytes32 label, address owner_, address resolver_, uint64 ttl_)
        external
        onlyOwner(node)
    {
        bytes32 subnode = keccak256(abi.encodePacked(node, label));
        records[subnode] = Record(owner_, resolver_, ttl_);
        emit NewOwner(node, label, owner_);
        emit NewResolver(subnode, resolver_);
        emit NewTTL(subnode, ttl_);
    }
}
