internal import PushSealPlatform

/// A conversation id as the key of a key provider's dictionaries (its cache, its high-water
/// marks): its UTF-8 bytes, compared byte for byte (two canonically equivalent but byte-different
/// ids are two conversations, as in the directory) and hashed in one pass over them, without
/// copying the id (a lookup per notification allocates nothing and does not feed the hasher a
/// byte at a time, as an `[UInt8]` key would).
struct ConversationBytes: Hashable {
    let id: String

    init(_ id: String) { self.id = id }

    static func == (a: ConversationBytes, b: ConversationBytes) -> Bool {
        var (left, right) = (a.id, b.id)
        return left.withUTF8 { left in
            right.withUTF8 { right in
                left.count == right.count && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
    }

    func hash(into hasher: inout Hasher) {
        var id = self.id
        id.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
