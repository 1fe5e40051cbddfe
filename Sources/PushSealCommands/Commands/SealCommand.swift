import PushSealCLIKit
@_spi(Vectors) import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
@_spi(Vectors) import PushSealProvider
import PushSealJSON
import PushSealPlatform

/// `pushseal seal`: content JSON in, the exact APNs or FCM payload out.
enum SealCommand {
    static let store = Option<FilePath?>(
        "store", valueName: "dir", abstract: "Seal with the conversation's current key from this key store directory (or PostgreSQL key directory URI).")
    static let salt = Option<[UInt8]?>(
        "salt", valueName: "salt",
        abstract: "A fixed 24-byte salt, base64url: deterministic output for test vectors ONLY (needs --test-vectors-only).",
        discussion: "Reusing a salt with the same key reuses the message key and breaks confidentiality.",
        parse: ArgumentDecoding.salt(fromBase64URL:))
    static let testVectorsOnly = Flag(
        "test-vectors-only",
        abstract: "Allow --salt: the output is a test vector, never a notification to send.",
        discussion: "Two contents sealed under one key with one salt give away their XOR. Never with --store or --batch.")
    static let padBlock = Option<Int>(
        "pad-block", valueName: "n", abstract: "Pad the content to a multiple of n bytes (never past the transport limit).",
        default: 256, in: 1...Envelope.maximumByteCount)
    static let transport = Option<Transport>(
        "transport", valueName: "transport",
        abstract: "The payload to produce: APNs, FCM for Android, or FCM for an iOS device (fcm-apns).", default: .apns)
    static let fcmToken = Option<String?>(
        "fcm-token", valueName: "token", abstract: "The device registration token for message.token (FCM only).")
    static let placeholderTitle = Option<String?>(
        "placeholder-title", valueName: "text", abstract: "The visible APNs alert title (what Apple sees).")
    static let placeholderBody = Option<String>(
        "placeholder-body", valueName: "text", abstract: "The visible APNs alert body (what Apple sees).",
        default: "New message")
    static let withHeaders = Flag(
        "with-headers", abstract: "APNs: print the request headers with the body (needs --apns-topic).")
    static let batch = Flag(
        "batch", abstract: "Read one content per line (JSON lines); write one payload per line.")
    static let device = Option<KeyID?>(
        "device", valueName: "id",
        abstract: "Seal for this device (its device key id, base64url): under its own key, derived from the conversation's current key (needs --store)."
    ) { (text) throws(ValueError) -> KeyID in
        guard let id = KeyID(base64URL: text) else { throw ValueError("not a device key id (16 bytes of base64url)") }
        return id
    }
    static let file = CommonOptions.inputFile("content (JSON, or JSON lines with --batch)")

    static let spec = CommandSpec(
        name: "seal",
        abstract: "Seal a notification content into an APNs or FCM payload.",
        discussion: """
            Reads the content JSON (cid, mid, ts, body, and optional title, subtitle, sender, \
            thread, category, badge, x), encodes it deterministically, pads it, seals it under \
            the conversation key and prints the exact payload bytes: an APNs JSON body \
            (placeholder alert, mutable-content 1, opaque thread-id) or an FCM HTTP v1 \
            data-only message, or with --transport fcm-apns an FCM message for an iOS device \
            (an apns block with the APNs headers and payload). A body too long for the transport is shortened at a character \
            boundary and marked trunc; if even an empty body does not fit, a content-free \
            wake-and-fetch payload is sent instead.

            The key comes from --key, --key-file, or --store (the current epoch of the \
            content's conversation). --conversation, when given, must equal the content's cid.

            With --batch, each input line is a content object or a request wrapper \
            {"content":{…},"key":…,"fcm_token":…,"collapse_id":…}; each output line is the \
            payload or {"error":{"line":N,"code":…,"message":…}}, in input order, sealed on \
            all cores. Input of any length streams through in constant memory, and each \
            result is written as soon as its line is sealed, so a backend can keep one \
            process open and read each result after writing its line. Exit status 1 when \
            any line failed (see Docs/PROVIDER.md §5).

            With --with-headers (APNs), each payload is printed as \
            {"headers":{…},"payload":{…}}, the headers being apns-push-type, apns-topic, \
            apns-priority, apns-expiration and apns-collapse-id when set; add a "token" and \
            the line is ready for 'pushseal send'.

            With --device <id> (and --store), the notification is sealed for that device: under \
            its own key K_d, derived from the conversation's current key K (SPEC §4.4), so its kid \
            and thread-id are that device's alone. In --batch, a wrapper's "device" member does \
            the same per line. An epoch created before per-device keys (its K went out in \
            format-1 bundles) is refused: rotate the conversation first. A bare --key is the \
            device's key itself.

            With --registration (and --store, a key directory with a provider key), the \
            notification is sealed for that device and also carries its key bundle, as the \
            "pushseal-bundle" member (SPEC §16.7): a device that has not got this epoch's key \
            installs it and then decrypts. The bundle is counted first against the limit; the \
            body is shortened to make room for it.

            Examples:
              pushseal seal --key-file conversation.key < content.json > payload.json
              pushseal seal --store keys --conversation c1 < content.json
              pushseal seal --store keys --device "$DEVICE_KEY_ID" < content.json
              pushseal seal --key-file c.key --transport fcm --fcm-token "$T" < content.json
              pushseal seal --key-file c.key --apns-topic com.example.chat \\
                --with-headers < content.json
            """,
        usage: "(--key <key> | --key-file <file> | --store <dir>) [<options>] [<file>]",
        arguments: [file],
        options: [
            CommonOptions.key, CommonOptions.keyFile, store, CommonOptions.conversation, CommonOptions.masterKeyFile,
            salt, testVectorsOnly, padBlock, transport, fcmToken, SendCommand.apnsTopic, placeholderTitle, placeholderBody, withHeaders,
            batch, BundleCommand.registration, device,
        ],
        run: run)

