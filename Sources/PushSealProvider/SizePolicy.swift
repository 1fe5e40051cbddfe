import PushSealCore
import PushSealJSON

/// The content that will be sealed, after the size policy.
struct ContentPlan {
    let content: NotificationContent
    let path: SealPath
}

/// The size policy: complete if it fits, else body truncated at a grapheme-cluster boundary,
/// else content-free. All decisions are arithmetic on encoded sizes; nothing is sealed twice.
enum SizePolicy {
    /// `…` (U+2026) in UTF-8.
    static let ellipsis = "\u{2026}"
    static let ellipsisByteCount = 3

    /// Rejects contents the v1 schema forbids, and a missing `body` outside the content-free form.
    static func validate(_ content: NotificationContent) throws(ProviderError) {
        do {
            try content.validate()
        } catch {
            throw .invalidContent(error)
        }
        if content.body == nil, !isContentFreeShape(content) {
            throw .invalidContent(.missingField("body"))
        }
    }

    /// Exactly `cid`, `mid`, `ts`.
    static func isContentFreeShape(_ content: NotificationContent) -> Bool {
        content.body == nil && content.title == nil && content.subtitle == nil && content.sender == nil
            && content.thread == nil && content.category == nil && content.badge == nil && !content.isTruncated
            && content.extras.isEmpty
    }

    /// A lower bound of the encoded size, in O(number of fields): the raw UTF-8 bytes of the
    /// strings (escaping only adds) and the fixed `{"cid":"","mid":"","ts":0}` skeleton.
    static func rawByteCountLowerBound(_ content: NotificationContent) -> Int {
        var count = 26 + content.conversationID.utf8.count + content.messageID.utf8.count
        count += (content.title?.utf8.count ?? 0) + (content.subtitle?.utf8.count ?? 0) + (content.body?.utf8.count ?? 0)
        count += (content.sender?.id.utf8.count ?? 0) + (content.sender?.name?.utf8.count ?? 0)
        count += (content.thread?.utf8.count ?? 0) + (content.category?.utf8.count ?? 0)
        for (name, value) in content.extras { count += name.utf8.count + value.utf8.count }
        return count
    }

    /// Chooses what to seal so that the encoded content is at most `budget` bytes
    /// (`budget` = min(4000, largest fitting |P| − 1)). Nil when not even the content-free form fits.
    static func plan(_ content: NotificationContent, budget: Int) -> ContentPlan? {
        if content.encodedByteCount <= budget { return ContentPlan(content: content, path: .complete) }
        if let body = content.body {
            var shell = content
            shell.body = ""
            shell.isTruncated = true
            // Size with body s + "…" = shellSize + escaped(s) + 3 (shellSize counts the two quotes).
            let prefixBudget = budget - shell.encodedByteCount - ellipsisByteCount
            if prefixBudget >= 0 {
                let kept = longestFittingPrefix(of: body, escapedBudget: prefixBudget)
                shell.body = String(decoding: body.utf8.prefix(kept), as: UTF8.self) + ellipsis
                return ContentPlan(content: shell, path: .truncated(originalBodyLength: body.utf8.count))
            }
        }
        let free = content.contentFree
        guard free.encodedByteCount <= budget else { return nil }
        return ContentPlan(content: free, path: .contentFree)
    }

    /// Bytes a UTF-8 byte takes inside a JSON string written by `JSONWriter`.
    @inline(__always)
    static func escapedLength(of byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x0C, 0x0A, 0x0D, 0x09: 2
        case 0..<0x20: 6
        default: 1
        }
    }

    /// UTF-8 length of the longest prefix of `body` that ends at an extended grapheme cluster
    /// boundary and whose JSON-escaped length is at most `escapedBudget`.
    ///
    /// Only boundaries within the first `escapedBudget` raw bytes can qualify (escaping never
    /// shortens), so at most that much of the body is scanned, however long the body is. The
    /// escaped length at each candidate boundary is a running sum; a binary search over those
    /// boundaries finds the answer.
    static func longestFittingPrefix(of body: String, escapedBudget: Int) -> Int {
        guard escapedBudget > 0 else { return 0 }
        var boundaries: [Int] = [0]
        var offset = 0
        for character in body {
            offset += character.utf8.count
            if offset > escapedBudget { break }
            boundaries.append(offset)
        }
        guard boundaries.count > 1 else { return 0 }
        // Escaped length of body.utf8[0..<boundaries[i]] for every i.
        var escaped = [Int](repeating: 0, count: boundaries.count)
        var running = 0
        var next = 1
        var position = 0
        for byte in body.utf8 {
            running += escapedLength(of: byte)
            position += 1
            if position == boundaries[next] {
                escaped[next] = running
                next += 1
                if next == boundaries.count { break }
            }
        }
        // Largest i with escaped[i] <= escapedBudget (escaped is non-decreasing; escaped[0] = 0).
        var low = 0
        var high = boundaries.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if escaped[middle] <= escapedBudget { low = middle } else { high = middle - 1 }
        }
        return boundaries[low]
    }
}
