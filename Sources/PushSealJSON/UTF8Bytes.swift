internal import PushSealPlatform

/// Byte-exact string comparison (never Swift's Unicode canonical equivalence), fast: lengths
/// first (O(1) for native strings), then one `memcmp` of the contiguous UTF-8.
package enum UTF8Bytes {
    /// True when `a` and `b` have exactly the same UTF-8 bytes.
    @inline(__always)
    package static func equal(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        // Native and small strings give their contiguous UTF-8 without a copy (the count test
        // above is O(1) for them); anything else compares byte by byte.
        let compared = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }
        if let compared, let compared { return compared }
        return a.utf8.elementsEqual(b.utf8)
    }
}
