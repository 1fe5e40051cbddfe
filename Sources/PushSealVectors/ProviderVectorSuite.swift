@_spi(Vectors) import PushSealCore
@_spi(Vectors) import PushSealProvider
import PushSealJSON

/// The provider-side test vectors (Vectors/pushseal-v1-provider.json): content, options, key
/// and salt in; the exact payload of the size policy out. Generated from the same fixed seed as
/// ``VectorSuite``, so the file regenerates byte for byte.
package enum ProviderVectorSuite {
    /// Schema name written into the file.
    package static let schema = "pushseal_v1_provider_test_schema"
    /// Schema version written into the file.
    package static let schemaVersion = 1

    /// Descriptions of the flags used in the file.
    package static let flagNotes: [(String, String)] = [
        ("Complete", "The whole content fits and is sealed as given."),
        ("Truncated", "The body is shortened at an extended grapheme cluster boundary, `…` appended, `trunc: true` set."),
        ("Grapheme", "The cut falls among multi-scalar grapheme clusters of the named script, or of a mixture of every break class."),
        ("Escapes", "Characters that JSON escapes (2 or 6 bytes each) count with their escaped length."),
        ("PadBlock", "A pad block other than the default 256."),
        ("PaddingCap", "The pad block's multiple would exceed the limit: padded to the largest length that fits."),
        ("ContentFree", "Not even body `…` fits: only cid, mid and ts are sealed (wake and fetch)."),
        ("DoesNotFit", "Not even the content-free payload fits: sealing fails with does_not_fit."),
        ("InvalidContent", "The input violates the content schema: sealing fails with invalid_content."),
        ("OuterFields", "APNs outer fields other than the defaults (thread id, category, level, score, localized placeholder)."),
        ("FCM", "An FCM HTTP v1 message (the limit counts `pushseal` plus the wire string)."),
        ("KeyBundle", "The options carry an in-band key bundle (`keyBundle`, SPEC §16.7), counted first against the limit; with Truncated, ContentFree or DoesNotFit, the bundle is what causes that path."),
        ("MemberOrder", "Every optional aps member at once: the payload pins the order the writer uses (SPEC §9.1)."),
        ("LargeInteger", "ts or badge above 2^53 (up to 2^63 - 1), out of the content's ranges, or the largest allowed ts: integers are read exactly."),
    ]

    /// The provider's conversation key K of every case.
    static let conversationKey = VectorSuite.key("provider conversation epoch 1")
    /// The device every case is sealed to (the bundle vectors' standard device).
    static let deviceKeyID = BundleVectorSuite.standardDevice.deviceKeyID
    /// The sealing key of every case: that device's key K_d.
    static let key = conversationKey.deviceKey(for: deviceKeyID)
    /// The sending time of every content.
    static let sentAt = VectorSuite.now - 60

    /// Every case, numbered from 1.
    package static func cases() -> [ProviderVectorCase] {
        var builder = ProviderCaseBuilder()
        builder.defineAll()
        return builder.cases.enumerated().map { offset, element in
            var numbered = element
            numbered.tcId = offset + 1
            return numbered
        }
    }

    /// The vector file's text (pretty-printed JSON, trailing newline).
    package static func render() -> String {
        let all = cases()
        var writer = JSONWriter(capacity: 1 << 20)
        writer.appendPretty(.object(JSONObject(members: [
            .init(name: "schema", value: .string(schema)),
            .init(name: "schemaVersion", value: .number(String(schemaVersion))),
            .init(name: "algorithm", value: .string("PushSeal-v1")),
            .init(name: "generator", value: .string("pushseal vectors generate --provider")),
            .init(name: "numberOfTests", value: .number(String(all.count))),
            .init(name: "header", value: .array([
                .string("PushSeal v1 provider-side test vectors: the size policy and payload shapes (Docs/SPEC.md §6.3, §9; Vectors/README.md)."),
                .string("Sealing `input` under `key` with `salt`, `padBlock`, `transport` and `options` gives `payload` byte for byte, or `error`."),
                .string("Byte strings are lowercase hex; `wire`, `payload` and `content` are exact strings; keys and salts come from a fixed seed."),
            ])),
            .init(name: "notes", value: .object(JSONObject(members: flagNotes.map { .init(name: $0.0, value: .string($0.1)) }))),
            .init(name: "tests", value: .array(all.map(\.jsonValue))),
        ])))
        writer.appendRaw("\n")
        return writer.text
    }
}

