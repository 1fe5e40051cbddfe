import Foundation
import PushSealCore
import PushSealJSON
import Testing

/// The defects of issue 29's hostile trial, through the command line (THREAT-MODEL.md §7.20).
@Suite("Hostile trial, third round (CLI)")
struct HardeningThirdRoundCLITests {
    // MARK: item 5. device pin

    @Test("device pin trims surrounding whitespace like --key, refuses small-order points and the device's own key")
    func devicePin() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("kd")
        let provider = try runPushSeal(["store", "provider-key", "create", "--dir", sandbox.path("kd")]).stdoutJSONObject()
        let providerKey = try #require(provider["publicKey"]?.stringValue)
        let initRun = try runPushSeal(["device", "init", "--dir", sandbox.path("dev")])
        let own = try #require(try initRun.stdoutJSONObject()["publicKey"]?.stringValue)
        func pin(_ key: String) throws -> PushSealRun {
            try runPushSeal(["device", "pin", "--dir", sandbox.path("dev"), "--provider-key", key])
        }

        let padded = try pin(" \t\(providerKey)\n")
        #expect(padded.status == 0, "\(padded)")
        #expect(try padded.stdoutJSONObject()["providerKeyId"]?.stringValue == provider["id"]?.stringValue)

        for point in ["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "4Ot6fDtBuK4WVuP68Z_EatoJjeucMrH9hmIFFl9JuAA"] {
            let run = try pin(point)
            expectFailure(run, messagePrefix: "cannot pin this provider key: the provider public key is a point of small order", hint: true)
            #expect(run.stdout.isEmpty)
        }
        expectFailure(try pin(own), messagePrefix: "cannot pin this provider key: the provider public key is this store's own device public key", hint: true)

        let shown = try runPushSeal(["device", "show", "--dir", sandbox.path("dev"), "--json"]).stdoutJSONObject()
        guard case let .array(pinned)? = shown["pinnedProviderKeys"] else {
            Issue.record("no pinnedProviderKeys array: \(shown)")
            return
        }
        #expect(pinned.map { $0.objectValue?["publicKey"]?.stringValue } == [providerKey])
    }
}
