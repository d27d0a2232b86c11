// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title TestNft
/// @notice A minimal ERC-721 for the history tests: anyone may mint, and `airdrop` mints one
/// token to each of many accounts in one transaction, as spam collections do. Never deploy it
/// anywhere real.
/// @dev Only what the indexer reads: ownership, `Transfer` events, `transferFrom`, name and
/// symbol. No approvals, no safe transfers, no metadata URIs.
contract TestNft {
    string public name;
    string public symbol;

    mapping(uint256 tokenId => address) public ownerOf;
    mapping(address owner => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

    error AlreadyMinted(uint256 tokenId);
    error NotOwner(address caller, uint256 tokenId);
    error InvalidReceiver(address receiver);

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
    }

    function mint(address to, uint256 tokenId) public {
        if (to == address(0)) revert InvalidReceiver(to);
        if (ownerOf[tokenId] != address(0)) revert AlreadyMinted(tokenId);
        ownerOf[tokenId] = to;
        balanceOf[to] += 1;
        emit Transfer(address(0), to, tokenId);
    }

    /// @notice Mints tokens `firstId`, `firstId + 1`, … to `recipients`, one each.
    function airdrop(address[] calldata recipients, uint256 firstId) external {
        for (uint256 i = 0; i < recipients.length; i++) {
            mint(recipients[i], firstId + i);
        }
    }

    function transferFrom(address from, address to, uint256 tokenId) external {
        if (ownerOf[tokenId] != msg.sender || from != msg.sender) revert NotOwner(msg.sender, tokenId);
        if (to == address(0)) revert InvalidReceiver(to);
        ownerOf[tokenId] = to;
        balanceOf[from] -= 1;
        balanceOf[to] += 1;
        emit Transfer(from, to, tokenId);
    }
}

/// @title TestMultiToken
/// @notice A minimal ERC-1155 for the history tests: anyone may mint, singly or in a batch.
/// @dev Only balances and the TransferSingle / TransferBatch events; no receiver checks.
contract TestMultiToken {
    mapping(uint256 id => mapping(address account => uint256)) public balanceOf;

    event TransferSingle(
        address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value
    );
    event TransferBatch(
        address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values
    );

    error LengthMismatch();

    function mint(address to, uint256 id, uint256 value) external {
        balanceOf[id][to] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata values) external {
        if (ids.length != values.length) revert LengthMismatch();
        for (uint256 i = 0; i < ids.length; i++) {
            balanceOf[ids[i]][to] += values[i];
        }
        emit TransferBatch(msg.sender, address(0), to, ids, values);
    }
}
