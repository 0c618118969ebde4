public import AuthlogTransparency

// The server's spellings of the verification core's calls: each binds OpenSSL (``OpenSSLTransparencyCrypto``)
// and does nothing else, so the store, the CLI and the witness call the core as they did when it lived in
// AuthlogStore. One adapter per call; the code is the core's.

extension MerkleTree {
    /// ``leafHash(position:digest:crypto:)`` with OpenSSL.
    public static func leafHash(position: Int64, digest: [UInt8]) -> [UInt8] {
        self.leafHash(position: position, digest: digest, crypto: .openSSL)
    }

    /// ``nodeHash(_:_:crypto:)`` with OpenSSL.
    public static func nodeHash(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        self.nodeHash(left, right, crypto: .openSSL)
    }
}

extension MerkleFrontier {
    /// ``root(crypto:)`` with OpenSSL.
    public var root: [UInt8] { self.root(crypto: .openSSL) }

    /// ``append(leaf:crypto:)`` with OpenSSL.
    @discardableResult
    public mutating func append(leaf: [UInt8]) -> [[UInt8]] {
        self.append(leaf: leaf, crypto: .openSSL)
    }
}

extension MerkleProof {
    /// ``hash(of:nodes:crypto:)`` with OpenSSL.
    public static func hash(of range: Range, nodes: [MerkleNodeID: [UInt8]]) -> [UInt8]? {
        self.hash(of: range, nodes: nodes, crypto: .openSSL)
    }
}

extension ConsistencyVerifier {
    /// ``verify(oldSize:oldRoot:newSize:newRoot:proof:crypto:)`` with OpenSSL.
    /// - Throws: ``Failure``.
    public static func verify(
        oldSize: Int64,
        oldRoot: [UInt8],
        newSize: Int64,
        newRoot: [UInt8],
        proof: [[UInt8]]
    ) throws(Failure) {
        try self.verify(
            oldSize: oldSize,
            oldRoot: oldRoot,
            newSize: newSize,
            newRoot: newRoot,
            proof: proof,
            crypto: .openSSL
        )
    }
}

extension InclusionProofCheck {
    /// ``holds(index:size:leafHash:root:proof:crypto:)`` with OpenSSL.
    public static func holds(index: Int64, size: Int64, leafHash: [UInt8], root: [UInt8], proof: [[UInt8]]) -> Bool {
        self.holds(index: index, size: size, leafHash: leafHash, root: root, proof: proof, crypto: .openSSL)
    }
}

extension NoteSigner {
    /// A signer named `name` with the Ed25519 `key`, on OpenSSL.
    /// - Throws: ``CryptoError`` `.invalidKey` for another kind of key; ``TransparencyError`` `.invalidKey` for a
    ///   name with spaces or `+`.
    public init(name: String, key: PrivateKey) throws {
        try self.init(name: name, key: try OpenSSLEd25519SigningKey(key), crypto: .openSSL)
    }
}

extension NoteVerifier {
    /// ``init(verifierKey:crypto:)`` with OpenSSL.
    /// - Throws: ``TransparencyError`` `.invalidKey`.
    public init(verifierKey text: String) throws(TransparencyError) {
        try self.init(verifierKey: text, crypto: .openSSL)
    }
}

extension CosignatureSigner {
    /// A signer named `name` with the Ed25519 `key`, on OpenSSL.
    /// - Throws: ``CryptoError`` `.invalidKey` for another kind of key; ``TransparencyError`` `.invalidKey` for a
    ///   bad name.
    public init(name: String, key: PrivateKey) throws {
        try self.init(name: name, key: try OpenSSLEd25519SigningKey(key), crypto: .openSSL)
    }
}

extension CosignatureVerifier {
    /// ``init(verifierKey:crypto:)`` with OpenSSL.
    /// - Throws: ``TransparencyError`` `.invalidKey`.
    public init(verifierKey text: String) throws(TransparencyError) {
        try self.init(verifierKey: text, crypto: .openSSL)
    }
}

extension WitnessPolicy {
    /// ``init(text:crypto:)`` with OpenSSL.
    /// - Throws: ``TransparencyError`` `.invalidPolicy` naming the line that is wrong.
    public init(text: String) throws(TransparencyError) {
        try self.init(text: text, crypto: .openSSL)
    }
}
