// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PushSeal",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "PushSealCore", targets: ["PushSealCore"]),
        .library(name: "PushSealKeyStore", targets: ["PushSealKeyStore"]),
        .executable(name: "pushseal", targets: ["pushseal"]),
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

        // Wire format v1 and the cryptography it is built from.
        .target(name: "PushSealCore", dependencies: ["CSodium"]),

        // The keychain-like key store on SQLite (Docs/KEY-STORE.md).
        .target(name: "PushSealKeyStore", dependencies: ["PushSealCore", "CSodium", "CSQLite"]),

        // Helper process for the key store's multi-process and kill -9 tests (not a product).
        .executableTarget(name: "pushseal-store-worker", dependencies: ["PushSealCore", "PushSealKeyStore"]),

        // Deterministic test vectors (Vectors/pushseal-v1.json).
        .target(name: "PushSealVectors", dependencies: ["PushSealCore"]),

        // The command-line tool.
        .executableTarget(name: "pushseal", dependencies: ["PushSealCore", "PushSealVectors"]),

        .testTarget(name: "PushSealCoreTests", dependencies: ["PushSealCore"]),
        .testTarget(name: "PushSealVectorsTests", dependencies: ["PushSealCore", "PushSealVectors"]),
        .testTarget(
            name: "PushSealKeyStoreTests",
            // The worker executable is a dependency so that `swift test` builds it next to the test bundle.
            dependencies: ["PushSealCore", "PushSealKeyStore", "CSQLite", "pushseal-store-worker"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
