@testable import PushSealCommands
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import Testing

/// In-process checks of the helpers behind the store commands' output and hints.
@Suite struct StoreFormattingTests {
    @Test(arguments: [
        (0, "1970-01-01T00:00:00Z"),
        (1_700_000_000, "2023-11-14T22:13:20Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (951_868_799, "2000-02-29T23:59:59Z"),
        (4_107_542_400, "2100-03-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (-86_400 * 365, "1969-01-01T00:00:00Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
        (253_402_300_800, "10000-01-01T00:00:00Z"),
    ] as [(Int64, String)])
    func utcTime(seconds: Int64, text: String) {
        #expect(UTCTime.iso8601(seconds) == text)
    }

    @Test func utcTimeCoversTheWholeRange() {
        // No trap at the extremes (a saturated not-after time is Int64.max).
        #expect(UTCTime.iso8601(Int64.max).hasSuffix("Z"))
        #expect(UTCTime.iso8601(Int64.min).hasSuffix("Z"))
    }

    @Test(arguments: [
        ("keys", "keys"),
        ("/srv/app/keys-1.d", "/srv/app/keys-1.d"),
        ("my keys", "'my keys'"),
        ("it's", "'it'\\''s'"),
        ("", "''"),
        ("$HOME", "'$HOME'"),
        ("a;b", "'a;b'"),
    ])
    func shellQuoting(text: String, quoted: String) {
        #expect(ShellQuoting.quote(text) == quoted)
    }

    @Test func currentIsExactlyTheKeyIDsTheStoreGave() {
        let kid = { (n: UInt8) in KeyID(bytes: [UInt8](repeating: n, count: 16))! }
        let items = [
            KeyItem(keyID: kid(1), conversation: "a", epoch: 1, label: nil, createdAt: 0, notAfter: nil),
            KeyItem(keyID: kid(2), conversation: "a", epoch: 2, label: nil, createdAt: 0, notAfter: 50),
            KeyItem(keyID: kid(3), conversation: "a", epoch: 3, label: nil, createdAt: 0, notAfter: 200),
            KeyItem(keyID: kid(4), conversation: "b", epoch: 1, label: nil, createdAt: 0, notAfter: 10),
        ]
        #expect(StoreListCommand.entries(items, now: 100, current: [kid(3)]).map(\.status) == ["live", "expired", "current", "expired"])
        #expect(StoreListCommand.entries(items, now: 201, current: []).map(\.status) == ["live", "expired", "expired", "expired"])
        #expect(StoreListCommand.entries([], now: 0, current: []).isEmpty)
    }

    @Test func displayedCellsStayOneLine() {
        #expect(StoreListCommand.displayed("c1") == "c1")
        #expect(StoreListCommand.displayed("a b") == "\"a b\"")
        #expect(StoreListCommand.displayed("a b", spacesAllowed: true) == "a b")
        #expect(StoreListCommand.displayed("a\tb", spacesAllowed: true) == "\"a\\tb\"")
        #expect(StoreListCommand.displayed("") == "\"\"")
        #expect(StoreListCommand.displayed("say \"hi\"", spacesAllowed: true) == "\"say \\\"hi\\\"\"")
    }
}
