// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PushSeal",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "PushSealCore", targets: ["PushSealCore"]),
        .library(name: "PushSealKeyStore", targets: ["PushSealKeyStore"]),
        .library(name: "PushSealReceiver", targets: ["PushSealReceiver"]),
        .library(name: "PushSealNotificationService", targets: ["PushSealNotificationService"]),
        .library(name: "PushSealProvider", targets: ["PushSealProvider"]),
        .library(name: "PushSealDelivery", targets: ["PushSealDelivery"]),
        .executable(name: "pushseal", targets: ["pushseal"]),
        .executable(name: "pushseal-deliver", targets: ["pushseal-deliver"]),
    ],
    targets: [
        // C libraries from the system (Debian: libsodium-dev, libsqlite3-dev). Never part of the public API.
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

        // Wire format v1 and the cryptography it is built from.
        .target(name: "PushSealCore", dependencies: ["CSodium"]),

        // The keychain-like key store on SQLite (Docs/KEY-STORE.md).
        .target(name: "PushSealKeyStore", dependencies: ["PushSealCore", "CSodium", "CSQLite"]),

        // Helper process for the key store's multi-process and kill -9 tests (not a product).
        .executableTarget(name: "pushseal-store-worker", dependencies: ["PushSealCore", "PushSealKeyStore"]),

        // The receiver: open with fallback, exactly-once extension session (platform-neutral).
        .target(name: "PushSealReceiver", dependencies: ["PushSealCore", "PushSealKeyStore"]),

        // Apple-only adapters (UserNotifications, Intents) over the receiver; empty elsewhere.
        .target(name: "PushSealNotificationService", dependencies: ["PushSealCore", "PushSealReceiver"]),

        // The provider side: seal contents into APNs / FCM payloads that always fit.
        .target(name: "PushSealProvider", dependencies: ["PushSealCore", "PushSealKeyStore"]),

        // Sending sealed notifications to APNs and FCM over HTTP/2 (Docs/PROVIDER.md, "Sending").
        // The receiver never links it.
        .target(name: "PushSealDelivery", dependencies: ["PushSealCore", "PushSealProvider", "CCurl", "COpenSSL"]),

        // The delivering half of `pushseal send`: `pushseal` seals and streams the requests to this
        // helper (started next to itself), so that libcurl, which cannot be linked statically
        // here, stays out of the static `pushseal` (Docs/CLI.md, `send`).
        .executableTarget(
            name: "pushseal-deliver", dependencies: ["PushSealCore", "PushSealProvider", "PushSealDelivery", "PushSealCLIKit"]),

        // Deterministic test vectors (Vectors/pushseal-v1.json).
        .target(name: "PushSealVectors", dependencies: ["PushSealCore", "PushSealProvider", "PushSealReceiver"]),

        // Thread processor affinity for the bench's one-core figures (glibc's _GNU_SOURCE calls).
        .target(name: "CBenchAffinity"),

        // `pushseal bench`: measures sealing, opening and key store lookups next to raw libsodium
        // (internal module, not a product; it calls libsodium directly for the limit figures).
        .target(name: "PushSealBench", dependencies: ["CBenchAffinity", "CSodium", "PushSealCore", "PushSealKeyStore", "PushSealProvider", "PushSealReceiver"]),

        // Hand-written argument parsing, help and diagnostics in swift-argument-parser's style,
        // and a small I/O layer over Glibc/Darwin (no Foundation: cold start matters).
        .target(name: "PushSealCLIKit"),

        // The command-line tool.
        // Release builds on Linux link it fully statically (glibc, libsodium, SQLite, the Swift
        // runtime): a cold `pushseal open` then spends no time in the dynamic loader, which was
        // 61 % of its instructions and a third of its wall time (Docs/PERFORMANCE.md §5.3).
        .executableTarget(
            name: "pushseal",
            dependencies: ["PushSealCore", "PushSealKeyStore", "PushSealProvider", "PushSealReceiver", "PushSealVectors", "PushSealCLIKit", "PushSealBench"],
            linkerSettings: [.unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release))]),

        // libFuzzer targets (Docs/FUZZING.md). A plain build makes corpus-replay executables;
        // scripts/fuzz.sh builds them with --sanitize=fuzzer and -DFUZZING, where libFuzzer owns main.
        .target(name: "FuzzSupport", path: "Sources/Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzEnvelope", dependencies: ["PushSealCore", "FuzzSupport"], path: "Sources/Fuzz/FuzzEnvelope"),
        .executableTarget(name: "FuzzContent", dependencies: ["PushSealCore", "FuzzSupport"], path: "Sources/Fuzz/FuzzContent"),
        .executableTarget(name: "FuzzOpen", dependencies: ["PushSealCore", "PushSealReceiver", "FuzzSupport"], path: "Sources/Fuzz/FuzzOpen"),
        .executableTarget(
            name: "FuzzProviderSizing", dependencies: ["PushSealCore", "PushSealProvider", "PushSealReceiver", "FuzzSupport"],
            path: "Sources/Fuzz/FuzzProviderSizing"),

        .testTarget(name: "PushSealCoreTests", dependencies: ["PushSealCore"]),
        .testTarget(name: "PushSealVectorsTests", dependencies: ["PushSealCore", "PushSealKeyStore", "PushSealProvider", "PushSealReceiver", "PushSealVectors"]),
        .testTarget(name: "PushSealReceiverTests", dependencies: ["PushSealCore", "PushSealKeyStore", "PushSealReceiver"]),
        // Runs the built `pushseal` executable (depending on it makes `swift test` build it), and
        // unit-tests PushSealCLIKit and the command declarations in process. CSQLite: store tests
        // tamper with a store file directly.
        .testTarget(name: "PushSealCLITests", dependencies: ["PushSealCore", "PushSealCLIKit", "PushSealBench", "pushseal", "pushseal-deliver", "CSQLite"]),
        .testTarget(
            name: "PushSealKeyStoreTests",
            // The worker executable is a dependency so that `swift test` builds it next to the test bundle.
            dependencies: ["PushSealCore", "PushSealKeyStore", "CSQLite", "pushseal-store-worker"]
        ),
        .testTarget(name: "PushSealProviderTests", dependencies: ["PushSealCore", "PushSealProvider"]),
        // Against the local APNs/FCM emulator that scripts/with-push-emulator.sh starts.
        .testTarget(name: "PushSealDeliveryTests", dependencies: ["PushSealCore", "PushSealProvider", "PushSealDelivery"]),
    ],
    swiftLanguageModes: [.v6]
)
