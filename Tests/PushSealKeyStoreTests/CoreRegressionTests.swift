import PushSealCore
import Testing

/// Regression test for a fix in PushSealCore made while building the key store: a throwing
/// `SecureBytes` initializer used to free its buffer in `init` and again in `deinit` (Swift
/// runs `deinit` for a fully initialized class whose `init` throws), corrupting the heap.
@Suite("Core regressions")
struct CoreRegressionTests {
    struct Refused: Error {}

    @Test func aThrowingSecureBytesInitializerDoesNotDoubleFree() {
        for round in 0..<5_000 {
            #expect(throws: Refused.self) {
                _ = try SecureBytes(count: 32 + round % 7) { buffer in
                    buffer[0] = 1
                    throw Refused()
                }
            }
            // Allocations after the failure must still work (a double free would abort here
            // or corrupt the allocator's free lists).
            let survivor = SecureBytes(count: 32) { $0[0] = 2 }
            #expect(survivor.withUnsafeBytes { $0[0] } == 2)
        }
    }
}