/// Defines every provider case.
struct ProviderCaseBuilder {
    private(set) var cases: [ProviderVectorCase] = []
    let key = ProviderVectorSuite.key

    /// The vectors' usual APNs options (as in the receiver vectors).
    static let standardAPNs = VectorTransports.apnsOptions
    static let standardFCM = VectorTransports.fcmOptions

    /// Grapheme samples: (script, text); each is repeated into a body far over the budget.
    static let graphemeSamples: [(String, String)] = [
        ("Latin with combining marks", "Cafe\u{301} cre\u{300}me bru\u{302}le\u{301}e\u{323} "),
        ("Devanagari conjuncts (GB9c)", "क्षत्रिय ज्ञान स्त्री "),
        ("Bengali with ZWJ (GB9c)", "ক্‍ষ রাষ্ট্র "),
        ("Gujarati and Odia conjuncts (GB9c)", "ક્ષ ଲ୍ଲ "),
        ("Tamil (virama is not a GB9c linker)", "ஷ்ரீ தமிழ் "),
        ("Thai with spacing marks", "ภาษาไทยน้ำ "),
        ("Hangul syllables", "한국어 안녕하세요 "),
        ("Hangul conjoining jamo (L V T)", "\u{1100}\u{1161}\u{11A8}\u{1102}\u{1165}\u{1112}\u{1161}\u{11AB} "),
        ("emoji ZWJ sequences", "👨‍👩‍👧‍👦🧑‍🚀👩🏽‍💻 "),
        ("emoji skin tones", "👍🏽👋🏻🙌🏿 "),
        ("regional indicator flags", "🇩🇪🇫🇷🇯🇵🇧🇷"),
        ("keycaps and tag sequences", "1️⃣#️⃣🏴󠁧󠁢󠁥󠁮󠁧󠁿 "),
        ("Arabic with harakat and a prepended number sign", "مَرْحَبًا \u{0600}١٢ "),
        ("Hebrew with niqqud", "שָׁלוֹם עֲלֵיכֶם "),
        ("CJK with variation selectors", "漢字\u{FE0F}葛\u{E0100}東京 "),
        ("kana with combining voiced marks", "か\u{3099}き\u{309A}ひらがな "),
        ("stacked combining marks", "Z\u{351}\u{352}\u{357}\u{358}a\u{359}\u{35A}\u{35B}l\u{35C}\u{35D}g\u{35E}o "),
        ("CR LF and control characters (escaped)", "line\r\nnext\u{1}\u{7}\t\"q\\ "),
    ]

    /// Scalars and short sequences whose mixtures exercise every grapheme break rule (CR LF,
    /// controls, Hangul L/V/T/LV/LVT, Extend, ZWJ, SpacingMark, Prepend, regional indicators,
    /// Extended_Pictographic, GB9c consonants and linkers) and JSON escapes.
    static let graphemePool: [String] = [
        "a", " ", "\"", "\\", "\r", "\n", "\u{1}", "\u{1100}", "\u{1161}", "\u{11A8}", "가", "각", "\u{0301}", "\u{0308}",
        "\u{200D}", "\u{200C}", "\u{FE0F}", "\u{1F3FD}", "\u{0903}", "\u{093F}", "\u{0600}", "\u{110BD}", "क", "ष", "\u{094D}",
        "ক", "\u{09CD}", "\u{0BCD}", "\u{0E33}", "👩", "❤", "🏳", "\u{1F1E6}", "\u{1F1FA}", "\u{1F3F4}", "\u{E0067}",
        "\u{E007F}", "\u{20E3}", "漢", "\u{E0100}",
    ]

