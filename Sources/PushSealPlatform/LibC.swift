// The one import of the C library for the whole package. Every module gets the C library by
// `import PushSealPlatform` instead of its own `#if canImport(Glibc) … #elseif canImport(Musl) …
// #elseif canImport(Darwin)` block.
//
// Why a re-export rather than only wrappers: the modules use well over a hundred C calls and
// types (read, write, pipe, fcntl, stat, mmap, pthread_*, sysconf, getrandom, …), most of them
// once, inside code whose job is exactly that call. Wrapping each would be a second spelling of
// the C API for no gain; what was repeated (the clock, errno text, the file system and directory
// listing, spawning and waiting) has one package-level API here instead, and the modules use it.
#if canImport(Glibc)
@_exported public import Glibc
#elseif canImport(Musl)
@_exported public import Musl
#elseif canImport(Darwin)
@_exported public import Darwin
#endif
