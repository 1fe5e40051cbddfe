import PushSealCore
import PushSealProvider

/// Key bundle figures (SPEC §16), each next to the raw X25519 operations it cannot avoid, in the
/// same run: sealing needs the ephemeral key pair (a random scalar and one base-point
/// multiplication) and two DH; opening needs two DH. The rest (HKDF, ChaCha20-Poly1305, the
/// header) is what the ratio measures.
enum BundleWorkloads {
    static let sealName = "bundle.seal"
    static let openName = "bundle.open"
    static let sealLimitName = "x25519.keygen+2dh"
    static let openLimitName = "x25519.2dh"
    /// Devices one epoch key is sealed to in the fan-out figures.
    static let fanOutDevices = 1_000

    static func fanOutName(allCores: Bool) -> String { "bundle.fanout.\(fanOutDevices)" + (allCores ? ".allcores" : "") }

    /// The fixed identities every worker uses (the device and provider keys do not change per bundle).
    struct Identities {
        let device = IdentityKeyPair.generate()
        let provider = IdentityKeyPair.generate()
        let key = ConversationKey.generate()
        var registration: DeviceRegistration { try! DeviceRegistration(publicKey: device.publicKey) }
    }

    /// The limit of sealing: a fresh X25519 private key, its public key, two shared secrets.
    static func sealLimit(_ ids: Identities) -> Workload {
        Workload(name: sealLimitName, group: "limit", makeWorker: {
            let providerPrivate = ids.provider.withUnsafePrivateKeyBytes { SecretKey(bytes: $0) }
            return Worker { iterations in
                var total = 0
                for _ in 0..<iterations {
                    let ephemeral = X25519.generatePrivateKey()
                    let enc = try! X25519.publicKey(for: ephemeral)
                    let first = try! X25519.sharedSecret(privateKey: ephemeral, publicKey: ids.device.publicKey)
                    let second = try! X25519.sharedSecret(privateKey: providerPrivate, publicKey: ids.device.publicKey)
                    total &+= Int(enc[0]) &+ first.withUnsafeBytes { Int($0[0]) } &+ second.withUnsafeBytes { Int($0[0]) }
                }
                return total
            }
        })
    }

    /// `KeyBundle.seal`: the device key K_d, fresh ephemeral key, HPKE auth-mode setup and seal.
    static func seal(_ ids: Identities) -> Workload {
        Workload(name: sealName, group: "bundle", limit: sealLimitName, makeWorker: {
            let registration = ids.registration
            return Worker { iterations in
                var total = 0
                for _ in 0..<iterations {
                    let bundle = try! KeyBundle.seal(
                        conversationKey: ids.key, conversation: Fixtures.conversation, epoch: 2, since: Fixtures.sentAt, retireBy: nil,
                        expires: Fixtures.sentAt + KeyBundle.defaultLifetime, provider: ids.provider, device: registration)
                    total &+= Int(bundle.bytes[100])
                }
                return total
            }
        })
    }

    /// The limit of opening: the two shared secrets of the recipient.
    static func openLimit(_ ids: Identities) -> Workload {
        Workload(name: openLimitName, group: "limit", makeWorker: {
            let devicePrivate = ids.device.withUnsafePrivateKeyBytes { SecretKey(bytes: $0) }
            let enc = IdentityKeyPair.generate().publicKey
            return Worker { iterations in
                var total = 0
                for _ in 0..<iterations {
                    let first = try! X25519.sharedSecret(privateKey: devicePrivate, publicKey: enc)
                    let second = try! X25519.sharedSecret(privateKey: devicePrivate, publicKey: ids.provider.publicKey)
                    total &+= first.withUnsafeBytes { Int($0[0]) } &+ second.withUnsafeBytes { Int($0[0]) }
                }
                return total
            }
        })
    }

    /// `KeyBundle.open` (parse, provider id, HPKE auth-mode setup and open, fields, kid, expiry): no store.
    static func open(_ ids: Identities) -> Workload {
        Workload(name: openName, group: "bundle", limit: openLimitName, makeWorker: {
            let bundles = (0..<16).map { _ in
                try! KeyBundle.seal(
                    conversationKey: ids.key, conversation: Fixtures.conversation, epoch: 2, since: Fixtures.sentAt, retireBy: nil,
                    expires: Fixtures.sentAt + KeyBundle.defaultLifetime, provider: ids.provider, device: ids.registration).text
            }
            let pinned = [ids.provider.publicKey]
            return Worker { iterations in
                var total = 0
                for index in 0..<iterations {
                    let bundle = try! KeyBundle(text: bundles[index % bundles.count])
                    let opened = try! bundle.open(device: ids.device, pinnedProviderKeys: pinned, now: Fixtures.sentAt)
                    total &+= opened.conversation.utf8.count
                }
                return total
            }
        })
    }

    /// One epoch key sealed to 1,000 devices with the fan-out API: on one core (the base), or on
    /// every core (compared with it as a speedup).
    static func fanOut(_ ids: Identities, cores: Int) -> Workload {
        let allCores = cores > 1
        return Workload(
            name: fanOutName(allCores: allCores), group: "bundle", cores: cores, operationsPerIteration: fanOutDevices,
            limit: sealLimitName, speedupBase: allCores ? fanOutName(allCores: false) : nil, maximumIterations: 1 << 12,
            attributes: [("devices", .integer(fanOutDevices))],
            makeWorker: {
                let devices = (0..<fanOutDevices).map { _ in try! DeviceRegistration(publicKey: IdentityKeyPair.generate().publicKey) }
                return Worker { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        let results = KeyBundle.seal(
                            conversationKey: ids.key, conversation: Fixtures.conversation, epoch: 2, since: Fixtures.sentAt, retireBy: nil,
                            expires: Fixtures.sentAt + KeyBundle.defaultLifetime, provider: ids.provider, devices: devices, maximumThreads: cores)
                        total &+= results.count
                    }
                    return total
                }
            })
    }
}