    /// Where the sealing key comes from.
    enum KeySource {
        /// `--key` or `--key-file`.
        case key(ConversationKey)
        /// `--store`: the current key of the content's conversation.
        case store(StoreCommand.Location)
    }

    /// The validated command line.
    struct Options {
        var keySource: KeySource
        /// `--conversation`: the cid every content must have, when given.
        var expectedConversation: String?
        var salt: [UInt8]?
        var padBlock: Int
        var transport: Transport
        var apnsTopic: String?
        var withHeaders: Bool
        var fcmToken: String?
        var placeholderTitle: String?
        var placeholderBody: String
        var batch: Bool
        /// nil or "-": standard input.
        var inputPath: String?
        /// `--device`: seal for this device's key.
        var device: KeyID?
    }

    /// Checks and converts every option; usage errors exit 64 before any input is read.
    static func options(_ context: CommandContext) throws(CLIError) -> Options {
        let arguments = context.arguments
        guard let keySource = try keySource(context) else {
            throw .usage("Missing key: give '--key <key>', '--key-file <file>', or '--store <dir>'.")
        }
        let salt = try arguments[Self.salt]
        let isBatch = arguments[Self.batch]
        if salt != nil && isBatch {
            throw .usage("'--salt <salt>' cannot be used with '--batch': every notification needs a fresh salt.")
        }
        if salt != nil, case .store = keySource {
            throw .usage("'--salt <salt>' cannot be used with '--store <dir>': a store's keys are real keys, and a fixed salt reuses their keystream.")
        }
        if salt != nil, !arguments[Self.testVectorsOnly] {
            throw .usage(
                "'--salt <salt>' makes test vectors only: add '--test-vectors-only' to say so. Sealing two contents under one key with one salt gives away their XOR.")
        }
        if arguments.isPresent(BundleCommand.registration) {
            guard case .store = keySource else { throw .usage("'--registration <file>' needs '--store <dir>': the key directory's provider key seals the bundle.") }
            if isBatch { throw .usage("'--registration <file>' cannot be used with '--batch' (one device per payload).") }
        }
        let device = try arguments[Self.device]
        if device != nil {
            guard case .store = keySource else {
                throw .usage("'--device <id>' needs '--store <dir>': a bare '--key' is already the device's key.")
            }
            if isBatch { throw .usage("'--device <id>' cannot be used with '--batch': give each line's \"device\" member instead.") }
        }
        if salt == nil, arguments[Self.testVectorsOnly] {
            throw .usage("'--test-vectors-only' only goes with '--salt <salt>'.")
        }
        let transport = try arguments[Self.transport]
        if arguments.isPresent(Self.fcmToken) && transport == .apns {
            throw .usage("'--fcm-token <token>' applies to '--transport fcm' and 'fcm-apns' only.")
        }
        if arguments[Self.withHeaders] && (transport != .apns || !arguments.isPresent(SendCommand.apnsTopic)) {
            throw .usage("'--with-headers' needs '--transport apns' and '--apns-topic <bundle-id>' (FCM messages carry their headers inside).")
        }
        return Options(
            keySource: keySource,
            expectedConversation: try arguments[CommonOptions.conversation],
            salt: salt,
            padBlock: try arguments[Self.padBlock],
            transport: transport,
            apnsTopic: try arguments[SendCommand.apnsTopic],
            withHeaders: arguments[Self.withHeaders],
            fcmToken: try arguments[Self.fcmToken],
            placeholderTitle: try arguments[Self.placeholderTitle],
            placeholderBody: try arguments[Self.placeholderBody],
            batch: isBatch,
            inputPath: try arguments[Self.file],
            device: device)
    }