    /// A deterministic mixture of `graphemePool` (a linear congruential generator from `seed`).
    static func graphemeMixture(seed: UInt64, count: Int) -> String {
        var state = seed
        var text = ""
        for _ in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            text += graphemePool[Int((state >> 33) % UInt64(graphemePool.count))]
        }
        return text
    }

    /// Placeholder body lengths that leave about 200 content bytes; three values move the cut.
    static let smallBudgetPlaceholders = [3630, 3634, 3641]

    func placeholder(length: Int) -> String {
        let sentence = "Open the app to read it. "
        var text = String(repeating: sentence, count: length / sentence.utf8.count + 1)
        text = String(text.utf8.prefix(length))!
        return text
    }

    func content(
        body: String?, title: String? = "Alice", mid: String = "m-0001", cid: String = "conv-provider",
        configure: (inout NotificationContent) -> Void = { _ in }
    ) -> NotificationContent {
        var value = NotificationContent(conversationID: cid, messageID: mid, sentAt: ProviderVectorSuite.sentAt, title: title, body: body)
        configure(&value)
        return value
    }

    mutating func add(
        _ comment: String, flags: [String], input: NotificationContent, transport: ProviderVectorCase.Transport,
        padBlock: Int = NotificationSealer.defaultPadBlock, label: String
    ) {
        cases.append(ProviderVectorCase(
            comment: comment, flags: flags, key: key, perDevice: (ProviderVectorSuite.conversationKey, ProviderVectorSuite.deviceKeyID),
            salt: VectorSuite.salt("provider \(label)"), padBlock: padBlock, input: input, transport: transport))
    }

    mutating func defineAll() {
        defineComplete()
        defineGraphemeTruncation()
        defineGraphemeMixtures()
        defineLargeTruncation()
        definePadding()
        defineContentFree()
        defineErrors()
        defineKeyBundles()
        defineLargeIntegers()
        defineMemberOrder()
    }

    private mutating func defineComplete() {
        let apns = ProviderVectorCase.Transport.apns(Self.standardAPNs)
        add("A short message sealed whole (APNs)", flags: ["Complete"], input: content(body: "See you at 8?"),
            transport: apns, label: "complete apns")
        add("A short message sealed whole (FCM)", flags: ["Complete", "FCM"], input: content(body: "See you at 8?"),
            transport: .fcm(Self.standardFCM), label: "complete fcm")
        add("FCM with normal priority and a one-hour ttl", flags: ["Complete", "FCM"], input: content(body: "Later"),
            transport: .fcm(FCMOptions(token: "fcm-token:APA91b-x_y", priority: .normal, timeToLive: 3600)), label: "complete fcm options")
        add("Every optional field; extras sorted by their UTF-8 bytes", flags: ["Complete"],
            input: content(body: "Dinner at Luigi's 🍝") {
                $0.subtitle = "Family"
                $0.sender = .init(id: "u-alice", name: "Alice Liddell")
                $0.thread = "family"
                $0.category = "MESSAGE_REPLY"
                $0.badge = 3
                $0.extras = ["url": "app://c/42", "Z": "last?", "é": "accent", "a": "first"]
            }, transport: apns, label: "complete all fields")
        add("Strings with characters JSON escapes", flags: ["Complete", "Escapes"],
            input: content(body: "tab\there \"quoted\" back\\slash\nnew line \u{1}\u{1F} / \u{7F} \u{2028}", title: "A \"title\""),
            transport: apns, label: "complete escapes")
        add("An input already marked trunc keeps it", flags: ["Complete"],
            input: content(body: "shortened by the app…") { $0.isTruncated = true }, transport: apns, label: "complete trunc input")
        add("An empty body", flags: ["Complete"], input: content(body: ""), transport: apns, label: "complete empty body")
        add("A content-free input (cid, mid, ts) that fits is sealed as given", flags: ["Complete", "ContentFree"],
            input: content(body: nil, title: nil), transport: apns, label: "complete content-free input")
        var outer = APNsOptions(
            placeholder: .text(title: nil, body: "New message"), sound: "chime.caf", category: "MESSAGE",
            interruptionLevel: .timeSensitive, relevanceScore: 0.25, threadID: .plain("inbox"))
        add("Outer fields: plain thread-id, category, interruption level, relevance score; no title", flags: ["Complete", "OuterFields"],
            input: content(body: "Hi"), transport: .apns(outer), label: "outer fields")
        outer = APNsOptions(relevanceScore: 0.33333, threadID: .omitted)
        add("Default placeholder, no thread-id, relevance score rounded to three decimals", flags: ["Complete", "OuterFields"],
            input: content(body: "Hi"), transport: .apns(outer), label: "outer omitted")
        outer = APNsOptions(relevanceScore: 1, threadID: .opaque)
        add("Relevance score 1", flags: ["Complete", "OuterFields"], input: content(body: "Hi"), transport: .apns(outer),
            label: "outer score one")
        outer = APNsOptions(
            placeholder: .localized(titleKey: "NEW_TITLE", titleArguments: ["Ana"], bodyKey: "NEW_BODY", bodyArguments: ["2", "\"x\""]),
            interruptionLevel: .passive)
        add("Localized placeholder with arguments", flags: ["Complete", "OuterFields"], input: content(body: "Hi"),
            transport: .apns(outer), label: "outer localized")
        outer = APNsOptions(placeholder: .localized(titleKey: nil, titleArguments: [], bodyKey: "NEW_BODY", bodyArguments: []))
        add("Localized placeholder without a title or arguments", flags: ["Complete", "OuterFields"], input: content(body: "Hi"),
            transport: .apns(outer), label: "outer localized bare")
    }

    private mutating func defineGraphemeTruncation() {
        for (script, sample) in Self.graphemeSamples {
            var body = ""
            while body.utf8.count < 700 { body += sample }
            for (variant, length) in Self.smallBudgetPlaceholders.enumerated() {
                let options = APNsOptions(placeholder: .text(title: "New message", body: placeholder(length: length)), sound: "default")
                let flags = ["Truncated", "Grapheme"] + (script.hasPrefix("CR LF") ? ["Escapes"] : [])
                add("Truncation in \(script), cut \(variant + 1) of 3 (a long placeholder leaves about 200 content bytes)",
                    flags: flags, input: content(body: body), transport: .apns(options), label: "grapheme \(script) \(variant)")
            }
        }
    }

    private mutating func defineGraphemeMixtures() {
        for seed in 1...6 {
            let body = Self.graphemeMixture(seed: UInt64(seed), count: 400)
            for (variant, length) in Self.smallBudgetPlaceholders.enumerated() {
                let options = APNsOptions(placeholder: .text(title: "New message", body: placeholder(length: length)), sound: "default")
                add("Truncation in a pseudo-random mixture of every grapheme break class (seed \(seed)), cut \(variant + 1) of 3",
                    flags: ["Truncated", "Grapheme", "Escapes"], input: content(body: body), transport: .apns(options),
                    label: "grapheme mixture \(seed) \(variant)")
            }
        }
    }

    private mutating func defineLargeTruncation() {
        let emoji = String(repeating: "Sehr gut 👍🏽 — 👨‍👩‍👧‍👦 ", count: 250)
        add("A long body truncated to the full APNs limit", flags: ["Truncated", "Grapheme"], input: content(body: emoji),
            transport: .apns(Self.standardAPNs), label: "large apns")
        add("A long body truncated to the FCM limit", flags: ["Truncated", "Grapheme", "FCM"], input: content(body: emoji),
            transport: .fcm(Self.standardFCM), label: "large fcm")
        let devanagari = String(repeating: "क्षत्रिय ज्ञान ", count: 200)
        add("A long Devanagari body truncated to the FCM limit", flags: ["Truncated", "Grapheme", "FCM"],
            input: content(body: devanagari), transport: .fcm(Self.standardFCM), label: "large fcm devanagari")
        let controls = String(repeating: "\u{1}", count: 1000)
        add("A body of control characters (6 bytes each when escaped) truncated", flags: ["Truncated", "Escapes"],
            input: content(body: controls), transport: .apns(Self.standardAPNs), label: "large controls")
    }

    private mutating func definePadding() {
        let apns = ProviderVectorCase.Transport.apns(Self.standardAPNs)
        for block in [1, 16, 1000] {
            add("Pad block \(block)", flags: ["Complete", "PadBlock"], input: content(body: "See you at 8?"), transport: apns,
                padBlock: block, label: "pad block \(block)")
        }
        add("Pad block 4096: padded to the largest length that fits (APNs)", flags: ["Complete", "PadBlock", "PaddingCap"],
            input: content(body: "short"), transport: apns, padBlock: 4096, label: "pad cap apns")
        add("Pad block 4096: padded to the largest length that fits (FCM)", flags: ["Complete", "PadBlock", "PaddingCap", "FCM"],
            input: content(body: "short"), transport: .fcm(Self.standardFCM), padBlock: 4096, label: "pad cap fcm")
        let body = String(repeating: "a", count: 2800)
        add("A 2,800-byte body fits whole, but the next multiple of 256 does not: capped", flags: ["Complete", "PaddingCap"],
            input: content(body: body), transport: apns, label: "pad cap 256")
        let options = APNsOptions(placeholder: .text(title: "New message", body: placeholder(length: 3630)), sound: "default")
        add("Content just within a small budget, padded up to the cap", flags: ["Complete", "PaddingCap"],
            input: content(body: String(repeating: "b", count: 100)), transport: .apns(options), label: "pad cap small")
    }

    private mutating func defineContentFree() {
        let title = String(repeating: "T", count: 3100)
        add("The title alone exceeds the budget: content-free (APNs)", flags: ["ContentFree"],
            input: content(body: "Hello", title: title), transport: .apns(Self.standardAPNs), label: "content-free apns")
        add("The title alone exceeds the budget: content-free (FCM)", flags: ["ContentFree", "FCM"],
            input: content(body: "Hello", title: title), transport: .fcm(Self.standardFCM), label: "content-free fcm")
        let options = APNsOptions(placeholder: .text(title: "New message", body: placeholder(length: 3800)), sound: "default")
        add("A placeholder so long that only cid, mid and ts fit", flags: ["ContentFree"],
            input: content(body: "Hello") { $0.extras = ["k": "v"] }, transport: .apns(options), label: "content-free placeholder")
    }

    private mutating func defineErrors() {
        let giant = APNsOptions(placeholder: .text(title: nil, body: placeholder(length: 4100)))
        add("A placeholder over the limit by itself", flags: ["DoesNotFit"], input: content(body: "Hello"),
            transport: .apns(giant), label: "does not fit placeholder")
        // The longest escaped identifiers: quotes (2 bytes each when escaped; C0 controls are refused).
        let quotes = String(repeating: "\"", count: 256)
        let options = APNsOptions(placeholder: .text(title: nil, body: placeholder(length: 2700)))
        add("cid and mid of 256 quotes (2 escaped bytes each) with a long placeholder", flags: ["DoesNotFit", "Escapes"],
            input: content(body: "Hello", mid: quotes, cid: quotes), transport: .apns(options), label: "does not fit ids")
        add("A title without a body is not the content-free form", flags: ["InvalidContent"],
            input: content(body: nil, title: "Alice"), transport: .apns(Self.standardAPNs), label: "invalid no body")
        add("An empty cid", flags: ["InvalidContent"], input: content(body: "x", cid: ""),
            transport: .apns(Self.standardAPNs), label: "invalid empty cid")
        add("A cid with a control character (U+0000)", flags: ["InvalidContent"], input: content(body: "x", cid: "conv\u{0}1"),
            transport: .apns(Self.standardAPNs), label: "invalid control cid")
        add("A thread with a control character (U+001F)", flags: ["InvalidContent"], input: content(body: "x") { $0.thread = "t\u{1F}" },
            transport: .apns(Self.standardAPNs), label: "invalid control thread")
    }

    /// Integers a double cannot hold (2^53 + 1) and the top of the 64-bit range (2^63 − 2, 2^63 − 1)
    /// in `ts` and `badge`: out of the content's ranges (SPEC §5.1), so sealing fails with
    /// invalid_content — a runner must read them exactly to hand them to its sealer at all.
    private mutating func defineLargeIntegers() {
        for (name, value) in [("2^53 + 1", Int64(1) << 53 + 1), ("2^63 - 2", Int64.max - 1), ("2^63 - 1", Int64.max)] {
            add("ts \(name): beyond 253402300799", flags: ["InvalidContent", "LargeInteger"],
                input: content(body: "x") { $0.sentAt = value }, transport: .apns(Self.standardAPNs), label: "large ts \(name)")
        }
        add("badge 2^53 + 1: beyond 2147483647", flags: ["InvalidContent", "LargeInteger"],
            input: content(body: "x") { $0.badge = Int64(1) << 53 + 1 }, transport: .apns(Self.standardAPNs), label: "large badge")
        add("badge 2^63 - 1: beyond 2147483647", flags: ["InvalidContent", "LargeInteger"],
            input: content(body: "x") { $0.badge = Int64.max }, transport: .fcm(Self.standardFCM), label: "max badge")
        add("ts 253402300799 (the largest allowed): sealed", flags: ["Complete", "LargeInteger"],
            input: content(body: "x") { $0.sentAt = 253_402_300_799 }, transport: .apns(Self.standardAPNs), label: "largest ts")
    }

    /// SPEC §9.1's member order with every optional member present at once: alert (title, body),
    /// mutable-content, sound, thread-id, category, interruption-level, relevance-score; then
    /// pushseal and pushseal-bundle.
    private mutating func defineMemberOrder() {
        var every = APNsOptions(
            placeholder: .text(title: "New message", body: "Open the app to read it"), sound: "default", category: "MESSAGE",
            interruptionLevel: .active, relevanceScore: 0.5, threadID: .opaque)
        every.keyBundle = Self.keyBundle(key, label: "member order")
        add("Every optional aps member and a key bundle: the writer's member order (SPEC §9.1)",
            flags: ["Complete", "OuterFields", "KeyBundle", "MemberOrder"], input: content(body: "Hi"), transport: .apns(every),
            label: "member order")
        let localized = APNsOptions(
            placeholder: .localized(titleKey: "NEW_TITLE", titleArguments: ["Ana"], bodyKey: "NEW_BODY", bodyArguments: ["2"]),
            sound: "default", category: "MESSAGE", interruptionLevel: .critical, relevanceScore: 0, threadID: .plain("inbox"))
        add("Every optional aps member with a localized placeholder: title-loc-key, title-loc-args, loc-key, loc-args first",
            flags: ["Complete", "OuterFields", "MemberOrder"], input: content(body: "Hi"), transport: .apns(localized),
            label: "member order localized")
    }

    /// A key bundle delivering `key` (the device's K_d) for `conversation` (epoch 1, current), sealed
    /// deterministically as the bundle vectors seal theirs: device, provider and ephemeral key pairs
    /// from DeriveKeyPair of seeded inputs. Every bundle is 538 characters.
    static func keyBundle(_ key: ConversationKey, conversation: String = "conv-provider", label: String) -> KeyBundle {
        let ephemeral = try! HybridPublicKeyEncryption.deriveKeyPair(inputKeyMaterial: BundleVectorSuite.ikm("ephemeral provider " + label))
        let contents = try! KeyBundleContents(
            key: key, conversation: conversation, epoch: 1, since: BundleVectorSuite.since, retireBy: nil, expires: BundleVectorSuite.expires)
        return try! KeyBundle.seal(
            contents, provider: BundleVectorSuite.standardProvider, devicePublicKey: BundleVectorSuite.standardDevice.publicKey,
            ephemeral: ephemeral).bundle
    }

    /// In-band key bundles (SPEC §16.7): the bundle member is counted first, so the truncated,
    /// content-free and does-not-fit cases take another path without the bundle (a test checks this).
    private mutating func defineKeyBundles() {
        let bundle = Self.keyBundle(key, label: "standard")
        var apns = Self.standardAPNs
        apns.keyBundle = bundle
        var fcm = Self.standardFCM
        fcm.keyBundle = bundle
        add("A key bundle next to a short message (APNs)", flags: ["Complete", "KeyBundle"], input: content(body: "See you at 8?"),
            transport: .apns(apns), label: "bundle apns")
        add("A key bundle next to a short message (FCM data)", flags: ["Complete", "KeyBundle", "FCM"],
            input: content(body: "See you at 8?"), transport: .fcm(fcm), label: "bundle fcm")
        let longID = String(repeating: "é", count: 128)  // 256 UTF-8 bytes: a bundle of the one length, 538 characters
        var largest = Self.standardAPNs
        largest.keyBundle = Self.keyBundle(key, conversation: longID, label: "largest")
        add("A key bundle for a 256-byte conversation id (538 characters, as every bundle)", flags: ["Complete", "KeyBundle"],
            input: content(body: "See you at 8?", cid: longID), transport: .apns(largest), label: "bundle largest")
        let emoji = "Sehr gut 👍🏽 — 👨‍👩‍👧‍👦 "
        add("A 2,736-byte body that fits whole without the bundle is truncated to make room for it (APNs)",
            flags: ["Truncated", "Grapheme", "KeyBundle"], input: content(body: String(repeating: emoji, count: 57)),
            transport: .apns(apns), label: "bundle truncated apns")
        add("A 2,880-byte body that fits whole without the bundle is truncated to make room for it (FCM)",
            flags: ["Truncated", "Grapheme", "KeyBundle", "FCM"], input: content(body: String(repeating: emoji, count: 60)),
            transport: .fcm(fcm), label: "bundle truncated fcm")
        add("A title that fits without the bundle: with it only cid, mid and ts fit (APNs)", flags: ["ContentFree", "KeyBundle"],
            input: content(body: "Hello", title: String(repeating: "T", count: 2750)), transport: .apns(apns),
            label: "bundle content-free apns")
        add("A title that fits without the bundle: with it only cid, mid and ts fit (FCM)", flags: ["ContentFree", "KeyBundle", "FCM"],
            input: content(body: "Hello", title: String(repeating: "T", count: 2900)), transport: .fcm(fcm),
            label: "bundle content-free fcm")
        var long = APNsOptions(placeholder: .text(title: "New message", body: placeholder(length: 3790)), sound: "default")
        long.keyBundle = bundle
        add("A placeholder that leaves room for the content-free payload, but not for it and the bundle", flags: ["DoesNotFit", "KeyBundle"],
            input: content(body: "Hello"), transport: .apns(long), label: "bundle does not fit")
        // A bundle of another key than the notification's: the kid is sealed, so only the
        // sealing process knows it (NotificationSealer refuses it; a device says envelope_mismatch).
        // Not a file case: the file's bundle is parsed text.
    }
}
