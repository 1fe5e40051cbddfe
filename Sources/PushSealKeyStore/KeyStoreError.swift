import PushSealKeyDirectory

/// The key store's errors, now every key directory's (module PushSealKeyDirectory).
@available(*, deprecated, renamed: "KeyDirectoryError")
public typealias KeyStoreError = KeyDirectoryError

/// The SQLite store, now two types: the device's store (this module) and the provider's key
/// directory (`SQLiteKeyDirectory`, module PushSealKeyDirectorySQLite).
@available(*, deprecated, renamed: "DeviceKeyStore")
public typealias KeyStore = DeviceKeyStore
