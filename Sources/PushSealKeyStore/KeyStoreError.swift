import PushSealKeyDirectory

/// The key store's errors, now every key directory's (module PushSealKeyDirectory).
@available(*, deprecated, renamed: "KeyDirectoryError")
public typealias KeyStoreError = KeyDirectoryError