    /// The key source named by `--key`, `--key-file` or `--store` (with `--master-key-file`),
    /// or nil when none is given.
    static func keySource(_ context: CommandContext) throws(CLIError) -> KeySource? {
        let arguments = context.arguments
        let hasDirectKey = arguments.isPresent(CommonOptions.key) || arguments.isPresent(CommonOptions.keyFile)
        if arguments.isPresent(store) {
            guard !hasDirectKey else { throw .usage("Give either a key (--key, --key-file) or '--store <dir>', not both.") }
            return .store(try StoreCommand.location(try arguments[store]!, option: store, context, acceptsURI: true))
        }
        if arguments.isPresent(CommonOptions.masterKeyFile) { throw .usage("'--master-key-file <file>' is only used with '--store <dir>'.") }
        return try ArgumentDecoding.conversationKey(context).map(KeySource.key)
    }

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let options = try options(context)
        let sealer: NotificationSealer
        do {
            sealer = try NotificationSealer(padBlock: options.padBlock)
        } catch {
            throw .failure("\(error)")
        }
        let keyProvider = try makeKeyProvider(options.keySource)
        var deviceKeys: DeviceKeys?
        if case let .store(location) = options.keySource { deviceKeys = DeviceKeys(directory: try StoreCommand.openDirectory(location), location: location) }
        if options.batch {
            return try runBatch(&context, options: options, sealer: sealer, keyProvider: keyProvider, deviceKeys: deviceKeys)
        }
        let input = try context.readInput(from: options.inputPath, what: "content")
        let request: SealRequestLine
        do {
            request = try SealRequestLine(parsing: input)
        } catch {
            throw .failure("\(error)", hints: "the content is a JSON object with cid, mid, ts and body (Docs/SPEC.md §5)")
        }
        let item = try check(request, options: options)
        let bundle = try keyBundle(context, options: options, conversation: item.content.conversationID, directory: deviceKeys?.directory)
        if let bundle, let device = options.device ?? request.device, device != bundle.device {
            throw .usage("'--device <id>' is not the device of '--registration <file>' (\(bundle.device)).")
        }
        let result: (body: [UInt8], path: SealPath)
        do {
            var perDevice: ConversationKey?
            if bundle == nil, let device = options.device ?? request.device {
                guard let deviceKeys else { throw ProviderError.invalidOption(field: "device", detail: "needs --store: a bare key is already the device's key") }
                perDevice = try deviceKeys.key(
                    conversation: item.content.conversationID, device: PerDeviceSealing.checkRegistration(device, deviceKeys: deviceKeys))
            }
            let key = try bundle?.key ?? perDevice ?? item.key ?? keyProvider.currentKey(conversation: item.content.conversationID)
            result = try seal(item, key: key, options: options, sealer: sealer, bundle: bundle?.bundle)
        } catch let error as ProviderError {
            throw .failure("\(error)")
        } catch {
            var directory = "<dir>"
            if case let .store(location) = options.keySource {
                directory = ShellQuoting.quote(location.displayName)
                // A key store failure other than "no key" gets the store's own hints (rollback, tampering, locked).
                if let error = error as? KeyDirectoryError, error != .itemNotFound {
                    throw .failure(Diagnostic(
                        "no key for conversation '\(item.content.conversationID)': \(error)",
                        hints: KeyStoreDiagnostics.hints(for: error, location: location)))
                }
            }
            throw .failure(
                "no key for conversation '\(item.content.conversationID)': \(error)",
                hints: "add one with: pushseal store add --dir \(directory) --conversation \(ShellQuoting.quote(item.content.conversationID))")
        }
        switch result.path {
        case .complete: break
        case let .truncated(originalBodyLength): context.note("body truncated from \(originalBodyLength) bytes (trunc: true)")
        case .contentFree: context.note("content-free payload (the app must fetch the message)")
        }
        context.write(bytes: result.body)
        context.write("\n")
        return .success
    }

    /// With `--registration`: the conversation's current key in the `--store` key directory and
    /// its bundle for that device, sealed with the directory's current provider key.
    static func keyBundle(
        _ context: CommandContext, options: Options, conversation: String, directory: (any KeyDirectory)?
    ) throws(CLIError) -> (key: ConversationKey, bundle: KeyBundle, device: KeyID)? {
        guard context.arguments.isPresent(BundleCommand.registration), let store = directory, case let .store(location) = options.keySource,
              let registration = try BundleCommand.registration(context, directory: store, location: location)
        else {
            return nil
        }
        let sealed = try BundleCommand.seal(
            store: store, location: location, conversation: conversation, epoch: nil, providerKeyID: nil, registration: registration,
            now: StoreCommand.clock(nil)())
        return (sealed.deviceKey, sealed.bundle, registration.deviceKeyID)
    }

    /// One notification to seal: the content, its key (nil: the key provider's current key) and
    /// its per-line overrides.
    struct Item {
        var content: NotificationContent
        var key: ConversationKey?
        var fcmToken: String?
        var collapseID: String?
        /// The wrapper's per-message headers.
        var headers = MessageHeaders()
    }

    /// Applies `--conversation` and the per-line overrides.
    static func check(_ request: SealRequestLine, options: Options) throws(CLIError) -> Item {
        if let expected = options.expectedConversation, !expected.utf8.elementsEqual(request.content.conversationID.utf8) {
            throw .failure(
                "the content's cid '\(request.content.conversationID)' is not the conversation '\(expected)' given with --conversation",
                hints: "a receiver rejects such a notification as conversation_mismatch")
        }
        return Item(content: request.content, key: request.key, fcmToken: request.fcmToken, collapseID: request.collapseID, headers: request.headers)
    }

    /// The command's key source as a provider of current keys.
    static func makeKeyProvider(_ source: KeySource) throws(CLIError) -> any CurrentKeyProvider {
        switch source {
        case let .key(key):
            return DirectKey(key: key)
        case let .store(location):
            // Read through: every lookup reads the directory (SQLite or PostgreSQL), so a
            // rotation is used from the next line of a long-running --batch on.
            return DirectoryKeyProvider(directory: try StoreCommand.openDirectory(location))
        }
    }

    /// `--key`: the same key for every conversation.
    struct DirectKey: CurrentKeyProvider {
        let key: ConversationKey
        func currentKey(conversation: String) throws -> ConversationKey { key }
    }

    static func apnsOptions(_ options: Options, item: Item) throws(ProviderError) -> APNsOptions {
        try item.headers.applied(to: baseAPNsOptions(options, item: item))
    }

    /// The command's APNs options with the line's collapse id, before its headers.
    private static func baseAPNsOptions(_ options: Options, item: Item) -> APNsOptions {
        APNsOptions(
            placeholder: .text(title: options.placeholderTitle, body: options.placeholderBody), topic: options.apnsTopic,
            collapseID: item.collapseID)
    }

    static func fcmOptions(_ options: Options, item: Item) throws(ProviderError) -> FCMOptions {
        guard let token = item.fcmToken ?? options.fcmToken else {
            throw .invalidFCMToken("missing: give --fcm-token, or fcm_token in the request wrapper")
        }
        return try item.headers.applied(
            to: FCMOptions(token: token, apns: options.transport == .fcmAPNs ? baseAPNsOptions(options, item: item) : nil))
    }

    /// Seals one item with `key` (with `--salt`: deterministically).
    static func seal(
        _ item: Item, key: ConversationKey, options: Options, sealer: NotificationSealer, bundle: KeyBundle? = nil
    ) throws(ProviderError) -> (body: [UInt8], path: SealPath) {
        switch options.transport {
        case .fcm, .fcmAPNs:
            var fcm = try fcmOptions(options, item: item)
            fcm.keyBundle = bundle
            let message = try seal(item.content, key: key, options: fcm, salt: options.salt, sealer: sealer)
            return (message.body, message.path)
        case .apns:
            var apns = try apnsOptions(options, item: item)
            apns.keyBundle = bundle
            let request = try seal(item.content, key: key, options: apns, salt: options.salt, sealer: sealer)
            return (options.withHeaders ? try withHeaders(request) : request.body, request.path)
        }
    }

    /// Seals `content` with `key` for the transport of `options`, with `salt` when given (`--salt`).
    private static func seal<TransportChoice: TransportOptions>(
        _ content: NotificationContent, key: ConversationKey, options: TransportChoice, salt: [UInt8]?, sealer: NotificationSealer
    ) throws(ProviderError) -> TransportChoice.SealedRequest {
        if let salt { return try sealer.seal(content, with: key, options: options, salt: salt) }
        return try sealer.seal(content, with: key, options: options)
    }

    /// `{"headers":{…},"payload":<body>}` (`--with-headers`): the exact body, and its headers as
    /// strings in ``APNsRequest/headers()`` order.
    static func withHeaders(_ request: APNsRequest) throws(ProviderError) -> [UInt8] {
        var writer = JSONWriter(capacity: request.body.count + 160)
        writer.appendRaw("{\"headers\":{")
        for (index, header) in try request.headers().enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendString(header.name)
            writer.appendRaw(":")
            writer.appendString(header.value)
        }
        writer.appendRaw("},\"payload\":")
        writer.appendRaw(bytes: request.body)
        writer.appendRaw("}")
        return writer.bytes
    }

    /// `--batch`: one request per input line, one payload or error object per output line, by
    /// the provider's streaming sealer (`NotificationSealer.seal(lines:…)`): bounded memory, each
    /// group of lines sealed on all cores and its results written in input order and flushed
    /// before more input is read, so a caller may keep the process as a co-process and read
    /// each line's result after writing that line.
    static func runBatch(
        _ context: inout CommandContext, options: Options, sealer: NotificationSealer, keyProvider: any CurrentKeyProvider,
        deviceKeys: DeviceKeys? = nil
    ) throws(CLIError) -> ExitCode {
        let reader = try context.inputLines(from: options.inputPath, what: "content", maximumLineByteCount: SealRequestLine.maximumByteCount)
        var failed = false
        let lineCount: Int
        if options.transport.isFCM {
            lineCount = try sealer.seal(lines: reader, keyProvider: keyProvider, item: { (request) throws(ProviderError) in
                let item = try batchItem(request, options: options, deviceKeys: deviceKeys)
                return BatchItem(content: item.content, key: item.key, options: try fcmOptions(options, item: item))
            }, outcomes: { (outcomes) throws(CLIError) in
                for outcome in outcomes {
                    failed = failed || outcome.isFailure
                    write(outcome.result.map(\.body), line: outcome.line, to: &context)
                }
                try context.flush()
            })
        } else {
            lineCount = try sealer.seal(lines: reader, keyProvider: keyProvider, item: { (request) throws(ProviderError) in
                let item = try batchItem(request, options: options, deviceKeys: deviceKeys)
                return BatchItem(content: item.content, key: item.key, options: try apnsOptions(options, item: item))
            }, outcomes: { (outcomes) throws(CLIError) in
                for outcome in outcomes {
                    let output = outcome.result.flatMap { request in
                        Result { () throws(ProviderError) in options.withHeaders ? try withHeaders(request) : request.body }
                    }
                    failed = failed || outcome.isFailure
                    write(output, line: outcome.line, to: &context)
                }
                try context.flush()
            })
        }
        if lineCount == 0 { throw context.emptyInput(from: options.inputPath, what: "content") }
        return failed ? .failure : .success
    }

    /// A `--batch` line's item: `--conversation` checked, and a `device` member's key.
    static func batchItem(_ request: SealRequestLine, options: Options, deviceKeys: DeviceKeys?) throws(ProviderError) -> Item {
        if let expected = options.expectedConversation, !expected.utf8.elementsEqual(request.content.conversationID.utf8) {
            throw .invalidOption(field: "cid", detail: "is not the conversation given with --conversation")
        }
        var item = Item(content: request.content, key: request.key, fcmToken: request.fcmToken, collapseID: request.collapseID, headers: request.headers)
        if let device = request.device {
            guard request.key == nil else { throw .invalidOption(field: "device", detail: "give either key or device, not both") }
            guard let deviceKeys else { throw .invalidOption(field: "device", detail: "needs --store: a bare key is already the device's key") }
            item.key = try deviceKeys.key(
                conversation: request.content.conversationID, device: PerDeviceSealing.checkRegistration(device, deviceKeys: deviceKeys))
        }
        return item
    }

    /// A line's output: the payload, or the JSON-lines error object for line `line` (from 1).
    private static func write(_ output: Result<[UInt8], ProviderError>, line: Int, to context: inout CommandContext) {
        switch output {
        case let .success(body): context.write(bytes: body)
        case let .failure(error): context.write(bytes: error.jsonLine(line: line))
        }
        context.write("\n")
    }
}

