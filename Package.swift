// swift-tools-version:6.0
import PackageDescription

// Where the C libraries come from the system (pkg-config, Debian packages): everywhere but Apple
// platforms, which use CryptoKit and the SDK's SQLite3 instead. Xcode has been reported to ignore
// platform conditions on C targets, so every `import CSodium` / `import CSQLite` is also inside
// an `#if` in the Swift code.
let systemLibraryPlatforms: [Platform] = [.linux, .android, .windows, .wasi, .openbsd]

let package = Package(
    name: "PushSeal",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "PushSealCore", targets: ["PushSealCore"]),
        .library(name: "PushSealKeyDirectory", targets: ["PushSealKeyDirectory"]),
        .library(name: "PushSealKeyStore", targets: ["PushSealKeyStore"]),
        .library(name: "PushSealKeyDirectorySQLite", targets: ["PushSealKeyDirectorySQLite"]),
        .library(name: "PushSealReceiver", targets: ["PushSealReceiver"]),
        .library(name: "PushSealNotificationService", targets: ["PushSealNotificationService"]),
        .library(name: "PushSealProvider", targets: ["PushSealProvider"]),
        .library(name: "PushSealDelivery", targets: ["PushSealDelivery"]),
        .library(name: "PushSealKeyDirectoryPostgreSQL", targets: ["PushSealKeyDirectoryPostgreSQL"]),
        .executable(name: "pushseal", targets: ["pushseal"]),
        .executable(name: "pushseal-full", targets: ["pushseal-full"]),
    ],
    targets: [
        // C libraries from the system (Debian: libsodium-dev, libsqlite3-dev), not on Apple
        // platforms. Never part of the public API.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // Delivery only (libcurl4-openssl-dev, libssl-dev): HTTP/2 with TLS, and ES256/RS256 tokens.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // The key directory on PostgreSQL only (libpq-dev). Never part of the public API.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // The two wrappers Swift needs around SQLite's C API (a variadic call, a macro), for the
        // system's SQLite and the SDK's alike.
        .target(name: "CSQLiteShims", linkerSettings: [.linkedLibrary("sqlite3")]),

        // The platform layer every module uses (package access; not a product): the C library's
        // one import, the monotonic clock, errno text, the file system and directory listing,
        // process spawning. No Foundation (cold start matters).
        .target(name: "PushSealPlatform"),

        // The strict JSON reader and the deterministic writer (package access; not a product).
        .target(name: "PushSealJSON", dependencies: ["PushSealPlatform"]),

        // Wire format v1 and the cryptography it is built from. Primitives/ is the only code that
        // touches a crypto library: CryptoKit on Apple platforms, libsodium elsewhere.
        .target(
            name: "PushSealCore",
            dependencies: ["PushSealPlatform", "PushSealJSON", .target(name: "CSodium", condition: .when(platforms: systemLibraryPlatforms))]),

        // The key directory's model, written once for every backend (Docs/KEY-STORE.md): the
        // `KeyDirectory` protocol, its items and errors, the sealing of rows, the master-key
        // sources, and the caching current-key provider. No SQLite, no libpq.
        .target(name: "PushSealKeyDirectory", dependencies: ["PushSealPlatform", "PushSealCore"]),

        // The keychain-like key store on SQLite (Docs/KEY-STORE.md).
        .target(
            name: "PushSealKeyStore",
            dependencies: ["PushSealPlatform", "PushSealCore", "PushSealKeyDirectory", "CSQLiteShims", .target(name: "CSQLite", condition: .when(platforms: systemLibraryPlatforms))]),

        // The provider's key directory on SQLite (conversation keys, provider key pairs, device
        // registrations) over the device store's file. The receiver never links it.
        .target(name: "PushSealKeyDirectorySQLite", dependencies: ["PushSealCore", "PushSealKeyDirectory", "PushSealKeyStore"]),

        // Helper process for the key store's multi-process and kill -9 tests (test support, not a product).
        .executableTarget(
            name: "pushseal-store-worker", dependencies: ["PushSealPlatform", "PushSealCore", "PushSealKeyDirectory", "PushSealKeyStore", "PushSealKeyDirectorySQLite"],
            path: "Tests/Workers/pushseal-store-worker"),

        // The receiver: open with fallback, exactly-once extension session (platform-neutral).
        .target(name: "PushSealReceiver", dependencies: ["PushSealPlatform", "PushSealCore", "PushSealJSON", "PushSealKeyDirectory", "PushSealKeyStore"]),

        // Apple-only adapters (UserNotifications, Intents) over the receiver; empty elsewhere.
        .target(name: "PushSealNotificationService", dependencies: ["PushSealCore", "PushSealReceiver"]),

        // The provider side: seal contents into APNs / FCM payloads that always fit.
        .target(name: "PushSealProvider", dependencies: ["PushSealPlatform", "PushSealCore", "PushSealJSON", "PushSealKeyDirectory"]),

        // The provider's key directory on a PostgreSQL server shared by many backend nodes, with the
        // LISTEN/NOTIFY-invalidated key cache (Docs/PROVIDER.md §6.1). The receiver never links it.
        .target(name: "PushSealKeyDirectoryPostgreSQL", dependencies: ["PushSealPlatform", "PushSealCore", "PushSealKeyDirectory", "CLibPQ"]),

        // Helper process for the PostgreSQL directory's multi-process, kill -9 and staleness tests and
        // scripts/postgres-reliability.sh (test support, not a product).
        .executableTarget(
            name: "pushseal-keydir-worker",
            dependencies: ["PushSealPlatform", "PushSealCore", "PushSealKeyDirectory", "PushSealKeyStore", "PushSealProvider", "PushSealKeyDirectoryPostgreSQL"],
            path: "Tests/Workers/pushseal-keydir-worker"),

        // Sending sealed notifications to APNs and FCM over HTTP/2 (Docs/PROVIDER.md, "Sending").
        // The receiver never links it.
        .target(name: "PushSealDelivery", dependencies: ["PushSealPlatform", "PushSealCore", "PushSealJSON", "PushSealProvider", "CCurl", "COpenSSL"]),

        // Deterministic test vectors (Vectors/pushseal-v1.json).
        .target(name: "PushSealVectors", dependencies: ["PushSealCore", "PushSealJSON", "PushSealKeyDirectory", "PushSealKeyStore", "PushSealProvider", "PushSealReceiver"]),

        // Thread processor affinity for the bench's one-core figures (glibc's _GNU_SOURCE calls).
        .target(name: "CBenchAffinity"),

        // `pushseal bench`: measures sealing, opening and key store lookups next to the raw AEAD of
        // the crypto backend (internal module, not a product).
        .target(name: "PushSealBench", dependencies: ["PushSealPlatform", "CBenchAffinity", "PushSealCore", "PushSealJSON", "PushSealKeyDirectory", "PushSealKeyStore", "PushSealKeyDirectorySQLite", "PushSealProvider", "PushSealReceiver"]),

        // Hand-written argument parsing, help and diagnostics in swift-argument-parser's style,
        // and the standard streams (no Foundation: cold start matters).
        .target(name: "PushSealCLIKit", dependencies: ["PushSealPlatform"]),

        // The commands of the `pushseal` tool (its command tree, parsing, diagnostics), shared by
        // `pushseal` and its companion `pushseal-full` (not a product).
        .target(
            name: "PushSealCommands",
            dependencies: ["PushSealPlatform", "PushSealCore", "PushSealJSON", "PushSealKeyDirectory", "PushSealKeyStore", "PushSealKeyDirectorySQLite", "PushSealProvider", "PushSealReceiver", "PushSealVectors", "PushSealCLIKit", "PushSealBench"]),

        // The backends the static `pushseal` cannot link here (libpq, libcurl), for the command
        // tree: the PostgreSQL key directory and `send`'s delivery in process (not a product).
        .target(
            name: "PushSealCompanion",
            dependencies: [
                "PushSealPlatform", "PushSealCLIKit", "PushSealCommands", "PushSealJSON", "PushSealKeyDirectory", "PushSealKeyDirectoryPostgreSQL",
                "PushSealDelivery",
            ]),

        // The command-line tool.
        // Release builds on Linux link it fully statically (glibc, libsodium, SQLite, the Swift
        // runtime): a cold `pushseal open` then spends no time in the dynamic loader, which was
        // 61 % of its instructions and a third of its wall time (Docs/PERFORMANCE.md §5.3). There
        // it runs `pushseal-full` in its place for what needs libpq or libcurl (decided once, in
        // its `main`); on macOS, where everything links, it is the one executable.
        .executableTarget(
            name: "pushseal",
            dependencies: ["PushSealPlatform", "PushSealCommands", .target(name: "PushSealCompanion", condition: .when(platforms: [.macOS]))],
            linkerSettings: [.unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release))]),

        // The companion: the same command tree with every backend (linked dynamically): `send`
        // seals and delivers in one process, a `--dir`/`--store` connection URI opens the
        // PostgreSQL key directory (Docs/CLI.md, "The companion executable").
        .executableTarget(name: "pushseal-full", dependencies: ["PushSealPlatform", "PushSealCommands", "PushSealCompanion"]),

        // libFuzzer targets (Docs/FUZZING.md). A plain build makes corpus-replay executables;
        // scripts/fuzz.sh builds them with --sanitize=fuzzer and -DFUZZING, where libFuzzer owns main.
        .target(name: "FuzzSupport", dependencies: ["PushSealPlatform"], path: "Sources/Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzEnvelope", dependencies: ["PushSealCore", "PushSealPlatform", "FuzzSupport"], path: "Sources/Fuzz/FuzzEnvelope"),
        .executableTarget(name: "FuzzContent", dependencies: ["PushSealCore", "PushSealJSON", "PushSealPlatform", "FuzzSupport"], path: "Sources/Fuzz/FuzzContent"),
        .executableTarget(
            name: "FuzzBundle", dependencies: ["PushSealCore", "PushSealJSON", "PushSealReceiver", "PushSealPlatform", "FuzzSupport"], path: "Sources/Fuzz/FuzzBundle"),
        .executableTarget(name: "FuzzOpen", dependencies: ["PushSealCore", "PushSealJSON", "PushSealReceiver", "PushSealPlatform", "FuzzSupport"], path: "Sources/Fuzz/FuzzOpen"),
        .executableTarget(
            name: "FuzzProviderSizing", dependencies: ["PushSealCore", "PushSealJSON", "PushSealProvider", "PushSealReceiver", "PushSealPlatform", "FuzzSupport"],
            path: "Sources/Fuzz/FuzzProviderSizing"),
        .executableTarget(
            name: "FuzzDeliveryLog", dependencies: ["PushSealCore", "PushSealKeyStore", "PushSealPlatform", "FuzzSupport"],
            path: "Sources/Fuzz/FuzzDeliveryLog"),

        // The seed of every randomized test (PUSHSEAL_TEST_SEED), shared by the test targets.
        .target(name: "PushSealTestSupport", dependencies: ["PushSealPlatform"], path: "Tests/PushSealTestSupport"),
        .testTarget(name: "PushSealCoreTests", dependencies: ["PushSealPlatform", "PushSealCore", "PushSealJSON", "PushSealTestSupport"]),
        .testTarget(name: "PushSealVectorsTests", dependencies: ["PushSealCore", "PushSealKeyDirectory", "PushSealKeyStore", "PushSealKeyDirectorySQLite", "PushSealProvider", "PushSealReceiver", "PushSealVectors"]),
        .testTarget(name: "PushSealReceiverTests", dependencies: ["PushSealCore", "PushSealJSON", "PushSealKeyDirectory", "PushSealKeyStore", "PushSealKeyDirectorySQLite", "PushSealReceiver", "PushSealTestSupport"]),
        // Runs the built `pushseal` executable (depending on it makes `swift test` build it), and
        // unit-tests PushSealCLIKit and the command declarations in process. CSQLite: store tests
        // tamper with a store file directly.
        .testTarget(
            name: "PushSealCLITests",
            dependencies: [
                "PushSealPlatform", "PushSealCore", "PushSealJSON", "PushSealKeyDirectory", "PushSealCLIKit", "PushSealCommands", "pushseal", "pushseal-full",
                "PushSealTestSupport",
                .target(name: "CSQLite", condition: .when(platforms: systemLibraryPlatforms)),
            ]),
        .testTarget(
            name: "PushSealKeyStoreTests",
            // The worker executable is a dependency so that `swift test` builds it next to the test bundle.
            dependencies: [
                "PushSealPlatform", "PushSealCore", "PushSealKeyDirectory", "PushSealKeyStore", "PushSealKeyDirectorySQLite", "pushseal-store-worker",
                .target(name: "CSQLite", condition: .when(platforms: systemLibraryPlatforms)),
            ]
        ),
        .testTarget(name: "PushSealProviderTests", dependencies: ["PushSealPlatform", "PushSealCore", "PushSealJSON", "PushSealKeyDirectory", "PushSealProvider", "PushSealTestSupport"]),
        // Against the throwaway PostgreSQL cluster that scripts/with-postgres.sh starts (they fail without it).
        .testTarget(
            name: "PushSealKeyDirectoryPostgreSQLTests",
            dependencies: ["PushSealPlatform", "PushSealCore", "PushSealJSON", "PushSealKeyDirectory", "PushSealKeyStore", "PushSealProvider", "PushSealKeyDirectoryPostgreSQL", "pushseal-keydir-worker"]),
        // Against the local APNs/FCM emulator that scripts/with-push-emulator.sh starts.
        .testTarget(name: "PushSealDeliveryTests", dependencies: ["PushSealCore", "PushSealJSON", "PushSealProvider", "PushSealDelivery"]),
    ],
    swiftLanguageModes: [.v6]
)
