// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IdRegistry
/// @notice A stand-in for Farcaster's IdRegistry (0x00000000Fc6c5F01Fc30151999387Bb99A9f489b on
///         Optimism) for tests: only the read a Sign In With Farcaster verifier makes,
///         `custodyOf(fid)`, and an owner-only `register` to set it up.
contract IdRegistry {
    address public immutable owner;
    mapping(uint256 fid => address custody) public custodyOf;

    event Register(address indexed to, uint256 indexed id);

    error Unauthorized();
    error InvalidFid();

    constructor() {
        owner = msg.sender;
    }

    /// @notice Sets `fid`'s custody address (a zero address unregisters it).
    function register(uint256 fid, address custody) external {
        if (msg.sender != owner) revert Unauthorized();
        if (fid == 0) revert InvalidFid();
        custodyOf[fid] = custody;
        emit Register(custody, fid);
    }
}
