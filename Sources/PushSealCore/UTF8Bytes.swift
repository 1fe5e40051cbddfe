#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-exact string comparison (never Swift's Unicode canonical equivalence), fast: lengths
/// first (O(1) for native strings), then one `memcmp` of the contiguous UTF-8.
package enum UTF8Bytes {
    /// True when `a` and `b` have exactly the same UTF-8 bytes.
    @inline(__always)
    package static func equal(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }
    }
}
