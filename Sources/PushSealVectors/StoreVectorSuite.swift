import PushSealJSON
import PushSealKeyStore
@_spi(Vectors) import PushSealCore

/// Key-store vectors (Docs/KEY-STORE.md §3): sealed rows, the master-key verifier, duplicate-log
/// tags, epoch-record tags, identity rows and the provider-key record (StoreIdentityVectors.swift)
/// under a fixed master key and fixed salts, so that a port that keeps its own store (Android) or
/// an other-language backend can check its at-rest format byte for byte.
package enum StoreVectorSuite {
    /// Schema name written into the file.
    package static let schema = "pushseal_v1_store_test_schema"
    /// Schema version written into the file.
    package static let schemaVersion = 1

    static let masterKey = VectorSuite.key("store master key").withUnsafeBytes { Array($0) }

    /// Every case as its JSON object, numbered from 1.
    package static func cases() -> [JSONValue] {
        var cases: [[JSONObject.Member]] = []
        func hex(_ bytes: [UInt8]) -> JSONValue { .string(Hex.encode(bytes)) }
        func number(_ value: Int64) -> JSONValue { .number(String(value)) }
        let master: JSONObject.Member = .init(name: "masterKey", value: hex(masterKey))

        let items: [(String, ConversationKey, String, Int64, String?, Int64, Int64?)] = [
            ("A current key: no label, no not-after time", VectorSuite.key("store item 1"), "conv-alice-bob", 1, nil, 1_764_400_000, nil),
            ("A retired key with a label and a Unicode conversation id", VectorSuite.key("store item 2"), "gruppe-ü-👋", 2, "phone",
             1_764_400_000, 1_764_486_400),
            ("Epoch 0, an empty label (not the same as none), not-after 0", VectorSuite.key("store item 3"), "c", 0, "", 0, 0),
        ]
        func appendItem(_ item: (String, ConversationKey, String, Int64, String?, Int64, Int64?), salt: [UInt8]) {
            let (comment, key, conversation, epoch, label, createdAt, notAfter) = item
            let (ad, sealed) = StoreVectorValues.sealedItem(
                key, conversation: conversation, epoch: epoch, label: label, createdAt: createdAt, notAfter: notAfter,
                masterKey: masterKey, salt: salt)
            cases.append([
                .init(name: "kind", value: .string("item")), .init(name: "comment", value: .string(comment)), master,
                .init(name: "key", value: hex(key.withUnsafeBytes { Array($0) })), .init(name: "kid", value: hex(key.id.bytes)),
                .init(name: "conversation", value: .string(conversation)), .init(name: "epoch", value: number(epoch)),
                .init(name: "label", value: label.map { .string($0) } ?? .null), .init(name: "createdAt", value: number(createdAt)),
                .init(name: "notAfter", value: notAfter.map(number) ?? .null), .init(name: "salt", value: hex(salt)),
                .init(name: "associatedDataHex", value: hex(ad)), .init(name: "sealedHex", value: hex(sealed)),
            ])
        }
        for (index, item) in items.enumerated() { appendItem(item, salt: VectorSuite.salt("store item \(index + 1)")) }
        let verifierSalt = VectorSuite.salt("store verifier")
        cases.append([
            .init(name: "kind", value: .string("verifier")), .init(name: "comment", value: .string("The master-key verifier")), master,
            .init(name: "salt", value: hex(verifierSalt)),
            .init(name: "verifierHex", value: hex(StoreVectorValues.verifier(masterKey: masterKey, salt: verifierSalt))),
        ])
        let envelope = VectorSuite.salt("store envelope a") + VectorSuite.salt("store envelope b")
        for (comment, conversation, messageID) in [("A duplicate-log entry", "conv-alice-bob", "m-0001"),
                                                   ("A duplicate-log entry with Unicode ids", "gruppe-ü-👋", "nachricht-ß")] {
            let (tag, envelopeTag) = StoreVectorValues.delivery(
                masterKey: masterKey, conversation: conversation, messageID: messageID, envelope: envelope)
            // Its mark in the log file (file format 9): seen at a fixed time, in a new 256-slot table.
            let seenAt: Int64 = 1_764_400_000
            let log = StoreVectorValues.deliveryLogSlot(masterKey: masterKey, tag: tag, seenAt: seenAt, envelopeTag: envelopeTag)
            cases.append([
                .init(name: "kind", value: .string("delivery")), .init(name: "comment", value: .string(comment)), master,
                .init(name: "conversation", value: .string(conversation)), .init(name: "messageId", value: .string(messageID)),
                .init(name: "envelopeHex", value: hex(envelope)), .init(name: "tagHex", value: hex(tag)),
                .init(name: "envelopeTagHex", value: hex(envelopeTag)),
                .init(name: "seenAt", value: number(seenAt)), .init(name: "logIdHex", value: hex(log.logID)),
                .init(name: "slotCount", value: number(log.slotCount)), .init(name: "slotIndex", value: number(log.slotIndex)),
                .init(name: "slotHex", value: hex(log.slot)), .init(name: "checkHex", value: hex(Array(log.slot.suffix(8)))),
                .init(name: "emptyLogHeaderHex", value: hex(log.emptyHeader)),
            ])
        }
        let recordKey = VectorSuite.key("store item 1").id.bytes
        func appendEpochRecord(_ comment: String, epoch: Int64, kid: [UInt8], removed: Bool) {
            cases.append([
                .init(name: "kind", value: .string("epochRecord")), .init(name: "comment", value: .string(comment)), master,
                .init(name: "conversation", value: .string("conv-alice-bob")), .init(name: "epoch", value: number(epoch)),
                .init(name: "kid", value: hex(kid)), .init(name: "removed", value: .bool(removed)),
                .init(name: "tagHex", value: hex(StoreVectorValues.epochRecordTag(
                    masterKey: masterKey, conversation: "conv-alice-bob", epoch: epoch, keyID: kid, removed: removed))),
            ])
        }
        appendEpochRecord("An epoch record", epoch: 3, kid: recordKey, removed: false)
        appendEpochRecord("An epoch record of a removed newest epoch (kid zeroed)", epoch: 3, kid: [UInt8](repeating: 0, count: 16), removed: true)
        // Integers a double cannot hold (2^53 + 1) and the top of the range (2^63 - 2, 2^63 - 1):
        // a port reads them exactly or its associated data differs.
        let big = (above53: Int64(1) << 53 + 1, belowMax: Int64.max - 1, max: Int64.max)
        appendItem(("Epoch 2^63 - 1, created 2^53 + 1, not-after 2^63 - 2 (integers read exactly)", VectorSuite.key("store item 4"),
                    "conv-alice-bob", big.max, nil, big.above53, big.belowMax), salt: VectorSuite.salt("store item 4"))
        appendItem(("Epoch 2^53 + 1, created 2^63 - 2, not-after 2^63 - 1", VectorSuite.key("store item 5"), "conv-alice-bob",
                    big.above53, "tablet", big.belowMax, big.max), salt: VectorSuite.salt("store item 5"))
        appendEpochRecord("An epoch record of epoch 2^63 - 1", epoch: big.max, kid: recordKey, removed: false)
        appendEpochRecord("An epoch record of epoch 2^53 + 1", epoch: big.above53, kid: recordKey, removed: false)
        // A key with a lifetime (`store add --not-after`, 90 days) before and after a rotation one
        // day later: the rotation retires it too, at min(not-after, rotation time), and reseals the
        // row since its not-after time is bound in (issue 24 item 4). Appended, so earlier tcIds stay.
        let lifetimeKey = VectorSuite.key("store item 6")
        let added: Int64 = 1_764_400_000, rotatedAt: Int64 = 1_764_486_400
        appendItem(("A key with a lifetime (not-after 90 days after its creation), before any rotation", lifetimeKey, "conv-lifetime", 1, nil,
                    added, added + 90 * 86_400), salt: VectorSuite.salt("store item 6"))
        appendItem(("The same key after a rotation one day later: retired at min(not-after, rotation time), resealed", lifetimeKey,
                    "conv-lifetime", 1, nil, added, min(added + 90 * 86_400, rotatedAt)), salt: VectorSuite.salt("store item 7"))
        // The identity rows and the provider-key record (Docs/KEY-STORE.md §3.6, §3.7), appended.
        cases += identityCases()
        return cases.enumerated().map { offset, members in
            .object(JSONObject(members: [.init(name: "tcId", value: .number(String(offset + 1)))] + members))
        }
    }

    /// The vector file's text (pretty-printed JSON, trailing newline).
    package static func render() -> String {
        let all = cases()
        var writer = JSONWriter(capacity: 1 << 14)
        writer.appendPretty(.object(JSONObject(members: [
            .init(name: "schema", value: .string(schema)),
            .init(name: "schemaVersion", value: .number(String(schemaVersion))),
            .init(name: "algorithm", value: .string("PushSeal-v1 key store, file format \(StoreVectorValues.fileFormatVersion)")),
            .init(name: "generator", value: .string("pushseal vectors generate --store")),
            .init(name: "numberOfTests", value: .number(String(all.count))),
            .init(name: "header", value: .array([
                .string("PushSeal key-store at-rest values (Docs/KEY-STORE.md §3): sealed rows, verifier, duplicate-log and epoch-record tags,"),
                .string("identity rows (device, provider and pinned keys, registered devices) and the provider-key record."),
                .string("A delivery case also gives its mark in the duplicate-log file (Docs/KEY-STORE.md §2.1): log id, home slot of a new 256-slot table, the 128-byte slot and its check, the new log's header."),
                .string("Byte strings are lowercase hex; every salt is fixed here and random in a real store."),
            ])),
            .init(name: "tests", value: .array(all)),
        ])))
        writer.appendRaw("\n")
        return writer.text
    }

    /// Every problem with one case; empty when it passes.
    static func check(_ test: JSONObject) -> [String] {
        func string(_ name: String) -> String? { test[name]?.stringValue }
        func bytes(_ name: String) -> [UInt8]? { string(name).flatMap(Hex.decode) }
        func integer(_ name: String) -> Int64? { test[name]?.integerValue }
        guard let master = bytes("masterKey"), master.count == 32, let kind = string("kind") else { return ["missing masterKey or kind"] }
        switch kind {
        case "item":
            guard let keyBytes = bytes("key"), let key = try? ConversationKey(rawBytes: keyBytes), let conversation = string("conversation"),
                  let epoch = integer("epoch"), let createdAt = integer("createdAt"), let salt = bytes("salt"), salt.count == 24
            else { return ["malformed item case"] }
            if bytes("kid") != key.id.bytes { return ["kid differs"] }
            let (ad, sealed) = StoreVectorValues.sealedItem(
                key, conversation: conversation, epoch: epoch, label: string("label"), createdAt: createdAt, notAfter: integer("notAfter"),
                masterKey: master, salt: salt)
            return (bytes("associatedDataHex") == ad ? [] : ["associatedDataHex differs"]) + (bytes("sealedHex") == sealed ? [] : ["sealedHex differs"])
        case "verifier":
            guard let salt = bytes("salt"), salt.count == 24 else { return ["malformed verifier case"] }
            return bytes("verifierHex") == StoreVectorValues.verifier(masterKey: master, salt: salt) ? [] : ["verifierHex differs"]
        case "delivery":
            guard let conversation = string("conversation"), let messageID = string("messageId"), let envelope = bytes("envelopeHex")
            else { return ["malformed delivery case"] }
            let (tag, envelopeTag) = StoreVectorValues.delivery(masterKey: master, conversation: conversation, messageID: messageID, envelope: envelope)
            var errors = (bytes("tagHex") == tag ? [] : ["tagHex differs"]) + (bytes("envelopeTagHex") == envelopeTag ? [] : ["envelopeTagHex differs"])
            guard let seenAt = integer("seenAt") else { return errors + ["malformed delivery case (seenAt)"] }
            let log = StoreVectorValues.deliveryLogSlot(masterKey: master, tag: tag, seenAt: seenAt, envelopeTag: envelopeTag)
            if bytes("logIdHex") != log.logID { errors.append("logIdHex differs") }
            if integer("slotCount") != log.slotCount || integer("slotIndex") != log.slotIndex { errors.append("slotIndex differs") }
            if bytes("slotHex") != log.slot || bytes("checkHex") != Array(log.slot.suffix(8)) { errors.append("slotHex differs") }
            if bytes("emptyLogHeaderHex") != log.emptyHeader { errors.append("emptyLogHeaderHex differs") }
            return errors
        case "epochRecord":
            guard let conversation = string("conversation"), let epoch = integer("epoch"), let kid = bytes("kid"), case let .bool(removed)? = test["removed"]
            else { return ["malformed epochRecord case"] }
            let tag = StoreVectorValues.epochRecordTag(masterKey: master, conversation: conversation, epoch: epoch, keyID: kid, removed: removed)
            return bytes("tagHex") == tag ? [] : ["tagHex differs"]
        case "identity":
            return checkIdentity(test, masterKey: master)
        case "providerKeyRecord":
            return checkProviderKeyRecord(test, masterKey: master)
        default:
            return ["unknown kind \(kind)"]
        }
    }
}
